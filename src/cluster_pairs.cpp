// The compiled library: <broadphase/cluster_pairs.hpp>'s class templates,
// compiled once from their bodies (detail/cluster_pairs-inl.hpp; see
// detail/extern_templates.hpp).
#include <broadphase/cluster_pairs.hpp>
#include <broadphase/detail/cluster_pairs-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_ALGORITHM_TEMPLATES, , detail::ClusterPairsImpl)
BROADPHASE_COMPILED_TYPES(BROADPHASE_CLUSTER_PAIRS_TEMPLATES, )
}  // namespace broadphase
