// Hybrid grid: a grid on all axes but one, and a sweep along the remaining
// axis inside each cell.
//
// The sweep axis is the one where boxes are most spread out relative to
// their size (as in sweep and prune). Boxes are radix-sorted by their min on
// it, then binned into the cells of the other axes by counting sort, which
// keeps each cell in sweep order. Inside a cell, box i is tested only
// against the boxes after it that start before it ends, SIMD-width at a
// time. Pairs are reported in their owner cell (see src/grid/hybrid_grid_core.hpp).
//
// Cost: O(n) sort and binning, plus the boxes that overlap on the sweep axis
// within a cell. Cells can hold many boxes since the sweep prunes within
// them, so one cell size suits uneven densities and mixed sizes far better
// than the uniform grid; against a plain sweep it prunes the two other axes
// too. The fastest on clustered, dense and mixed scenes in docs/choosing.md.
#pragma once
#include "grid_front.hpp"

namespace broadphase {

/// The grid's parameters (src/grid/hybrid_grid_impl.hpp).
struct HybridGridPolicy;

/// The calls every algorithm has (algorithm_front.hpp) and the grid's
/// tuning (grid_front.hpp: boxes per cell, the smallest cell, the cell size
/// chosen).
template <class T, int D>
class BasicHybridGrid : public GridFront<T, D, HybridGridPolicy> {};

/// Hybrid grid over 3-D float boxes.
using HybridGrid = BasicHybridGrid<float, 3>;

// Compiled in the library, src/grid/hybrid_grid.cpp, for float and double in 2-D and 3-D.

}  // namespace broadphase

