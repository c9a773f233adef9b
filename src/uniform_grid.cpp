// The compiled library: <broadphase/uniform_grid.hpp>'s class templates,
// compiled once from their bodies (detail/uniform_grid-inl.hpp; see
// detail/extern_templates.hpp).
#include <broadphase/uniform_grid.hpp>
#include <broadphase/detail/uniform_grid-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_GRID_IMPL_TEMPLATES, , UniformGridPolicy)
BROADPHASE_COMPILED_TYPES(BROADPHASE_GRID_TEMPLATES, , UniformGridPolicy)
}  // namespace broadphase
