// The AVX-512 copy of the box kernels (src/simd/kernels.ipp), compiled for
// AVX-512 F, VL, BW and DQ (and AVX2, BMI1, POPCNT) by a target region (no
// -march flags needed; the copy runs only where cpuid finds the sets). Its
// own append_hits and append_pairs gather hits with a compress.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/common.hpp"

#if defined(BROADPHASE_SIMD_X86) && \
    (defined(__GNUC__) ||           \
     (defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__AVX512DQ__)))
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 takes the _mm512_undefined_ps() inside its own min/max intrinsics
// for an uninitialised read once they are inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
namespace broadphase {
namespace detail {
namespace simd_avx512 {

#include "simd/avx512/target_begin.ipp"

constexpr bool inlined_copy = false;
struct Batch { __m512 v; };
struct Mask { __mmask16 m; };
[[gnu::always_inline]] inline Batch load(const float* p) { return {_mm512_loadu_ps(p)}; }
[[gnu::always_inline]] inline Batch splat(float x) { return {_mm512_set1_ps(x)}; }
[[gnu::always_inline]] inline Mask operator&(Mask a, Mask b) { return {static_cast<__mmask16>(a.m & b.m)}; }
[[gnu::always_inline]] inline std::uint32_t bits(Mask a) { return a.m; }
[[gnu::always_inline]] inline Mask le(Batch a, Batch b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
[[gnu::always_inline]] inline void scale_clamp_trunc_batch(const float* x, float o, float s, float lim,
                                                           std::int32_t* out) {
    __m512 t = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x), _mm512_set1_ps(o)), _mm512_set1_ps(s));
    t = _mm512_min_ps(_mm512_max_ps(t, _mm512_set1_ps(-lim)), _mm512_set1_ps(lim));
    _mm512_storeu_si512(reinterpret_cast<void*>(out), _mm512_cvttps_epi32(t));
}
/// Appends base + l for every set bit l of m to out[count...], lowest first,
/// with one compress and one store, no branch per hit (out has room for
/// 16 past count). With AVX2 the same gathering through a bit loop was
/// slower than emitting directly (measured: docs/measured-in-code.md#simd-kernels),
/// so only this copy has it.
constexpr bool has_compress = true;
[[gnu::always_inline]] inline void append_hits(std::uint32_t m, std::size_t base, std::uint32_t* out, std::size_t& count) {
    const __m512i lanes = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(base)),
                                           _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    _mm512_storeu_si512(reinterpret_cast<void*>(out + count),
                        _mm512_maskz_compress_epi32(static_cast<__mmask16>(m), lanes));
    count += static_cast<std::size_t>(__builtin_popcount(m));
}
/// See detail::append_pairs: 16 pairs built in two registers (a with each
/// lane's b, as (min, max) when `ordered`), the kept ones compressed and
/// stored, 8 at a time (out has room for 16 past count).
[[gnu::always_inline]] inline void append_pairs(std::uint32_t m, std::uint32_t a, const std::uint32_t* b_ids,
                                     std::uint32_t b_base, bool ordered, Pair* out, std::size_t& count) {
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i b = b_ids ? _mm512_loadu_si512(static_cast<const void*>(b_ids))
                            : _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(b_base)), lanes);
    __m512i lo = _mm512_set1_epi32(static_cast<int>(a)), hi = b;
    if (ordered) {
        hi = _mm512_max_epu32(lo, b);
        lo = _mm512_min_epu32(lo, b);
    }
    // (lo[k], hi[k]) for k = 0..7, then 8..15: Pair's a and b in memory order.
    const __m512i first = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i second = _mm512_add_epi32(first, _mm512_set1_epi32(8));
    const auto m0 = static_cast<__mmask8>(m & 0xffu), m1 = static_cast<__mmask8>((m >> 8) & 0xffu);
    _mm512_storeu_si512(static_cast<void*>(out + count),
                        _mm512_maskz_compress_epi64(m0, _mm512_permutex2var_epi32(lo, first, hi)));
    count += static_cast<std::size_t>(__builtin_popcount(m0));
    _mm512_storeu_si512(static_cast<void*>(out + count),
                        _mm512_maskz_compress_epi64(m1, _mm512_permutex2var_epi32(lo, second, hi)));
    count += static_cast<std::size_t>(__builtin_popcount(m1));
}
#define BROADPHASE_SIMD_SCAN inline
#include "simd/kernels.ipp"

/// Runs f() compiled for this set (see simd_avx2::run).
template <class F>
inline void run(Isa, const F& f) {
    f();
}
/// The same with every call beneath f inlined (see simd_avx2::run_flat).
template <class F>
[[gnu::flatten]] inline void run_flat(Isa, const F& f) {
    f();
}

#include "simd/avx512/target_end.ipp"

}  // namespace simd_avx512
}  // namespace detail
}  // namespace broadphase
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif
