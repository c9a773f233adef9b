// The compiled library: <broadphase/periodic.hpp>'s BasicPeriodicPairFinder,
// compiled once from its bodies (detail/periodic-inl.hpp; see
// detail/extern_templates.hpp).
#include <broadphase/periodic.hpp>
#include <broadphase/detail/periodic-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_PERIODIC_TEMPLATES, )
}  // namespace broadphase
