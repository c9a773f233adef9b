// The SIMD kernels every algorithm shares: test one box against a run of
// boxes stored as struct-of-arrays, several boxes per instruction.
//
// Intrinsics are used because GCC will not vectorise float comparisons
// without -fno-trapping-math, which users do not pass. The float kernels
// (simd_kernels.ipp) are compiled once per instruction set -- AVX-512,
// AVX2, SSE2 -- each in its own namespace with a GCC/Clang target
// attribute, and the entry points below pick one at run time from the level
// cached by broadphase/simd.hpp: one switch per kernel call (per scan or
// sweep of a run of boxes), never per batch. Every scalar type but float,
// and SimdLevel::scalar, take the portable scalar loops.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/simd.hpp>
#include <broadphase/detail/box_rules.hpp>

#if !defined(BROADPHASE_NO_SIMD)
#include <immintrin.h>
#endif

// The batch operations and the per-batch test must be inlined into every
// kernel copy: GCC's size limits otherwise leave some as calls in a big
// program (seen in the CLI), a call per batch.
#if defined(__GNUC__)
#define BROADPHASE_SIMD_INLINE inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define BROADPHASE_SIMD_INLINE __forceinline
#else
#define BROADPHASE_SIMD_INLINE inline
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

    /// The arrays of a struct-of-arrays view (b.contiguous() must hold);
    /// a BasicBoxes converts to one implicitly.
    static SoaView of(const BasicBoxesView<T, D>& b) {
        SoaView v;
        for (int k = 0; k < D; ++k) {
            v.lo[k] = b.min(k);
            v.hi[k] = b.max(k);
        }
        v.n = b.size();
        return v;
    }
    BROADPHASE_SIMD_INLINE bool overlaps(std::size_t j, const BasicBox<T, D>& q) const {
        for (int k = 0; k < D; ++k)
            if (hi[k][j] < q.min[k] || q.max[k] < lo[k][j]) return false;
        return true;
    }
};

/// The public view of a SoaView's arrays (zero copy).
template <class T, int D>
BasicBoxesView<T, D> public_view(const SoaView<T, D>& v) {
    std::array<const T*, D> lo, hi;
    for (int k = 0; k < D; ++k) {
        lo[static_cast<std::size_t>(k)] = v.lo[k];
        hi[static_cast<std::size_t>(k)] = v.hi[k];
    }
    return BasicBoxesView<T, D>::soa(lo, hi, v.n);
}

/// Calls emit(base + l) for every set bit l of m, lowest first.
template <class Emit>
BROADPHASE_SIMD_INLINE void emit_bits(std::uint32_t m, std::size_t base, Emit& emit) {
    while (m) {
        emit(base + static_cast<std::size_t>(count_trailing_zeros(m)));
        m &= m - 1;
    }
}

/// Box j of a view as a value.
template <class T, int D>
BROADPHASE_SIMD_INLINE BasicBox<T, D> box_at(const SoaView<T, D>& v, std::size_t j) {
    BasicBox<T, D> b;
    for (int k = 0; k < D; ++k) {
        b.min[k] = v.lo[k][j];
        b.max[k] = v.hi[k][j];
    }
    return b;
}

/// trunc(clamp((x - o) * s, -lim, lim)), the grids' clamped_cell
/// (detail/box_rules.hpp): see the array form below.
template <class T>
inline std::int32_t scale_clamp_trunc(T x, T o, T s, T lim) {
    return clamped_cell<std::int32_t>(x, o, s, -lim, lim);
}

}  // namespace detail
}  // namespace broadphase

// The cluster-pair kernel's types and scalar loops (they need SoaView and box_at).
#include "simd/cluster_kernel_types.ipp"

namespace broadphase {
namespace detail {

namespace simd {
/// The most boxes any compiled kernel reads at once. Arrays that kernels
/// may read past their end (scan_overlaps_padded, sweep_pairs) are padded
/// by this many, whichever level runs.
#if defined(BROADPHASE_SIMD_HAS_AVX512)
constexpr int width = 16;
#elif defined(BROADPHASE_SIMD_HAS_AVX2)
constexpr int width = 8;
#elif defined(BROADPHASE_SIMD_HAS_SSE2)
constexpr int width = 4;
#else
constexpr int width = 1;
#endif
}  // namespace simd

// ---- one namespace per instruction set --------------------------------------
// Each defines what differs between the sets, in this order: whether its
// scans are inlined into callers; the register types; the target (before
// the operations that take it); the operations on batches and on masks, the
// comparison that makes masks of batches, and the quantisation of a batch;
// then, used by the kernels alone, how its scans are declared. Then it
// includes the kernels, which derive `width` from Batch and undefine
// BROADPHASE_SIMD_TARGET and BROADPHASE_SIMD_SCAN at their end. The target
// attribute lets GCC and Clang emit AVX2/AVX-512 code in a build without
// -march flags; those copies run only where the CPU has the set. No FMA in
// the AVX2 target: callers' arithmetic inlined into a kernel must round as
// in the rest of their code.

// A batch operation: always inlined, under the enclosing copy's target.
#define BROADPHASE_SIMD_OP BROADPHASE_SIMD_TARGET BROADPHASE_SIMD_INLINE

/// The copies without a compress instruction (SSE2, AVX2) emit hits bit by
/// bit (emit_bits): their kernels never gather hits, and append_hits, the
/// same as a bit loop, only keeps the kernels' code one. The AVX-512 copy
/// declares its own of both.
constexpr bool has_compress = false;
BROADPHASE_SIMD_INLINE void append_hits(std::uint32_t m, std::size_t base, std::uint32_t* out, std::size_t& count) {
    for (; m; m &= m - 1) out[count++] = static_cast<std::uint32_t>(base + static_cast<std::size_t>(count_trailing_zeros(m)));
}

#if defined(BROADPHASE_SIMD_HAS_SSE2)
namespace simd_sse2 {
constexpr bool inlined_copy = true;
struct Batch { __m128 v; };
struct Mask { __m128 v; };
#define BROADPHASE_SIMD_TARGET
BROADPHASE_SIMD_OP Batch load(const float* p) { return {_mm_loadu_ps(p)}; }
BROADPHASE_SIMD_OP Batch splat(float x) { return {_mm_set1_ps(x)}; }
BROADPHASE_SIMD_OP Mask operator&(Mask a, Mask b) { return {_mm_and_ps(a.v, b.v)}; }
BROADPHASE_SIMD_OP std::uint32_t bits(Mask a) { return static_cast<std::uint32_t>(_mm_movemask_ps(a.v)); }
BROADPHASE_SIMD_OP Mask le(Batch a, Batch b) { return {_mm_cmple_ps(a.v, b.v)}; }
/// Clamp (x - o) * s to [-lim, lim], then truncate to int32, for `width` floats.
BROADPHASE_SIMD_OP void scale_clamp_trunc_batch(const float* x, float o, float s, float lim, std::int32_t* out) {
    __m128 t = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(x), _mm_set1_ps(o)), _mm_set1_ps(s));
    t = _mm_min_ps(_mm_max_ps(t, _mm_set1_ps(-lim)), _mm_set1_ps(lim));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_cvttps_epi32(t));
}
// The short scans are inlined into callers, as before there were copies.
#define BROADPHASE_SIMD_SCAN BROADPHASE_SIMD_INLINE
#include "simd/simd_kernels.ipp"
}  // namespace simd_sse2
#endif

#if defined(BROADPHASE_SIMD_HAS_AVX2)
namespace simd_avx2 {
constexpr bool inlined_copy = false;
struct Batch { __m256 v; };
struct Mask { __m256 v; };
#if defined(BROADPHASE_SIMD_RUNTIME)
#define BROADPHASE_SIMD_TARGET __attribute__((target("avx2,bmi,popcnt")))
#else
#define BROADPHASE_SIMD_TARGET
#endif
BROADPHASE_SIMD_OP Batch load(const float* p) { return {_mm256_loadu_ps(p)}; }
BROADPHASE_SIMD_OP Batch splat(float x) { return {_mm256_set1_ps(x)}; }
BROADPHASE_SIMD_OP Mask operator&(Mask a, Mask b) { return {_mm256_and_ps(a.v, b.v)}; }
BROADPHASE_SIMD_OP std::uint32_t bits(Mask a) { return static_cast<std::uint32_t>(_mm256_movemask_ps(a.v)); }
BROADPHASE_SIMD_OP Mask le(Batch a, Batch b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LE_OQ)}; }
BROADPHASE_SIMD_OP void scale_clamp_trunc_batch(const float* x, float o, float s, float lim, std::int32_t* out) {
    __m256 t = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x), _mm256_set1_ps(o)), _mm256_set1_ps(s));
    t = _mm256_min_ps(_mm256_max_ps(t, _mm256_set1_ps(-lim)), _mm256_set1_ps(lim));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_cvttps_epi32(t));
}
#define BROADPHASE_SIMD_SCAN BROADPHASE_SIMD_TARGET inline
#include "simd/simd_kernels.ipp"
}  // namespace simd_avx2
#endif

#if defined(BROADPHASE_SIMD_HAS_AVX512)
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 takes the _mm512_undefined_ps() inside its own min/max intrinsics
// for an uninitialised read once they are inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
namespace simd_avx512 {
constexpr bool inlined_copy = false;
struct Batch { __m512 v; };
struct Mask { __mmask16 m; };
#if defined(BROADPHASE_SIMD_RUNTIME)
#define BROADPHASE_SIMD_TARGET \
    __attribute__((target("avx2,bmi,popcnt,avx512f,avx512vl,avx512bw,avx512dq")))
#else
#define BROADPHASE_SIMD_TARGET
#endif
BROADPHASE_SIMD_OP Batch load(const float* p) { return {_mm512_loadu_ps(p)}; }
BROADPHASE_SIMD_OP Batch splat(float x) { return {_mm512_set1_ps(x)}; }
BROADPHASE_SIMD_OP Mask operator&(Mask a, Mask b) { return {static_cast<__mmask16>(a.m & b.m)}; }
BROADPHASE_SIMD_OP std::uint32_t bits(Mask a) { return a.m; }
BROADPHASE_SIMD_OP Mask le(Batch a, Batch b) { return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)}; }
BROADPHASE_SIMD_OP void scale_clamp_trunc_batch(const float* x, float o, float s, float lim, std::int32_t* out) {
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
BROADPHASE_SIMD_OP void append_hits(std::uint32_t m, std::size_t base, std::uint32_t* out, std::size_t& count) {
    const __m512i lanes = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(base)),
                                           _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    _mm512_storeu_si512(reinterpret_cast<void*>(out + count),
                        _mm512_maskz_compress_epi32(static_cast<__mmask16>(m), lanes));
    count += static_cast<std::size_t>(__builtin_popcount(m));
}
/// See detail::append_pairs: 16 pairs built in two registers (a with each
/// lane's b, as (min, max) when `ordered`), the kept ones compressed and
/// stored, 8 at a time (out has room for 16 past count).
BROADPHASE_SIMD_OP void append_pairs(std::uint32_t m, std::uint32_t a, const std::uint32_t* b_ids,
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
#define BROADPHASE_SIMD_SCAN BROADPHASE_SIMD_TARGET inline
#include "simd/simd_kernels.ipp"
}  // namespace simd_avx512
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif
#undef BROADPHASE_SIMD_OP

// ---- the portable scalar loops ----------------------------------------------
// Every type but float, SimdLevel::scalar, and CPUs without SIMD kernels.
namespace simd_scalar {

template <class T, int D, class Emit>
inline void scan_overlaps(const SoaView<T, D>& v, std::size_t begin, std::size_t end, const BasicBox<T, D>& q,
                          Emit& emit) {
    for (std::size_t j = begin; j < end; ++j)
        if (v.overlaps(j, q)) emit(j);
}

/// No padding needed: the same loop.
template <class T, int D, class Emit>
inline void scan_overlaps_padded(const SoaView<T, D>& v, std::size_t begin, std::size_t end, const BasicBox<T, D>& q,
                                 Emit& emit) {
    scan_overlaps(v, begin, end, q, emit);
}

template <class T, int D, class Emit>
inline void scan_runs_padded(const SoaView<T, D>& v, const std::size_t* begin, const std::size_t* end, int runs,
                             const BasicBox<T, D>& q, Emit& emit) {
    for (int r = 0; r < runs; ++r) scan_overlaps(v, begin[r], end[r], q, emit);
}

template <class T, int D, class Emit>
inline bool scan_short_runs_padded(const SoaView<T, D>&, const std::size_t*, const std::size_t*, int,
                                   const BasicBox<T, D>&, Emit&) {
    return false;  // the caller's loops are the scalar form
}

template <class T, int D, class Emit>
inline void sweep_overlaps(const SoaView<T, D>& v, std::size_t begin, std::size_t end, int axis,
                           const BasicBox<T, D>& q, Emit& emit) {
    const T limit = q.max[axis];
    const T* sweep_lo = v.lo[axis];
    for (std::size_t j = begin; j < end && !(sweep_lo[j] > limit); ++j)
        if (v.overlaps(j, q)) emit(j);
}

template <class T, int D, class Emit>
inline void sweep_pairs(const SoaView<T, D>& v, int axis, std::size_t first_end, Emit& emit) {
    const std::size_t n = v.n;
    for (std::size_t i = 0; i < first_end && i + 1 < n; ++i) {
        auto emit_i = [&](std::size_t j) { emit(i, j); };
        sweep_overlaps(v, i + 1, n, axis, box_at(v, i), emit_i);
    }
}

template <class T>
inline void scale_clamp_trunc(const T* x, std::size_t n, T o, T s, T lim, std::int32_t* out) {
    for (std::size_t i = 0; i < n; ++i) out[i] = detail::scale_clamp_trunc(x[i], o, s, lim);
}

template <class T, int D>
inline bool all_valid(const SoaView<T, D>& v, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
        for (int k = 0; k < D; ++k)
            if (!valid_interval(v.lo[k][i], v.hi[k][i])) return false;
    return true;
}

}  // namespace simd_scalar

// ---- the entry points: one switch on the cached level per call ---------------
// Each reads the level once and runs one copy of the whole loop. Runs of at
// most short_run boxes, and SimdLevel::sse2, take the SSE2 copy, inlined
// into the caller with its callback (as when SSE2 was the only copy): the
// grids scan a few boxes at a time, many times a frame, and there a call to
// a wider copy costs more than the batches it saves (measured:
// docs/measured-in-code.md#simd-kernels). Longer runs call the AVX2 or
// AVX-512 copy, compiled for that set with the callback inlined into it.
//
// BROADPHASE_SIMD_DISPATCH(T, wide, kernel(args)), the whole body of every
// entry point below, returns kernel(args) from the copy to run: the AVX-512
// or AVX2 one when `wide` holds and the level names one, else the SSE2 one
// (at any SIMD level), else (another type than float, SimdLevel::scalar, or
// no SIMD) the scalar loops. A macro, as the switch it replaces was: a copy
// is a namespace, which no template parameter can name, and the SSE2 call
// must stay in the caller's body to be inlined there with its callback.
#if defined(BROADPHASE_SIMD_HAS_AVX512)
#define BROADPHASE_SIMD_CASE_AVX512(...) \
    case SimdLevel::avx512: return simd_avx512::__VA_ARGS__;
#else
#define BROADPHASE_SIMD_CASE_AVX512(...)
#endif
#if defined(BROADPHASE_SIMD_HAS_AVX2)
#define BROADPHASE_SIMD_CASE_AVX2(...) \
    case SimdLevel::avx2: return simd_avx2::__VA_ARGS__;
#else
#define BROADPHASE_SIMD_CASE_AVX2(...)
#endif
#if !defined(BROADPHASE_NO_SIMD)
#define BROADPHASE_SIMD_DISPATCH(T, wide, ...)                                 \
    if constexpr (std::is_same_v<T, float>) {                                 \
        const SimdLevel level = simd_select::active();                        \
        if (level > SimdLevel::sse2 && (wide)) {                              \
            switch (level) {                                                  \
                BROADPHASE_SIMD_CASE_AVX512(__VA_ARGS__)                      \
                BROADPHASE_SIMD_CASE_AVX2(__VA_ARGS__)                        \
                default: break;                                               \
            }                                                                 \
        }                                                                     \
        if (level != SimdLevel::scalar) return simd_sse2::__VA_ARGS__;        \
    }                                                                         \
    return simd_scalar::__VA_ARGS__;
#else
#define BROADPHASE_SIMD_DISPATCH(T, wide, ...) return simd_scalar::__VA_ARGS__;
#endif

#if !defined(BROADPHASE_SIMD_SHORT_RUN)
#define BROADPHASE_SIMD_SHORT_RUN 8
#endif
/// Runs up to this long take the inlined SSE2 copy at every SIMD level.
constexpr std::size_t short_run = BROADPHASE_SIMD_SHORT_RUN;

/// Calls emit(j) for every j in [begin, end) whose box overlaps q, in
/// increasing j. O(end - begin) box tests, a SIMD batch at a time.
template <class T, int D, class Emit>
BROADPHASE_SIMD_INLINE void scan_overlaps(const SoaView<T, D>& v, std::size_t begin, std::size_t end,
                                          const BasicBox<T, D>& q, Emit&& emit) {
    BROADPHASE_SIMD_DISPATCH(T, end - begin > short_run, scan_overlaps(v, begin, end, q, emit))
}

/// Like scan_overlaps, but reads whole SIMD batches past `end` (the caller
/// pads the arrays by simd::width) and masks the extra lanes, so short runs
/// need no scalar tail.
template <class T, int D, class Emit>
BROADPHASE_SIMD_INLINE void scan_overlaps_padded(const SoaView<T, D>& v, std::size_t begin, std::size_t end,
                                                 const BasicBox<T, D>& q, Emit&& emit) {
    BROADPHASE_SIMD_DISPATCH(T, end - begin > short_run, scan_overlaps_padded(v, begin, end, q, emit))
}

/// scan_overlaps_padded over several runs [begin[r], end[r]) for one query
/// box, in one call: the wide copies take every run at a full batch width
/// (a run of up to `width` boxes is one masked batch), and the query is
/// set up once. For callers that scan a few short runs per box (the
/// uniform grid's stencil rows), where a call per run to a wide copy costs
/// more than it saves.
template <class T, int D, class Emit>
BROADPHASE_SIMD_INLINE void scan_runs_padded(const SoaView<T, D>& v, const std::size_t* begin, const std::size_t* end,
                                             int runs, const BasicBox<T, D>& q, Emit&& emit) {
    BROADPHASE_SIMD_DISPATCH(T, true, scan_runs_padded(v, begin, end, runs, q, emit))
}

/// The same for runs of at most a few boxes each (SSE2's 4): one batch a
/// run, empty or not, and the hits of every run emitted from one mask, in
/// the same order (runs in turn, each in increasing j). No branch per run,
/// where the loop form mispredicts on which runs are empty (the uniform
/// grid's stencil on sparse data: 0.3 boxes a cell). Returns false, having
/// emitted nothing, when a run is longer (or `runs` too many): the caller
/// then scans them as usual. Reads past each run's start as the padded
/// scans do.
template <class T, int D, class Emit>
BROADPHASE_SIMD_INLINE bool scan_short_runs_padded(const SoaView<T, D>& v, const std::size_t* begin,
                                                   const std::size_t* end, int runs, const BasicBox<T, D>& q,
                                                   Emit&& emit) {
    BROADPHASE_SIMD_DISPATCH(T, false, scan_short_runs_padded(v, begin, end, runs, q, emit))
}

/// Sweep form: boxes [begin, end) are sorted by min on `axis`; calls emit(j)
/// for every overlapping j, stopping at the first box whose min on `axis`
/// exceeds q.max there (all later ones do too). Cost: the boxes scanned.
template <class T, int D, class Emit>
BROADPHASE_SIMD_INLINE void sweep_overlaps(const SoaView<T, D>& v, std::size_t begin, std::size_t end, int axis,
                                           const BasicBox<T, D>& q, Emit&& emit) {
    BROADPHASE_SIMD_DISPATCH(T, end - begin > short_run, sweep_overlaps(v, begin, end, axis, q, emit))
}

/// Every overlapping pair (i, j), i < j, i < first_end, among boxes
/// [0, v.n) sorted by min on `axis`: emit(i, j). Sweeps SIMD-width boxes at once, "diagonally":
/// lane l of step d tests box i+l against box i+l+d, so each step is a few
/// contiguous loads, and a group stops when every lane has passed its
/// window. Cheaper than one sweep per box when windows are short (a box
/// per lane instead of a batch per box). The arrays must be readable
/// simd::width past v.n.
template <class T, int D, class Emit>
BROADPHASE_SIMD_INLINE void sweep_pairs(const SoaView<T, D>& v, int axis, std::size_t first_end, Emit&& emit) {
    first_end = first_end < v.n ? first_end : v.n;
    BROADPHASE_SIMD_DISPATCH(T, v.n > short_run, sweep_pairs(v, axis, first_end, emit))
}

/// out[i] = trunc(clamp((x[i] - o) * s, -lim, lim)): a monotone map of x to
/// integers (truncation is monotone too), the grids' cell coordinate. The
/// SIMD and scalar paths round identically (no multiply-add to contract),
/// so a coordinate maps to the same cell however it is computed. O(n).
template <class T>
inline void scale_clamp_trunc(const T* x, std::size_t n, T o, T s, T lim, std::int32_t* out) {
    BROADPHASE_SIMD_DISPATCH(T, n > short_run, scale_clamp_trunc(x, n, o, s, lim, out))
}

/// True when every box in [begin, end) is valid (min <= max on every axis;
/// NaN is invalid). O(end - begin), a SIMD batch at a time.
template <class T, int D>
inline bool all_valid(const SoaView<T, D>& v, std::size_t begin, std::size_t end) {
    BROADPHASE_SIMD_DISPATCH(T, end - begin > short_run, all_valid(v, begin, end))
}

/// Every pair of entries, one from each of two groups, whose boxes overlap,
/// for each listed pair of groups (src/simd/cluster_kernel_types.ipp has the
/// details and the row records they come in). M x M tests a pair at most,
/// a SIMD batch (or M / width) at a time.
template <int M, class T, int D, class Flush>
BROADPHASE_SIMD_INLINE void cluster_pair_hits(const ClusterSide<T, D>& side_a, const ClusterSide<T, D>& side_b,
                                              const Pair* pairs, std::size_t count, int mode, Flush&& flush) {
    BROADPHASE_SIMD_DISPATCH(T, true, cluster_pair_hits<M>(side_a, side_b, pairs, count, mode, flush))
}

#undef BROADPHASE_SIMD_DISPATCH
#undef BROADPHASE_SIMD_CASE_AVX512
#undef BROADPHASE_SIMD_CASE_AVX2

}  // namespace detail
}  // namespace broadphase
