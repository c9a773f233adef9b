// broadphase::compiled: <broadphase/sweep_and_prune.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/sweep_and_prune.hpp>

namespace broadphase {
BROADPHASE_FOR_COMMON_TYPES(BROADPHASE_INSTANTIATE_SWEEP_AND_PRUNE, )
}  // namespace broadphase
