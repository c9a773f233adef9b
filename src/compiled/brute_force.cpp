// broadphase::compiled: <broadphase/brute_force.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/brute_force.hpp>

namespace broadphase {
BROADPHASE_FOR_COMMON_TYPES(BROADPHASE_INSTANTIATE_BRUTE_FORCE, )
}  // namespace broadphase
