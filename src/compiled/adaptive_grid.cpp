// broadphase::compiled: <broadphase/adaptive_grid.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/adaptive_grid.hpp>

namespace broadphase {
BROADPHASE_FOR_COMMON_TYPES(BROADPHASE_INSTANTIATE_ADAPTIVE_GRID, )
}  // namespace broadphase
