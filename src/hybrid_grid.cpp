// The compiled library: <broadphase/hybrid_grid.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/hybrid_grid.hpp>

namespace broadphase {
template class detail::AlgorithmBase<BasicHybridGrid<float, 2>, float, 2>;
template class detail::AlgorithmBase<BasicHybridGrid<float, 3>, float, 3>;
template class detail::AlgorithmBase<BasicHybridGrid<double, 2>, double, 2>;
template class detail::AlgorithmBase<BasicHybridGrid<double, 3>, double, 3>;
template class detail::GridAlgorithm<float, 2, HybridGridPolicy>;
template class detail::GridAlgorithm<float, 3, HybridGridPolicy>;
template class detail::GridAlgorithm<double, 2, HybridGridPolicy>;
template class detail::GridAlgorithm<double, 3, HybridGridPolicy>;
}  // namespace broadphase
