// The compiled library: the Scene (<broadphase/scene.hpp>) for float and
// double boxes in 2-D and 3-D, with the engines, the statics' index and the
// query tree behind it (scene/scene_impl.hpp).
#include <broadphase/scene.hpp>
#include "scene/scene_impl.hpp"

namespace broadphase {

template class BasicScene<float, 2>;
template class BasicScene<float, 3>;
template class BasicScene<double, 2>;
template class BasicScene<double, 3>;

}  // namespace broadphase
