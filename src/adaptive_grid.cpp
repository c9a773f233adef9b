// The compiled library: <broadphase/adaptive_grid.hpp>'s class templates,
// compiled once from their bodies (detail/adaptive_grid-inl.hpp; see
// detail/extern_templates.hpp).
#include <broadphase/adaptive_grid.hpp>
#include <broadphase/detail/adaptive_grid-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_ALGORITHM_TEMPLATES, , detail::AdaptiveGridImpl)
BROADPHASE_COMPILED_TYPES(BROADPHASE_ADAPTIVE_GRID_TEMPLATES, )
}  // namespace broadphase
