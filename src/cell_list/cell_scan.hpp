// The cell list's distance scans (cell_list.hpp): one particle against a
// run of sorted particles, eight candidates an instruction with AVX-512,
// four with AVX2 (two with SSE2, one in the portable loop), every level
// with the same roundings (no FMA), so every level gives the same list.
#pragma once

#include <cstddef>
#include <cstdint>

#include <broadphase/simd.hpp>

#if !defined(BROADPHASE_NO_SIMD)
#include <immintrin.h>
#endif

namespace broadphase {
namespace detail {

/// One particle against a run of sorted particles: the arguments of a scan.
/// A candidate j in [jb, je) is kept iff it is within reach (the rule
/// above), ids[j] >= lim, and j != skip; its id is appended to out, which
/// has room for (je - jb) + 8 entries. The arrays are padded by 8 past
/// their end (kernels read whole vectors).
struct ScanArgs {
    const double* X;
    const double* Y;
    const double* Z;
    const double* R;  // null: one radius (rr_one)
    const std::uint32_t* ids;
    double xi, yi, zi, ri, rr_one, extra;
    double sh[3];
    bool shifted;
    std::uint32_t lim;
    std::size_t skip;
};

namespace cell_scan {

inline int ctz(unsigned x) {
#if defined(__GNUC__)
    return __builtin_ctz(x);
#else
    int n = 0;
    while (!(x & 1u)) x >>= 1, ++n;
    return n;
#endif
}

/// The portable loop (and the reference the vector kernels must match).
template <bool One, bool Shifted>
inline std::size_t scalar(const ScanArgs& a, std::size_t jb, std::size_t je, std::uint32_t* out) {
    std::size_t w = 0;
    for (std::size_t j = jb; j < je; ++j) {
        double dx = a.X[j] - a.xi, dy = a.Y[j] - a.yi, dz = a.Z[j] - a.zi;
        if (Shifted) dx += a.sh[0], dy += a.sh[1], dz += a.sh[2];
        const double d2 = (dx * dx + dy * dy) + dz * dz;
        double rr = a.rr_one;
        if (!One) {
            const double reach = (a.ri + a.R[j]) + a.extra;
            rr = reach * reach;
        }
        const std::uint32_t id = a.ids[j];
        out[w] = id;
        w += (d2 <= rr) & (id >= a.lim) & (j != a.skip);
    }
    return w;
}

#if defined(BROADPHASE_SIMD_HAS_SSE2)
/// Two doubles a vector; hits appended bit by bit.
template <bool One, bool Shifted>
inline std::size_t sse2(const ScanArgs& a, std::size_t jb, std::size_t je, std::uint32_t* out) {
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
            const std::size_t q = j + static_cast<std::size_t>(ctz(bits));
            const std::uint32_t id = a.ids[q];
            out[w] = id;
            w += (id >= a.lim) & (q != a.skip);
        }
    }
    return w;
}
#endif

#if defined(BROADPHASE_SIMD_HAS_AVX2)
#if defined(BROADPHASE_SIMD_RUNTIME)
#define BROADPHASE_CELL_AVX2 __attribute__((target("avx2,bmi,popcnt")))
#else
#define BROADPHASE_CELL_AVX2
#endif
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

/// Four doubles a vector; the kept ids packed with one shuffle and one
/// store (no FMA: the same roundings as the scalar loop).
template <bool One, bool Shifted>
BROADPHASE_CELL_AVX2 inline std::size_t avx2(const ScanArgs& a, std::size_t jb, std::size_t je, std::uint32_t* out) {
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
            _mm_shuffle_epi8(id, _mm_load_si128(reinterpret_cast<const __m128i*>(pack_table.v[bits])));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + w), packed);
        w += static_cast<std::size_t>(__builtin_popcount(bits));
    }
    return w;
}
#endif

#if defined(BROADPHASE_SIMD_HAS_AVX512)
#if defined(BROADPHASE_SIMD_RUNTIME)
#define BROADPHASE_CELL_AVX512 __attribute__((target("avx2,bmi,popcnt,avx512f,avx512vl,avx512bw,avx512dq")))
#else
#define BROADPHASE_CELL_AVX512
#endif
/// Eight doubles a vector; the kept ids packed by a compress in a register
/// and one store (the compress to memory is slow on some cores). The same
/// roundings as the scalar loop. On 32,000 LJ atoms (2-core Xeon) the
/// pair traversal took about 0.8 of the AVX2 kernel's time.
template <bool One, bool Shifted>
BROADPHASE_CELL_AVX512 inline std::size_t avx512(const ScanArgs& a, std::size_t jb, std::size_t je,
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
#endif

/// The scan at level L (0 scalar, 1 SSE2, 2 AVX2, 3 AVX-512), fixed at
/// compile time.
template <int L, bool One>
inline std::size_t run(const ScanArgs& a, std::size_t jb, std::size_t je, std::uint32_t* out) {
#if defined(BROADPHASE_SIMD_HAS_AVX512)
    if constexpr (L >= 3) return a.shifted ? avx512<One, true>(a, jb, je, out) : avx512<One, false>(a, jb, je, out);
#endif
#if defined(BROADPHASE_SIMD_HAS_AVX2)
    if constexpr (L >= 2) return a.shifted ? avx2<One, true>(a, jb, je, out) : avx2<One, false>(a, jb, je, out);
#endif
#if defined(BROADPHASE_SIMD_HAS_SSE2)
    if constexpr (L >= 1) return a.shifted ? sse2<One, true>(a, jb, je, out) : sse2<One, false>(a, jb, je, out);
#endif
    return a.shifted ? scalar<One, true>(a, jb, je, out) : scalar<One, false>(a, jb, je, out);
}

}  // namespace cell_scan

}  // namespace detail
}  // namespace broadphase
