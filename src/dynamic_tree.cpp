// The compiled library: <broadphase/dynamic_tree.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/dynamic_tree.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_DYNAMIC_TREE_TEMPLATES, )
}  // namespace broadphase
