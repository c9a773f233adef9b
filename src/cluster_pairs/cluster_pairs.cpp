// The compiled library: cluster pairs (<broadphase/cluster_pairs.hpp>) for float and double boxes
// in 2-D and 3-D: its algorithm (cluster_pairs/cluster_pairs_impl.hpp) and the front
// that holds it.
#include <broadphase/cluster_pairs.hpp>
#include "cluster_pairs/cluster_pairs_impl.hpp"

namespace broadphase {

template class detail::AlgorithmBase<detail::ClusterPairsImpl<float, 2>, float, 2>;
template class detail::ClusterPairsImpl<float, 2>;
template class AlgorithmFront<float, 2, detail::ClusterPairsImpl<float, 2>>;
template class BasicClusterPairs<float, 2>;
template class detail::AlgorithmBase<detail::ClusterPairsImpl<float, 3>, float, 3>;
template class detail::ClusterPairsImpl<float, 3>;
template class AlgorithmFront<float, 3, detail::ClusterPairsImpl<float, 3>>;
template class BasicClusterPairs<float, 3>;
template class detail::AlgorithmBase<detail::ClusterPairsImpl<double, 2>, double, 2>;
template class detail::ClusterPairsImpl<double, 2>;
template class AlgorithmFront<double, 2, detail::ClusterPairsImpl<double, 2>>;
template class BasicClusterPairs<double, 2>;
template class detail::AlgorithmBase<detail::ClusterPairsImpl<double, 3>, double, 3>;
template class detail::ClusterPairsImpl<double, 3>;
template class AlgorithmFront<double, 3, detail::ClusterPairsImpl<double, 3>>;
template class BasicClusterPairs<double, 3>;

}  // namespace broadphase
