// The compiled library: <broadphase/scene.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/scene.hpp>

namespace broadphase {
template class BasicScene<float, 2>;
template class BasicScene<float, 3>;
template class BasicScene<double, 2>;
template class BasicScene<double, 3>;
}  // namespace broadphase
