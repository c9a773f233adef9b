// ASE's rules as the other parts of src/ase/ apply them: the cutoff of a
// pair (one number, per-atom radii, a table over pairs of elements), D and d
// computed as numpy computes them, the test d < cutoff, and the small
// vector helpers. No fused multiply-add anywhere in src/ase/: the compiled
// library builds ase_neighbor_list.cpp with -ffp-contract=off, the single
// header turns contraction off around this code
// (ase_neighbor_list_impl.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <broadphase/ase_neighbor_list.hpp>
#include "simd/dispatch.hpp"  // count_trailing_zeros

namespace broadphase {
namespace detail {
namespace ase {

using Mat3 = std::array<std::array<double, 3>, 3>;

/// One entry of the answer: j (global), S; i is its row.
struct Entry {
    std::uint32_t j;
    std::int32_t s[3];
    Entry() noexcept {}  // left unset: growing the vector writes nothing (every entry used is written)
};

/// The cutoff rule of one call.
enum class CutKind { scalar, per_atom, pairs };

/// The per-entry cutoff and each atom's search radius.
struct Cutoffs {
    CutKind kind = CutKind::scalar;
    double c = 0;                     // scalar
    const double* r = nullptr;        // per atom (global numbering)
    bool r_f32 = false;               // r_i + r_j summed in float32 (a float32 array, as numpy would)
    std::vector<std::uint32_t> elem;  // pairs: each atom's element index
    std::vector<double> table;        // pairs: k x k
    std::vector<double> elem_r;       // pairs: an element's search radius (max over its pairs / 2)
    std::vector<std::int64_t> distinct;  // pairs: the atomic numbers present, sorted
    std::size_t k = 0;
    double max_cut = 0;  // the largest cutoff of a pair

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

inline bool good_cut(double v) { return !(std::isnan(v) || std::isinf(v) || v < 0); }

/// The checks of a cutoff for n atoms and its largest cutoff of a pair
/// (max_cut), without the element table; false with `error` set for bad
/// input. O(n) for radii, O(table) for a table.
inline bool check_cutoff(const AseCutoff& in, std::size_t n, Cutoffs& cut, std::string& error) {
    cut.max_cut = 0;
    switch (in.kind) {
        case AseCutoffKind::scalar:
            cut.kind = CutKind::scalar;
            cut.c = in.value;
            if (!good_cut(in.value)) return error = "cutoff must be finite and >= 0", false;
            cut.max_cut = in.value;
            return true;
        case AseCutoffKind::radii:
            cut.kind = CutKind::per_atom;
            cut.r = in.radii, cut.r_f32 = in.radii_float32;
            if (n && !in.radii) return error = "per-atom cutoffs: the radii are null", false;
            for (std::size_t g = 0; g < n; ++g) {
                if (!good_cut(in.radii[g])) return error = "a per-atom cutoff must be finite and >= 0", false;
                cut.max_cut = std::max(cut.max_cut, 2 * in.radii[g]);
            }
            return true;
        case AseCutoffKind::element_pairs:
            cut.kind = CutKind::pairs;
            if (n && !in.numbers) return error = "a cutoff over pairs of elements needs the atomic numbers", false;
            if (in.pair_count == 0 || !in.pairs) return error = "a cutoff over pairs of elements must hold at least one pair", false;
            for (std::size_t p = 0; p < in.pair_count; ++p) {
                if (!good_cut(in.pairs[p].cutoff)) return error = "a cutoff of the dict must be finite and >= 0", false;
                cut.max_cut = std::max(cut.max_cut, in.pairs[p].cutoff);
            }
            return true;
    }
    return error = "unknown cutoff kind", false;
}

/// The element table of a cutoff over pairs of elements (check_cutoff
/// first): each atom's element, the k x k cutoffs, each element's search
/// radius. O(n log n + table).
inline void element_table(const AseCutoff& in, std::size_t n, Cutoffs& cut) {
    if (cut.kind != CutKind::pairs) return;
    const std::int64_t* z = in.numbers;
    std::vector<std::int64_t>& distinct = cut.distinct;
    distinct.assign(z, z + n);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    cut.k = distinct.size();
    cut.elem.resize(n);
    for (std::size_t g = 0; g < n; ++g)
        cut.elem[g] = static_cast<std::uint32_t>(std::lower_bound(distinct.begin(), distinct.end(), z[g]) - distinct.begin());
    cut.table.assign(cut.k * cut.k, 0.0);
    for (std::size_t p = 0; p < in.pair_count; ++p) {
        const std::int64_t z1 = in.pairs[p].z1, z2 = in.pairs[p].z2;
        const double c = in.pairs[p].cutoff;
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
}

/// D as numpy computes it (see ase_neighbor_list.hpp): no fused
/// multiply-add.
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

/// ASE's rule for one entry: d < cut, with d = sqrt(d2) as numpy rounds
/// it; the square root only when d2 is within 1e-12 of cut^2.
[[gnu::always_inline]] inline bool within(double d2, double cut) {
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

inline double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline void cross3(const double* a, const double* b, double* c) {
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

inline double max_abs(const double* x, std::size_t m) {
    double v = 0;
    for (std::size_t k = 0; k < m; ++k) v = std::max(v, std::fabs(x[k]));
    return v;
}

/// The search margin of the library's path (the largest magnitude's 2^-28:
/// far above the rounding of either computation of D).
inline double margin_of(double mag) { return std::ldexp(1.0, std::ilogb(mag) - 28); }

/// The systems of one call, as the parts read them.
struct Systems {
    std::size_t n = 0;                  // atoms in all
    std::size_t count = 1;              // systems
    const double* x = nullptr;          // n x 3, global
    const Mat3* cells = nullptr;        // count
    const std::array<bool, 3>* pbc = nullptr;  // count
    const std::int64_t* sys = nullptr;  // per atom (null: one system)
    bool contiguous = true;             // each system's atoms are one range, in order of system
};

}  // namespace ase
}  // namespace detail
}  // namespace broadphase
