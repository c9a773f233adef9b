// broadphase::compiled: <broadphase/dynamic_tree.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/dynamic_tree.hpp>

namespace broadphase {
BROADPHASE_FOR_COMMON_TYPES(BROADPHASE_INSTANTIATE_DYNAMIC_TREE, )
}  // namespace broadphase
