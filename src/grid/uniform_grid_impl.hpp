// The body of <broadphase/uniform_grid.hpp>: its policy, over the grids' one
// algorithm class (src/grid/grid_algorithm_impl.hpp). Compiled once in the
// library (src/grid/uniform_grid.cpp); the single header (single_include/) holds it too. A file that uses other scalar types or dimensions with the compiled library (BasicUniformGrid<float, 1>) includes it (src/ on its include path).
#pragma once

#include <broadphase/uniform_grid.hpp>

#include "grid/grid_algorithm_impl.hpp"

namespace broadphase {

struct UniformGridPolicy {
    /// All pairs in one set: one home cell per box (src/grid/uniform_grid_core.hpp).
    static constexpr bool home_cells = true;
    template <class T, int D>
    static typename detail::HybridGridCore<T, D>::Params params(const detail::SoaView<T, D>&, detail::StatsScratch&) {
        return detail::grid_params<T, D>(-1, /*boxes_per_cell=*/8, /*min_cell_extents=*/2, /*max_cells=*/27);
    }
};

}  // namespace broadphase

// Compiled once, in grid/uniform_grid.cpp, for float and double in 2-D and 3-D; the
// library's other files use those. (The single header leaves out every
// `extern template` line: there each file compiles what it uses.)
namespace broadphase {
extern template class detail::AlgorithmBase<detail::GridAlgorithmImpl<float, 2, UniformGridPolicy>, float, 2>;
extern template class detail::GridAlgorithmImpl<float, 2, UniformGridPolicy>;
extern template class GridFront<float, 2, UniformGridPolicy>;
extern template class detail::AlgorithmBase<detail::GridAlgorithmImpl<float, 3, UniformGridPolicy>, float, 3>;
extern template class detail::GridAlgorithmImpl<float, 3, UniformGridPolicy>;
extern template class GridFront<float, 3, UniformGridPolicy>;
extern template class detail::AlgorithmBase<detail::GridAlgorithmImpl<double, 2, UniformGridPolicy>, double, 2>;
extern template class detail::GridAlgorithmImpl<double, 2, UniformGridPolicy>;
extern template class GridFront<double, 2, UniformGridPolicy>;
extern template class detail::AlgorithmBase<detail::GridAlgorithmImpl<double, 3, UniformGridPolicy>, double, 3>;
extern template class detail::GridAlgorithmImpl<double, 3, UniformGridPolicy>;
extern template class GridFront<double, 3, UniformGridPolicy>;
}  // namespace broadphase
