// The compiled library: <broadphase/dynamic_tree.hpp>'s class template,
// compiled once with its settings, mutation and structure
// (detail/dynamic_tree-inl.hpp; see detail/extern_templates.hpp).
#include <broadphase/dynamic_tree.hpp>
#include <broadphase/detail/dynamic_tree-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_DYNAMIC_TREE_TEMPLATES, )
}  // namespace broadphase
