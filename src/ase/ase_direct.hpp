// The direct path for small systems: a system with few atoms is listed
// without the library's NeighborList, row by row in ASE's order
// (ase_direct_kernels.hpp), the candidates chosen by the geometry of
// ase_cells.hpp. The library's list costs more than that below a few
// hundred atoms (its search, its shifts, then the order to restore).
//
// Taken when atoms^2 x (the candidates of a pair) is at most the limit
// (Work::small_limit; measured: docs/python.md) and the cell is not near
// flat; otherwise, and for anything odd (a zero periodic vector, atoms
// millions of cells away), the library's path (ase_library_path.hpp),
// which also reports the errors.
//
// Two sinks take the rows: ArraySink writes the caller's arrays (an
// AseOutput: the whole answer of a call whose systems all take this path,
// in one pass), EntrySink the entries of one system of a call that also
// has large systems, as the library's path leaves them (Work::entries).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include <broadphase/ase_neighbor_list.hpp>
#include "ase/ase_cells.hpp"
#include "ase/ase_direct_kernels.hpp"
#include "ase/ase_rules.hpp"
#include "ase/ase_work.hpp"

namespace broadphase {
namespace detail {
namespace ase {

/// The answer of a call in the caller's arrays (AseOutput): i, j, and with
/// Full S, D and d (sqrt of d^2 in the pass that writes the rest: the
/// divider runs beside the stores), only those asked for. The arrays are
/// made at the expected size, grown when short (twice, or what a row
/// needs) and cut to the count at the end. Rows write through a Writer.
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
    AseOutput& out;
    std::int64_t *pi = nullptr, *pj = nullptr, *pS = nullptr;
    double *pd = nullptr, *pD = nullptr;
    std::size_t p = 0, row_begin = 0, cap = 0;
    std::int64_t off = 0;  // the system's first atom (batches)

    ArraySink(AseOutput& o, std::size_t estimate) : out(o) {
        cap = std::max<std::size_t>(estimate, 16);
        allocate(cap);
    }
    void allocate(std::size_t rows) {
        const AseColumns c = out.resize(rows);
        pi = c.i, pj = c.j, pS = c.S, pd = c.d, pD = c.D;
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
    /// The arrays cut to the count; returns it.
    std::size_t finish() {
        if (p != cap) allocate(p);
        return p;
    }
};

/// The answer of one system of a call into w.entries (global numbering),
/// rows through row_at / row_n, as the library's path leaves it.
struct EntrySink {
    static constexpr bool Full = true;  // S is needed (D and d: write() computes them again)
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
    Work& w;
    const std::uint32_t* glob;
    std::size_t p, row_begin = 0;

    EntrySink(Work& work, const std::uint32_t* g) : w(work), glob(g), p(work.entries.size()) {}
    void reserve(std::size_t extra) {
        const std::size_t need = p + extra;
        if (need <= w.entries.size()) return;
        if (need > w.entries.capacity()) w.entries.reserve(std::max<std::size_t>(2 * w.entries.capacity(), need));
        w.entries.resize(need);  // within the capacity: no copy, nothing written (Entry())
    }
    Writer writer() const { return Writer{w.entries.data(), glob, p}; }
    void commit(const Writer& wr) { p = wr.p; }
    void row_start(std::size_t) { row_begin = p; }
    void row_end(std::size_t i) {
        w.row_at[glob[i]] = row_begin;
        w.row_n[glob[i]] = static_cast<std::uint32_t>(p - row_begin);
    }
    void finish() { w.entries.resize(p); }
};

/// One system's arrays for the direct path into w.soa (X, Y, Z, F0, F1,
/// F2, then the row buffers) and w.maybe; fills `in` and `b`.
inline void small_prepare(Work& w, const double* x, std::size_t n, const Mat3& h, const SmallGeom& g, SmallIn& in,
                          SmallRow& b) {
    const std::size_t n8 = (n + 7) & ~std::size_t(7);
    if (w.soa.size() < 20 * n8) w.soa.resize(20 * n8);
    if (w.maybe.size() < n8 + 64) w.maybe.resize(n8 + 64);  // padded to 64
    double* s = w.soa.data();
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
    b.M = w.maybe.data();
}

/// The direct path's limit for a call: calls that ask for no d, D or S
/// write 16 bytes an entry, not 72, and gain up to larger systems.
inline double limit_for(const Work& w, const AseQuantities& q) {
    return (q.d || q.D || q.S) ? w.small_limit : 4 * w.small_limit;
}

/// A call whose systems are contiguous and in order, when every system is
/// for the direct path: the arrays written through `out` in one pass, the
/// count returned in `entries` (true); false, with nothing written,
/// otherwise. w.S and w.cut hold the call (the element table not yet made).
inline bool small_direct(Work& w, const AseCutoff& cutoff, const AseQuantities& q, bool self_interaction,
                         AseOutput& out, std::size_t& entries) {
    const Systems& S = w.S;
    const Cutoffs& cut = w.cut;
    if (S.sys && !S.contiguous) return false;
    const double limit = limit_for(w, q);
    w.geoms.resize(S.count);
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
        SmallGeom& g = w.geoms[s].g;
        g = SmallGeom{};
        w.geoms[s].a0 = a0, w.geoms[s].n = n;
        if (n && !small_geometry(h, S.pbc[s], n, xmax, cut.max_cut + margin_of(mag), limit, g)) return false;
        if (n) estimate += entries_expected(n, h, S.pbc[s], g, cut.max_cut);
        a0 = a1;
    }
    if (a0 != S.n) return false;  // (not reached: contiguous and every index < count)
    element_table(cutoff, S.n, w.cut);
    const std::size_t cap = static_cast<std::size_t>(std::min(estimate, 1e9));
    w.glob.resize(S.n);
    for (std::size_t k = 0; k < S.n; ++k) w.glob[k] = static_cast<std::uint32_t>(k);
    const auto all = [&](auto& sink) {
        for (std::size_t s = 0; s < S.count; ++s) {
            const SmallGeom& g = w.geoms[s].g;
            const std::size_t first = w.geoms[s].a0, n = w.geoms[s].n;
            if (!n) continue;
            SmallIn in;
            SmallRow b;
            small_prepare(w, S.x + 3 * first, n, S.cells[s], g, in, b);
            in.self = self_interaction, in.cut = &cut, in.glob = w.glob.data() + first;
            const bool flags[3] = {g.diag, cut.kind != CutKind::scalar, g.single};
            sink.off = static_cast<std::int64_t>(first);
            small_pick(in, b, sink, flags);
        }
        return sink.finish();
    };
    if (q.d || q.D || q.S) {
        ArraySink<true> sink(out, cap);
        entries = all(sink);
    } else {
        ArraySink<false> sink(out, cap);
        entries = all(sink);
    }
    w.last_direct = 0;
    for (const Work::SystemGeom& g : w.geoms) w.last_direct += g.n ? 1 : 0;
    return true;
}

/// One system of a call by the direct path, into w.entries (as the
/// library's path leaves them): false (nothing done) when the system is
/// not for it. The element table is made.
inline bool small_entries(Work& w, const double* x, const std::uint32_t* glob, std::size_t n, const Mat3& h,
                          const std::array<bool, 3>& pbc, double margin, bool self_interaction) {
    const Cutoffs& cut = w.cut;
    SmallGeom g;
    if (!small_geometry(h, pbc, n, max_abs(x, 3 * n), cut.max_cut + margin, w.small_limit, g)) return false;
    SmallIn in;
    SmallRow b;
    small_prepare(w, x, n, h, g, in, b);
    in.self = self_interaction, in.cut = &cut, in.glob = glob;
    const bool flags[3] = {g.diag, cut.kind != CutKind::scalar, g.single};
    EntrySink sink(w, glob);
    small_pick(in, b, sink, flags);
    sink.finish();
    return true;
}

}  // namespace ase
}  // namespace detail
}  // namespace broadphase
