// broadphase::compiled: <broadphase/broadphase.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/broadphase.hpp>

namespace broadphase {
BROADPHASE_FOR_COMMON_TYPES(BROADPHASE_INSTANTIATE_PAIR_FINDER, )
}  // namespace broadphase
