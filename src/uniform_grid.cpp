// The compiled library: <broadphase/uniform_grid.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/uniform_grid.hpp>

namespace broadphase {
template class detail::AlgorithmBase<BasicUniformGrid<float, 2>, float, 2>;
template class detail::AlgorithmBase<BasicUniformGrid<float, 3>, float, 3>;
template class detail::AlgorithmBase<BasicUniformGrid<double, 2>, double, 2>;
template class detail::AlgorithmBase<BasicUniformGrid<double, 3>, double, 3>;
template class detail::GridAlgorithm<float, 2, UniformGridPolicy>;
template class detail::GridAlgorithm<float, 3, UniformGridPolicy>;
template class detail::GridAlgorithm<double, 2, UniformGridPolicy>;
template class detail::GridAlgorithm<double, 3, UniformGridPolicy>;
}  // namespace broadphase
