// The compiled library: <broadphase/uniform_grid.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/uniform_grid.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_GRID_TEMPLATES, , UniformGridPolicy)
}  // namespace broadphase
