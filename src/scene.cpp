// The compiled library: <broadphase/scene.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/scene.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_SCENE_TEMPLATES, )
}  // namespace broadphase
