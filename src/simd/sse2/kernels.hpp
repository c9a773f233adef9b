// The SSE2 copy of the box kernels (src/simd/kernels.ipp): part of every
// x86-64 CPU, so no target region. The copy callers inline, with their
// callback: runs of at most short_run boxes at every level, and every run at
// SimdLevel::sse2 (src/simd/dispatch.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/common.hpp"

#if defined(BROADPHASE_SIMD_X86)
namespace broadphase {
namespace detail {
namespace simd_sse2 {

constexpr bool inlined_copy = true;
struct Batch { __m128 v; };
struct Mask { __m128 v; };
[[gnu::always_inline]] inline Batch load(const float* p) { return {_mm_loadu_ps(p)}; }
[[gnu::always_inline]] inline Batch splat(float x) { return {_mm_set1_ps(x)}; }
[[gnu::always_inline]] inline Mask operator&(Mask a, Mask b) { return {_mm_and_ps(a.v, b.v)}; }
[[gnu::always_inline]] inline std::uint32_t bits(Mask a) { return static_cast<std::uint32_t>(_mm_movemask_ps(a.v)); }
[[gnu::always_inline]] inline Mask le(Batch a, Batch b) { return {_mm_cmple_ps(a.v, b.v)}; }
/// Clamp (x - o) * s to [-lim, lim], then truncate to int32, for `width` floats.
[[gnu::always_inline]] inline void scale_clamp_trunc_batch(const float* x, float o, float s, float lim,
                                                           std::int32_t* out) {
    __m128 t = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(x), _mm_set1_ps(o)), _mm_set1_ps(s));
    t = _mm_min_ps(_mm_max_ps(t, _mm_set1_ps(-lim)), _mm_set1_ps(lim));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_cvttps_epi32(t));
}
// The short scans are inlined into callers, as before there were copies.
#define BROADPHASE_SIMD_SCAN [[gnu::always_inline]] inline
#include "simd/kernels.ipp"

/// Runs f() in this copy (the build's baseline: no target of its own); the
/// cell list's traversals and ASE's rows run through these
/// (src/simd/dispatch.hpp: run and run_flat).
template <class F>
inline void run(Isa, const F& f) {
    f();
}
template <class F>
[[gnu::flatten]] inline void run_flat(Isa, const F& f) {
    f();
}

}  // namespace simd_sse2
}  // namespace detail
}  // namespace broadphase
#endif
