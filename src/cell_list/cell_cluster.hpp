// The cell list's cluster kernels (cell_list.hpp, issue 46): a cluster of up
// to four consecutive particles of one bin (the i side) against a run of
// sorted particles (the j side), M x N: each vector of j candidates is loaded
// once and tested against every i of the cluster, each i's hits compressed
// into a row of its own. The rule and its roundings are the scans' own
// (cell_scan.hpp): fl(fl(x_j - x_i) + (P h)), squares summed as ((dx dx + dy
// dy) + dz dz), no FMA, compared with fl(reach^2), so every kernel, the
// scans' included, keeps the same candidates.
//
// AVX-512 (eight j a vector) and AVX2 (four) only: SSE2 and the portable
// loop keep the per-particle scans (cell_scan.hpp), which give the same rows.
#pragma once

#include <cstddef>
#include <cstdint>

#include <broadphase/simd.hpp>
#include "cell_list/cell_scan.hpp"

#if !defined(BROADPHASE_NO_SIMD)
#include <immintrin.h>
#endif

namespace broadphase {
namespace detail {

/// A cluster of G <= 4 particles (sorted positions pos[q]) against runs of
/// candidates. `sh` is the run's image shift (Shifted kernels add it).
struct ClusterArgs {
    const double* X;
    const double* Y;
    const double* Z;
    const double* R;  // null: one radius (rr_one)
    const std::uint32_t* ids;
    double xi[4], yi[4], zi[4], ri[4];
    double rr_one, extra;
    double sh[3];
    std::size_t pos[4];
};

namespace cell_cluster {

/// Which candidates a cluster's row takes besides the rule: every one
/// (all), all but the particle itself (not_self: a full list's own bin
/// through image 0), or those after it (after: a half list's own bin).
enum Mode { all = 0, not_self = 1, after = 2 };

/// Lanes [j, j + width) whose sorted position passes Mode for particle p.
template <int Mode, int Width>
inline unsigned mode_mask(std::size_t p, std::size_t j) {
    constexpr unsigned full = (1u << Width) - 1;
    if (Mode == not_self) return p - j < static_cast<std::size_t>(Width) ? full & ~(1u << (p - j)) : full;
    if (Mode == after) {
        if (p < j) return full;
        const std::size_t k = p - j + 1;  // lanes 0 .. k-1 are at or before p
        return k >= static_cast<std::size_t>(Width) ? 0u : (full << k) & full;
    }
    return full;
}

#if defined(BROADPHASE_SIMD_HAS_AVX512)
/// G particles against [jb, je), eight candidates a vector; w[q] is row q's
/// next free entry (room for (je - jb) + 8 more: whole vectors are stored).
template <int G, bool One, bool Shifted, int Mode>
BROADPHASE_CELL_AVX512 inline void avx512(const ClusterArgs& a, std::size_t jb, std::size_t je,
                                           std::uint32_t** w) {
    __m512d xi[G], yi[G], zi[G], ri[G];
    std::uint32_t* o[G];
    for (int q = 0; q < G; ++q) {
        xi[q] = _mm512_set1_pd(a.xi[q]), yi[q] = _mm512_set1_pd(a.yi[q]), zi[q] = _mm512_set1_pd(a.zi[q]);
        ri[q] = _mm512_set1_pd(a.ri[q]);
        o[q] = w[q];
    }
    const __m512d sx = _mm512_set1_pd(a.sh[0]), sy = _mm512_set1_pd(a.sh[1]), sz = _mm512_set1_pd(a.sh[2]);
    const __m512d rr1 = _mm512_set1_pd(a.rr_one), ex = _mm512_set1_pd(a.extra);
    for (std::size_t j = jb; j < je; j += 8) {
        const __m512d xj = _mm512_loadu_pd(a.X + j), yj = _mm512_loadu_pd(a.Y + j), zj = _mm512_loadu_pd(a.Z + j);
        __m512d rj = rr1;
        if (!One) rj = _mm512_loadu_pd(a.R + j);
        const __m256i id = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.ids + j));
        const unsigned valid = je - j < 8 ? (1u << (je - j)) - 1 : 0xffu;
        for (int q = 0; q < G; ++q) {
            __m512d dx = _mm512_sub_pd(xj, xi[q]), dy = _mm512_sub_pd(yj, yi[q]), dz = _mm512_sub_pd(zj, zi[q]);
            if (Shifted) dx = _mm512_add_pd(dx, sx), dy = _mm512_add_pd(dy, sy), dz = _mm512_add_pd(dz, sz);
            const __m512d d2 =
                _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
            __m512d rr = rr1;
            if (!One) {
                const __m512d reach = _mm512_add_pd(_mm512_add_pd(ri[q], rj), ex);
                rr = _mm512_mul_pd(reach, reach);
            }
            unsigned bits = _mm512_cmp_pd_mask(d2, rr, _CMP_LE_OQ) & valid;
            if (Mode != all) bits &= mode_mask<Mode, 8>(a.pos[q], j);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(o[q]),
                                _mm256_maskz_compress_epi32(static_cast<__mmask8>(bits), id));
            o[q] += __builtin_popcount(bits);
        }
    }
    for (int q = 0; q < G; ++q) w[q] = o[q];
}
#endif

#if defined(BROADPHASE_SIMD_HAS_AVX2)
/// As avx512, four candidates a vector, the hits packed by pack_table.
template <int G, bool One, bool Shifted, int Mode>
BROADPHASE_CELL_AVX2 inline void avx2(const ClusterArgs& a, std::size_t jb, std::size_t je, std::uint32_t** w) {
    __m256d xi[G], yi[G], zi[G], ri[G];
    std::uint32_t* o[G];
    for (int q = 0; q < G; ++q) {
        xi[q] = _mm256_set1_pd(a.xi[q]), yi[q] = _mm256_set1_pd(a.yi[q]), zi[q] = _mm256_set1_pd(a.zi[q]);
        ri[q] = _mm256_set1_pd(a.ri[q]);
        o[q] = w[q];
    }
    const __m256d sx = _mm256_set1_pd(a.sh[0]), sy = _mm256_set1_pd(a.sh[1]), sz = _mm256_set1_pd(a.sh[2]);
    const __m256d rr1 = _mm256_set1_pd(a.rr_one), ex = _mm256_set1_pd(a.extra);
    for (std::size_t j = jb; j < je; j += 4) {
        const __m256d xj = _mm256_loadu_pd(a.X + j), yj = _mm256_loadu_pd(a.Y + j), zj = _mm256_loadu_pd(a.Z + j);
        __m256d rj = rr1;
        if (!One) rj = _mm256_loadu_pd(a.R + j);
        const __m128i id = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.ids + j));
        const unsigned valid = je - j < 4 ? (1u << (je - j)) - 1 : 0xfu;
        for (int q = 0; q < G; ++q) {
            __m256d dx = _mm256_sub_pd(xj, xi[q]), dy = _mm256_sub_pd(yj, yi[q]), dz = _mm256_sub_pd(zj, zi[q]);
            if (Shifted) dx = _mm256_add_pd(dx, sx), dy = _mm256_add_pd(dy, sy), dz = _mm256_add_pd(dz, sz);
            const __m256d d2 =
                _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
            __m256d rr = rr1;
            if (!One) {
                const __m256d reach = _mm256_add_pd(_mm256_add_pd(ri[q], rj), ex);
                rr = _mm256_mul_pd(reach, reach);
            }
            unsigned bits = static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(d2, rr, _CMP_LE_OQ))) & valid;
            if (Mode != all) bits &= mode_mask<Mode, 4>(a.pos[q], j);
            const __m128i packed =
                _mm_shuffle_epi8(id, _mm_load_si128(reinterpret_cast<const __m128i*>(cell_scan::pack_table.v[bits])));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(o[q]), packed);
            o[q] += __builtin_popcount(bits);
        }
    }
    for (int q = 0; q < G; ++q) w[q] = o[q];
}
#endif

/// The kernel at level L (2 AVX2, 3 AVX-512) for a cluster of g particles.
template <int L, bool One, int Mode>
inline void run(const ClusterArgs& a, int g, bool shifted, std::size_t jb, std::size_t je, std::uint32_t** w) {
#define BROADPHASE_CLUSTER_CASES(K)                                                            \
    switch (g) {                                                                               \
    case 1: return shifted ? K<1, One, true, Mode>(a, jb, je, w) : K<1, One, false, Mode>(a, jb, je, w); \
    case 2: return shifted ? K<2, One, true, Mode>(a, jb, je, w) : K<2, One, false, Mode>(a, jb, je, w); \
    case 3: return shifted ? K<3, One, true, Mode>(a, jb, je, w) : K<3, One, false, Mode>(a, jb, je, w); \
    default: return shifted ? K<4, One, true, Mode>(a, jb, je, w) : K<4, One, false, Mode>(a, jb, je, w); \
    }
#if defined(BROADPHASE_SIMD_HAS_AVX512)
    if constexpr (L >= 3) {
        BROADPHASE_CLUSTER_CASES(avx512)
    }
#endif
#if defined(BROADPHASE_SIMD_HAS_AVX2)
    if constexpr (L == 2) {
        BROADPHASE_CLUSTER_CASES(avx2)
    }
#endif
#undef BROADPHASE_CLUSTER_CASES
    (void)a, (void)g, (void)shifted, (void)jb, (void)je, (void)w;
}

}  // namespace cell_cluster
}  // namespace detail
}  // namespace broadphase
