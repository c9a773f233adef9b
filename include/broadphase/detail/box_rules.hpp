// The rules on boxes, and those every grid obeys, on the CPU and on the GPU,
// written once.
//
// The pairs an algorithm reports are exact only if these agree everywhere:
// BasicBox::valid() and overlaps() (boxes.hpp, geometry.hpp), the input
// checks (the SIMD kernels' all_valid, the periodic and MPI front doors),
// the CPU grids (src/grid/hybrid_grid_core.hpp, src/grid/uniform_grid_core.hpp,
// src/grid/adaptive_grid_core.hpp) and the CUDA backend's kernels
// (cuda/include/broadphase/cuda/detail/grid_logic.hpp) all call them.
// BROADPHASE_HOST_DEVICE makes each one a __host__ __device__ function
// under nvcc and a plain inline function otherwise, so this header needs
// no CUDA header and nothing beyond <cstdint>.
//
// - Validity: a box is valid when min <= max on every axis; NaN makes the
//   comparison false, so one test rejects both kinds of bad box
//   (valid_interval, on each axis).
// - Overlap: closed intervals (touching counts).
// - Cell coordinates: trunc(clamp((x - origin) * inv_h, lo, hi)). No world
//   bounds: subtraction, multiplication by a positive scale, clamping and
//   truncation are all monotone, so two overlapping boxes always share a
//   cell, and far outliers (infinities too) land in the edge cells instead
//   of stretching the grid. NaN clamps to lo.
// - Ownership: a box copied into every cell it touches carries, per grid
//   axis, a flag "my box starts in this cell on this axis". Two boxes
//   sharing a cell own their pair there iff on every axis one of them
//   starts there: that is the cell holding the max of the two min corners,
//   which both touch, so each pair is reported exactly once and nothing is
//   de-duplicated.
#pragma once

#include <cstdint>

#if !defined(BROADPHASE_HOST_DEVICE)
#if defined(__CUDACC__)
#define BROADPHASE_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define BROADPHASE_HOST_DEVICE inline
#endif
#endif

namespace broadphase {
namespace detail {

/// One axis of a valid box: lo <= hi (false when either is NaN).
template <class T>
BROADPHASE_HOST_DEVICE constexpr bool valid_interval(T lo, T hi) {
    return lo <= hi;
}

/// Closed intervals [alo, ahi] and [blo, bhi] overlap (touching counts).
template <class T>
BROADPHASE_HOST_DEVICE constexpr bool intervals_overlap(T alo, T ahi, T blo, T bhi) {
    return !(ahi < blo || bhi < alo);
}

/// intervals_overlap with both comparisons always made (no branch), for the
/// loops over an axis that `&` their results: the compiler keeps them
/// branch-free, and clang does not warn of `&` between bools.
template <class T>
BROADPHASE_HOST_DEVICE constexpr bool intervals_overlap_flat(T alo, T ahi, T blo, T bhi) {
    return (int(ahi < blo) | int(bhi < alo)) == 0;
}

/// Clamped cell coordinate of x: trunc(clamp((x - origin) * inv_h, lo, hi)),
/// as Int. Monotone in x for inv_h > 0; NaN gives lo. lo and hi must be
/// representable in Int. (The parameters are references because, passed by
/// value, GCC 12 kept an extra copy in the home-cell grid's binning loop.)
template <class Int, class T>
BROADPHASE_HOST_DEVICE Int clamped_cell(T x, const T& origin, const T& inv_h, const T& lo, const T& hi) {
    T t = (x - origin) * inv_h;
    t = t > lo ? t : lo;
    t = t < hi ? t : hi;
    return static_cast<Int>(t);
}

/// Start flags of a cell: bit k set when the cell is the box's first on
/// axis k (its min lies in it).
BROADPHASE_HOST_DEVICE constexpr std::uint32_t start_flags(bool first_x, bool first_y, bool first_z) {
    return (first_x ? 1u : 0u) | (first_y ? 2u : 0u) | (first_z ? 4u : 0u);
}

/// Whether a cell owns the pair of two boxes sharing it: on every grid axis
/// (bits of `all`) at least one of their start flags is set.
BROADPHASE_HOST_DEVICE constexpr bool owns_pair(std::uint32_t flags_a, std::uint32_t flags_b, std::uint32_t all) {
    return ((flags_a | flags_b) & all) == all;
}

/// The same for start flags kept at bit `shift` of two 64-bit cell keys.
BROADPHASE_HOST_DEVICE constexpr bool owns_pair(std::uint64_t key_a, std::uint64_t key_b, std::uint32_t all, int shift) {
    return owns_pair(static_cast<std::uint32_t>((key_a | key_b) >> shift), 0u, all);
}

}  // namespace detail
}  // namespace broadphase
