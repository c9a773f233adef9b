// neighbor_list and neighbor_list_batch: a drop-in for ASE's
// ase.neighborlist.neighbor_list ("ijdDS" in any order), one system or many
// small ones in one call, on the library's NeighborList.
//
// What ASE lists (ase/neighborlist.py, primitive_neighbor_list): every
// (i, j, S), S whole cell vectors, S_k = 0 on every open axis, with
//   D = (x_j - x_i) + S.dot(cell)      (numpy: ((0 + S0 h0k) + S1 h1k) + S2 h2k)
//   d = sqrt((D0 D0 + D1 D1) + D2 D2)
// and d < cutoff (strict): a scalar, r_i + r_j (per-atom radii), or the
// dict's cutoff for the pair of elements (0 when the pair is not listed);
// (i, i, 0) only with self_interaction. x are the positions as given (not
// wrapped), the cell as given.
//
// Small systems (atoms^2 x the shifts a pair can have under a limit) take
// a direct path instead: every candidate (i, j, S), in ASE's order, tested
// by ASE's rule; see "The direct path for small systems" below.
//
// How (larger systems): the library's full list with shifts, searched at the cutoff plus a
// small margin (so that it holds every entry ASE can keep whatever the
// rounding), then each entry's D and d computed again exactly as numpy
// does above and kept iff d < cutoff, so that ties at the cutoff round as
// ASE's do. The order: rows by i (as ASE's), each row by (j, S)
// lexicographically. Rows by j come free: the list is read row by row of
// the library's list, whose row r holds (r, c, S'), i.e. the entries
// (c, r, -S') of row c; placing them in row c in the order the rows r are
// read sorts each row by j; the few entries with the same (i, j) (small
// cells: several images of one atom) are then sorted by S.
//
// Cells the library cannot take as they are: periodic axes whose vectors
// are tilted mixed with open axes (a slab of a hexagonal cell). Each open
// vector is then replaced by one orthogonal to the periodic ones (and to
// each other), longer than the positions' extent along it plus twice the
// search reach, so that no image along it is within reach; entries with a
// shift on an open axis are dropped in any case (ASE's rule). A cell whose
// periodic vectors lie along x, y, z is passed as an orthorhombic cell
// with open axes (period 0); no periodic axis: the open domain.
//
// State: one NeighborList (the library's) and the scratch arrays, kept in
// the module between calls under a mutex (the GIL is released while a
// large system builds), so that a call after the first allocates nothing
// but the returned arrays. _ase_release() frees them.

#include "bindings.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <broadphase/neighbor_list.hpp>
#include <broadphase/simd.hpp>

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

/// The cutoff rule of one call.
enum class CutKind { scalar, per_atom, pairs };

/// The per-entry cutoff and each atom's search radius.
struct Cutoffs {
    CutKind kind = CutKind::scalar;
    double c = 0;                // scalar
    const double* r = nullptr;   // per atom (global numbering)
    bool r_f32 = false;          // r_i + r_j summed in float32 (a float32 array, as numpy would)
    std::vector<double> r_own;   // r when converted
    std::vector<std::uint32_t> elem;  // pairs: each atom's element index
    std::vector<double> table;        // pairs: k x k
    std::vector<double> elem_r;       // pairs: an element's search radius (max over its pairs / 2)
    std::size_t k = 0;
    double max_cut = 0;          // the largest cutoff of a pair

    double cut(std::size_t i, std::size_t j) const {
        switch (kind) {
            case CutKind::scalar: return c;
            case CutKind::per_atom:
                if (r_f32) return static_cast<double>(static_cast<float>(r[i]) + static_cast<float>(r[j]));
                return r[i] + r[j];
            case CutKind::pairs: return table[elem[i] * k + elem[j]];
        }
        return 0;
    }
    /// Atom g's search radius (reach of a pair = radius_i + radius_j).
    double radius(std::size_t g) const {
        switch (kind) {
            case CutKind::scalar: return 0.5 * c;
            case CutKind::per_atom: return r[g];
            case CutKind::pairs: return elem_r[elem[g]];
        }
        return 0;
    }
};

void check_cut(double v, const char* what) {
    if (std::isnan(v) || std::isinf(v) || v < 0)
        raise_value(std::string(what) + " must be finite and >= 0; got " + std::string(py::str(py::float_(v))));
}

/// cutoff: a number, per-atom radii (n), or None with `pairs` (a list of
/// (Z1, Z2, c) from the dict, in its order) and `numbers` (n).
void parse_cutoff(py::handle cutoff, py::handle pairs, py::handle numbers, std::size_t n, Cutoffs& cut,
                  py::object& keep_alive) {
    if (!pairs.is_none()) {
        cut.kind = CutKind::pairs;
        if (numbers.is_none()) raise_value("a dict cutoff needs the atomic numbers (numbers=, or Atoms.numbers)");
        py::array na = numeric(numbers, "numbers");
        if (na.ndim() != 1 || static_cast<std::size_t>(na.shape(0)) != n)
            raise_value("numbers must have one value per atom (" + std::to_string(n) + "); got shape " + shape_str(na));
        auto z = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(na);
        std::vector<std::int64_t> distinct(z.data(), z.data() + n);
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        cut.k = distinct.size();
        cut.elem.resize(n);
        for (std::size_t g = 0; g < n; ++g)
            cut.elem[g] = static_cast<std::uint32_t>(std::lower_bound(distinct.begin(), distinct.end(), z.data()[g]) - distinct.begin());
        cut.table.assign(cut.k * cut.k, 0.0);
        const py::sequence seq = py::reinterpret_borrow<py::sequence>(pairs);
        if (py::len(seq) == 0) raise_value("a dict cutoff must hold at least one pair of elements");
        for (py::handle t : seq) {
            const py::tuple tt = py::reinterpret_borrow<py::tuple>(t);
            const std::int64_t z1 = tt[0].cast<std::int64_t>(), z2 = tt[1].cast<std::int64_t>();
            const double c = tt[2].cast<double>();
            check_cut(c, "a cutoff of the dict");
            cut.max_cut = std::max(cut.max_cut, c);
            auto a = std::lower_bound(distinct.begin(), distinct.end(), z1);
            auto b = std::lower_bound(distinct.begin(), distinct.end(), z2);
            if (a == distinct.end() || *a != z1 || b == distinct.end() || *b != z2) continue;
            const std::size_t ia = static_cast<std::size_t>(a - distinct.begin()), ib = static_cast<std::size_t>(b - distinct.begin());
            // Later entries win, as in ASE (each assigns the pairs it matches).
            cut.table[ia * cut.k + ib] = c, cut.table[ib * cut.k + ia] = c;
        }
        cut.elem_r.assign(cut.k, 0.0);
        for (std::size_t a = 0; a < cut.k; ++a)
            for (std::size_t b = 0; b < cut.k; ++b) cut.elem_r[a] = std::max(cut.elem_r[a], 0.5 * cut.table[a * cut.k + b]);
        return;
    }
    if (py::isinstance<py::bool_>(cutoff)) raise_type("cutoff must be a number, per-atom radii or a dict, not bool");
    if (py::isinstance<py::float_>(cutoff) || py::isinstance<py::int_>(cutoff)) {
        cut.kind = CutKind::scalar;
        cut.c = cutoff.cast<double>();
        check_cut(cut.c, "cutoff");
        cut.max_cut = cut.c;
        return;
    }
    py::array a = numeric(cutoff, "cutoff");
    if (a.ndim() == 0) {
        cut.kind = CutKind::scalar;
        cut.c = py::cast<double>(py::float_(a.attr("item")()));
        check_cut(cut.c, "cutoff");
        cut.max_cut = cut.c;
        return;
    }
    if (a.ndim() != 1 || static_cast<std::size_t>(a.shape(0)) != n)
        raise_value("per-atom cutoffs must have one radius per atom (" + std::to_string(n) + "); got shape " + shape_str(a));
    cut.kind = CutKind::per_atom;
    cut.r_f32 = a.dtype().kind() == 'f' && a.itemsize() == 4;
    F64 r = F64::ensure(a);
    keep_alive = r;
    cut.r = r.data();
    for (std::size_t g = 0; g < n; ++g) {
        check_cut(cut.r[g], "a per-atom cutoff");
        cut.max_cut = std::max(cut.max_cut, 2 * cut.r[g]);
    }
}

/// One entry of the answer: j (global), S; i is its row.
struct Entry {
    std::uint32_t j;
    std::int32_t s[3];
    Entry() noexcept {}  // left unset: growing the vector writes nothing (every entry used is written)
};

/// How a system's cell goes to the library.
struct SearchCell {
    bp::PeriodicCell cell;   // what the library searches in
    std::array<bool, 3> open{};  // axes whose shift must be 0
};

double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
void cross3(const double* a, const double* b, double* c) {
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

/// The cell the library searches in (see the top of the file). x: the
/// system's n positions; reach: the largest reach of a pair.
SearchCell search_cell(const Mat3& h, const std::array<bool, 3>& pbc, const double* x, std::size_t n, double reach,
                       long system) {
    const auto which = [&] { return system < 0 ? std::string() : "system " + std::to_string(system) + ": "; };
    SearchCell sc;
    int periodic = 0;
    bool aligned = true;
    for (int r = 0; r < 3; ++r) {
        sc.open[r] = !pbc[r];
        if (!pbc[r]) continue;
        ++periodic;
        if (h[r][0] == 0 && h[r][1] == 0 && h[r][2] == 0)
            raise_value(which() + "pbc is True on axis " + std::to_string(r) + " but cell vector " + std::to_string(r) +
                        " is zero");
        for (int k = 0; k < 3; ++k)
            if (k != r && h[r][k] != 0) aligned = false;
        if (!(h[r][r] > 0)) aligned = false;
    }
    if (periodic == 0) return sc;  // the open domain
    if (aligned) {
        sc.cell = bp::PeriodicCell::orthorhombic(pbc[0] ? h[0][0] : 0, pbc[1] ? h[1][1] : 0, pbc[2] ? h[2][2] : 0);
        return sc;
    }
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) sc.cell.vectors[r][k] = h[r][k];
    if (periodic == 3) return sc;
    // Open axes in a tilted cell: orthonormal directions u for them.
    std::vector<int> per, opn;
    for (int r = 0; r < 3; ++r) (pbc[r] ? per : opn).push_back(r);
    double u[2][3];
    if (periodic == 2) {
        cross3(h[per[0]].data(), h[per[1]].data(), u[0]);
        const double l = std::sqrt(dot3(u[0], u[0]));
        if (!(l > 0) || !std::isfinite(l)) raise_value(which() + "the periodic cell vectors are parallel (the cell has no volume)");
        for (int k = 0; k < 3; ++k) u[0][k] /= l;
    } else {
        const double* a = h[per[0]].data();
        int m = 0;  // the coordinate axis least along a
        for (int k = 1; k < 3; ++k)
            if (std::fabs(a[k]) < std::fabs(a[m])) m = k;
        double e[3] = {0, 0, 0};
        e[m] = 1;
        cross3(a, e, u[0]);
        double l = std::sqrt(dot3(u[0], u[0]));
        for (int k = 0; k < 3; ++k) u[0][k] /= l;
        cross3(a, u[0], u[1]);
        l = std::sqrt(dot3(u[1], u[1]));
        for (int k = 0; k < 3; ++k) u[1][k] /= l;
    }
    for (std::size_t o = 0; o < opn.size(); ++o) {
        double lo = 0, hi = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double p = dot3(x + 3 * i, u[o]);
            if (i == 0 || p < lo) lo = p;
            if (i == 0 || p > hi) hi = p;
        }
        const double L = (hi - lo) + 2 * reach + 1.0;
        for (int k = 0; k < 3; ++k) sc.cell.vectors[opn[o]][k] = L * u[o][k];
    }
    return sc;
}

/// A system's geometry for the direct path.
struct SmallGeom {
    bool single = true;    // every R_a < 1/2: one candidate a pair at most
    bool diag = true;      // the cell is diagonal: (S h)_k = S_k h_kk exactly
    double r[3][3] = {};   // r[a]: the dual vector of periodic axis a (0 on open axes)
    double R[3] = {};      // the reach in fractional units (0 on open axes)
};

/// The module's state between calls.
struct State {
    std::mutex mutex;
    std::unique_ptr<bp::NeighborList> list;
    double margin = -1;
    std::vector<std::uint32_t> count;   // per local atom: entries kept
    std::vector<std::uint32_t> last_j;  // per local atom: j of its last entry placed
    std::vector<Entry> entries;         // the answer, rows in order of placement
    std::vector<std::uint64_t> row_at;  // per global atom: its row in entries
    std::vector<std::uint32_t> row_n;   // per global atom: its row's length
    std::vector<double> gathered_x;            // a system's atoms when not contiguous
    std::vector<std::uint32_t> glob;            // a system's atoms' global ids
    std::vector<std::uint32_t> by_system;       // atoms ordered by system (stable)
    std::vector<std::uint64_t> system_at;       // per system: first atom in by_system
    std::vector<double> radii;                  // per local atom: search radius
    // The direct path for small systems (see "The direct path" below).
    std::vector<double> soa;                    // a system's X, Y, Z, F0, F1, F2, then a row's buffers
    std::vector<std::uint8_t> maybe;            // a row's candidates (one byte per j)
    std::size_t last_direct = 0, last_library = 0;  // the last call's systems by each path (tests)
    struct SystemGeom {
        SmallGeom g;
        std::size_t a0, n;
    };
    std::vector<SystemGeom> geoms;              // a call's systems for the direct path
    std::vector<std::int64_t> out_i, out_j, out_S;  // a large answer before its arrays
    std::vector<double> out_d, out_D;
};

State& state() {
    static State* s = new State();  // never destroyed: no order problem at exit
    return *s;
}

/// D and d as numpy computes them (see the top): no fused multiply-add
/// (this file is compiled with -ffp-contract=off).
inline void ase_vector(const double* xi, const double* xj, const std::int32_t* s, const Mat3& h, double* D) {
    const double s0 = s[0], s1 = s[1], s2 = s[2];
    for (int k = 0; k < 3; ++k) {
        double sh = 0.0;
        sh = sh + s0 * h[0][k];
        sh = sh + s1 * h[1][k];
        sh = sh + s2 * h[2][k];
        D[k] = (xj[k] - xi[k]) + sh;
    }
}
inline double ase_length(const double* D) { return std::sqrt((D[0] * D[0] + D[1] * D[1]) + D[2] * D[2]); }

/// The systems of one call.
struct Systems {
    std::size_t n = 0;        // atoms in all
    std::size_t count = 1;    // systems
    const double* x = nullptr;  // n x 3, global
    std::vector<Mat3> cells;
    std::vector<std::array<bool, 3>> pbc;
    const std::int64_t* sys = nullptr;  // per atom (null: one system)
    bool contiguous = true;             // each system's atoms are one range
};

/// ASE's rule for one entry: d < cut, with d = sqrt(d2) as numpy rounds
/// it; the square root only when d2 is within 1e-12 of cut^2.
inline bool within(double d2, double cut) {
    const double c2 = cut * cut;
    if (d2 < c2 * (1 - 1e-12)) return true;
    if (d2 > c2 * (1 + 1e-12)) return false;
    return std::sqrt(d2) < cut;
}

template <CutKind kind>
inline double cut_of(const Cutoffs& cut, std::uint32_t gi, std::uint32_t gj) {
    if constexpr (kind == CutKind::scalar) return cut.c;
    else return cut.cut(gi, gj);
}

/// One system's entries into st.entries, from the library's full list (off,
/// col, sh). Library entry e in row r is (r, c, S'): ours is (c, r, -S'),
/// placed in row c. Rows are read in order r = 0, 1, ..., so each row of
/// ours comes out sorted by j; row c has room for the library's row c
/// (the same length: the full list holds (c, r, S) iff it holds (r, c,
/// -S)) and one more for (c, c, 0) with self_interaction.
template <CutKind kind>
void place_as(State& st, const Cutoffs& cut, const double* x, const std::uint32_t* glob, std::size_t n, const Mat3& h,
              const std::array<bool, 3>& open, bool self_interaction, const std::uint64_t* off, const std::uint32_t* col,
              const std::int32_t* sh) {
    const std::size_t K = static_cast<std::size_t>(off[n]);
    const std::size_t base = st.entries.size();
    st.entries.resize(base + K + n);
    Entry* out = st.entries.data() + base;
    std::uint32_t* count = (st.count.assign(n, 0), st.count.data());
    std::uint32_t* last = (st.last_j.assign(n, ~std::uint32_t(0)), st.last_j.data());
    bool repeat = false;
    const bool any_open = open[0] || open[1] || open[2];
    for (std::size_t r = 0; r < n; ++r) {
        const double* xr = x + 3 * r;
        const std::uint32_t gr = glob[r];
        if (self_interaction && 0.0 < cut_of<kind>(cut, gr, gr)) {
            Entry& en = out[off[r] + r + count[r]++];
            en.j = gr, en.s[0] = en.s[1] = en.s[2] = 0;
            last[r] = static_cast<std::uint32_t>(r);
        }
        for (std::uint64_t e = off[r]; e < off[r + 1]; ++e) {
            const std::uint32_t c = col[e];
            const std::int32_t s0 = -sh[3 * e], s1 = -sh[3 * e + 1], s2 = -sh[3 * e + 2];
            const bool zero = !(s0 | s1 | s2);
            if (any_open && ((open[0] && s0) || (open[1] && s1) || (open[2] && s2))) continue;
            if (zero && c == r) continue;  // (i, i, 0): never the library's
            const double* xc = x + 3 * static_cast<std::size_t>(c);
            double D0, D1, D2;
            if (zero) {  // S h = 0 exactly: D = x_j - x_i (+ 0)
                D0 = xr[0] - xc[0], D1 = xr[1] - xc[1], D2 = xr[2] - xc[2];
            } else {
                const std::int32_t S3[3] = {s0, s1, s2};
                double D[3];
                ase_vector(xc, xr, S3, h, D);
                D0 = D[0], D1 = D[1], D2 = D[2];
            }
            const double d2 = (D0 * D0 + D1 * D1) + D2 * D2;
            if (!within(d2, cut_of<kind>(cut, glob[c], gr))) continue;
            const std::uint64_t room = off[c + 1] - off[c] + (self_interaction ? 1 : 0);
            if (count[c] >= room) throw std::logic_error("neighbor_list: the library's full list is not symmetric");
            Entry& en = out[off[c] + c + count[c]++];
            en.j = gr, en.s[0] = s0, en.s[1] = s1, en.s[2] = s2;
            repeat |= last[c] == r;
            last[c] = static_cast<std::uint32_t>(r);
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        st.row_at[glob[i]] = base + off[i] + i;
        st.row_n[glob[i]] = count[i];
    }
    if (!repeat) return;
    // Entries with the same (i, j) (images of one atom) are consecutive:
    // sort them by S.
    for (std::size_t i = 0; i < n; ++i) {
        Entry* b = out + off[i] + i;
        Entry* e = b + count[i];
        while (b < e) {
            Entry* g = b + 1;
            while (g < e && g->j == b->j) ++g;
            if (g - b > 1)
                std::sort(b, g, [](const Entry& p, const Entry& q) { return std::lexicographical_compare(p.s, p.s + 3, q.s, q.s + 3); });
            b = g;
        }
    }
}

void place(State& st, const Cutoffs& cut, const double* x, const std::uint32_t* glob, std::size_t n, const Mat3& h,
           const std::array<bool, 3>& open, bool self_interaction, const std::uint64_t* off, const std::uint32_t* col,
           const std::int32_t* sh) {
    switch (cut.kind) {
        case CutKind::scalar: place_as<CutKind::scalar>(st, cut, x, glob, n, h, open, self_interaction, off, col, sh); break;
        case CutKind::per_atom: place_as<CutKind::per_atom>(st, cut, x, glob, n, h, open, self_interaction, off, col, sh); break;
        case CutKind::pairs: place_as<CutKind::pairs>(st, cut, x, glob, n, h, open, self_interaction, off, col, sh); break;
    }
}

// ---------------------------------------------------------------------------
// The direct path for small systems.
//
// A system with few atoms is listed without the library: for each i (in
// order), each j (in order) and each shift S (in lexicographic order) that
// can be within the cutoff, D and d are computed as ASE computes them and
// the entry kept iff d < cutoff, so the rows come out in ASE's order with
// no sort. The library's list costs more than that below a few hundred
// atoms (its search, its shifts, then the order to restore).
//
// Which shifts. On a periodic axis a let r_a be the dual vector of the
// periodic cell vectors (r_a . h_b = 1 if b = a, 0 for the other periodic
// b) taken orthogonal to the open directions; f_a = x . r_a is then the
// fractional coordinate and D . r_a = f_a(x_j) - f_a(x_i) + S_a, so
// |D| >= |f_a(x_j) - f_a(x_i) + S_a| / |r_a| (1 / |r_a| is the distance
// between the cell's faces across a): an entry within the cutoff c has
// |f_a(x_j) - f_a(x_i) + S_a| <= R_a = c |r_a|, R_a taken a little larger
// for the rounding of f. This test only chooses the candidates; each is
// then decided by ASE's own computation (ase_vector, within).
//  - Every R_a < 1/2 (the cell over twice the cutoff across; the common
//    case): a pair has at most one candidate, S_a = rint(f_a(x_i) -
//    f_a(x_j)). A row is computed for every j at once in a loop the
//    compiler vectorises (structure of arrays; compiled for SSE2, AVX2 and
//    AVX-512, chosen at run time as the library's kernels are: simd.hpp),
//    then the kept j are read off a byte mask.
//  - Otherwise (small cells: several images of one atom) the same loop
//    also gives each pair's range of S_a per axis, [ceil(f_i - f_j - R_a),
//    floor(f_i - f_j + R_a)]; a pair whose ranges hold the nearest image
//    alone is taken from the loop, the others' candidates are enumerated
//    (scalar) in lexicographic order.
// Open axes: S_a = 0 and f_a = 0. The dual vectors come from the inverse of
// the matrix whose rows are the periodic vectors and, for the open axes,
// unit vectors orthogonal to them, so a tilted cell with open axes needs no
// case of its own. No periodic axis: every pair, S = 0.
//
// Taken when atoms^2 x (the candidates of a pair) is at most small_limit
// (measured: docs/python.md) and the cell is not near flat; otherwise, and
// for anything odd (a zero periodic vector, atoms millions of cells away),
// the library's path, which also raises the errors.

/// The direct path's limit on atoms^2 x candidates a pair (see above), for
/// calls that ask for d, D or S; 4 times it for i and j alone (limit_for).
/// Measured (2-core Xeon, copper at 5 A, docs/python.md): the direct path
/// is faster than the library's up to about 400 atoms with "ijdDS" (400: 0.56
/// against 0.71 ms; 512: even) and up to 1,000 with "ij" (700: 0.45 against
/// 0.74 ms). _ase_small_limit() reads and sets it (the tests use it to force
/// either path). Read and written under the state's mutex.
double small_limit = 400.0 * 400.0;

/// Whether the direct path takes the system (n atoms, |x_k| <= xmax, the
/// largest reach of a pair `reach`), and its geometry.
bool small_geometry(const Mat3& h, const std::array<bool, 3>& pbc, std::size_t n, double xmax, double reach,
                    double limit, SmallGeom& g) {
    const double pairs = static_cast<double>(n) * static_cast<double>(n);
    for (int a = 0; a < 3; ++a)
        for (int k = 0; k < 3; ++k)
            if (a != k && h[a][k] != 0) g.diag = false;
    int periodic = 0;
    for (int a = 0; a < 3; ++a) periodic += pbc[a] ? 1 : 0;
    if (periodic == 0) return pairs <= limit;
    double m[3][3];
    int per[3], opn[3], np = 0, no = 0;  // the periodic and the open axes
    for (int a = 0; a < 3; ++a) {
        if (pbc[a]) per[np++] = a;
        else opn[no++] = a;
        for (int k = 0; k < 3; ++k) m[a][k] = h[a][k];
        if (pbc[a] && !(dot3(m[a], m[a]) > 0)) return false;  // the library's path says why
    }
    // Unit vectors for the open axes, orthogonal to the periodic ones.
    if (periodic == 2) {
        double u[3];
        cross3(m[per[0]], m[per[1]], u);
        const double l = std::sqrt(dot3(u, u));
        if (!(l > 0) || !std::isfinite(l)) return false;
        for (int k = 0; k < 3; ++k) m[opn[0]][k] = u[k] / l;
    } else if (periodic == 1) {
        const double* a = m[per[0]];
        int c = 0;  // the coordinate axis least along a
        for (int k = 1; k < 3; ++k)
            if (std::fabs(a[k]) < std::fabs(a[c])) c = k;
        double e[3] = {0, 0, 0}, u[3], v[3];
        e[c] = 1;
        cross3(a, e, u);
        double l = std::sqrt(dot3(u, u));
        for (int k = 0; k < 3; ++k) u[k] /= l;
        cross3(a, u, v);
        l = std::sqrt(dot3(v, v));
        for (int k = 0; k < 3; ++k) v[k] /= l;
        for (int k = 0; k < 3; ++k) m[opn[0]][k] = u[k], m[opn[1]][k] = v[k];
    }
    double c12[3], c20[3], c01[3];
    cross3(m[1], m[2], c12), cross3(m[2], m[0], c20), cross3(m[0], m[1], c01);
    const double det = dot3(m[0], c12);
    const double size = std::sqrt(dot3(m[0], m[0]) * dot3(m[1], m[1]) * dot3(m[2], m[2]));
    // A near-flat cell (volume under 1/1000 of the product of its vectors'
    // lengths): the library's path.
    if (!(std::fabs(det) >= 1e-3 * size) || !std::isfinite(det)) return false;
    const double* cs[3] = {c12, c20, c01};
    double rmax = 0;
    for (int k = 0; k < np; ++k) {
        const int a = per[k];
        for (int k = 0; k < 3; ++k) g.r[a][k] = cs[a][k] / det;
        rmax = std::max(rmax, std::sqrt(dot3(g.r[a], g.r[a])));
    }
    // |f| <= |x| |r|: whole shifts of a few million cells at most, and f
    // computed to far better than 1e-9.
    const double fmax = 2 * xmax * rmax;
    if (!(fmax < 1e6)) return false;
    const double tol = 1e-9 * (1 + 4 * fmax);
    double images = 1;  // about the candidates a pair has
    for (int k = 0; k < np; ++k) {
        const int a = per[k];
        g.R[a] = reach * (1 + 1e-9) * std::sqrt(dot3(g.r[a], g.r[a])) + tol;
        if (!(g.R[a] < 0.5)) g.single = false;
        images *= std::max(1.0, 2 * g.R[a]);
    }
    // Several images a pair: the ranges and the pairs with two candidates
    // on an axis (enumerated one by one) cost about 4 times a pair of the
    // single case (measured: docs/python.md).
    const double work = g.single ? pairs : 4 * pairs * images;
    return work <= limit;
}

/// A system as the direct path reads it.
struct SmallIn {
    std::size_t n = 0;
    const double *X, *Y, *Z;     // positions, one array a coordinate
    const double *F0, *F1, *F2;  // fractional coordinates (0 on open axes)
    double h[3][3];              // the cell as given
    double R[3];                 // the reach in fractional units
    bool self = false;           // self_interaction
    const Cutoffs* cut = nullptr;
    const std::uint32_t* glob = nullptr;  // global ids
};

/// A row's buffers (n rounded up to 8 each; the mask to 64, with zeros).
struct SmallRow {
    double *S0, *S1, *S2, *D0, *D1, *D2, *Q, *C;
    double *L[3], *H[3];  // several images a pair: the S ranges
    std::uint8_t* M;
};

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

/// The answer of one system in the arrays' layout: i, j, and with Full S,
/// D and d (sqrt of d^2 in the pass that writes the rest: the divider runs
/// beside the stores), only those asked for. Where every array fits under
/// 120 KiB at the estimated size, written straight into numpy arrays made at
/// that size, grown if short and cut to size at the end (a realloc that
/// shrinks in place: no copy). Larger arrays would come from mmap (glibc
/// maps blocks over 128 KiB; one cut to size raises its threshold only to
/// the size cut to, so the next call's estimate is mapped again, page
/// faults every call): those go to kept scratch arrays and are copied once
/// into arrays of the exact size. Rows write through a Writer (pointers and
/// a count held in registers), with room made before (reserve) and the
/// count taken back after (commit).
template <bool Full_>
struct ArraySink {
    static constexpr bool Full = Full_;
    struct Writer {
        std::int64_t* j;
        std::int64_t* S;
        double* D;
        double* d;
        std::size_t p;
        std::int64_t off;  // the system's first atom (batches)
        inline void put(std::size_t jj, double s0, double s1, double s2, double D0, double D1, double D2, double d2) {
            if (j) j[p] = static_cast<std::int64_t>(jj) + off;
            if (Full) {
                if (S) {
                    S[3 * p] = static_cast<std::int64_t>(s0), S[3 * p + 1] = static_cast<std::int64_t>(s1);
                    S[3 * p + 2] = static_cast<std::int64_t>(s2);
                }
                if (D) D[3 * p] = D0, D[3 * p + 1] = D1, D[3 * p + 2] = D2;
                if (d) d[p] = std::sqrt(d2);
            }
            ++p;
        }
    };
    State& st;
    const Wants& w;
    bool direct;
    py::object ai, aj, aS, ad, aD;  // the arrays (none until made)
    std::int64_t *pi = nullptr, *pj = nullptr, *pS = nullptr;
    double *pd = nullptr, *pD = nullptr;
    std::size_t p = 0, row_begin = 0, cap = 0;
    std::int64_t off = 0;  // the system's first atom (batches)

    ArraySink(State& s, const Wants& wants, std::size_t estimate) : st(s), w(wants) {
        cap = std::max<std::size_t>(estimate, 16);
        const std::size_t widest = (w.S || w.D) ? 24 : 8;  // bytes an entry in the widest array
        direct = cap * widest <= 128 * 1024 - 64;
        allocate(cap);
    }
    void allocate(std::size_t rows) {
        if (direct) {
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
            pi = static_cast<std::int64_t*>(make(ai, w.i, true, 1));
            pj = static_cast<std::int64_t*>(make(aj, w.j, true, 1));
            pS = static_cast<std::int64_t*>(make(aS, w.S, true, 3));
            pd = static_cast<double*>(make(ad, w.d, false, 1));
            pD = static_cast<double*>(make(aD, w.D, false, 3));
        } else {  // kept scratch, grown only
            const auto grow = [rows](auto& v, std::size_t per) {
                if (v.size() < per * rows) v.resize(std::max(per * rows, 2 * v.size()));
                return v.data();
            };
            pi = w.i ? grow(st.out_i, 1) : nullptr;
            pj = w.j ? grow(st.out_j, 1) : nullptr;
            pS = w.S ? grow(st.out_S, 3) : nullptr;
            pd = w.d ? grow(st.out_d, 1) : nullptr;
            pD = w.D ? grow(st.out_D, 3) : nullptr;
        }
    }
    /// Room for `extra` more entries.
    void reserve(std::size_t extra) {
        if (p + extra <= cap) return;
        cap = std::max(2 * cap, p + extra);
        allocate(cap);
    }
    Writer writer() const { return Writer{pj, pS, pD, pd, p, off}; }
    void commit(const Writer& wr) { p = wr.p; }
    void row_start(std::size_t) { row_begin = p; }
    void row_end(std::size_t i) {  // i for the row (a vectorised fill, in the kernel)
        if (!pi) return;
        std::int64_t* __restrict o = pi;
        const std::int64_t v = static_cast<std::int64_t>(i) + off;
        const std::size_t b = row_begin, e = p;  // locals: o[k] may alias the members
        for (std::size_t k = b; k < e; ++k) o[k] = v;
    }
    /// The arrays of the entries.
    py::object finish() {
        if (direct) {
            if (p != cap) allocate(p);
            return pack(w, ai, aj, ad, aD, aS);
        }
        const py::ssize_t k = static_cast<py::ssize_t>(p);
        const auto copy = [k](auto array, const void* from, std::size_t bytes) -> py::object {
            if (k) std::memcpy(array.mutable_data(), from, bytes);
            return std::move(array);
        };
        if (w.i) ai = copy(py::array_t<std::int64_t>(k), pi, 8 * p);
        if (w.j) aj = copy(py::array_t<std::int64_t>(k), pj, 8 * p);
        if (w.S) aS = copy(py::array_t<std::int64_t>({k, py::ssize_t(3)}), pS, 24 * p);
        if (w.d) ad = copy(py::array_t<double>(k), pd, 8 * p);
        if (w.D) aD = copy(py::array_t<double>({k, py::ssize_t(3)}), pD, 24 * p);
        return pack(w, ai, aj, ad, aD, aS);
    }
};

/// The answer of one system of a batch into st.entries (global numbering),
/// rows through row_at / row_n, as the library's path leaves it.
struct EntrySink {
    static constexpr bool Full = true;  // S is needed (D and d: emit computes them again)
    struct Writer {
        Entry* e;
        const std::uint32_t* glob;
        std::size_t p;
        inline void put(std::size_t jj, double s0, double s1, double s2, double, double, double, double) {
            Entry& en = e[p++];
            en.j = glob[jj];
            en.s[0] = static_cast<std::int32_t>(s0), en.s[1] = static_cast<std::int32_t>(s1);
            en.s[2] = static_cast<std::int32_t>(s2);
        }
    };
    State& st;
    const std::uint32_t* glob;
    std::size_t p, row_begin = 0;

    EntrySink(State& s, const std::uint32_t* g) : st(s), glob(g), p(s.entries.size()) {}
    void reserve(std::size_t extra) {
        const std::size_t need = p + extra;
        if (need <= st.entries.size()) return;
        if (need > st.entries.capacity()) st.entries.reserve(std::max<std::size_t>(2 * st.entries.capacity(), need));
        st.entries.resize(need);  // within the capacity: no copy, nothing written (Entry())
    }
    Writer writer() const { return Writer{st.entries.data(), glob, p}; }
    void commit(const Writer& w) { p = w.p; }
    void row_start(std::size_t) { row_begin = p; }
    void row_end(std::size_t i) {
        st.row_at[glob[i]] = row_begin;
        st.row_n[glob[i]] = static_cast<std::uint32_t>(p - row_begin);
    }
    void finish() { st.entries.resize(p); }
};

#if defined(__GNUC__)
#define BP_ASE_INLINE inline __attribute__((always_inline))
#else
#define BP_ASE_INLINE inline
#endif

/// Row i's per-pair cutoffs into C (per-atom radii, pairs of elements).
BP_ASE_INLINE void small_cuts(const SmallIn& in, std::size_t i, double* C) {
    const std::uint32_t gi = in.glob[i];
    for (std::size_t j = 0; j < in.n; ++j) C[j] = in.cut->cut(gi, in.glob[j]);
}

/// The bits of 64 mask bytes (each 0, 1 or 2) from M: bit k set for byte k
/// not 0. The
/// rows are read off these words, one branch miss a word at most rather
/// than one every 8 bytes.
BP_ASE_INLINE std::uint64_t mask_bits(const std::uint8_t* M) {
    std::uint64_t bits = 0;
    for (int k = 0; k < 8; ++k) {
        std::uint64_t w;
        std::memcpy(&w, M + 8 * k, 8);
        w = (w | (w >> 1)) & 0x0101010101010101ULL;               // a byte 1 or 2: its bit 0 set
        bits |= ((w * 0x0102040810204080ULL) >> 56) << (8 * k);  // byte t's bit 0 to bit 56 + t
    }
    return bits;
}

/// Row i's candidates for every j when every R_a < 1/2: S_a = rint(f_i -
/// f_j) (the only one that can be within reach), D and d^2 as ASE computes
/// them; M[j] = 1 where d^2 may be within the cutoff (decided by within()
/// after). With Full, S and D for every j too. One loop the compiler
/// vectorises (restrict parameters: GCC does not vectorise it otherwise).
template <bool Diag, bool Full, bool Varying>
BP_ASE_INLINE void single_pass(std::size_t n, const double* __restrict X, const double* __restrict Y,
                               const double* __restrict Z, const double* __restrict F0, const double* __restrict F1,
                               const double* __restrict F2, double* __restrict S0, double* __restrict S1,
                               double* __restrict S2, double* __restrict D0, double* __restrict D1,
                               double* __restrict D2, double* __restrict Q, const double* __restrict C,
                               std::uint8_t* __restrict M, const double (&xi)[3], const double (&fi)[3],
                               const double (&h)[3][3], double c2) {
    const double h00 = h[0][0], h01 = h[0][1], h02 = h[0][2];
    const double h10 = h[1][0], h11 = h[1][1], h12 = h[1][2];
    const double h20 = h[2][0], h21 = h[2][1], h22 = h[2][2];
    const double x0 = xi[0], x1 = xi[1], x2 = xi[2], f0 = fi[0], f1 = fi[1], f2 = fi[2];
    const double big = 6755399441055744.0;  // 1.5 * 2^52: (big + v) - big = rint(v) for |v| < 2^51
    for (std::size_t j = 0; j < n; ++j) {
        const double s0 = (big + (f0 - F0[j])) - big;
        const double s1 = (big + (f1 - F1[j])) - big;
        const double s2 = (big + (f2 - F2[j])) - big;
        double sh0, sh1, sh2;  // S h as ase_vector sums it (diagonal: the other terms are zeros)
        if (Diag) {
            sh0 = s0 * h00, sh1 = s1 * h11, sh2 = s2 * h22;
        } else {
            sh0 = (s0 * h00 + s1 * h10) + s2 * h20;
            sh1 = (s0 * h01 + s1 * h11) + s2 * h21;
            sh2 = (s0 * h02 + s1 * h12) + s2 * h22;
        }
        const double d0 = (X[j] - x0) + sh0, d1 = (Y[j] - x1) + sh1, d2 = (Z[j] - x2) + sh2;
        const double q = (d0 * d0 + d1 * d1) + d2 * d2;
        Q[j] = q;
        if (Full) S0[j] = s0, S1[j] = s1, S2[j] = s2, D0[j] = d0, D1[j] = d1, D2[j] = d2;
    }
    // The mask in a loop of its own: bytes beside doubles in the loop above
    // make GCC vectorise it 64 pairs at a time (spills) or not at all.
    for (std::size_t j = 0; j < n; ++j) M[j] = Q[j] <= (Varying ? C[j] * C[j] * (1 + 1e-12) : c2);
}

/// Every R_a < 1/2: one candidate a pair; each row computed for all j by
/// single_pass, then the kept j read off the mask in order.
template <bool Diag, bool Varying, class Sink>
BP_ASE_INLINE void small_single(const SmallIn& in, const SmallRow& b, Sink& sink) {
    const std::size_t n = in.n, n64 = (n + 63) & ~std::size_t(63);
    const double c = Varying ? 0.0 : in.cut->c;
    const double c2 = c * c * (1 + 1e-12);  // within(): d^2 above this is out
    const double* Q = b.Q;
    const double* C = b.C;
    const std::uint8_t* M = b.M;
    const double *S0 = b.S0, *S1 = b.S1, *S2 = b.S2, *D0 = b.D0, *D1 = b.D1, *D2 = b.D2;
    for (std::size_t j = n; j < n64; ++j) b.M[j] = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sink.row_start(i);
        sink.reserve(n);
        if (Varying) small_cuts(in, i, b.C);
        const double xi[3] = {in.X[i], in.Y[i], in.Z[i]}, fi[3] = {in.F0[i], in.F1[i], in.F2[i]};
        single_pass<Diag, Sink::Full, Varying>(n, in.X, in.Y, in.Z, in.F0, in.F1, in.F2, b.S0, b.S1, b.S2, b.D0, b.D1,
                                               b.D2, b.Q, b.C, b.M, xi, fi, in.h, c2);
        if (!in.self) b.M[i] = 0;  // (i, i, 0): with self_interaction only
        typename Sink::Writer wr = sink.writer();
        for (std::size_t j0 = 0; j0 < n; j0 += 64) {
            std::uint64_t w = mask_bits(M + j0);
            while (w) {
                const std::size_t j = j0 + static_cast<unsigned>(__builtin_ctzll(w));
                w &= w - 1;
                if (!within(Q[j], Varying ? C[j] : c)) continue;
                if (Sink::Full) wr.put(j, S0[j], S1[j], S2[j], D0[j], D1[j], D2[j], Q[j]);
                else wr.put(j, 0, 0, 0, 0, 0, 0, 0);
            }
        }
        sink.commit(wr);
        sink.row_end(i);
    }
}

/// Row i's candidates for every j when some R_a >= 1/2 (several images a
/// pair): as single_pass for the nearest image S_a = rint(f_i - f_j), and
/// each axis's range [lo_a, hi_a] of S_a within reach. M[j] = 1 where the
/// nearest image is the only candidate and may be within the cutoff, 2
/// where a range holds more (enumerated one by one after), 0 where none.
template <bool Diag, bool Full, bool Varying>
BP_ASE_INLINE void range_pass(std::size_t n, const double* __restrict X, const double* __restrict Y,
                              const double* __restrict Z, const double* __restrict F0, const double* __restrict F1,
                              const double* __restrict F2, double* __restrict S0, double* __restrict S1,
                              double* __restrict S2, double* __restrict D0, double* __restrict D1,
                              double* __restrict D2, double* __restrict Q, const double* __restrict C,
                              double* __restrict L0, double* __restrict L1, double* __restrict L2,
                              double* __restrict H0, double* __restrict H1, double* __restrict H2,
                              std::uint8_t* __restrict M, const double (&xi)[3], const double (&fi)[3],
                              const double (&h)[3][3], const double (&R)[3], double c2) {
    const double h00 = h[0][0], h01 = h[0][1], h02 = h[0][2];
    const double h10 = h[1][0], h11 = h[1][1], h12 = h[1][2];
    const double h20 = h[2][0], h21 = h[2][1], h22 = h[2][2];
    const double x0 = xi[0], x1 = xi[1], x2 = xi[2], f0 = fi[0], f1 = fi[1], f2 = fi[2];
    const double R0 = R[0], R1 = R[1], R2 = R[2];
    const double big = 6755399441055744.0;
    for (std::size_t j = 0; j < n; ++j) {
        const double e0 = f0 - F0[j], e1 = f1 - F1[j], e2 = f2 - F2[j];
        const double s0 = (big + e0) - big, s1 = (big + e1) - big, s2 = (big + e2) - big;
        const double l0 = std::ceil(e0 - R0), l1 = std::ceil(e1 - R1), l2 = std::ceil(e2 - R2);
        const double u0 = std::floor(e0 + R0), u1 = std::floor(e1 + R1), u2 = std::floor(e2 + R2);
        double sh0, sh1, sh2;
        if (Diag) {
            sh0 = s0 * h00, sh1 = s1 * h11, sh2 = s2 * h22;
        } else {
            sh0 = (s0 * h00 + s1 * h10) + s2 * h20;
            sh1 = (s0 * h01 + s1 * h11) + s2 * h21;
            sh2 = (s0 * h02 + s1 * h12) + s2 * h22;
        }
        const double d0 = (X[j] - x0) + sh0, d1 = (Y[j] - x1) + sh1, d2 = (Z[j] - x2) + sh2;
        const double q = (d0 * d0 + d1 * d1) + d2 * d2;
        const double lim = Varying ? C[j] * C[j] * (1 + 1e-12) : c2;
        const bool one = (l0 == u0) & (l1 == u1) & (l2 == u2) & (l0 == s0) & (l1 == s1) & (l2 == s2);
        const bool any = (l0 <= u0) & (l1 <= u1) & (l2 <= u2);
        M[j] = static_cast<std::uint8_t>(one ? (q <= lim) : (any ? 2 : 0));
        Q[j] = q;
        L0[j] = l0, L1[j] = l1, L2[j] = l2, H0[j] = u0, H1[j] = u1, H2[j] = u2;
        if (Full) S0[j] = s0, S1[j] = s1, S2[j] = s2, D0[j] = d0, D1[j] = d1, D2[j] = d2;
    }
}

/// Several images a pair: range_pass, then in order of j the nearest image
/// where it is the only candidate, else every S of the ranges in
/// lexicographic order (scalar).
template <bool Diag, bool Varying, class Sink>
BP_ASE_INLINE void small_multi(const SmallIn& in, const SmallRow& b, Sink& sink) {
    const std::size_t n = in.n, n64 = (n + 63) & ~std::size_t(63);
    const double *S0 = b.S0, *S1 = b.S1, *S2 = b.S2, *D0 = b.D0, *D1 = b.D1, *D2 = b.D2;
    const double *L0 = b.L[0], *L1 = b.L[1], *L2 = b.L[2], *H0 = b.H[0], *H1 = b.H[1], *H2 = b.H[2];
    const double* Q = b.Q;
    const double* C = b.C;
    const std::uint8_t* M = b.M;
    const double(&h)[3][3] = in.h;
    const double c = Varying ? 0.0 : in.cut->c;
    const double c2 = c * c * (1 + 1e-12);
    for (std::size_t j = n; j < n64; ++j) b.M[j] = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sink.row_start(i);
        sink.reserve(n);
        if (Varying) small_cuts(in, i, b.C);
        const double xi[3] = {in.X[i], in.Y[i], in.Z[i]}, fi[3] = {in.F0[i], in.F1[i], in.F2[i]};
        range_pass<Diag, Sink::Full, Varying>(n, in.X, in.Y, in.Z, in.F0, in.F1, in.F2, b.S0, b.S1, b.S2, b.D0, b.D1,
                                              b.D2, b.Q, b.C, b.L[0], b.L[1], b.L[2], b.H[0], b.H[1], b.H[2], b.M, xi,
                                              fi, in.h, in.R, c2);
        if (!in.self && M[i] == 1) b.M[i] = 0;  // (i, i, 0) alone: with self_interaction only
        typename Sink::Writer wr = sink.writer();
        for (std::size_t j0 = 0; j0 < n; j0 += 64) {
            std::uint64_t w = mask_bits(M + j0);
            while (w) {
                const std::size_t j = j0 + static_cast<unsigned>(__builtin_ctzll(w));
                w &= w - 1;
                const double cj = Varying ? C[j] : c;
                if (M[j] == 1) {
                    if (!within(Q[j], cj)) continue;
                    if (Sink::Full) wr.put(j, S0[j], S1[j], S2[j], D0[j], D1[j], D2[j], Q[j]);
                    else wr.put(j, 0, 0, 0, 0, 0, 0, 0);
                    continue;
                }
                const int a0 = static_cast<int>(L0[j]), b0 = static_cast<int>(H0[j]);
                const int a1 = static_cast<int>(L1[j]), b1 = static_cast<int>(H1[j]);
                const int a2 = static_cast<int>(L2[j]), b2 = static_cast<int>(H2[j]);
                sink.commit(wr);
                sink.reserve(n + static_cast<std::size_t>(b0 - a0 + 1) * static_cast<std::size_t>(b1 - a1 + 1) *
                                     static_cast<std::size_t>(b2 - a2 + 1));
                wr = sink.writer();
                const double x0 = in.X[j] - xi[0], x1 = in.Y[j] - xi[1], x2 = in.Z[j] - xi[2];
                for (int t0 = a0; t0 <= b0; ++t0)
                    for (int t1 = a1; t1 <= b1; ++t1)
                        for (int t2 = a2; t2 <= b2; ++t2) {
                            if (j == i && !(t0 | t1 | t2) && !in.self) continue;
                            const double s0 = t0, s1 = t1, s2 = t2;
                            double sh0, sh1, sh2;
                            if (Diag) {
                                sh0 = s0 * h[0][0], sh1 = s1 * h[1][1], sh2 = s2 * h[2][2];
                            } else {
                                sh0 = (s0 * h[0][0] + s1 * h[1][0]) + s2 * h[2][0];
                                sh1 = (s0 * h[0][1] + s1 * h[1][1]) + s2 * h[2][1];
                                sh2 = (s0 * h[0][2] + s1 * h[1][2]) + s2 * h[2][2];
                            }
                            const double d0 = x0 + sh0, d1 = x1 + sh1, d2 = x2 + sh2;
                            const double q = (d0 * d0 + d1 * d1) + d2 * d2;
                            if (within(q, cj)) wr.put(j, s0, s1, s2, d0, d1, d2, q);
                        }
            }
        }
        sink.commit(wr);
        sink.row_end(i);
    }
}

template <bool Diag, bool Varying, bool Single, class Sink>
BP_ASE_INLINE void small_rows(const SmallIn& in, const SmallRow& b, Sink& sink) {
    if (Single) small_single<Diag, Varying>(in, b, sink);
    else small_multi<Diag, Varying>(in, b, sink);
}

// The rows compiled for each instruction set (the flags as the library's
// kernels use them); no fused multiply-add in any (ASE's rounding).
template <bool Diag, bool Varying, bool Single, class Sink>
void small_rows_base(const SmallIn& in, const SmallRow& b, Sink& sink) {
    small_rows<Diag, Varying, Single>(in, b, sink);
}
#if defined(BROADPHASE_SIMD_RUNTIME)
template <bool Diag, bool Varying, bool Single, class Sink>
__attribute__((target("avx2,bmi,popcnt"))) void small_rows_avx2(const SmallIn& in, const SmallRow& b, Sink& sink) {
    small_rows<Diag, Varying, Single>(in, b, sink);
}
template <bool Diag, bool Varying, bool Single, class Sink>
__attribute__((target("avx2,bmi,popcnt,avx512f,avx512vl,avx512bw,avx512dq"))) void small_rows_avx512(
    const SmallIn& in, const SmallRow& b, Sink& sink) {
    small_rows<Diag, Varying, Single>(in, b, sink);
}
#endif

template <class Sink, bool... B>
void small_pick(const SmallIn& in, const SmallRow& b, Sink& sink, const bool (&flags)[3]) {
    if constexpr (sizeof...(B) == 3) {
#if defined(BROADPHASE_SIMD_RUNTIME)
        switch (bp::simd_level()) {
            case bp::SimdLevel::avx512: small_rows_avx512<B...>(in, b, sink); return;
            case bp::SimdLevel::avx2: small_rows_avx2<B...>(in, b, sink); return;
            default: break;
        }
#endif
        small_rows_base<B...>(in, b, sink);
    } else {
        if (flags[sizeof...(B)]) small_pick<Sink, B..., true>(in, b, sink, flags);
        else small_pick<Sink, B..., false>(in, b, sink, flags);
    }
}

/// One system's arrays for the direct path into st.soa (X, Y, Z, F0, F1,
/// F2, then the row buffers) and st.maybe; fills `in` and `b`.
void small_prepare(State& st, const double* x, std::size_t n, const Mat3& h, const SmallGeom& g, SmallIn& in,
                   SmallRow& b) {
    const std::size_t n8 = (n + 7) & ~std::size_t(7);
    if (st.soa.size() < 20 * n8) st.soa.resize(20 * n8);
    if (st.maybe.size() < n8 + 64) st.maybe.resize(n8 + 64);  // padded to 64
    double* s = st.soa.data();
    double* X = s;
    double* Y = s + n8;
    double* Z = s + 2 * n8;
    double* F[3] = {s + 3 * n8, s + 4 * n8, s + 5 * n8};
    for (std::size_t k = 0; k < n; ++k) X[k] = x[3 * k], Y[k] = x[3 * k + 1], Z[k] = x[3 * k + 2];
    for (int a = 0; a < 3; ++a) {
        const double r0 = g.r[a][0], r1 = g.r[a][1], r2 = g.r[a][2];
        double* f = F[a];
        for (std::size_t k = 0; k < n; ++k) f[k] = (X[k] * r0 + Y[k] * r1) + Z[k] * r2;
    }
    in.n = n, in.X = X, in.Y = Y, in.Z = Z, in.F0 = F[0], in.F1 = F[1], in.F2 = F[2];
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) in.h[r][k] = h[r][k];
    for (int a = 0; a < 3; ++a) in.R[a] = g.R[a];
    b.S0 = s + 6 * n8, b.S1 = s + 7 * n8, b.S2 = s + 8 * n8;
    b.D0 = s + 9 * n8, b.D1 = s + 10 * n8, b.D2 = s + 11 * n8;
    b.Q = s + 12 * n8, b.C = s + 13 * n8;
    for (int a = 0; a < 3; ++a) b.L[a] = s + (14 + a) * n8, b.H[a] = s + (17 + a) * n8;
    b.M = st.maybe.data();
}

double max_abs(const double* x, std::size_t m) {
    double v = 0;
    for (std::size_t k = 0; k < m; ++k) v = std::max(v, std::fabs(x[k]));
    return v;
}

/// The search margin of list_systems (the largest magnitude's 2^-28).
double margin_of(double mag) { return std::ldexp(1.0, std::ilogb(mag) - 28); }

/// The direct path's limit for a call: calls that ask for no d, D or S
/// write 16 bytes an entry, not 72, and gain up to larger systems.
double limit_for(const Wants& w) { return (w.d || w.D || w.S) ? small_limit : 4 * small_limit; }

/// Room for the entries a system is expected to have: n^2 x the sphere's
/// share of the cell (a tenth more), at most n^2 where a pair has one
/// candidate; grown if short (open axes: no volume, 64 an atom to start).
double entries_expected(std::size_t n, const Mat3& h, const std::array<bool, 3>& pbc, const SmallGeom& g,
                        double max_cut) {
    const double nn = static_cast<double>(n) * static_cast<double>(n);
    double estimate = static_cast<double>(n) * static_cast<double>(std::min<std::size_t>(n, 64));
    if (pbc[0] && pbc[1] && pbc[2]) {
        double c12[3];
        cross3(h[1].data(), h[2].data(), c12);
        const double volume = std::fabs(dot3(h[0].data(), c12));
        estimate = 1.1 * nn * (4.18879020478639 * max_cut * max_cut * max_cut) / volume + 2.0 * static_cast<double>(n) + 64;
    }
    return g.single ? std::min(estimate, nn) : estimate;
}

/// A call of neighbor_list, or a batch whose systems are contiguous and in
/// order, when every system is for the direct path: the arrays written in
/// one pass into `out` (true); false, with nothing done, otherwise.
bool small_direct(State& st, const Systems& S, const Cutoffs& cut, const Wants& w, bool self_interaction,
                  py::object& out) {
    if (S.sys && !S.contiguous) return false;
    const double limit = limit_for(w);
    st.geoms.resize(S.count);
    std::size_t a0 = 0;
    double estimate = 0;
    for (std::size_t s = 0; s < S.count; ++s) {
        std::size_t a1 = S.n;
        if (S.sys) {  // contiguous: system s is the run of atoms with index s
            a1 = a0;
            while (a1 < S.n && static_cast<std::size_t>(S.sys[a1]) == s) ++a1;
        }
        const std::size_t n = a1 - a0;
        const Mat3& h = S.cells[s];
        const double* x = S.x + 3 * a0;
        const double xmax = max_abs(x, 3 * n);
        double mag = std::max(1 + cut.max_cut, xmax);
        for (int r = 0; r < 3; ++r) mag = std::max(mag, max_abs(h[r].data(), 3));
        SmallGeom& g = st.geoms[s].g;
        g = SmallGeom{};
        st.geoms[s].a0 = a0, st.geoms[s].n = n;
        if (n && !small_geometry(h, S.pbc[s], n, xmax, cut.max_cut + margin_of(mag), limit, g)) return false;
        if (n) estimate += entries_expected(n, h, S.pbc[s], g, cut.max_cut);
        a0 = a1;
    }
    if (a0 != S.n) return false;  // (not reached: contiguous and every index < count)
    const std::size_t cap = static_cast<std::size_t>(std::min(estimate, 1e9));
    st.glob.resize(S.n);
    for (std::size_t k = 0; k < S.n; ++k) st.glob[k] = static_cast<std::uint32_t>(k);
    const auto all = [&](auto& sink) {
        for (std::size_t s = 0; s < S.count; ++s) {
            const SmallGeom& g = st.geoms[s].g;
            const std::size_t first = st.geoms[s].a0, n = st.geoms[s].n;
            if (!n) continue;
            SmallIn in;
            SmallRow b;
            small_prepare(st, S.x + 3 * first, n, S.cells[s], g, in, b);
            in.self = self_interaction, in.cut = &cut, in.glob = st.glob.data() + first;
            const bool flags[3] = {g.diag, cut.kind != CutKind::scalar, g.single};
            sink.off = static_cast<std::int64_t>(first);
            small_pick(in, b, sink, flags);
        }
        return sink.finish();
    };
    if (w.d || w.D || w.S) {
        ArraySink<true> sink(st, w, cap);
        out = all(sink);
    } else {
        ArraySink<false> sink(st, w, cap);
        out = all(sink);
    }
    st.last_direct = 0;
    for (const State::SystemGeom& g : st.geoms) st.last_direct += g.n ? 1 : 0;
    return true;
}

/// One system of a batch by the direct path, into st.entries (as place()
/// leaves them): false (nothing done) when the system is not for it.
bool small_entries(State& st, const Cutoffs& cut, const double* x, const std::uint32_t* glob, std::size_t n,
                   const Mat3& h, const std::array<bool, 3>& pbc, double margin, bool self_interaction) {
    SmallGeom g;
    if (!small_geometry(h, pbc, n, max_abs(x, 3 * n), cut.max_cut + margin, small_limit, g)) return false;
    SmallIn in;
    SmallRow b;
    small_prepare(st, x, n, h, g, in, b);
    in.self = self_interaction, in.cut = &cut, in.glob = glob;
    const bool flags[3] = {g.diag, cut.kind != CutKind::scalar, g.single};
    EntrySink sink(st, glob);
    small_pick(in, b, sink, flags);
    sink.finish();
    return true;
}

// ---------------------------------------------------------------------------

/// Lists every system into st.entries / row_at / row_n (global numbering).
void list_systems(State& st, const Systems& S, const Cutoffs& cut, bool self_interaction) {
    const std::size_t N = S.n;
    st.row_at.assign(N, 0);
    st.row_n.assign(N, 0);
    st.entries.clear();
    // Systems as atom ranges (contiguous) or through by_system.
    if (S.sys && !S.contiguous) {
        st.system_at.assign(S.count + 1, 0);
        for (std::size_t g = 0; g < N; ++g) ++st.system_at[static_cast<std::size_t>(S.sys[g]) + 1];
        for (std::size_t s = 0; s < S.count; ++s) st.system_at[s + 1] += st.system_at[s];
        st.by_system.resize(N);
        std::vector<std::uint64_t> at(st.system_at.begin(), st.system_at.end() - 1);
        for (std::size_t g = 0; g < N; ++g) st.by_system[at[static_cast<std::size_t>(S.sys[g])]++] = static_cast<std::uint32_t>(g);
    } else if (S.sys) {
        st.system_at.assign(S.count + 1, 0);
        for (std::size_t g = 0; g < N; ++g) ++st.system_at[static_cast<std::size_t>(S.sys[g]) + 1];
        for (std::size_t s = 0; s < S.count; ++s) st.system_at[s + 1] += st.system_at[s];
    } else {
        st.system_at.assign({0, static_cast<std::uint64_t>(N)});
    }
    // The search margin: far above the rounding of either computation of D.
    double mag = 1 + cut.max_cut;
    for (std::size_t g = 0; g < 3 * N; ++g) mag = std::max(mag, std::fabs(S.x[g]));
    for (const Mat3& h : S.cells)
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) mag = std::max(mag, std::fabs(h[r][k]));
    const double margin = std::ldexp(1.0, std::ilogb(mag) - 28);  // about 4e-9 of the largest magnitude
    if (!st.list || st.margin != margin) {
        bp::NeighborListOptions o;
        o.cutoff = margin, o.skin = 0, o.full = true, o.shifts = true;
        st.list = std::make_unique<bp::NeighborList>(o, bp::PeriodicCell{});
        st.margin = margin;
    }
    bp::NeighborList& list = *st.list;

    for (std::size_t s = 0; s < S.count; ++s) {
        const std::size_t a0 = static_cast<std::size_t>(st.system_at[s]), a1 = static_cast<std::size_t>(st.system_at[s + 1]);
        const std::size_t n = a1 - a0;
        if (n == 0) continue;
        // The system's positions and global ids.
        const double* x;
        st.glob.resize(n);
        if (S.sys && !S.contiguous) {
            st.gathered_x.resize(3 * n);
            for (std::size_t k = 0; k < n; ++k) {
                const std::uint32_t g = st.by_system[a0 + k];
                st.glob[k] = g;
                std::memcpy(&st.gathered_x[3 * k], S.x + 3 * static_cast<std::size_t>(g), 3 * sizeof(double));
            }
            x = st.gathered_x.data();
        } else {
            for (std::size_t k = 0; k < n; ++k) st.glob[k] = static_cast<std::uint32_t>(a0 + k);
            x = S.x + 3 * a0;
        }
        const std::uint32_t* glob = st.glob.data();
        const Mat3& h = S.cells[s];
        if (small_entries(st, cut, x, glob, n, h, S.pbc[s], margin, self_interaction)) {
            ++st.last_direct;
            continue;
        }
        ++st.last_library;
        // Search radii.
        bp::SphereView<double> view;
        double max_r = 0;
        if (cut.kind == CutKind::scalar) {
            view = bp::sphere_rows<double>(x, 0.5 * cut.c, n);
            max_r = 0.5 * cut.c;
        } else {
            st.radii.resize(n);
            for (std::size_t k = 0; k < n; ++k) st.radii[k] = cut.radius(glob[k]), max_r = std::max(max_r, st.radii[k]);
            view = bp::sphere_rows<double>(x, st.radii.data(), n);
        }
        const SearchCell sc = search_cell(h, S.pbc[s], x, n, 2 * max_r + margin, S.sys ? static_cast<long>(s) : -1);
        list.set_cell(sc.cell);
        const bp::Report rep = list.build(view);
        if (rep.status == bp::Status::out_of_memory) throw std::bad_alloc();
        if (!rep.ok())
            raise_value((S.sys ? "system " + std::to_string(s) + ": " : std::string()) + "the neighbour list failed: " +
                        std::string(bp::to_string(rep.status)));
        place(st, cut, x, glob, n, h, sc.open, self_interaction, list.offsets().data(), list.indices().data(),
              list.shifts().data());
    }
}

/// The arrays asked for, from st.entries (rows in global i order).
py::object emit(State& st, const Systems& S, const Wants& w) {
    const std::size_t N = S.n;
    std::size_t K = 0;
    for (std::size_t i = 0; i < N; ++i) K += st.row_n[i];
    const py::ssize_t k = static_cast<py::ssize_t>(K);
    py::array_t<std::int64_t> ai, aj, aS;
    py::array_t<double> ad, aD;
    if (w.i) ai = py::array_t<std::int64_t>(k);
    if (w.j) aj = py::array_t<std::int64_t>(k);
    if (w.d) ad = py::array_t<double>(k);
    if (w.D) aD = py::array_t<double>({k, py::ssize_t(3)});
    if (w.S) aS = py::array_t<std::int64_t>({k, py::ssize_t(3)});
    std::int64_t* pi = w.i ? ai.mutable_data() : nullptr;
    std::int64_t* pj = w.j ? aj.mutable_data() : nullptr;
    double* pd = w.d ? ad.mutable_data() : nullptr;
    double* pD = w.D ? aD.mutable_data() : nullptr;
    std::int64_t* pS = w.S ? aS.mutable_data() : nullptr;
    const bool vec = w.d || w.D;
    {
        std::unique_ptr<py::gil_scoped_release> nogil;
        if (K > 100000) nogil = std::make_unique<py::gil_scoped_release>();
        std::size_t p = 0;
        const Entry* en = st.entries.data();
        for (std::size_t i = 0; i < N; ++i) {
            const std::size_t b = static_cast<std::size_t>(st.row_at[i]), c = st.row_n[i];
            const Mat3& h = S.cells[S.sys ? static_cast<std::size_t>(S.sys[i]) : 0];
            const double* xi = S.x + 3 * i;
            for (std::size_t q = b; q < b + c; ++q, ++p) {
                const Entry& e = en[q];
                if (pi) pi[p] = static_cast<std::int64_t>(i);
                if (pj) pj[p] = e.j;
                if (pS) pS[3 * p] = e.s[0], pS[3 * p + 1] = e.s[1], pS[3 * p + 2] = e.s[2];
                if (vec) {
                    double D[3];
                    const double* xj = S.x + 3 * static_cast<std::size_t>(e.j);
                    if (!(e.s[0] | e.s[1] | e.s[2])) D[0] = xj[0] - xi[0], D[1] = xj[1] - xi[1], D[2] = xj[2] - xi[2];
                    else ase_vector(xi, xj, e.s, h, D);
                    if (pD) pD[3 * p] = D[0], pD[3 * p + 1] = D[1], pD[3 * p + 2] = D[2];
                    if (pd) pd[p] = ase_length(D);
                }
            }
        }
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

Mat3 mat3_of(const double* p, const std::string& what) {
    Mat3 h;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) {
            h[r][k] = p[3 * r + k];
            if (!std::isfinite(h[r][k])) raise_value(what + " must be finite");
        }
    return h;
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
    return mat3_of(c.data(), "cell");
}

py::object run(State& st, Systems& S, const Wants& w, py::handle cutoff, py::handle pairs, py::handle numbers,
               bool self_interaction) {
    Cutoffs cut;
    py::object alive;
    parse_cutoff(cutoff, pairs, numbers, S.n, cut, alive);
    py::object out;
    st.last_direct = st.last_library = 0;
    if (S.n > 0 && small_direct(st, S, cut, w, self_interaction, out)) return out;
    {
        std::unique_ptr<py::gil_scoped_release> nogil;
        if (S.n > 4096) nogil = std::make_unique<py::gil_scoped_release>();
        list_systems(st, S, cut, self_interaction);
    }
    return emit(st, S, w);
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
    Systems S;
    F64 x = parse_positions(positions, S.n);
    S.x = x.data();
    S.cells.push_back(parse_cell(cell));
    S.pbc.push_back(parse_pbc(pbc, "pbc"));
    State& st = state();
    std::unique_lock<std::mutex> lock = lock_state(st);
    return run(st, S, w, cutoff, pairs, numbers, self_interaction);
}

py::object ase_neighbor_list_batch(py::handle quantities, py::handle positions, py::handle cells, py::handle pbcs,
                                   py::handle system_index, py::handle cutoff, py::handle pairs, py::handle numbers,
                                   bool self_interaction) {
    const Wants w = parse_quantities(quantities);
    Systems S;
    F64 x = parse_positions(positions, S.n);
    S.x = x.data();
    F64 c = as_f64(cells, "cells");
    if (c.ndim() != 3 || c.shape(1) != 3 || c.shape(2) != 3)
        raise_value("cells must have shape (systems, 3, 3); got " + shape_str(c));
    S.count = static_cast<std::size_t>(c.shape(0));
    for (std::size_t s = 0; s < S.count; ++s) S.cells.push_back(mat3_of(c.data() + 9 * s, "cells"));
    // pbc: one bool, three, or three per system.
    if (py::isinstance<py::bool_>(pbcs)) {
        S.pbc.assign(S.count, parse_pbc(pbcs, "pbc"));
    } else {
        py::array pa = numeric(pbcs, "pbc", true);
        if (pa.ndim() <= 1) {
            S.pbc.assign(S.count, parse_pbc(pa, "pbc"));
        } else {
            if (pa.ndim() != 2 || static_cast<std::size_t>(pa.shape(0)) != S.count || pa.shape(1) != 3)
                raise_value("pbc must be one bool, three, or (systems, 3); got shape " + shape_str(pa));
            auto b = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(pa);
            S.pbc.resize(S.count);
            for (std::size_t s = 0; s < S.count; ++s)
                for (int k = 0; k < 3; ++k) S.pbc[s][k] = b.data()[3 * s + k];
        }
    }
    py::array si = numeric(system_index, "system_index");
    if (si.dtype().kind() == 'f') raise_type("system_index must be integers; got dtype " + std::string(py::str(si.dtype())));
    if (si.ndim() != 1 || static_cast<std::size_t>(si.shape(0)) != S.n)
        raise_value("system_index must have one value per atom (" + std::to_string(S.n) + "); got shape " + shape_str(si));
    auto sys = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(si);
    S.sys = sys.data();
    S.contiguous = true;
    for (std::size_t g = 0; g < S.n; ++g) {
        const std::int64_t v = S.sys[g];
        if (v < 0 || static_cast<std::size_t>(v) >= S.count)
            raise_value("system_index must be in [0, " + std::to_string(S.count) + "); atom " + std::to_string(g) + " has " +
                        std::to_string(v));
        if (g && v < S.sys[g - 1]) S.contiguous = false;
    }
    State& st = state();
    std::unique_lock<std::mutex> lock = lock_state(st);
    return run(st, S, w, cutoff, pairs, numbers, self_interaction);
}

void ase_release() {
    State& st = state();
    std::unique_lock<std::mutex> lock = lock_state(st);
    st.list.reset();
    st.margin = -1;
    State fresh_vectors;  // swap the vectors out (frees their memory)
    std::swap(st.count, fresh_vectors.count);
    std::swap(st.last_j, fresh_vectors.last_j);
    std::swap(st.entries, fresh_vectors.entries), std::swap(st.row_at, fresh_vectors.row_at);
    std::swap(st.row_n, fresh_vectors.row_n), std::swap(st.gathered_x, fresh_vectors.gathered_x);
    std::swap(st.glob, fresh_vectors.glob);
    std::swap(st.by_system, fresh_vectors.by_system), std::swap(st.system_at, fresh_vectors.system_at);
    std::swap(st.radii, fresh_vectors.radii);
    std::swap(st.soa, fresh_vectors.soa), std::swap(st.maybe, fresh_vectors.maybe);
    std::swap(st.out_i, fresh_vectors.out_i), std::swap(st.out_j, fresh_vectors.out_j);
    std::swap(st.out_S, fresh_vectors.out_S), std::swap(st.out_d, fresh_vectors.out_d);
    std::swap(st.out_D, fresh_vectors.out_D), std::swap(st.geoms, fresh_vectors.geoms);
}

/// The direct path's limit (see small_limit); sets it when `limit` is not
/// None. Returns the limit before.
double ase_small_limit(py::handle limit) {
    State& st = state();
    std::unique_lock<std::mutex> lock = lock_state(st);
    const double before = small_limit;
    if (!limit.is_none()) {
        const double v = limit.cast<double>();
        if (!(v >= 0)) raise_value("the limit must be >= 0");
        small_limit = v;
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
            return py::make_tuple(st.last_direct, st.last_library);
        },
        "neighbor_list's last call: (systems listed by the direct path, by the library's) (tests).");
    m.def("_ase_small_limit", &ase_small_limit, py::arg("limit") = py::none(),
          "neighbor_list's direct path for small systems: its limit on atoms^2 x candidate shifts a pair (tests).");
}

}  // namespace broadphase_python
