// The compiled library: <broadphase/brute_force.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/brute_force.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_ALGORITHM_TEMPLATES, , BasicBruteForce)
}  // namespace broadphase
