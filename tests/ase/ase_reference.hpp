// The tests' own ASE neighbour list, by brute force: every atom i, every
// atom j of its system, every shift S in a range wide enough to hold every
// image within the cutoff (around the nearest image, by the triangle
// inequality), with ASE's rule written out:
//   D = (x_j - x_i) + S.dot(cell)    (numpy's order: ((0 + S0 h0k) + S1 h1k) + S2 h2k)
//   d = sqrt((D0^2 + D1^2) + D2^2)
// kept iff d < cutoff; (i, i, 0) only with self_interaction. Loops in
// order of i, j, then S lexicographically: the entries come out in ASE's
// order as AseNeighborList gives it. Also the test systems (random atoms,
// cells, batches) and the comparison. Compiled with -ffp-contract=off
// (tests/ase/CMakeLists.txt).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <broadphase/ase_neighbor_list.hpp>

namespace asetest {

namespace bp = broadphase;

/// Atoms of one or more systems, each atom with its system.
struct Batch {
    std::vector<double> x;          // n x 3
    std::vector<std::int64_t> sys;  // n
    std::vector<double> cells;      // systems x 9
    std::vector<std::array<bool, 3>> pbc;
    std::vector<std::int64_t> z;    // atomic numbers (element-pair cutoffs)

    std::size_t n() const { return x.size() / 3; }
    std::size_t systems() const { return pbc.size(); }
    const double* cell(std::size_t s) const { return cells.data() + 9 * s; }

    /// The library's view (pbc flattened into `keep`).
    bp::AseBatch view(std::unique_ptr<bool[]>& keep) const {
        keep.reset(new bool[3 * systems() + 1]);
        for (std::size_t s = 0; s < systems(); ++s)
            for (int k = 0; k < 3; ++k) keep[3 * s + static_cast<std::size_t>(k)] = pbc[s][static_cast<std::size_t>(k)];
        bp::AseBatch b;
        b.positions = x.data(), b.n = n();
        b.system_index = sys.data(), b.systems = systems();
        b.cells = cells.data(), b.pbc = keep.get();
        return b;
    }
    /// System 0 alone as an AseSystem (a batch of one system).
    bp::AseSystem single() const {
        bp::AseSystem s;
        s.positions = x.data(), s.n = n();
        for (int r = 0; r < 3; ++r) {
            s.pbc[r] = pbc[0][static_cast<std::size_t>(r)];
            for (int k = 0; k < 3; ++k) s.cell[r][k] = cells[static_cast<std::size_t>(3 * r + k)];
        }
        return s;
    }
    /// Appends the atoms and the cell of `o` as one more system.
    void append(const Batch& o) {
        const std::int64_t s = static_cast<std::int64_t>(systems());
        x.insert(x.end(), o.x.begin(), o.x.end());
        z.insert(z.end(), o.z.begin(), o.z.end());
        for (std::size_t g = 0; g < o.n(); ++g) sys.push_back(s);
        cells.insert(cells.end(), o.cells.begin(), o.cells.begin() + 9);
        pbc.push_back(o.pbc[0]);
    }
};

/// A cutoff rule with its data, and the cutoff of a pair as ASE takes it.
struct Rule {
    bp::AseCutoffKind kind = bp::AseCutoffKind::scalar;
    double c = 0;
    std::vector<double> r;  // radii
    bool f32 = false;       // radii summed in float32
    std::vector<bp::AsePairCutoff> table;

    static Rule scalar(double c) {
        Rule q;
        q.c = c;
        return q;
    }
    static Rule radii(std::vector<double> r, bool f32 = false) {
        Rule q;
        q.kind = bp::AseCutoffKind::radii;
        q.r = std::move(r), q.f32 = f32;
        return q;
    }
    static Rule pairs(std::vector<bp::AsePairCutoff> t) {
        Rule q;
        q.kind = bp::AseCutoffKind::element_pairs;
        q.table = std::move(t);
        return q;
    }
    bp::AseCutoff cutoff(const Batch& b) const {
        switch (kind) {
            case bp::AseCutoffKind::radii: return bp::AseCutoff::per_atom(r.data(), f32);
            case bp::AseCutoffKind::element_pairs: return bp::AseCutoff::element_pairs(b.z.data(), table.data(), table.size());
            default: return bp::AseCutoff::scalar(c);
        }
    }
    /// The cutoff of atoms i and j: c, r_i + r_j, or the table's last entry
    /// for their elements (0 when none).
    double cut(const Batch& b, std::size_t i, std::size_t j) const {
        switch (kind) {
            case bp::AseCutoffKind::radii:
                if (f32) return static_cast<double>(static_cast<float>(r[i]) + static_cast<float>(r[j]));
                return r[i] + r[j];
            case bp::AseCutoffKind::element_pairs: {
                double v = 0;
                for (const bp::AsePairCutoff& p : table)
                    if ((p.z1 == b.z[i] && p.z2 == b.z[j]) || (p.z1 == b.z[j] && p.z2 == b.z[i])) v = p.cutoff;
                return v;
            }
            default: return c;
        }
    }
};

/// The answer as the reference gives it (every quantity).
struct Answer {
    std::vector<std::int64_t> i, j, S;
    std::vector<double> d, D;
    std::size_t size() const { return i.size(); }
};

inline double norm3(const double* a) { return std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }
inline void cross(const double* a, const double* b, double* c) {
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

/// For each periodic axis a of a cell, the distance between the lattice
/// planes across it (within the periodic axes): |S_a| <= |S h| / that.
inline std::array<double, 3> plane_distances(const double* h, const std::array<bool, 3>& pbc) {
    std::array<double, 3> dist{0, 0, 0};
    int per[3], np = 0;
    for (int a = 0; a < 3; ++a)
        if (pbc[static_cast<std::size_t>(a)]) per[np++] = a;
    for (int t = 0; t < np; ++t) {
        const int a = per[t];
        const double* ha = h + 3 * a;
        double dv = 0;
        if (np == 1) {
            dv = norm3(ha);
        } else if (np == 2) {
            const double* hb = h + 3 * per[1 - t];
            double c[3];
            cross(ha, hb, c);
            dv = norm3(c) / norm3(hb);
        } else {
            const double* hb = h + 3 * per[(t + 1) % 3];
            const double* hc = h + 3 * per[(t + 2) % 3];
            double c[3];
            cross(hb, hc, c);
            dv = std::fabs(ha[0] * c[0] + ha[1] * c[1] + ha[2] * c[2]) / norm3(c);
        }
        dist[static_cast<std::size_t>(a)] = dv;
    }
    return dist;
}

/// The whole shift S0 (0 on open axes) that brings x_j - x_i nearest to
/// 0 within the periodic axes' span: f solves (P P^T) f = P dx for the
/// periodic rows P, S0 = -round(f). Only where the shifts are searched from.
inline std::array<int, 3> nearest_shift(const double* h, const std::array<bool, 3>& pbc, const double* dx) {
    int per[3], np = 0;
    for (int a = 0; a < 3; ++a)
        if (pbc[static_cast<std::size_t>(a)]) per[np++] = a;
    double G[3][4] = {};
    for (int r = 0; r < np; ++r) {
        const double* pr = h + 3 * per[r];
        for (int c = 0; c < np; ++c) {
            const double* pc = h + 3 * per[c];
            G[r][c] = pr[0] * pc[0] + pr[1] * pc[1] + pr[2] * pc[2];
        }
        G[r][3] = pr[0] * dx[0] + pr[1] * dx[1] + pr[2] * dx[2];
    }
    for (int c = 0; c < np; ++c) {  // Gauss-Jordan with partial pivoting
        int best = c;
        for (int r = c + 1; r < np; ++r)
            if (std::fabs(G[r][c]) > std::fabs(G[best][c])) best = r;
        std::swap(G[c], G[best]);
        for (int r = 0; r < np; ++r) {
            if (r == c || G[c][c] == 0) continue;
            const double t = G[r][c] / G[c][c];
            for (int k = c; k < 4; ++k) G[r][k] -= t * G[c][k];
        }
    }
    std::array<int, 3> s0{0, 0, 0};
    for (int r = 0; r < np; ++r)
        if (G[r][r] != 0) s0[static_cast<std::size_t>(per[r])] = -static_cast<int>(std::lround(G[r][3] / G[r][r]));
    return s0;
}

/// The brute-force answer (see the top of the file).
inline Answer brute_force(const Batch& b, const Rule& rule, bool self) {
    const std::size_t n = b.n();
    std::vector<std::vector<std::size_t>> members(b.systems());
    for (std::size_t g = 0; g < n; ++g) members[static_cast<std::size_t>(b.sys[g])].push_back(g);
    Answer a;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t s = static_cast<std::size_t>(b.sys[i]);
        const double* h = b.cell(s);
        const std::array<bool, 3>& pbc = b.pbc[s];
        const std::array<double, 3> dist = plane_distances(h, pbc);
        const double* xi = b.x.data() + 3 * i;
        for (std::size_t j : members[s]) {
            const double* xj = b.x.data() + 3 * j;
            const double dx[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
            const double c = rule.cut(b, i, j);
            // With r = dx + S0 h: |(S - S0) h| = |D - r| < cutoff + |r|, so
            // |S_a - S0_a| <= (cutoff + |r|) / (the distance between the
            // lattice planes across a).
            const std::array<int, 3> s0 = nearest_shift(h, pbc, dx);
            double rr[3];
            for (int k = 0; k < 3; ++k) rr[k] = dx[k] + s0[0] * h[k] + s0[1] * h[3 + k] + s0[2] * h[6 + k];
            const double bound = c + norm3(rr) + 1e-6;
            int lo[3], hi[3];
            for (int k = 0; k < 3; ++k) {
                const std::size_t a = static_cast<std::size_t>(k);
                const int m = pbc[a] ? static_cast<int>(std::floor(bound / dist[a])) + 1 : 0;
                lo[k] = s0[a] - m, hi[k] = s0[a] + m;
            }
            for (int t0 = lo[0]; t0 <= hi[0]; ++t0)
                for (int t1 = lo[1]; t1 <= hi[1]; ++t1)
                    for (int t2 = lo[2]; t2 <= hi[2]; ++t2) {
                        if (i == j && t0 == 0 && t1 == 0 && t2 == 0 && !self) continue;
                        double D[3];
                        for (int k = 0; k < 3; ++k) {
                            double sh = 0.0;
                            sh = sh + t0 * h[k];
                            sh = sh + t1 * h[3 + k];
                            sh = sh + t2 * h[6 + k];
                            D[k] = (xj[k] - xi[k]) + sh;
                        }
                        const double d = std::sqrt((D[0] * D[0] + D[1] * D[1]) + D[2] * D[2]);
                        if (!(d < c)) continue;
                        a.i.push_back(static_cast<std::int64_t>(i));
                        a.j.push_back(static_cast<std::int64_t>(j));
                        a.S.insert(a.S.end(), {t0, t1, t2});
                        a.d.push_back(d);
                        a.D.insert(a.D.end(), D, D + 3);
                    }
        }
    }
    return a;
}

/// got equals the reference in every quantity asked for (doubles compared
/// with ==: the same values to the last bit), the others empty.
inline void expect_same(const bp::AseNeighbors& got, const Answer& ref, const bp::AseQuantities& q,
                        const std::string& what) {
    ASSERT_EQ(got.size(), ref.size()) << what;
    if (q.i) EXPECT_TRUE(got.i == ref.i) << what << ": i";
    else EXPECT_TRUE(got.i.empty()) << what;
    if (q.j) EXPECT_TRUE(got.j == ref.j) << what << ": j";
    else EXPECT_TRUE(got.j.empty()) << what;
    if (q.d) EXPECT_TRUE(got.d == ref.d) << what << ": d";
    else EXPECT_TRUE(got.d.empty()) << what;
    if (q.D) EXPECT_TRUE(got.D == ref.D) << what << ": D";
    else EXPECT_TRUE(got.D.empty()) << what;
    if (q.S) EXPECT_TRUE(got.S == ref.S) << what << ": S";
    else EXPECT_TRUE(got.S.empty()) << what;
}

/// One system: n atoms at fractional coordinates uniform in [lo, hi) of
/// `cell` (rows), pbc, elements from `elements` at random.
inline Batch random_system(std::mt19937_64& rng, std::size_t n, const std::array<double, 9>& cell,
                           std::array<bool, 3> pbc, double lo = 0, double hi = 1,
                           const std::vector<std::int64_t>& elements = {29}) {
    Batch b;
    std::uniform_real_distribution<double> u(lo, hi);
    std::uniform_int_distribution<std::size_t> e(0, elements.size() - 1);
    for (std::size_t g = 0; g < n; ++g) {
        const double f[3] = {u(rng), u(rng), u(rng)};
        for (int k = 0; k < 3; ++k)
            b.x.push_back(f[0] * cell[static_cast<std::size_t>(k)] + f[1] * cell[static_cast<std::size_t>(3 + k)] +
                          f[2] * cell[static_cast<std::size_t>(6 + k)]);
        b.sys.push_back(0);
        b.z.push_back(elements[e(rng)]);
    }
    b.cells.assign(cell.begin(), cell.end());
    b.pbc.push_back(pbc);
    return b;
}

/// A cube of side L.
inline std::array<double, 9> cube(double L) { return {L, 0, 0, 0, L, 0, 0, 0, L}; }

/// Atoms at copper's density (0.0847 per A^3) in a periodic cube: n atoms, the side scaled by `scale`.
inline Batch copper(std::mt19937_64& rng, std::size_t n, double scale = 1.0) {
    const double L = std::cbrt(static_cast<double>(n) / 0.0847) * scale;
    return random_system(rng, n, cube(L), {true, true, true});
}

}  // namespace asetest
