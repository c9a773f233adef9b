// The body of <broadphase/uniform_grid.hpp>: its policy, over the grids' one
// algorithm class (detail/grid_algorithm-inl.hpp). Compiled once in the
// library (src/uniform_grid.cpp); header-only, uniform_grid.hpp includes this file at
// its end. A file that uses other scalar types or dimensions with the
// compiled library (BasicUniformGrid<float, 1>) includes it after uniform_grid.hpp.
#pragma once

#ifndef BROADPHASE_DECLARED_UNIFORM_GRID
#error "include <broadphase/uniform_grid.hpp> before <broadphase/detail/uniform_grid-inl.hpp>"
#endif

#include "grid_algorithm-inl.hpp"

namespace broadphase {

struct UniformGridPolicy {
    /// All pairs in one set: one home cell per box (detail/uniform_grid_core.hpp).
    static constexpr bool home_cells = true;
    template <class T, int D>
    static typename detail::HybridGridCore<T, D>::Params params(const detail::SoaView<T, D>&, detail::StatsScratch&) {
        return detail::grid_params<T, D>(-1, /*boxes_per_cell=*/8, /*min_cell_extents=*/2, /*max_cells=*/27);
    }
};

// The algorithm itself, compiled once in the library (src/uniform_grid.cpp), for
// PairFinder and the front.
#if BROADPHASE_EXTERN_TEMPLATES
BROADPHASE_COMPILED_TYPES(BROADPHASE_GRID_IMPL_TEMPLATES, extern, UniformGridPolicy)
#endif

}  // namespace broadphase
