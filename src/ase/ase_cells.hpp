// The cells of ASE's neighbour list: how a system's cell goes to the
// library's NeighborList (search_cell), and the direct path's view of it
// (small_geometry: which shifts a pair can have, and whether the system is
// small enough for that path).
//
// Cells the library cannot take as they are: periodic axes whose vectors
// are tilted mixed with open axes (a slab of a hexagonal cell). Each open
// vector is then replaced by one orthogonal to the periodic ones (and to
// each other), longer than the positions' extent along it plus twice the
// search reach, so that no image along it is within reach; entries with a
// shift on an open axis are dropped in any case (ASE's rule). A cell whose
// periodic vectors lie along x, y, z is passed as an orthorhombic cell
// with open axes (period 0); no periodic axis: the open domain.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>

#include <broadphase/periodic.hpp>
#include "ase/ase_rules.hpp"

namespace broadphase {
namespace detail {
namespace ase {

/// How a system's cell goes to the library.
struct SearchCell {
    PeriodicCell cell;            // what the library searches in
    std::array<bool, 3> open{};   // axes whose shift must be 0
};

/// The cell the library searches in (see the top of the file), or false
/// with `error` set. x: the system's n positions; reach: the largest reach
/// of a pair; system: its index in a batch (-1: not a batch).
inline bool search_cell(const Mat3& h, const std::array<bool, 3>& pbc, const double* x, std::size_t n, double reach,
                        long system, SearchCell& sc, std::string& error) {
    const auto which = [&] { return system < 0 ? std::string() : "system " + std::to_string(system) + ": "; };
    sc = SearchCell{};
    int periodic = 0;
    bool aligned = true;
    for (int r = 0; r < 3; ++r) {
        sc.open[r] = !pbc[r];
        if (!pbc[r]) continue;
        ++periodic;
        if (h[r][0] == 0 && h[r][1] == 0 && h[r][2] == 0) {
            error = which() + "pbc is True on axis " + std::to_string(r) + " but cell vector " + std::to_string(r) +
                    " is zero";
            return false;
        }
        for (int k = 0; k < 3; ++k)
            if (k != r && h[r][k] != 0) aligned = false;
        if (!(h[r][r] > 0)) aligned = false;
    }
    if (periodic == 0) return true;  // the open domain
    if (aligned) {
        sc.cell = PeriodicCell::orthorhombic(pbc[0] ? h[0][0] : 0, pbc[1] ? h[1][1] : 0, pbc[2] ? h[2][2] : 0);
        return true;
    }
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) sc.cell.vectors[r][k] = h[r][k];
    if (periodic == 3) return true;
    // Open axes in a tilted cell: orthonormal directions u for them.
    int per[3], opn[3], np = 0, no = 0;
    for (int r = 0; r < 3; ++r) {
        if (pbc[r]) per[np++] = r;
        else opn[no++] = r;
    }
    double u[2][3];
    if (periodic == 2) {
        cross3(h[per[0]].data(), h[per[1]].data(), u[0]);
        const double l = std::sqrt(dot3(u[0], u[0]));
        if (!(l > 0) || !std::isfinite(l)) {
            error = which() + "the periodic cell vectors are parallel (the cell has no volume)";
            return false;
        }
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
    for (int o = 0; o < no; ++o) {
        double lo = 0, hi = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double p = dot3(x + 3 * i, u[o]);
            if (i == 0 || p < lo) lo = p;
            if (i == 0 || p > hi) hi = p;
        }
        const double L = (hi - lo) + 2 * reach + 1.0;
        for (int k = 0; k < 3; ++k) sc.cell.vectors[opn[o]][k] = L * u[o][k];
    }
    return true;
}

// ---------------------------------------------------------------------------
// The direct path's geometry (the path itself: ase_direct.hpp).
//
// On a periodic axis a let r_a be the dual vector of the periodic cell
// vectors (r_a . h_b = 1 if b = a, 0 for the other periodic b) taken
// orthogonal to the open directions; f_a = x . r_a is then the fractional
// coordinate and D . r_a = f_a(x_j) - f_a(x_i) + S_a, so |D| >= |f_a(x_j) -
// f_a(x_i) + S_a| / |r_a| (1 / |r_a| is the distance between the cell's
// faces across a): an entry within the cutoff c has |f_a(x_j) - f_a(x_i) +
// S_a| <= R_a = c |r_a|, R_a taken a little larger for the rounding of f.
// This test only chooses the candidates; each is then decided by ASE's own
// computation (ase_vector, within). Open axes: S_a = 0 and f_a = 0. The
// dual vectors come from the inverse of the matrix whose rows are the
// periodic vectors and, for the open axes, unit vectors orthogonal to them,
// so a tilted cell with open axes needs no case of its own.

/// A system's geometry for the direct path.
struct SmallGeom {
    bool single = true;   // every R_a < 1/2: one candidate a pair at most
    bool diag = true;     // the cell is diagonal: (S h)_k = S_k h_kk exactly
    double r[3][3] = {};  // r[a]: the dual vector of periodic axis a (0 on open axes)
    double R[3] = {};     // the reach in fractional units (0 on open axes)
};

/// Whether the direct path takes the system (n atoms, |x_k| <= xmax, the
/// largest reach of a pair `reach`, the limit on atoms^2 x candidates a
/// pair), and its geometry. Near-flat cells (volume under 1/1000 of the
/// product of the vectors' lengths), zero periodic vectors and atoms
/// millions of cells away go to the library's path (which also reports the
/// errors).
inline bool small_geometry(const Mat3& h, const std::array<bool, 3>& pbc, std::size_t n, double xmax, double reach,
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
    // A near-flat cell: the library's path.
    if (!(std::fabs(det) >= 1e-3 * size) || !std::isfinite(det)) return false;
    const double* cs[3] = {c12, c20, c01};
    double rmax = 0;
    for (int t = 0; t < np; ++t) {
        const int a = per[t];
        for (int k = 0; k < 3; ++k) g.r[a][k] = cs[a][k] / det;
        rmax = std::max(rmax, std::sqrt(dot3(g.r[a], g.r[a])));
    }
    // |f| <= |x| |r|: whole shifts of a few million cells at most, and f
    // computed to far better than 1e-9.
    const double fmax = 2 * xmax * rmax;
    if (!(fmax < 1e6)) return false;
    const double tol = 1e-9 * (1 + 4 * fmax);
    double images = 1;  // about the candidates a pair has
    for (int t = 0; t < np; ++t) {
        const int a = per[t];
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

/// Room for the entries a system is expected to have: n^2 x the sphere's
/// share of the cell (a tenth more), at most n^2 where a pair has one
/// candidate; grown if short (open axes: no volume, 64 an atom to start).
inline double entries_expected(std::size_t n, const Mat3& h, const std::array<bool, 3>& pbc, const SmallGeom& g,
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

}  // namespace ase
}  // namespace detail
}  // namespace broadphase
