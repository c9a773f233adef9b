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
// How: the library's full list with shifts, searched at the cutoff plus a
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
    std::vector<py::object> out;
    for (char c : w.q) {
        switch (c) {
            case 'i': out.push_back(ai); break;
            case 'j': out.push_back(aj); break;
            case 'd': out.push_back(ad); break;
            case 'D': out.push_back(aD); break;
            default: out.push_back(aS); break;
        }
    }
    if (out.size() == 1) return out[0];
    py::tuple t(out.size());
    for (std::size_t q = 0; q < out.size(); ++q) t[q] = out[q];
    return std::move(t);
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
}

}  // namespace broadphase_python
