// The body of <broadphase/hybrid_grid.hpp>: its policy, over the grids' one
// algorithm class (detail/grid_algorithm-inl.hpp). Compiled once in the
// library (src/hybrid_grid.cpp); header-only, hybrid_grid.hpp includes this file at
// its end. A file that uses other scalar types or dimensions with the
// compiled library (BasicHybridGrid<float, 1>) includes it after hybrid_grid.hpp.
#pragma once

#ifndef BROADPHASE_DECLARED_HYBRID_GRID
#error "include <broadphase/hybrid_grid.hpp> before <broadphase/detail/hybrid_grid-inl.hpp>"
#endif

#include "grid_algorithm-inl.hpp"

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

// The algorithm itself, compiled once in the library (src/hybrid_grid.cpp), for
// PairFinder and the front.
#if BROADPHASE_EXTERN_TEMPLATES
BROADPHASE_COMPILED_TYPES(BROADPHASE_GRID_IMPL_TEMPLATES, extern, HybridGridPolicy)
#endif

}  // namespace broadphase
