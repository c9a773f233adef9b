// The compiled library: the dynamic tree (<broadphase/dynamic_tree.hpp>) for
// float and double boxes in 2-D and 3-D: its settings, mutation and structure
// (dynamic_tree/dynamic_tree_impl.hpp); its queries are inline in the header.
#include <broadphase/dynamic_tree.hpp>
#include "dynamic_tree/dynamic_tree_impl.hpp"

namespace broadphase {

template class BasicDynamicTree<float, 2>;
template class BasicDynamicTree<float, 3>;
template class BasicDynamicTree<double, 2>;
template class BasicDynamicTree<double, 3>;

}  // namespace broadphase
