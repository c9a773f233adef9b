// The body of <broadphase/hybrid_grid.hpp>: its policy, over the grids' one
// algorithm class (src/grid/grid_algorithm_impl.hpp). Compiled once in the
// library (src/grid/hybrid_grid.cpp); the single header (single_include/) holds it too. A file that uses other scalar types or dimensions with the compiled library (BasicHybridGrid<float, 1>) includes it (src/ on its include path).
#pragma once

#include <broadphase/hybrid_grid.hpp>

#include "grid/grid_algorithm_impl.hpp"

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

}  // namespace broadphase

// Compiled once, in grid/hybrid_grid.cpp, for float and double in 2-D and 3-D; the
// library's other files use those. (The single header leaves out every
// `extern template` line: there each file compiles what it uses.)
namespace broadphase {
extern template class detail::AlgorithmBase<detail::GridAlgorithmImpl<float, 2, HybridGridPolicy>, float, 2>;
extern template class detail::GridAlgorithmImpl<float, 2, HybridGridPolicy>;
extern template class GridFront<float, 2, HybridGridPolicy>;
extern template class detail::AlgorithmBase<detail::GridAlgorithmImpl<float, 3, HybridGridPolicy>, float, 3>;
extern template class detail::GridAlgorithmImpl<float, 3, HybridGridPolicy>;
extern template class GridFront<float, 3, HybridGridPolicy>;
extern template class detail::AlgorithmBase<detail::GridAlgorithmImpl<double, 2, HybridGridPolicy>, double, 2>;
extern template class detail::GridAlgorithmImpl<double, 2, HybridGridPolicy>;
extern template class GridFront<double, 2, HybridGridPolicy>;
extern template class detail::AlgorithmBase<detail::GridAlgorithmImpl<double, 3, HybridGridPolicy>, double, 3>;
extern template class detail::GridAlgorithmImpl<double, 3, HybridGridPolicy>;
extern template class GridFront<double, 3, HybridGridPolicy>;
}  // namespace broadphase
