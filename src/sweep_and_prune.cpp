// The compiled library: <broadphase/sweep_and_prune.hpp>'s class templates,
// compiled once from their bodies (detail/sweep_and_prune-inl.hpp; see
// detail/extern_templates.hpp).
#include <broadphase/sweep_and_prune.hpp>
#include <broadphase/detail/sweep_and_prune-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_ALGORITHM_TEMPLATES, , detail::SweepAndPruneImpl)
BROADPHASE_COMPILED_TYPES(BROADPHASE_SWEEP_AND_PRUNE_TEMPLATES, )
}  // namespace broadphase
