// The compiled library: <broadphase/dynamic_tree.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/dynamic_tree.hpp>

namespace broadphase {
template class BasicDynamicTree<float, 2>;
template class BasicDynamicTree<float, 3>;
template class BasicDynamicTree<double, 2>;
template class BasicDynamicTree<double, 3>;
}  // namespace broadphase
