// The cell list's distance scan for SSE2 (src/cell_list/cell_scan.hpp has the
// rule and the portable loop): two candidates a vector. No cluster kernel at
// this level: the per-particle scans give the same rows.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/common.hpp"
#include "cell_list/cell_cluster.hpp"
#include "cell_list/cell_scan.hpp"

#if defined(BROADPHASE_SIMD_X86)
namespace broadphase {
namespace detail {

template <>
struct CellKernels<simd_sse2::Isa> {
    /// Two doubles a vector; hits appended bit by bit.
    template <bool One, bool Shifted>
    static std::size_t scan(const ScanArgs& a, std::size_t jb, std::size_t je, std::uint32_t* out) {
        const __m128d xi = _mm_set1_pd(a.xi), yi = _mm_set1_pd(a.yi), zi = _mm_set1_pd(a.zi);
        const __m128d sx = _mm_set1_pd(a.sh[0]), sy = _mm_set1_pd(a.sh[1]), sz = _mm_set1_pd(a.sh[2]);
        const __m128d rr1 = _mm_set1_pd(a.rr_one), ri = _mm_set1_pd(a.ri), ex = _mm_set1_pd(a.extra);
        std::size_t w = 0;
        for (std::size_t j = jb; j < je; j += 2) {
            __m128d dx = _mm_sub_pd(_mm_loadu_pd(a.X + j), xi);
            __m128d dy = _mm_sub_pd(_mm_loadu_pd(a.Y + j), yi);
            __m128d dz = _mm_sub_pd(_mm_loadu_pd(a.Z + j), zi);
            if (Shifted) dx = _mm_add_pd(dx, sx), dy = _mm_add_pd(dy, sy), dz = _mm_add_pd(dz, sz);
            const __m128d d2 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy)), _mm_mul_pd(dz, dz));
            __m128d rr = rr1;
            if (!One) {
                const __m128d reach = _mm_add_pd(_mm_add_pd(ri, _mm_loadu_pd(a.R + j)), ex);
                rr = _mm_mul_pd(reach, reach);
            }
            unsigned bits = static_cast<unsigned>(_mm_movemask_pd(_mm_cmple_pd(d2, rr)));
            if (je - j < 2) bits &= 1u;
            for (; bits; bits &= bits - 1) {
                const std::size_t q = j + static_cast<std::size_t>(cell_scan::ctz(bits));
                const std::uint32_t id = a.ids[q];
                out[w] = id;
                w += (id >= a.lim) & (q != a.skip);
            }
        }
        return w;
    }
};

}  // namespace detail
}  // namespace broadphase
#endif
