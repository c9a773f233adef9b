// The compiled library: <broadphase/sweep_and_prune.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/sweep_and_prune.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_ALGORITHM_TEMPLATES, , BasicSweepAndPrune)
}  // namespace broadphase
