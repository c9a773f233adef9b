// The cell list's kernels for AVX2 (src/cell_list/cell_scan.hpp and
// cell_cluster.hpp have the rules, the roundings and the portable loop): the
// distance scan, four candidates a vector, and the cluster kernel, up to four
// particles against each vector of candidates. Compiled in this set's target
// region, as the box kernels are.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/common.hpp"
#include "cell_list/cell_cluster.hpp"
#include "cell_list/cell_scan.hpp"

#if defined(BROADPHASE_SIMD_X86) && (defined(__GNUC__) || defined(__AVX2__))
namespace broadphase {
namespace detail {
namespace simd_avx2 {

/// pshufb patterns that pack the 32-bit lanes named by a 4-bit mask to
/// the front.
struct PackTable {
    alignas(16) std::uint8_t v[16][16];
    constexpr PackTable() : v() {
        for (int m = 0; m < 16; ++m) {
            int at = 0;
            for (int l = 0; l < 4; ++l)
                if (m >> l & 1) {
                    for (int b = 0; b < 4; ++b) v[m][4 * at + b] = static_cast<std::uint8_t>(4 * l + b);
                    ++at;
                }
            for (; at < 4; ++at)
                for (int b = 0; b < 4; ++b) v[m][4 * at + b] = 0x80;
        }
    }
};
inline constexpr PackTable pack_table{};

}  // namespace simd_avx2

#include "simd/avx2/target_begin.ipp"


template <>
struct CellKernels<simd_avx2::Isa> {
    /// Four doubles a vector; the kept ids packed with one shuffle and one
    /// store (no FMA: the same roundings as the scalar loop).
    template <bool One, bool Shifted>
    static std::size_t scan(const ScanArgs& a, std::size_t jb, std::size_t je, std::uint32_t* out) {
        const __m256d xi = _mm256_set1_pd(a.xi), yi = _mm256_set1_pd(a.yi), zi = _mm256_set1_pd(a.zi);
        const __m256d sx = _mm256_set1_pd(a.sh[0]), sy = _mm256_set1_pd(a.sh[1]), sz = _mm256_set1_pd(a.sh[2]);
        const __m256d rr1 = _mm256_set1_pd(a.rr_one), ri = _mm256_set1_pd(a.ri), ex = _mm256_set1_pd(a.extra);
        const __m128i bias = _mm_set1_epi32(static_cast<int>(0x80000000u));
        const __m128i lim = _mm_set1_epi32(static_cast<int>((a.lim - 1u) ^ 0x80000000u));
        const bool any_lim = a.lim != 0;
        const double *const X = a.X, *const Y = a.Y, *const Z = a.Z, *const R = a.R;  // kept in registers
        const std::uint32_t* const ids = a.ids;
        const std::size_t skip = a.skip;
        std::size_t w = 0;
        for (std::size_t j = jb; j < je; j += 4) {
            __m256d dx = _mm256_sub_pd(_mm256_loadu_pd(X + j), xi);
            __m256d dy = _mm256_sub_pd(_mm256_loadu_pd(Y + j), yi);
            __m256d dz = _mm256_sub_pd(_mm256_loadu_pd(Z + j), zi);
            if (Shifted) dx = _mm256_add_pd(dx, sx), dy = _mm256_add_pd(dy, sy), dz = _mm256_add_pd(dz, sz);
            const __m256d d2 =
                _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
            __m256d rr = rr1;
            if (!One) {
                const __m256d reach = _mm256_add_pd(_mm256_add_pd(ri, _mm256_loadu_pd(R + j)), ex);
                rr = _mm256_mul_pd(reach, reach);
            }
            // No branch on the mask: whether a vector has a hit is a coin toss
            // in a liquid (about half do), and a mispredicted branch cost more
            // than the shuffle and store it would save.
            unsigned bits = static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(d2, rr, _CMP_LE_OQ)));
            const __m128i id = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ids + j));
            if (any_lim)  // id >= lim, unsigned: id > lim - 1 (lim >= 1)
                bits &= static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(_mm_xor_si128(id, bias), lim))));
            if (je - j < 4) bits &= (1u << (je - j)) - 1;
            if (skip - j < 4) bits &= ~(1u << (skip - j));
            const __m128i packed =
                _mm_shuffle_epi8(id, _mm_load_si128(reinterpret_cast<const __m128i*>(simd_avx2::pack_table.v[bits])));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + w), packed);
            w += static_cast<std::size_t>(__builtin_popcount(bits));
        }
        return w;
    }

    /// As avx512, four candidates a vector, the hits packed by pack_table.
    template <int G, bool One, bool Shifted, int Mode>
    static void cluster(const ClusterArgs& a, std::size_t jb, std::size_t je, std::uint32_t** w) {
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
                if (Mode != cell_cluster::all) bits &= cell_cluster::mode_mask<Mode, 4>(a.pos[q], j);
                const __m128i packed =
                    _mm_shuffle_epi8(id, _mm_load_si128(reinterpret_cast<const __m128i*>(simd_avx2::pack_table.v[bits])));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(o[q]), packed);
                o[q] += __builtin_popcount(bits);
            }
        }
        for (int q = 0; q < G; ++q) w[q] = o[q];
    }
};

#include "simd/avx2/target_end.ipp"

}  // namespace detail
}  // namespace broadphase
#endif
