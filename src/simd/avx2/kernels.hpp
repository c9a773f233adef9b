// The AVX2 copy of the box kernels (src/simd/kernels.ipp), compiled for
// AVX2, BMI1 and POPCNT by a target region (no -march flags needed; the copy
// runs only where cpuid finds the set). No FMA in the target: callers'
// arithmetic inlined into a kernel must round as in the rest of their code.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/common.hpp"

#if defined(BROADPHASE_SIMD_X86) && (defined(__GNUC__) || defined(__AVX2__))
namespace broadphase {
namespace detail {
namespace simd_avx2 {

#include "simd/avx2/target_begin.ipp"

constexpr bool inlined_copy = false;
struct Batch { __m256 v; };
struct Mask { __m256 v; };
[[gnu::always_inline]] inline Batch load(const float* p) { return {_mm256_loadu_ps(p)}; }
[[gnu::always_inline]] inline Batch splat(float x) { return {_mm256_set1_ps(x)}; }
[[gnu::always_inline]] inline Mask operator&(Mask a, Mask b) { return {_mm256_and_ps(a.v, b.v)}; }
[[gnu::always_inline]] inline std::uint32_t bits(Mask a) {
    return static_cast<std::uint32_t>(_mm256_movemask_ps(a.v));
}
[[gnu::always_inline]] inline Mask le(Batch a, Batch b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
[[gnu::always_inline]] inline void scale_clamp_trunc_batch(const float* x, float o, float s, float lim,
                                                           std::int32_t* out) {
    __m256 t = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x), _mm256_set1_ps(o)), _mm256_set1_ps(s));
    t = _mm256_min_ps(_mm256_max_ps(t, _mm256_set1_ps(-lim)), _mm256_set1_ps(lim));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_cvttps_epi32(t));
}
#define BROADPHASE_SIMD_SCAN inline
#include "simd/kernels.ipp"

/// Runs f() compiled for this set: what f inlines (it must be always
/// inline itself) becomes AVX2 code (ASE's rows).
template <class F>
inline void run(Isa, const F& f) {
    f();
}
/// The same with every call beneath f inlined (the cell list's traversals:
/// a particle's constants stay in registers across its runs).
template <class F>
[[gnu::flatten]] inline void run_flat(Isa, const F& f) {
    f();
}

#include "simd/avx2/target_end.ipp"

}  // namespace simd_avx2
}  // namespace detail
}  // namespace broadphase
#endif
