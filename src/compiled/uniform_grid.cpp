// broadphase::compiled: <broadphase/uniform_grid.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/uniform_grid.hpp>

namespace broadphase {
BROADPHASE_FOR_COMMON_TYPES(BROADPHASE_INSTANTIATE_UNIFORM_GRID, )
}  // namespace broadphase
