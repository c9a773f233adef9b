// Hybrid grid: a grid on all axes but one, and a sweep along the remaining
// axis inside each cell.
//
// The sweep axis is the one where boxes are most spread out relative to
// their size (as in sweep and prune). Boxes are radix-sorted by their min on
// it, then binned into the cells of the other axes by counting sort, which
// keeps each cell in sweep order. Inside a cell, box i is tested only
// against the boxes after it that start before it ends, SIMD-width at a
// time. Pairs are reported in their owner cell (see detail/hybrid_grid_core.hpp).
//
// Cost: O(n) sort and binning, plus the boxes that overlap on the sweep axis
// within a cell. Cells can hold many boxes since the sweep prunes within
// them, so one cell size suits uneven densities and mixed sizes far better
// than the uniform grid; against a plain sweep it prunes the two other axes
// too. The fastest on clustered, dense and mixed scenes in docs/choosing.md.
#pragma once

#include "detail/grid_algorithm.hpp"

namespace broadphase {

struct HybridGridPolicy {
    static constexpr bool home_cells = false;
    template <class T, int D>
    static typename detail::HybridGridCore<T, D>::Params params(const detail::SoaView<T, D>& v,
                                                           detail::StatsScratch& scratch) {
        const int sweep = D > 1 ? detail::scene_stats(v, scratch).sparsest_axis() : 0;
        // Cells at least the 99th-percentile box wide: on clusters of many
        // scales the occupancy target would fit the densest cluster's
        // small boxes and leave the wide ones large (spread-clusters;
        // measured: docs/measured-in-code.md#hybrid-grid).
        return detail::grid_params<T, D>(sweep, /*boxes_per_cell=*/512, /*min_cell_extents=*/4, /*max_cells=*/9,
                                         /*min_cell_p99=*/1);
    }
};

template <class T, int D>
using BasicHybridGrid = detail::GridAlgorithm<T, D, HybridGridPolicy>;

/// Hybrid grid over 3-D float boxes.
using HybridGrid = BasicHybridGrid<float, 3>;

// Compiled once in the library, src/hybrid_grid.cpp (detail/extern_templates.hpp).
#if BROADPHASE_EXTERN_TEMPLATES
BROADPHASE_COMPILED_TYPES(BROADPHASE_GRID_TEMPLATES, extern, HybridGridPolicy)
#endif

}  // namespace broadphase
