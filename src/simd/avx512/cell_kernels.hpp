// The cell list's kernels for AVX-512 (src/cell_list/cell_scan.hpp and
// cell_cluster.hpp have the rules, the roundings and the portable loop): the
// distance scan, eight candidates a vector, and the cluster kernel, up to
// four particles against each vector of candidates. Compiled in this set's
// target region, as the box kernels are.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/common.hpp"
#include "cell_list/cell_cluster.hpp"
#include "cell_list/cell_scan.hpp"

#if defined(BROADPHASE_SIMD_X86) && \
    (defined(__GNUC__) ||           \
     (defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__AVX512DQ__)))
namespace broadphase {
namespace detail {

#include "simd/avx512/target_begin.ipp"

template <>
struct CellKernels<simd_avx512::Isa> {
    /// Eight doubles a vector; the kept ids packed by a compress in a register
    /// and one store (the compress to memory is slow on some cores). The same
    /// roundings as the scalar loop. On 32,000 LJ atoms (2-core Xeon) the
    /// pair traversal took about 0.8 of the AVX2 kernel's time.
    template <bool One, bool Shifted>
    static std::size_t scan(const ScanArgs& a, std::size_t jb, std::size_t je,
                                                      std::uint32_t* out) {
        const __m512d xi = _mm512_set1_pd(a.xi), yi = _mm512_set1_pd(a.yi), zi = _mm512_set1_pd(a.zi);
        const __m512d sx = _mm512_set1_pd(a.sh[0]), sy = _mm512_set1_pd(a.sh[1]), sz = _mm512_set1_pd(a.sh[2]);
        const __m512d rr1 = _mm512_set1_pd(a.rr_one), ri = _mm512_set1_pd(a.ri), ex = _mm512_set1_pd(a.extra);
        const __m256i lim = _mm256_set1_epi32(static_cast<int>(a.lim));
        const bool any_lim = a.lim != 0;
        const double *const X = a.X, *const Y = a.Y, *const Z = a.Z, *const R = a.R;  // kept in registers
        const std::uint32_t* const ids = a.ids;
        const std::size_t skip = a.skip;
        std::size_t w = 0;
        for (std::size_t j = jb; j < je; j += 8) {
            __m512d dx = _mm512_sub_pd(_mm512_loadu_pd(X + j), xi);
            __m512d dy = _mm512_sub_pd(_mm512_loadu_pd(Y + j), yi);
            __m512d dz = _mm512_sub_pd(_mm512_loadu_pd(Z + j), zi);
            if (Shifted) dx = _mm512_add_pd(dx, sx), dy = _mm512_add_pd(dy, sy), dz = _mm512_add_pd(dz, sz);
            const __m512d d2 =
                _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
            __m512d rr = rr1;
            if (!One) {
                const __m512d reach = _mm512_add_pd(_mm512_add_pd(ri, _mm512_loadu_pd(R + j)), ex);
                rr = _mm512_mul_pd(reach, reach);
            }
            unsigned bits = _mm512_cmp_pd_mask(d2, rr, _CMP_LE_OQ);
            const __m256i id = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ids + j));
            if (any_lim) bits &= _mm256_cmpge_epu32_mask(id, lim);
            if (je - j < 8) bits &= (1u << (je - j)) - 1;
            if (skip - j < 8) bits &= ~(1u << (skip - j));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + w),
                                _mm256_maskz_compress_epi32(static_cast<__mmask8>(bits), id));
            w += static_cast<std::size_t>(__builtin_popcount(bits));
        }
        return w;
    }

    /// G particles against [jb, je), eight candidates a vector; w[q] is row q's
    /// next free entry (room for (je - jb) + 8 more: whole vectors are stored).
    template <int G, bool One, bool Shifted, int Mode>
    static void cluster(const ClusterArgs& a, std::size_t jb, std::size_t je,
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
                if (Mode != cell_cluster::all) bits &= cell_cluster::mode_mask<Mode, 8>(a.pos[q], j);
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(o[q]),
                                    _mm256_maskz_compress_epi32(static_cast<__mmask8>(bits), id));
                o[q] += __builtin_popcount(bits);
            }
        }
        for (int q = 0; q < G; ++q) w[q] = o[q];
    }
};

#include "simd/avx512/target_end.ipp"

}  // namespace detail
}  // namespace broadphase
#endif
