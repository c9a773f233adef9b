// neighbor_list and neighbor_list_batch: a drop-in for ASE's
// ase.neighborlist.neighbor_list ("ijdDS" in any order), one system or many
// small ones in one call. The engine is the library's AseNeighborList
// (include/broadphase/ase_neighbor_list.hpp: ASE's rules, the direct path
// for small systems, the library's NeighborList for larger ones, ASE's
// order); this file parses and checks the arguments, calls it, and builds
// the numpy arrays.
//
// Arrays: small systems (AseNeighborList::find_direct) write straight into
// the returned arrays where every array fits under 120 KiB at the estimated
// size: numpy arrays made at that size, grown if short and cut to size at
// the end (a realloc that shrinks in place: no copy). Larger arrays would
// come from mmap (glibc maps blocks over 128 KiB; one cut to size raises
// its threshold only to the size cut to, so the next call's estimate is
// mapped again, page faults every call): those go to kept scratch arrays
// and are copied once into arrays of the exact size. Larger systems
// (AseNeighborList::list, then write) are listed first, then written into
// arrays of the exact size.
//
// State: one AseNeighborList (its NeighborList and scratch) and the scratch
// arrays above, kept in the module between calls under a mutex, so that a
// call after the first allocates nothing but the returned arrays. The GIL
// is released while a large system is listed (over 4,096 atoms) and while
// a large answer (over 100,000 entries) is written. _ase_release() frees
// them.

#include "bindings.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include <broadphase/ase_neighbor_list.hpp>

namespace broadphase_python {
namespace {

using Mat3 = std::array<std::array<double, 3>, 3>;

std::string type_name(py::handle o) { return std::string(py::str(o.get_type().attr("__name__"))); }

/// obj as an array of numbers (bool excluded unless `bools`): TypeError
/// for strings, objects and anything numpy cannot make numeric.
py::array numeric(py::handle obj, const char* what, bool bools = false) {
    if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj))
        raise_type(std::string(what) + " must be numbers, not " + type_name(obj));
    py::array a = py::array::ensure(obj);
    if (!a) {
        PyErr_Clear();
        raise_type(std::string(what) + " must be an array of numbers, not " + type_name(obj));
    }
    const char k = a.dtype().kind();
    if (!(k == 'f' || k == 'i' || k == 'u' || (bools && k == 'b')))
        raise_type(std::string(what) + " must be an array of numbers; got dtype " + std::string(py::str(a.dtype())));
    return a;
}

using F64 = py::array_t<double, py::array::c_style | py::array::forcecast>;
using I64 = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

F64 as_f64(py::handle obj, const char* what) {
    py::array a = numeric(obj, what);
    return F64::ensure(a);
}

std::string shape_str(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t k = 0; k < a.ndim(); ++k) s += (k ? ", " : "") + std::to_string(a.shape(k));
    return s + (a.ndim() == 1 ? ",)" : ")");
}

/// What the caller asked for.
struct Wants {
    std::string q;
    bool i = false, j = false, d = false, D = false, S = false;
    bp::AseQuantities quantities() const {
        bp::AseQuantities a;
        a.i = i, a.j = j, a.d = d, a.D = D, a.S = S;
        return a;
    }
};

Wants parse_quantities(py::handle q) {
    if (!py::isinstance<py::str>(q)) raise_type("quantities must be a str over 'ijdDS', not " + type_name(q));
    Wants w;
    w.q = py::cast<std::string>(q);
    for (char c : w.q) {
        switch (c) {
            case 'i': w.i = true; break;
            case 'j': w.j = true; break;
            case 'd': w.d = true; break;
            case 'D': w.D = true; break;
            case 'S': w.S = true; break;
            default:
                raise_value(std::string("unsupported quantity '") + c + "' in '" + w.q +
                            "': quantities are any of i, j, d, D, S");
        }
    }
    return w;
}

/// pbc: one bool, or three (a list, tuple or numpy array of bools or 0/1).
std::array<bool, 3> parse_pbc(py::handle obj, const std::string& what) {
    std::array<bool, 3> p{};
    if (py::isinstance<py::bool_>(obj)) {
        p.fill(obj.cast<bool>());
        return p;
    }
    py::array a = numeric(obj, what.c_str(), true);
    if (a.ndim() == 0) {
        const bool v = py::cast<bool>(py::bool_(a.attr("item")()));
        p.fill(v);
        return p;
    }
    if (a.ndim() != 1 || a.shape(0) != 3) raise_value(what + " must be one bool or three; got shape " + shape_str(a));
    py::array_t<bool, py::array::c_style | py::array::forcecast> b = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(a);
    for (int k = 0; k < 3; ++k) p[k] = b.data()[k];
    return p;
}

void check_cut(double v, const char* what) {
    if (std::isnan(v) || std::isinf(v) || v < 0)
        raise_value(std::string(what) + " must be finite and >= 0; got " + std::string(py::str(py::float_(v))));
}

/// A call's cutoff for the library, and what its pointers point into.
struct Cutoff {
    bp::AseCutoff cut;
    py::object alive;                       // the radii as float64, or the numbers as int64
    std::vector<bp::AsePairCutoff> pairs;   // the dict's entries, in its order
};

/// cutoff: a number, per-atom radii (n), or None with `pairs` (a list of
/// (Z1, Z2, c) from the dict, in its order) and `numbers` (n).
void parse_cutoff(py::handle cutoff, py::handle pairs, py::handle numbers, std::size_t n, Cutoff& out) {
    if (!pairs.is_none()) {
        if (numbers.is_none()) raise_value("a dict cutoff needs the atomic numbers (numbers=, or Atoms.numbers)");
        py::array na = numeric(numbers, "numbers");
        if (na.ndim() != 1 || static_cast<std::size_t>(na.shape(0)) != n)
            raise_value("numbers must have one value per atom (" + std::to_string(n) + "); got shape " + shape_str(na));
        I64 z = I64::ensure(na);
        out.alive = z;
        const py::sequence seq = py::reinterpret_borrow<py::sequence>(pairs);
        if (py::len(seq) == 0) raise_value("a dict cutoff must hold at least one pair of elements");
        for (py::handle t : seq) {
            const py::tuple tt = py::reinterpret_borrow<py::tuple>(t);
            bp::AsePairCutoff p;
            p.z1 = tt[0].cast<std::int64_t>(), p.z2 = tt[1].cast<std::int64_t>();
            p.cutoff = tt[2].cast<double>();
            check_cut(p.cutoff, "a cutoff of the dict");
            out.pairs.push_back(p);
        }
        out.cut = bp::AseCutoff::element_pairs(z.data(), out.pairs.data(), out.pairs.size());
        return;
    }
    if (py::isinstance<py::bool_>(cutoff)) raise_type("cutoff must be a number, per-atom radii or a dict, not bool");
    if (py::isinstance<py::float_>(cutoff) || py::isinstance<py::int_>(cutoff)) {
        const double c = cutoff.cast<double>();
        check_cut(c, "cutoff");
        out.cut = bp::AseCutoff::scalar(c);
        return;
    }
    py::array a = numeric(cutoff, "cutoff");
    if (a.ndim() == 0) {
        const double c = py::cast<double>(py::float_(a.attr("item")()));
        check_cut(c, "cutoff");
        out.cut = bp::AseCutoff::scalar(c);
        return;
    }
    if (a.ndim() != 1 || static_cast<std::size_t>(a.shape(0)) != n)
        raise_value("per-atom cutoffs must have one radius per atom (" + std::to_string(n) + "); got shape " + shape_str(a));
    const bool f32 = a.dtype().kind() == 'f' && a.itemsize() == 4;
    F64 r = F64::ensure(a);
    out.alive = r;
    for (std::size_t g = 0; g < n; ++g) check_cut(r.data()[g], "a per-atom cutoff");
    out.cut = bp::AseCutoff::per_atom(r.data(), f32);
}

/// The arrays asked for as one array or a tuple, in the order of `quantities`.
py::object pack(const Wants& w, const py::object& ai, const py::object& aj, const py::object& ad, const py::object& aD,
                const py::object& aS) {
    if (w.q.size() == 1) {
        switch (w.q[0]) {
            case 'i': return ai;
            case 'j': return aj;
            case 'd': return ad;
            case 'D': return aD;
            default: return aS;
        }
    }
    py::tuple t(w.q.size());
    for (std::size_t k = 0; k < w.q.size(); ++k) {
        switch (w.q[k]) {
            case 'i': t[k] = ai; break;
            case 'j': t[k] = aj; break;
            case 'd': t[k] = ad; break;
            case 'D': t[k] = aD; break;
            default: t[k] = aS; break;
        }
    }
    return std::move(t);
}

/// The module's state between calls.
struct State {
    std::mutex mutex;
    bp::AseNeighborList ase;
    std::vector<std::int64_t> out_i, out_j, out_S;  // a large answer of the direct path before its arrays
    std::vector<double> out_d, out_D;
};

State& state() {
    static State* s = new State();  // never destroyed: no order problem at exit
    return *s;
}

/// The direct path's arrays (see the top of the file): numpy arrays
/// written in place where every array fits under 128 KiB at the first
/// size asked for (the estimate), else the kept scratch, copied at the end.
class NumpyOutput final : public bp::AseOutput {
public:
    NumpyOutput(State& st, const Wants& w) : st_(st), w_(w) {}

    bp::AseColumns resize(std::size_t rows) override {
        if (!decided_) {
            decided_ = true;
            const std::size_t widest = (w_.S || w_.D) ? 24 : 8;  // bytes an entry in the widest array
            direct_ = rows * widest <= 128 * 1024 - 64;
        }
        bp::AseColumns c;
        if (direct_) {
            const py::ssize_t r = static_cast<py::ssize_t>(rows);
            const auto make = [&](py::object& a, bool want, bool i64, int cols) -> void* {
                if (!want) return nullptr;
                if (!a) {
                    if (i64) a = cols == 1 ? py::array_t<std::int64_t>(r) : py::array_t<std::int64_t>({r, py::ssize_t(3)});
                    else a = cols == 1 ? py::array_t<double>(r) : py::array_t<double>({r, py::ssize_t(3)});
                } else {
                    py::array arr = py::reinterpret_borrow<py::array>(a);
                    if (cols == 1) arr.resize({r}, false);
                    else arr.resize({r, py::ssize_t(3)}, false);
                }
                return py::reinterpret_borrow<py::array>(a).mutable_data();
            };
            c.i = static_cast<std::int64_t*>(make(ai_, w_.i, true, 1));
            c.j = static_cast<std::int64_t*>(make(aj_, w_.j, true, 1));
            c.S = static_cast<std::int64_t*>(make(aS_, w_.S, true, 3));
            c.d = static_cast<double*>(make(ad_, w_.d, false, 1));
            c.D = static_cast<double*>(make(aD_, w_.D, false, 3));
        } else {  // kept scratch, grown only
            const auto grow = [rows](auto& v, std::size_t per) {
                if (v.size() < per * rows) v.resize(std::max(per * rows, 2 * v.size()));
                return v.data();
            };
            c.i = w_.i ? grow(st_.out_i, 1) : nullptr;
            c.j = w_.j ? grow(st_.out_j, 1) : nullptr;
            c.S = w_.S ? grow(st_.out_S, 3) : nullptr;
            c.d = w_.d ? grow(st_.out_d, 1) : nullptr;
            c.D = w_.D ? grow(st_.out_D, 3) : nullptr;
        }
        return c;
    }

    /// The arrays of the `count` entries written.
    py::object finish(std::size_t count) {
        if (direct_) return pack(w_, ai_, aj_, ad_, aD_, aS_);
        const py::ssize_t k = static_cast<py::ssize_t>(count);
        const auto copy = [k](auto array, const void* from, std::size_t bytes) -> py::object {
            if (k) std::memcpy(array.mutable_data(), from, bytes);
            return std::move(array);
        };
        if (w_.i) ai_ = copy(py::array_t<std::int64_t>(k), st_.out_i.data(), 8 * count);
        if (w_.j) aj_ = copy(py::array_t<std::int64_t>(k), st_.out_j.data(), 8 * count);
        if (w_.S) aS_ = copy(py::array_t<std::int64_t>({k, py::ssize_t(3)}), st_.out_S.data(), 24 * count);
        if (w_.d) ad_ = copy(py::array_t<double>(k), st_.out_d.data(), 8 * count);
        if (w_.D) aD_ = copy(py::array_t<double>({k, py::ssize_t(3)}), st_.out_D.data(), 24 * count);
        return pack(w_, ai_, aj_, ad_, aD_, aS_);
    }

private:
    State& st_;
    const Wants& w_;
    bool decided_ = false, direct_ = false;
    py::object ai_, aj_, aS_, ad_, aD_;  // the arrays (none until made)
};

/// A failed call of the library as Python's exception: MemoryError for out
/// of memory, else ValueError with the library's message.
[[noreturn]] void raise_failure(const bp::Report& report, const bp::AseNeighborList& ase) {
    if (report.status == bp::Status::out_of_memory) throw std::bad_alloc();
    raise_value(ase.error().empty() ? std::string(bp::to_string(report.status)) : ase.error());
}

/// The arrays of the entries the last list() found.
py::object emit(const bp::AseNeighborList& ase, const Wants& w) {
    const std::size_t K = ase.size();
    const py::ssize_t k = static_cast<py::ssize_t>(K);
    py::array_t<std::int64_t> ai, aj, aS;
    py::array_t<double> ad, aD;
    if (w.i) ai = py::array_t<std::int64_t>(k);
    if (w.j) aj = py::array_t<std::int64_t>(k);
    if (w.d) ad = py::array_t<double>(k);
    if (w.D) aD = py::array_t<double>({k, py::ssize_t(3)});
    if (w.S) aS = py::array_t<std::int64_t>({k, py::ssize_t(3)});
    bp::AseColumns c;
    c.i = w.i ? ai.mutable_data() : nullptr;
    c.j = w.j ? aj.mutable_data() : nullptr;
    c.d = w.d ? ad.mutable_data() : nullptr;
    c.D = w.D ? aD.mutable_data() : nullptr;
    c.S = w.S ? aS.mutable_data() : nullptr;
    {
        std::unique_ptr<py::gil_scoped_release> nogil;
        if (K > 100000) nogil = std::make_unique<py::gil_scoped_release>();
        ase.write(c);
    }
    return pack(w, ai, aj, ad, aD, aS);
}

/// positions as an (n, 3) float64 array, every coordinate finite.
F64 parse_positions(py::handle obj, std::size_t& n) {
    F64 x = as_f64(obj, "positions");
    if (x.ndim() == 1 && x.shape(0) == 0) {
        n = 0;
        return x;
    }
    if (x.ndim() != 2 || x.shape(1) != 3) raise_value("positions must have shape (n, 3); got " + shape_str(x));
    n = static_cast<std::size_t>(x.shape(0));
    if (n > bp::max_boxes) raise_value("too many atoms: at most " + std::to_string(bp::max_boxes));
    const double* p = x.data();
    for (std::size_t g = 0; g < 3 * n; ++g)
        if (!std::isfinite(p[g])) raise_value("positions must be finite; atom " + std::to_string(g / 3) + " is not");
    return x;
}

void check_finite(const double* p, std::size_t m, const std::string& what) {
    for (std::size_t k = 0; k < m; ++k)
        if (!std::isfinite(p[k])) raise_value(what + " must be finite");
}

/// cell: a (3, 3) array (rows a, b, c), three lengths, or None (zeros).
Mat3 parse_cell(py::handle obj) {
    Mat3 h{};
    if (obj.is_none()) return h;
    F64 c = as_f64(obj, "cell");
    if (c.ndim() == 1 && c.shape(0) == 3) {
        for (int k = 0; k < 3; ++k) h[k][k] = c.data()[k];
        for (int k = 0; k < 3; ++k)
            if (!std::isfinite(h[k][k])) raise_value("cell must be finite");
        return h;
    }
    if (c.ndim() != 2 || c.shape(0) != 3 || c.shape(1) != 3)
        raise_value("cell must be a (3, 3) array whose rows are the cell vectors (or three lengths); got shape " + shape_str(c));
    check_finite(c.data(), 9, "cell");
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) h[r][k] = c.data()[3 * r + k];
    return h;
}

/// One call: the direct path when it takes every system, else the
/// library's list (without the GIL for large systems) and the arrays.
py::object run(State& st, const bp::AseBatch& batch, const Wants& w, py::handle cutoff, py::handle pairs,
               py::handle numbers, bool self_interaction) {
    Cutoff cut;
    parse_cutoff(cutoff, pairs, numbers, batch.n, cut);
    bp::AseNeighborList& ase = st.ase;
    bp::Report report;
    if (batch.n > 0) {
        NumpyOutput out(st, w);
        if (ase.find_direct(batch, cut.cut, w.quantities(), self_interaction, out, report)) {
            if (!report.ok()) raise_failure(report, ase);
            return out.finish(static_cast<std::size_t>(report.pairs));
        }
    }
    {
        std::unique_ptr<py::gil_scoped_release> nogil;
        if (batch.n > 4096) nogil = std::make_unique<py::gil_scoped_release>();
        report = ase.list(batch, cut.cut, self_interaction);
    }
    if (!report.ok()) raise_failure(report, ase);
    return emit(ase, w);
}

/// The module's state locked; waits without the GIL (the holder may need it).
std::unique_lock<std::mutex> lock_state(State& st) {
    std::unique_lock<std::mutex> lock(st.mutex, std::defer_lock);
    if (!lock.try_lock()) {
        py::gil_scoped_release nogil;
        lock.lock();
    }
    return lock;
}

py::object ase_neighbor_list(py::handle quantities, py::handle positions, py::handle cell, py::handle pbc,
                             py::handle cutoff, py::handle pairs, py::handle numbers, bool self_interaction) {
    const Wants w = parse_quantities(quantities);
    bp::AseSystem system;
    F64 x = parse_positions(positions, system.n);
    system.positions = x.data();
    const Mat3 h = parse_cell(cell);
    const std::array<bool, 3> p = parse_pbc(pbc, "pbc");
    for (int r = 0; r < 3; ++r) {
        system.pbc[r] = p[r];
        for (int k = 0; k < 3; ++k) system.cell[r][k] = h[r][k];
    }
    State& st = state();
    std::unique_lock<std::mutex> lock = lock_state(st);
    return run(st, bp::AseBatch::of(system), w, cutoff, pairs, numbers, self_interaction);
}

py::object ase_neighbor_list_batch(py::handle quantities, py::handle positions, py::handle cells, py::handle pbcs,
                                   py::handle system_index, py::handle cutoff, py::handle pairs, py::handle numbers,
                                   bool self_interaction) {
    const Wants w = parse_quantities(quantities);
    bp::AseBatch batch;
    F64 x = parse_positions(positions, batch.n);
    batch.positions = x.data();
    F64 c = as_f64(cells, "cells");
    if (c.ndim() != 3 || c.shape(1) != 3 || c.shape(2) != 3)
        raise_value("cells must have shape (systems, 3, 3); got " + shape_str(c));
    const std::size_t count = static_cast<std::size_t>(c.shape(0));
    check_finite(c.data(), 9 * count, "cells");
    batch.systems = count;
    batch.cells = c.data();
    // pbc: one bool, three, or three per system.
    std::unique_ptr<bool[]> pbc(new bool[3 * count + 1]);
    if (py::isinstance<py::bool_>(pbcs)) {
        const std::array<bool, 3> p = parse_pbc(pbcs, "pbc");
        for (std::size_t s = 0; s < count; ++s) std::copy(p.begin(), p.end(), pbc.get() + 3 * s);
    } else {
        py::array pa = numeric(pbcs, "pbc", true);
        if (pa.ndim() <= 1) {
            const std::array<bool, 3> p = parse_pbc(pa, "pbc");
            for (std::size_t s = 0; s < count; ++s) std::copy(p.begin(), p.end(), pbc.get() + 3 * s);
        } else {
            if (pa.ndim() != 2 || static_cast<std::size_t>(pa.shape(0)) != count || pa.shape(1) != 3)
                raise_value("pbc must be one bool, three, or (systems, 3); got shape " + shape_str(pa));
            auto b = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(pa);
            std::copy(b.data(), b.data() + 3 * count, pbc.get());
        }
    }
    batch.pbc = pbc.get();
    py::array si = numeric(system_index, "system_index");
    if (si.dtype().kind() == 'f') raise_type("system_index must be integers; got dtype " + std::string(py::str(si.dtype())));
    if (si.ndim() != 1 || static_cast<std::size_t>(si.shape(0)) != batch.n)
        raise_value("system_index must have one value per atom (" + std::to_string(batch.n) + "); got shape " + shape_str(si));
    I64 sys = I64::ensure(si);
    batch.system_index = sys.data();
    for (std::size_t g = 0; g < batch.n; ++g) {
        const std::int64_t v = batch.system_index[g];
        if (v < 0 || static_cast<std::size_t>(v) >= count)
            raise_value("system_index must be in [0, " + std::to_string(count) + "); atom " + std::to_string(g) + " has " +
                        std::to_string(v));
    }
    State& st = state();
    std::unique_lock<std::mutex> lock = lock_state(st);
    return run(st, batch, w, cutoff, pairs, numbers, self_interaction);
}

void ase_release() {
    State& st = state();
    std::unique_lock<std::mutex> lock = lock_state(st);
    st.ase.release();
    const auto drop = [](auto& v) { std::decay_t<decltype(v)>().swap(v); };
    drop(st.out_i), drop(st.out_j), drop(st.out_S), drop(st.out_d), drop(st.out_D);
}

/// The direct path's limit (AseNeighborList::direct_limit); sets it when
/// `limit` is not None. Returns the limit before.
double ase_small_limit(py::handle limit) {
    State& st = state();
    std::unique_lock<std::mutex> lock = lock_state(st);
    const double before = st.ase.direct_limit();
    if (!limit.is_none()) {
        const double v = limit.cast<double>();
        if (!(v >= 0)) raise_value("the limit must be >= 0");
        st.ase.set_direct_limit(v);
    }
    return before;
}

}  // namespace

void free_kept_ase_state() { ase_release(); }

void bind_ase(py::module_& m) {
    m.def("_ase_neighbor_list", &ase_neighbor_list, py::arg("quantities"), py::arg("positions"), py::arg("cell"),
          py::arg("pbc"), py::arg("cutoff"), py::arg("pairs"), py::arg("numbers"), py::arg("self_interaction"),
          "The core of broadphase.neighbor_list (python/src/bind_ase.cpp): one system.");
    m.def("_ase_neighbor_list_batch", &ase_neighbor_list_batch, py::arg("quantities"), py::arg("positions"),
          py::arg("cells"), py::arg("pbc"), py::arg("system_index"), py::arg("cutoff"), py::arg("pairs"),
          py::arg("numbers"), py::arg("self_interaction"),
          "The core of broadphase.neighbor_list_batch (python/src/bind_ase.cpp): many systems.");
    m.def("_ase_release", &ase_release, "Frees the memory neighbor_list keeps between calls.");
    m.def(
        "_ase_last_paths",
        [] {
            State& st = state();
            std::unique_lock<std::mutex> lock = lock_state(st);
            return py::make_tuple(st.ase.direct_systems(), st.ase.library_systems());
        },
        "neighbor_list's last call: (systems listed by the direct path, by the library's) (tests).");
    m.def("_ase_small_limit", &ase_small_limit, py::arg("limit") = py::none(),
          "neighbor_list's direct path for small systems: its limit on atoms^2 x candidate shifts a pair (tests).");
}

}  // namespace broadphase_python
