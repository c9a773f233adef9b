// The direct path's rows (ase_direct.hpp), compiled for SSE2, AVX2 and
// AVX-512 and chosen at run time by the library's SIMD level (simd.hpp:
// simd_level(), set_simd_level()), as the box kernels of src/simd/ are.
//
// For each i (in order), each j (in order) and each shift S (in
// lexicographic order) that can be within the cutoff (ase_cells.hpp), D and
// d are computed as ASE computes them and the entry kept iff d < cutoff, so
// the rows come out in ASE's order with no sort.
//  - Every R_a < 1/2 (the cell over twice the cutoff across; the common
//    case): a pair has at most one candidate, S_a = rint(f_a(x_i) -
//    f_a(x_j)). A row is computed for every j at once in a loop the
//    compiler vectorises (structure of arrays, restrict pointers), then the
//    kept j are read off a byte mask, 64 at a time.
//  - Otherwise (small cells: several images of one atom) the same loop
//    also gives each pair's range of S_a per axis, [ceil(f_i - f_j - R_a),
//    floor(f_i - f_j + R_a)]; a pair whose ranges hold the nearest image
//    alone is taken from the loop, the others' candidates are enumerated
//    (scalar) in lexicographic order.
// The loops are plain C++: each copy differs only in its target (each runs
// through the run() of a SIMD copy, src/simd/<set>/kernels.hpp), so every
// copy computes the same bits (no fused multiply-add in any: the
// file is built with contraction off). A Sink receives the rows: put()
// each entry through a Writer (pointers and a count in registers), with
// room made before (reserve) and the count taken back after (commit).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <broadphase/simd.hpp>
#include "ase/ase_rules.hpp"
#include "simd/dispatch.hpp"

namespace broadphase {
namespace detail {
namespace ase {

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

/// Row i's per-pair cutoffs into C (per-atom radii, pairs of elements).
[[gnu::always_inline]] inline void small_cuts(const SmallIn& in, std::size_t i, double* C) {
    const std::uint32_t gi = in.glob[i];
    for (std::size_t j = 0; j < in.n; ++j) C[j] = in.cut->cut(gi, in.glob[j]);
}

/// The bits of 64 mask bytes (each 0, 1 or 2) from M: bit k set for byte k
/// not 0. The rows are read off these words, one branch miss a word at
/// most rather than one every 8 bytes.
[[gnu::always_inline]] inline std::uint64_t mask_bits(const std::uint8_t* M) {
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
[[gnu::always_inline]] inline void single_pass(std::size_t n, const double* __restrict X, const double* __restrict Y,
                                       const double* __restrict Z, const double* __restrict F0,
                                       const double* __restrict F1, const double* __restrict F2,
                                       double* __restrict S0, double* __restrict S1, double* __restrict S2,
                                       double* __restrict D0, double* __restrict D1, double* __restrict D2,
                                       double* __restrict Q, const double* __restrict C, std::uint8_t* __restrict M,
                                       const double (&xi)[3], const double (&fi)[3], const double (&h)[3][3],
                                       double c2) {
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
[[gnu::always_inline]] inline void small_single(const SmallIn& in, const SmallRow& b, Sink& sink) {
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
                const std::size_t j = j0 + static_cast<std::size_t>(count_trailing_zeros(w));
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
[[gnu::always_inline]] inline void range_pass(std::size_t n, const double* __restrict X, const double* __restrict Y,
                                      const double* __restrict Z, const double* __restrict F0,
                                      const double* __restrict F1, const double* __restrict F2,
                                      double* __restrict S0, double* __restrict S1, double* __restrict S2,
                                      double* __restrict D0, double* __restrict D1, double* __restrict D2,
                                      double* __restrict Q, const double* __restrict C, double* __restrict L0,
                                      double* __restrict L1, double* __restrict L2, double* __restrict H0,
                                      double* __restrict H1, double* __restrict H2, std::uint8_t* __restrict M,
                                      const double (&xi)[3], const double (&fi)[3], const double (&h)[3][3],
                                      const double (&R)[3], double c2) {
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
[[gnu::always_inline]] inline void small_multi(const SmallIn& in, const SmallRow& b, Sink& sink) {
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
                const std::size_t j = j0 + static_cast<std::size_t>(count_trailing_zeros(w));
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
[[gnu::always_inline]] inline void small_rows(const SmallIn& in, const SmallRow& b, Sink& sink) {
    if (Single) small_single<Diag, Varying>(in, b, sink);
    else small_multi<Diag, Varying>(in, b, sink);
}

/// small_rows as a function object, always inlined: the SIMD copies'
/// run() (src/simd/<set>/kernels.hpp) inline it, and with it the rows,
/// into code compiled for their set.
template <bool Diag, bool Varying, bool Single, class Sink>
struct SmallRows {
    const SmallIn& in;
    const SmallRow& b;
    Sink& sink;
    [[gnu::always_inline]] void operator()() const { small_rows<Diag, Varying, Single>(in, b, sink); }
};

/// The rows of one system on the copy for simd_level() (AVX-512, AVX2, or
/// the build's baseline for SSE2 and scalar), the flags (diagonal cell,
/// varying cutoffs, one candidate a pair) as template arguments.
template <class Sink, bool... B>
void small_pick(const SmallIn& in, const SmallRow& b, Sink& sink, const bool (&flags)[3]) {
    if constexpr (sizeof...(B) == 3) {
        // SSE2 and scalar run one copy, the baseline's (the loops are plain C++).
        const SimdLevel level = simd_level() >= SimdLevel::avx2 ? simd_level() : SimdLevel::scalar;
        on_level(level, [&](auto isa) { run(isa, SmallRows<B..., Sink>{in, b, sink}); });
    } else {
        if (flags[sizeof...(B)]) small_pick<Sink, B..., true>(in, b, sink, flags);
        else small_pick<Sink, B..., false>(in, b, sink, flags);
    }
}

}  // namespace ase
}  // namespace detail
}  // namespace broadphase
