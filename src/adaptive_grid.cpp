// The compiled library: <broadphase/adaptive_grid.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/adaptive_grid.hpp>

namespace broadphase {
template class detail::AlgorithmBase<BasicAdaptiveGrid<float, 2>, float, 2>;
template class detail::AlgorithmBase<BasicAdaptiveGrid<float, 3>, float, 3>;
template class detail::AlgorithmBase<BasicAdaptiveGrid<double, 2>, double, 2>;
template class detail::AlgorithmBase<BasicAdaptiveGrid<double, 3>, double, 3>;
template class BasicAdaptiveGrid<float, 2>;
template class BasicAdaptiveGrid<float, 3>;
template class BasicAdaptiveGrid<double, 2>;
template class BasicAdaptiveGrid<double, 3>;
}  // namespace broadphase
