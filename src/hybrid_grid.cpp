// The compiled library: <broadphase/hybrid_grid.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/hybrid_grid.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_GRID_TEMPLATES, , HybridGridPolicy)
}  // namespace broadphase
