// Uniform grid, built by counting sort into flat arrays (the static memory
// scheme of Taichi's DEM grid search tutorial: count per cell, prefix sum,
// scatter; here in 3-D and without world bounds).
//
// All pairs in one set: one home cell per box (the cell of its min corner),
// cells at least as big as the boxes, so a box meets only its own cell, the
// next one along x and three cells of each of four rows ahead: 14 cells, each
// pair tested once, no de-duplication (src/grid/uniform_grid_core.hpp). The few
// boxes bigger than a cell are matched apart. Cost: O(n + cells) to bin,
// plus about 14 cells' boxes tested per box. The grid's cells are capped at
// 8 per box, so a scene whose boxes are far apart in clusters would get
// cells many times wider than its boxes: when they would be over twice as
// wide, the pair search bins into hashed cells instead, as for two sets
// (the automatic choice sends such scenes to the hybrid grid).
//
// Two sets and queries: each box goes into every cell it touches and a pair
// is reported only in its owner cell (src/grid/hybrid_grid_core.hpp); cells are
// hashed into a table sized to the boxes, so empty space costs nothing.
//
// Wins on boxes of similar sizes: meshes, scans, piles, lattices, uniform
// scenes. Loses where sizes vary widely or the boxes sit in far-apart
// clusters; the hybrid grid is more forgiving of both.
#pragma once
#include "grid_front.hpp"

namespace broadphase {

/// The grid's parameters (src/grid/uniform_grid_impl.hpp).
struct UniformGridPolicy;

/// The calls every algorithm has (algorithm_front.hpp) and the grid's
/// tuning (grid_front.hpp: boxes per cell, the smallest cell, the cell size
/// chosen).
template <class T, int D>
class BasicUniformGrid : public GridFront<T, D, UniformGridPolicy> {};

/// Uniform grid over 3-D float boxes.
using UniformGrid = BasicUniformGrid<float, 3>;

// Compiled in the library, src/grid/uniform_grid.cpp, for float and double in 2-D and 3-D.

}  // namespace broadphase

