// The SIMD kernels every algorithm shares: test one box against a run of
// boxes stored as struct-of-arrays, several boxes per instruction; the
// entry points below, and the choice of a copy at run time.
//
// Intrinsics are used because GCC will not vectorise float comparisons
// without -fno-trapping-math, which users do not pass. The float kernels
// (kernels.ipp) are compiled once per instruction set, one folder each --
// sse2/, avx2/, avx512/: its batch type and operations, its copy of the
// kernels, and the cell list's kernels for that set -- each in its own
// namespace (detail::simd_<set>) and, for the wide sets, in a GCC/Clang
// target region; the entry points below pick one at run time from the level
// cached by broadphase/simd.hpp: one switch per kernel call (per scan or
// sweep of a run of boxes), never per batch. Every scalar type but float,
// and SimdLevel::scalar, take the portable scalar loops (scalar.hpp).
//
// Nothing outside src/simd/ uses an intrinsic or a target: code elsewhere
// that wants a copy per set (the cell list's traversals, ASE's rows) asks
// on_level() for the tag of the level in use and runs its loops through that
// copy's run() or run_flat(), compiled there for the set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "simd/common.hpp"
#include "simd/scalar.hpp"
#include "simd/sse2/kernels.hpp"
#include "simd/avx2/kernels.hpp"
#include "simd/avx512/kernels.hpp"

namespace broadphase {
namespace detail {

// ---- the choice of a copy ------------------------------------------------------

/// Returns f(tag) for the copy that runs at `level`: the tag of simd_avx512,
/// simd_avx2, simd_sse2 or simd_scalar (src/simd/common.hpp), the widest
/// this build compiled at or below `level`. Inlined: a load of no more than
/// a compare or two; f's instantiation for each tag is that copy's code.
template <class F>
[[gnu::always_inline]] inline decltype(auto) on_level(SimdLevel level, F&& f) {
#if defined(BROADPHASE_SIMD_X86) && \
    (defined(__GNUC__) ||           \
     (defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__AVX512DQ__)))
    if (level >= SimdLevel::avx512) return f(simd_avx512::Isa{});
#endif
#if defined(BROADPHASE_SIMD_X86) && (defined(__GNUC__) || defined(__AVX2__))
    if (level >= SimdLevel::avx2) return f(simd_avx2::Isa{});
#endif
#if defined(BROADPHASE_SIMD_X86)
    if (level >= SimdLevel::sse2) return f(simd_sse2::Isa{});
#endif
    (void)level;
    return f(simd_scalar::Isa{});
}

// The entry points' choice: each reads the level once and runs one copy of
// the whole loop. Runs of at most short_run boxes, and SimdLevel::sse2,
// take the SSE2 copy, inlined into the caller with its callback (as when
// SSE2 was the only copy): the grids scan a few boxes at a time, many times
// a frame, and there a call to a wider copy costs more than the batches it
// saves (measured: docs/measured-in-code.md#simd-kernels). Longer runs call
// the AVX2 or AVX-512 copy, compiled for that set with the callback inlined
// into it.
//
// dispatch<T>(wide, kernel, args...), the whole body of every entry point
// below, returns kernel(tag, args...) for the copy to run: the AVX-512 or
// AVX2 one when `wide` holds and the level names one, else the SSE2 one (at
// any SIMD level), else (another type than float, SimdLevel::scalar, or no
// SIMD) the scalar loops. `kernel` is one of the function objects of
// namespace kernel below (ScanOverlaps calls scan_overlaps, ...): each names
// one kernel for every copy, found by its tag (argument-dependent lookup); a lambda could not carry the
// always-inline attribute in C++17, and the SSE2 call must stay in the
// caller's body to be inlined there with its callback.
template <class T, class K, class... A>
[[gnu::always_inline]] inline decltype(auto) dispatch(bool wide, K kernel, A&&... a) {
    if constexpr (std::is_same_v<T, float>) {
        const SimdLevel level = simd_select::active();
        if (level > SimdLevel::sse2 && wide) {
#if defined(BROADPHASE_SIMD_X86) && \
    (defined(__GNUC__) ||           \
     (defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__AVX512DQ__)))
            if (level == SimdLevel::avx512) return kernel(simd_avx512::Isa{}, a...);
#endif
#if defined(BROADPHASE_SIMD_X86) && (defined(__GNUC__) || defined(__AVX2__))
            if (level == SimdLevel::avx2) return kernel(simd_avx2::Isa{}, a...);
#endif
        }
#if defined(BROADPHASE_SIMD_X86)
        if (level != SimdLevel::scalar) return kernel(simd_sse2::Isa{}, a...);
#endif
    }
    (void)wide;
    return kernel(simd_scalar::Isa{}, a...);
}

/// The kernels as function objects, for dispatch (above).
namespace kernel {
struct ScanOverlaps {
    template <class Isa, class... A>
    [[gnu::always_inline]] decltype(auto) operator()(Isa isa, A&... a) const {
        return scan_overlaps(isa, a...);
    }
};
struct ScanOverlapsPadded {
    template <class Isa, class... A>
    [[gnu::always_inline]] decltype(auto) operator()(Isa isa, A&... a) const {
        return scan_overlaps_padded(isa, a...);
    }
};
struct ScanRunsPadded {
    template <class Isa, class... A>
    [[gnu::always_inline]] decltype(auto) operator()(Isa isa, A&... a) const {
        return scan_runs_padded(isa, a...);
    }
};
struct ScanShortRunsPadded {
    template <class Isa, class... A>
    [[gnu::always_inline]] decltype(auto) operator()(Isa isa, A&... a) const {
        return scan_short_runs_padded(isa, a...);
    }
};
struct SweepOverlaps {
    template <class Isa, class... A>
    [[gnu::always_inline]] decltype(auto) operator()(Isa isa, A&... a) const {
        return sweep_overlaps(isa, a...);
    }
};
struct SweepPairs {
    template <class Isa, class... A>
    [[gnu::always_inline]] decltype(auto) operator()(Isa isa, A&... a) const {
        return sweep_pairs(isa, a...);
    }
};
struct ScaleClampTrunc {
    template <class Isa, class... A>
    [[gnu::always_inline]] decltype(auto) operator()(Isa isa, A&... a) const {
        return scale_clamp_trunc(isa, a...);
    }
};
struct AllValid {
    template <class Isa, class... A>
    [[gnu::always_inline]] decltype(auto) operator()(Isa isa, A&... a) const {
        return all_valid(isa, a...);
    }
};
struct ClusterPairHits {
    template <class Isa, class... A>
    [[gnu::always_inline]] decltype(auto) operator()(Isa isa, A&... a) const {
        return cluster_pair_hits(isa, a...);
    }
};
}  // namespace kernel

// ---- the entry points ----------------------------------------------------------

/// Runs up to this long take the inlined SSE2 copy at every SIMD level.
constexpr std::size_t short_run = 8;

/// Calls emit(j) for every j in [begin, end) whose box overlaps q, in
/// increasing j. O(end - begin) box tests, a SIMD batch at a time.
template <class T, int D, class Emit>
[[gnu::always_inline]] inline void scan_overlaps(const SoaView<T, D>& v, std::size_t begin, std::size_t end,
                                          const BasicBox<T, D>& q, Emit&& emit) {
    return dispatch<T>(end - begin > short_run, kernel::ScanOverlaps{}, v, begin, end, q, emit);
}

/// Like scan_overlaps, but reads whole SIMD batches past `end` (the caller
/// pads the arrays by simd::width) and masks the extra lanes, so short runs
/// need no scalar tail.
template <class T, int D, class Emit>
[[gnu::always_inline]] inline void scan_overlaps_padded(const SoaView<T, D>& v, std::size_t begin, std::size_t end,
                                                 const BasicBox<T, D>& q, Emit&& emit) {
    return dispatch<T>(end - begin > short_run, kernel::ScanOverlapsPadded{}, v, begin, end, q, emit);
}

/// scan_overlaps_padded over several runs [begin[r], end[r]) for one query
/// box, in one call: the wide copies take every run at a full batch width
/// (a run of up to `width` boxes is one masked batch), and the query is
/// set up once. For callers that scan a few short runs per box (the
/// uniform grid's stencil rows), where a call per run to a wide copy costs
/// more than it saves.
template <class T, int D, class Emit>
[[gnu::always_inline]] inline void scan_runs_padded(const SoaView<T, D>& v, const std::size_t* begin, const std::size_t* end,
                                             int runs, const BasicBox<T, D>& q, Emit&& emit) {
    return dispatch<T>(true, kernel::ScanRunsPadded{}, v, begin, end, runs, q, emit);
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
[[gnu::always_inline]] inline bool scan_short_runs_padded(const SoaView<T, D>& v, const std::size_t* begin,
                                                   const std::size_t* end, int runs, const BasicBox<T, D>& q,
                                                   Emit&& emit) {
    return dispatch<T>(false, kernel::ScanShortRunsPadded{}, v, begin, end, runs, q, emit);
}

/// Sweep form: boxes [begin, end) are sorted by min on `axis`; calls emit(j)
/// for every overlapping j, stopping at the first box whose min on `axis`
/// exceeds q.max there (all later ones do too). Cost: the boxes scanned.
template <class T, int D, class Emit>
[[gnu::always_inline]] inline void sweep_overlaps(const SoaView<T, D>& v, std::size_t begin, std::size_t end, int axis,
                                           const BasicBox<T, D>& q, Emit&& emit) {
    return dispatch<T>(end - begin > short_run, kernel::SweepOverlaps{}, v, begin, end, axis, q, emit);
}

/// Every overlapping pair (i, j), i < j, i < first_end, among boxes
/// [0, v.n) sorted by min on `axis`: emit(i, j). Sweeps SIMD-width boxes at once, "diagonally":
/// lane l of step d tests box i+l against box i+l+d, so each step is a few
/// contiguous loads, and a group stops when every lane has passed its
/// window. Cheaper than one sweep per box when windows are short (a box
/// per lane instead of a batch per box). The arrays must be readable
/// simd::width past v.n.
template <class T, int D, class Emit>
[[gnu::always_inline]] inline void sweep_pairs(const SoaView<T, D>& v, int axis, std::size_t first_end, Emit&& emit) {
    first_end = first_end < v.n ? first_end : v.n;
    return dispatch<T>(v.n > short_run, kernel::SweepPairs{}, v, axis, first_end, emit);
}

/// out[i] = trunc(clamp((x[i] - o) * s, -lim, lim)): a monotone map of x to
/// integers (truncation is monotone too), the grids' cell coordinate. The
/// SIMD and scalar paths round identically (no multiply-add to contract),
/// so a coordinate maps to the same cell however it is computed. O(n).
template <class T>
inline void scale_clamp_trunc(const T* x, std::size_t n, T o, T s, T lim, std::int32_t* out) {
    return dispatch<T>(n > short_run, kernel::ScaleClampTrunc{}, x, n, o, s, lim, out);
}

/// True when every box in [begin, end) is valid (min <= max on every axis;
/// NaN is invalid). O(end - begin), a SIMD batch at a time.
template <class T, int D>
inline bool all_valid(const SoaView<T, D>& v, std::size_t begin, std::size_t end) {
    return dispatch<T>(end - begin > short_run, kernel::AllValid{}, v, begin, end);
}

/// Every pair of entries, one from each of two groups, whose boxes overlap,
/// for each listed pair of groups (src/simd/cluster_types.hpp has the
/// details and the row records they come in). M x M tests a pair at most,
/// a SIMD batch (or M / width) at a time.
template <int M, class T, int D, class Flush>
[[gnu::always_inline]] inline void cluster_pair_hits(const ClusterSide<T, D>& side_a, const ClusterSide<T, D>& side_b,
                                              const Pair* pairs, std::size_t count, int mode, Flush&& flush) {
    return dispatch<T>(true, kernel::ClusterPairHits{}, std::integral_constant<int, M>{}, side_a, side_b, pairs, count,
                       mode, flush);
}

}  // namespace detail
}  // namespace broadphase
