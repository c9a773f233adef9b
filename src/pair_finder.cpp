// The compiled library: <broadphase/broadphase.hpp>'s class templates, compiled once
// from their bodies (detail/broadphase-inl.hpp; see detail/extern_templates.hpp).
#include <broadphase/broadphase.hpp>
#include <broadphase/detail/broadphase-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_PAIR_FINDER_TEMPLATES, )
}  // namespace broadphase
