// The one SIMD kernel every algorithm shares: test one box against a run of
// boxes stored as struct-of-arrays, several boxes per instruction.
//
// Intrinsics are used because GCC will not vectorise float comparisons
// without -fno-trapping-math, which users do not pass. The widest instruction
// set the compiler was told about is picked (AVX-512, AVX, SSE2); anything
// else, and every scalar type but float, takes the portable scalar loop.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../boxes.hpp"

#if defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__) || defined(_M_X64)
#include <immintrin.h>
#endif

namespace broadphase {
namespace detail {

/// Index of the lowest set bit of x (x != 0), for 32- and 64-bit masks.
template <class U>
inline int count_trailing_zeros(U x) {
    static_assert(std::is_unsigned<U>::value, "unsigned masks only");
#if defined(__GNUC__)
    if constexpr (sizeof(U) > 4) return __builtin_ctzll(x);
    else return __builtin_ctz(x);
#else
    int n = 0;
    while (!(x & 1u)) { x >>= 1; ++n; }
    return n;
#endif
}

/// Set bits of x. The instruction when the target has it; otherwise the
/// SWAR sum, inline (GCC's generic builtin is a slow library call).
inline int popcount64(std::uint64_t x) {
#if defined(__GNUC__) && defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return static_cast<int>((x * 0x0101010101010101ull) >> 56);
#endif
}

/// Pointers to the min and max arrays of D axes.
template <class T, int D>
struct SoaView {
    const T* lo[D];
    const T* hi[D];
    std::size_t n = 0;

    static SoaView of(const BasicBoxes<T, D>& b) {
        SoaView v;
        for (int k = 0; k < D; ++k) {
            v.lo[k] = b.min(k);
            v.hi[k] = b.max(k);
        }
        v.n = b.size();
        return v;
    }
    bool overlaps(std::size_t j, const BasicBox<T, D>& q) const {
        for (int k = 0; k < D; ++k)
            if (hi[k][j] < q.min[k] || q.max[k] < lo[k][j]) return false;
        return true;
    }
};

namespace simd {

#if defined(__AVX512F__)
constexpr int width = 16;
struct Batch { __m512 v; };
struct Mask { __mmask16 m; };
inline Batch load(const float* p) { return {_mm512_loadu_ps(p)}; }
inline Batch splat(float x) { return {_mm512_set1_ps(x)}; }
inline Mask le(Batch a, Batch b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
inline Mask operator&(Mask a, Mask b) { return {static_cast<__mmask16>(a.m & b.m)}; }
inline std::uint32_t bits(Mask a) { return a.m; }
/// Clamp (x - o) * s to [-lim, lim], then truncate to int32, for `width` floats.
inline void scale_clamp_trunc(const float* x, float o, float s, float lim, std::int32_t* out) {
    __m512 t = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x), _mm512_set1_ps(o)), _mm512_set1_ps(s));
    t = _mm512_min_ps(_mm512_max_ps(t, _mm512_set1_ps(-lim)), _mm512_set1_ps(lim));
    _mm512_storeu_si512(reinterpret_cast<void*>(out), _mm512_cvttps_epi32(t));
}
#elif defined(__AVX__)
constexpr int width = 8;
struct Batch { __m256 v; };
struct Mask { __m256 v; };
inline Batch load(const float* p) { return {_mm256_loadu_ps(p)}; }
inline Batch splat(float x) { return {_mm256_set1_ps(x)}; }
inline Mask le(Batch a, Batch b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
inline Mask operator&(Mask a, Mask b) { return {_mm256_and_ps(a.v, b.v)}; }
inline std::uint32_t bits(Mask a) { return static_cast<std::uint32_t>(_mm256_movemask_ps(a.v)); }
inline void scale_clamp_trunc(const float* x, float o, float s, float lim, std::int32_t* out) {
    __m256 t = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x), _mm256_set1_ps(o)), _mm256_set1_ps(s));
    t = _mm256_min_ps(_mm256_max_ps(t, _mm256_set1_ps(-lim)), _mm256_set1_ps(lim));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_cvttps_epi32(t));
}
#elif defined(__SSE2__) || defined(_M_X64)
constexpr int width = 4;
struct Batch { __m128 v; };
struct Mask { __m128 v; };
inline Batch load(const float* p) { return {_mm_loadu_ps(p)}; }
inline Batch splat(float x) { return {_mm_set1_ps(x)}; }
inline Mask le(Batch a, Batch b) { return {_mm_cmple_ps(a.v, b.v)}; }
inline Mask operator&(Mask a, Mask b) { return {_mm_and_ps(a.v, b.v)}; }
inline std::uint32_t bits(Mask a) { return static_cast<std::uint32_t>(_mm_movemask_ps(a.v)); }
inline void scale_clamp_trunc(const float* x, float o, float s, float lim, std::int32_t* out) {
    __m128 t = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(x), _mm_set1_ps(o)), _mm_set1_ps(s));
    t = _mm_min_ps(_mm_max_ps(t, _mm_set1_ps(-lim)), _mm_set1_ps(lim));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_cvttps_epi32(t));
}
#else
#define BROADPHASE_NO_SIMD 1
constexpr int width = 1;
#endif

}  // namespace simd

/// Calls emit(base + l) for every set bit l of m, lowest first.
template <class Emit>
inline void emit_bits(std::uint32_t m, std::size_t base, Emit& emit) {
    while (m) {
        emit(base + static_cast<std::size_t>(count_trailing_zeros(m)));
        m &= m - 1;
    }
}

/// Bit j-begin set for every j in [begin, begin + simd::width) whose box
/// overlaps q. Requires begin + width <= v.n.
#ifndef BROADPHASE_NO_SIMD
template <int D>
inline std::uint32_t overlap_bits(const SoaView<float, D>& v, std::size_t j, const BasicBox<float, D>& q) {
    using namespace simd;
    Mask m = le(load(v.lo[0] + j), splat(q.max[0])) & le(splat(q.min[0]), load(v.hi[0] + j));
    for (int k = 1; k < D; ++k)
        m = m & le(load(v.lo[k] + j), splat(q.max[k])) & le(splat(q.min[k]), load(v.hi[k] + j));
    return bits(m);
}
#endif

/// Calls emit(j) for every j in [begin, end) whose box overlaps q, in
/// increasing j. O(end - begin) box tests, width at a time.
template <class T, int D, class Emit>
inline void scan_overlaps(const SoaView<T, D>& v, std::size_t begin, std::size_t end, const BasicBox<T, D>& q,
                          Emit&& emit) {
    std::size_t j = begin;
#ifndef BROADPHASE_NO_SIMD
    if constexpr (std::is_same_v<T, float>) {
        for (; j + simd::width <= end; j += simd::width) {
            std::uint32_t m = overlap_bits<D>(v, j, q);
            emit_bits(m, j, emit);
        }
    }
#endif
    for (; j < end; ++j)
        if (v.overlaps(j, q)) emit(j);
}

/// Like scan_overlaps, but reads whole SIMD batches past `end` (the caller
/// pads the arrays by simd::width) and masks the extra lanes, so short runs
/// need no scalar tail.
template <class T, int D, class Emit>
inline void scan_overlaps_padded(const SoaView<T, D>& v, std::size_t begin, std::size_t end, const BasicBox<T, D>& q,
                                 Emit&& emit) {
#ifndef BROADPHASE_NO_SIMD
    if constexpr (std::is_same_v<T, float>) {
        for (std::size_t j = begin; j < end; j += simd::width) {
            std::uint32_t m = overlap_bits<D>(v, j, q);
            if (end - j < static_cast<std::size_t>(simd::width)) m &= (1u << (end - j)) - 1u;
            emit_bits(m, j, emit);
        }
        return;
    }
#endif
    scan_overlaps(v, begin, end, q, emit);
}

/// Sweep form: boxes [begin, end) are sorted by min on `axis`; calls emit(j)
/// for every overlapping j, stopping at the first box whose min on `axis`
/// exceeds q.max there (all later ones do too). Cost: the boxes scanned.
template <class T, int D, class Emit>
inline void sweep_overlaps(const SoaView<T, D>& v, std::size_t begin, std::size_t end, int axis,
                           const BasicBox<T, D>& q, Emit&& emit) {
    const T limit = q.max[axis];
    const T* sweep_lo = v.lo[axis];
    std::size_t j = begin;
#ifndef BROADPHASE_NO_SIMD
    if constexpr (std::is_same_v<T, float>) {
        for (; j + simd::width <= end; j += simd::width) {
            std::uint32_t m = overlap_bits<D>(v, j, q);
            emit_bits(m, j, emit);
            if (sweep_lo[j + simd::width - 1] > limit) return;
        }
    }
#endif
    for (; j < end && !(sweep_lo[j] > limit); ++j)
        if (v.overlaps(j, q)) emit(j);
}

/// out[i] = trunc(clamp((x[i] - o) * s, -lim, lim)): a monotone map of x to
/// integers (truncation is monotone too), the grids' cell coordinate. The
/// SIMD and scalar paths round identically (no multiply-add to contract),
/// so a coordinate maps to the same cell however it is computed. O(n).
template <class T>
inline std::int32_t scale_clamp_trunc(T x, T o, T s, T lim) {
    T t = (x - o) * s;
    t = t > -lim ? t : -lim;
    t = t < lim ? t : lim;
    return static_cast<std::int32_t>(t);
}
template <class T>
inline void scale_clamp_trunc(const T* x, std::size_t n, T o, T s, T lim, std::int32_t* out) {
    std::size_t i = 0;
#ifndef BROADPHASE_NO_SIMD
    if constexpr (std::is_same_v<T, float>)
        for (; i + simd::width <= n; i += simd::width) simd::scale_clamp_trunc(x + i, o, s, lim, out + i);
#endif
    for (; i < n; ++i) out[i] = scale_clamp_trunc(x[i], o, s, lim);
}

/// Box j of a view as a value.
template <class T, int D>
inline BasicBox<T, D> box_at(const SoaView<T, D>& v, std::size_t j) {
    BasicBox<T, D> b;
    for (int k = 0; k < D; ++k) {
        b.min[k] = v.lo[k][j];
        b.max[k] = v.hi[k][j];
    }
    return b;
}

/// Every overlapping pair (i, j), i < j, i < first_end, among boxes
/// [0, v.n) sorted by min on `axis`: emit(i, j). Sweeps SIMD-width boxes at once, "diagonally":
/// lane l of step d tests box i+l against box i+l+d, so each step is a few
/// contiguous loads, and a group stops when every lane has passed its
/// window. Cheaper than one sweep per box when windows are short (a box
/// per lane instead of a batch per box). The arrays must be readable
/// simd::width past v.n.
template <class T, int D, class Emit>
inline void sweep_pairs(const SoaView<T, D>& v, int axis, std::size_t first_end, Emit&& emit) {
    const std::size_t n = v.n;
    first_end = first_end < n ? first_end : n;
#ifndef BROADPHASE_NO_SIMD
    if constexpr (std::is_same_v<T, float>) {
        using namespace simd;
        constexpr std::size_t W = static_cast<std::size_t>(width);
        for (std::size_t i = 0; i < first_end && i + 1 < n; i += W) {
            Batch lo[D], hi[D];
            for (int k = 0; k < D; ++k) {
                lo[k] = load(v.lo[k] + i);
                hi[k] = load(v.hi[k] + i);
            }
            const std::size_t left = first_end - i;
            std::uint32_t active = left >= W ? (W >= 32 ? ~0u : (1u << W) - 1u) : (1u << left) - 1u;
            // Diagonal steps while windows are short; lanes whose window is
            // longer then finish with an ordinary per-box sweep.
            const std::size_t j_end = std::min(n, i + 1 + 2 * W);
            std::size_t j = i + 1;
            for (; j < j_end; ++j) {
                const std::size_t valid = n - j;  // lanes whose partner exists
                if (valid < W) active &= (1u << valid) - 1u;
                Mask m = le(load(v.lo[axis] + j), hi[axis]);
                active &= bits(m);
                if (!active) break;
                for (int k = 0; k < D; ++k) {
                    if (k == axis) continue;
                    m = m & le(load(v.lo[k] + j), hi[k]) & le(lo[k], load(v.hi[k] + j));
                }
                std::uint32_t hits = bits(m) & active;
                while (hits) {
                    const std::size_t l = static_cast<std::size_t>(count_trailing_zeros(hits));
                    emit(i + l, j + l);
                    hits &= hits - 1;
                }
            }
            if (j == j_end && j < n) {
                if (n - j < W) active &= (1u << (n - j)) - 1u;
                while (active) {
                    const std::size_t l = static_cast<std::size_t>(count_trailing_zeros(active));
                    const std::size_t a = i + l;
                    sweep_overlaps(v, j + l, n, axis, box_at(v, a), [&](std::size_t b) { emit(a, b); });
                    active &= active - 1;
                }
            }
        }
        return;
    }
#endif
    for (std::size_t i = 0; i < first_end && i + 1 < n; ++i)
        sweep_overlaps(v, i + 1, n, axis, box_at(v, i), [&](std::size_t j) { emit(i, j); });
}

}  // namespace detail
}  // namespace broadphase
