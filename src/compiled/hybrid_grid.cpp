// broadphase::compiled: <broadphase/hybrid_grid.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/hybrid_grid.hpp>

namespace broadphase {
BROADPHASE_FOR_COMMON_TYPES(BROADPHASE_INSTANTIATE_HYBRID_GRID, )
}  // namespace broadphase
