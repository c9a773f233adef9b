// Uniform grid, built by counting sort into flat arrays (seed 002's static
// memory scheme, in 3-D and without world bounds).
//
// Cubic cells sized from the data; each box goes into every cell it touches;
// within a cell every pair of boxes is tested, SIMD-width at a time; a pair
// is reported only in its owner cell (the cell of the max of the two min
// corners), so there is no hash set and no de-duplication. Cells are hashed
// into a table sized to the boxes, so empty space costs nothing.
//
// Cost: O(n) to bin (two passes), plus about n * boxes_per_cell / 2 box
// tests. Wins on uniform scenes of similar sizes. Loses where sizes vary
// widely (big boxes touch many cells; the biggest are handled apart, see
// detail/cell_grid.hpp) or density varies a lot (one cell size cannot suit
// every region); the hybrid grid is more forgiving of both.
#pragma once

#include "detail/grid_algorithm.hpp"

namespace broadphase {

struct UniformGridPolicy {
    template <class T, int D>
    static typename detail::CellGrid<T, D>::Params params(const detail::SoaView<T, D>&, detail::StatsScratch&) {
        return detail::grid_params<T, D>(-1, /*boxes_per_cell=*/8, /*min_cell_extents=*/2, /*max_cells=*/27);
    }
};

template <class T, int D>
using BasicUniformGrid = detail::GridAlgorithm<T, D, UniformGridPolicy>;

/// Uniform grid over 3-D float boxes.
using UniformGrid = BasicUniformGrid<float, 3>;

}  // namespace broadphase
