// The compiled library: the uniform grid (<broadphase/uniform_grid.hpp>) for float and double boxes
// in 2-D and 3-D: the grids' algorithm with its policy (grid/uniform_grid_impl.hpp)
// and the front that holds it.
#include <broadphase/uniform_grid.hpp>
#include "grid/uniform_grid_impl.hpp"

namespace broadphase {

template class detail::AlgorithmBase<detail::GridAlgorithmImpl<float, 2, UniformGridPolicy>, float, 2>;
template class detail::GridAlgorithmImpl<float, 2, UniformGridPolicy>;
template class AlgorithmFront<float, 2, detail::GridAlgorithmImpl<float, 2, UniformGridPolicy>>;
template class GridFront<float, 2, UniformGridPolicy>;
template class detail::AlgorithmBase<detail::GridAlgorithmImpl<float, 3, UniformGridPolicy>, float, 3>;
template class detail::GridAlgorithmImpl<float, 3, UniformGridPolicy>;
template class AlgorithmFront<float, 3, detail::GridAlgorithmImpl<float, 3, UniformGridPolicy>>;
template class GridFront<float, 3, UniformGridPolicy>;
template class detail::AlgorithmBase<detail::GridAlgorithmImpl<double, 2, UniformGridPolicy>, double, 2>;
template class detail::GridAlgorithmImpl<double, 2, UniformGridPolicy>;
template class AlgorithmFront<double, 2, detail::GridAlgorithmImpl<double, 2, UniformGridPolicy>>;
template class GridFront<double, 2, UniformGridPolicy>;
template class detail::AlgorithmBase<detail::GridAlgorithmImpl<double, 3, UniformGridPolicy>, double, 3>;
template class detail::GridAlgorithmImpl<double, 3, UniformGridPolicy>;
template class AlgorithmFront<double, 3, detail::GridAlgorithmImpl<double, 3, UniformGridPolicy>>;
template class GridFront<double, 3, UniformGridPolicy>;

}  // namespace broadphase
