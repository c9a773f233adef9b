// The compiled library: <broadphase/hybrid_grid.hpp>'s class templates,
// compiled once from their bodies (detail/hybrid_grid-inl.hpp; see
// detail/extern_templates.hpp).
#include <broadphase/hybrid_grid.hpp>
#include <broadphase/detail/hybrid_grid-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_GRID_IMPL_TEMPLATES, , HybridGridPolicy)
BROADPHASE_COMPILED_TYPES(BROADPHASE_GRID_TEMPLATES, , HybridGridPolicy)
}  // namespace broadphase
