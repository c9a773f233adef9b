// The compiled library: the hybrid grid (<broadphase/hybrid_grid.hpp>) for float and double boxes
// in 2-D and 3-D: the grids' algorithm with its policy (grid/hybrid_grid_impl.hpp)
// and the front that holds it.
#include <broadphase/hybrid_grid.hpp>
#include "grid/hybrid_grid_impl.hpp"

namespace broadphase {

template class detail::AlgorithmBase<detail::GridAlgorithmImpl<float, 2, HybridGridPolicy>, float, 2>;
template class detail::GridAlgorithmImpl<float, 2, HybridGridPolicy>;
template class AlgorithmFront<float, 2, detail::GridAlgorithmImpl<float, 2, HybridGridPolicy>>;
template class GridFront<float, 2, HybridGridPolicy>;
template class detail::AlgorithmBase<detail::GridAlgorithmImpl<float, 3, HybridGridPolicy>, float, 3>;
template class detail::GridAlgorithmImpl<float, 3, HybridGridPolicy>;
template class AlgorithmFront<float, 3, detail::GridAlgorithmImpl<float, 3, HybridGridPolicy>>;
template class GridFront<float, 3, HybridGridPolicy>;
template class detail::AlgorithmBase<detail::GridAlgorithmImpl<double, 2, HybridGridPolicy>, double, 2>;
template class detail::GridAlgorithmImpl<double, 2, HybridGridPolicy>;
template class AlgorithmFront<double, 2, detail::GridAlgorithmImpl<double, 2, HybridGridPolicy>>;
template class GridFront<double, 2, HybridGridPolicy>;
template class detail::AlgorithmBase<detail::GridAlgorithmImpl<double, 3, HybridGridPolicy>, double, 3>;
template class detail::GridAlgorithmImpl<double, 3, HybridGridPolicy>;
template class AlgorithmFront<double, 3, detail::GridAlgorithmImpl<double, 3, HybridGridPolicy>>;
template class GridFront<double, 3, HybridGridPolicy>;

}  // namespace broadphase
