// The compiled library: <broadphase/broadphase.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/broadphase.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_PAIR_FINDER_TEMPLATES, )
}  // namespace broadphase
