// The compiled library: the adaptive grid (<broadphase/adaptive_grid.hpp>) for float and double boxes
// in 2-D and 3-D: its algorithm (grid/adaptive_grid_impl.hpp) and the front
// that holds it.
#include <broadphase/adaptive_grid.hpp>
#include "grid/adaptive_grid_impl.hpp"

namespace broadphase {

template class detail::AlgorithmBase<detail::AdaptiveGridImpl<float, 2>, float, 2>;
template class detail::AdaptiveGridImpl<float, 2>;
template class AlgorithmFront<float, 2, detail::AdaptiveGridImpl<float, 2>>;
template class BasicAdaptiveGrid<float, 2>;
template class detail::AlgorithmBase<detail::AdaptiveGridImpl<float, 3>, float, 3>;
template class detail::AdaptiveGridImpl<float, 3>;
template class AlgorithmFront<float, 3, detail::AdaptiveGridImpl<float, 3>>;
template class BasicAdaptiveGrid<float, 3>;
template class detail::AlgorithmBase<detail::AdaptiveGridImpl<double, 2>, double, 2>;
template class detail::AdaptiveGridImpl<double, 2>;
template class AlgorithmFront<double, 2, detail::AdaptiveGridImpl<double, 2>>;
template class BasicAdaptiveGrid<double, 2>;
template class detail::AlgorithmBase<detail::AdaptiveGridImpl<double, 3>, double, 3>;
template class detail::AdaptiveGridImpl<double, 3>;
template class AlgorithmFront<double, 3, detail::AdaptiveGridImpl<double, 3>>;
template class BasicAdaptiveGrid<double, 3>;

}  // namespace broadphase
