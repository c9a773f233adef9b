// Sweep and prune, in the style of box pruning.
//
// Sort the boxes by their min on one axis (the one where boxes are most
// spread out relative to their size), then sweep: box i is tested only
// against the boxes after it whose min on that axis is <= its max there,
// the other axes SIMD-width boxes at a time. Sorting is a stable radix sort
// of float keys, so the order, and the output, is the same on every run.
//
// Cost: O(n) sort + the boxes that overlap on the sweep axis alone. It needs
// no cell size and no bounds, so it copes with any size mix; it loses to the
// grids when many boxes overlap on the sweep axis but not on the others
// (a dense slab, or large boxes spanning the sweep axis).
//
// Two sets: both sorted on one axis, then each box of either set sweeps the
// other set's boxes that start at or after it (ties go to set A), so each
// pair is met once. Queries: the prefix maximum of the sorted maxima lets a
// binary search skip every box that ends before the query starts.
#pragma once
#include "algorithm_front.hpp"

namespace broadphase {
namespace detail {
template <class T, int D>
class SweepAndPruneImpl;  // src/sweep_and_prune/sweep_and_prune_impl.hpp
}  // namespace detail

/// The calls every algorithm has: algorithm_front.hpp.
template <class T, int D>
class BasicSweepAndPrune : public AlgorithmFront<T, D, detail::SweepAndPruneImpl<T, D>> {
public:
    /// Forces the sweep axis (0..D-1); -1 (the default) picks it from the data. O(1).
    void set_axis(int axis);
};

/// Sweep and prune over 3-D float boxes.
using SweepAndPrune = BasicSweepAndPrune<float, 3>;

// Compiled in the library, src/sweep_and_prune/sweep_and_prune.cpp, for float and double in 2-D and 3-D.

}  // namespace broadphase

