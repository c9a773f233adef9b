// broadphase::compiled: <broadphase/scene.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/scene.hpp>

namespace broadphase {
BROADPHASE_FOR_COMMON_TYPES(BROADPHASE_INSTANTIATE_SCENE, )
}  // namespace broadphase
