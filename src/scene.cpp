// The compiled library: <broadphase/scene.hpp>'s BasicScene, compiled once
// from its bodies (detail/scene-inl.hpp, with the engines, the statics'
// index and the query tree behind it; see detail/extern_templates.hpp).
#include <broadphase/scene.hpp>
#include <broadphase/detail/scene-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_SCENE_TEMPLATES, )
}  // namespace broadphase
