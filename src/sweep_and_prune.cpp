// The compiled library: <broadphase/sweep_and_prune.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/sweep_and_prune.hpp>

namespace broadphase {
template class detail::AlgorithmBase<BasicSweepAndPrune<float, 2>, float, 2>;
template class detail::AlgorithmBase<BasicSweepAndPrune<float, 3>, float, 3>;
template class detail::AlgorithmBase<BasicSweepAndPrune<double, 2>, double, 2>;
template class detail::AlgorithmBase<BasicSweepAndPrune<double, 3>, double, 3>;
template class BasicSweepAndPrune<float, 2>;
template class BasicSweepAndPrune<float, 3>;
template class BasicSweepAndPrune<double, 2>;
template class BasicSweepAndPrune<double, 3>;
}  // namespace broadphase
