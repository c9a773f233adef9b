// The compiled library: <broadphase/brute_force.hpp>'s class templates,
// compiled once from their bodies (detail/brute_force-inl.hpp; see
// detail/extern_templates.hpp).
#include <broadphase/brute_force.hpp>
#include <broadphase/detail/brute_force-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_ALGORITHM_TEMPLATES, , detail::BruteForceImpl)
BROADPHASE_COMPILED_TYPES(BROADPHASE_BRUTE_FORCE_TEMPLATES, )
}  // namespace broadphase
