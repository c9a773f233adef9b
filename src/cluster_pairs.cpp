// The compiled library: <broadphase/cluster_pairs.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/cluster_pairs.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_ALGORITHM_TEMPLATES, , BasicClusterPairs)
}  // namespace broadphase
