// Sparse linear adaptive grid (after the article "Simple Fast Adaptive Grid
// to Accelerate Collision Detection between AABB of Particles", CodeProject,
// 2022): a tree of 4x4x4 cells over the
// data's bounds, split only where boxes are, kept in flat arrays built
// level by level, with a 64-bit occupancy mask per node.
//
// Where a uniform grid needs one cell size for the whole scene, this one
// refines where boxes crowd and stays coarse where they are few, so
// clustered scenes and "teapot in stadium" outliers cost no tuning. Boxes
// too big for a node's children stay in the node (residents) instead of
// being copied into many small cells. Each pair is reported once, in the
// cell holding the max of the two min corners (see src/grid/adaptive_grid_core.hpp).
//
// Cost: build O(n * levels) by counting sorts; all pairs: the instances of
// each leaf among themselves (at most leaf_capacity of them, SIMD), plus
// each resident against the part of the tree it covers. A query visits the
// nodes the query box touches, skipping empty children by one AND.
// Best for box queries (a built Index) and for scenes whose density varies.
#pragma once
#include "adaptive_grid_params.hpp"
#include "algorithm_front.hpp"

namespace broadphase {
namespace detail {
template <class T, int D>
class AdaptiveGridImpl;  // src/grid/adaptive_grid_impl.hpp
template <class T, int D>
class AdaptiveGridCore;  // src/grid/adaptive_grid_core.hpp
struct AdaptiveGridInspect;  // the tests' view of the trees (src/grid/adaptive_grid_impl.hpp)
}  // namespace detail

/// The calls every algorithm has: algorithm_front.hpp.
template <class T, int D>
class BasicAdaptiveGrid : public AlgorithmFront<T, D, detail::AdaptiveGridImpl<T, D>> {
public:
    using Params = AdaptiveGridParams;

    /// Tuning: leaf capacity and the resident threshold (see Params). The
    /// defaults are the measured best on the built-in scenes. O(1).
    void set_params(const Params& p);
    /// The tuning in force. O(1).
    const Params& params() const;

private:
    friend struct detail::AdaptiveGridInspect;
    // The tree of the last build(), and of the last pair search: for the
    // tests, through detail::AdaptiveGridInspect.
    const detail::AdaptiveGridCore<T, D>& built_tree() const;
    const detail::AdaptiveGridCore<T, D>& last_tree() const;
};

/// Adaptive grid over 3-D float boxes.
using AdaptiveGrid = BasicAdaptiveGrid<float, 3>;

// Compiled in the library, src/grid/adaptive_grid.cpp, for float and double in 2-D and 3-D.

}  // namespace broadphase

