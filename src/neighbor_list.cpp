// The compiled library: <broadphase/neighbor_list.hpp>'s BasicNeighborList
// for float and double, compiled once from its bodies
// (detail/neighbor_list-inl.hpp, with the cell list; see
// detail/extern_templates.hpp).
#include <broadphase/neighbor_list.hpp>
#include <broadphase/detail/neighbor_list-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_SCALARS(BROADPHASE_NEIGHBOR_LIST_TEMPLATES, )
}  // namespace broadphase
