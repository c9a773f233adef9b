// The compiled library: sweep and prune (<broadphase/sweep_and_prune.hpp>) for float and double boxes
// in 2-D and 3-D: its algorithm (sweep_and_prune/sweep_and_prune_impl.hpp) and the front
// that holds it.
#include <broadphase/sweep_and_prune.hpp>
#include "sweep_and_prune/sweep_and_prune_impl.hpp"

namespace broadphase {

template class detail::AlgorithmBase<detail::SweepAndPruneImpl<float, 2>, float, 2>;
template class detail::SweepAndPruneImpl<float, 2>;
template class AlgorithmFront<float, 2, detail::SweepAndPruneImpl<float, 2>>;
template class BasicSweepAndPrune<float, 2>;
template class detail::AlgorithmBase<detail::SweepAndPruneImpl<float, 3>, float, 3>;
template class detail::SweepAndPruneImpl<float, 3>;
template class AlgorithmFront<float, 3, detail::SweepAndPruneImpl<float, 3>>;
template class BasicSweepAndPrune<float, 3>;
template class detail::AlgorithmBase<detail::SweepAndPruneImpl<double, 2>, double, 2>;
template class detail::SweepAndPruneImpl<double, 2>;
template class AlgorithmFront<double, 2, detail::SweepAndPruneImpl<double, 2>>;
template class BasicSweepAndPrune<double, 2>;
template class detail::AlgorithmBase<detail::SweepAndPruneImpl<double, 3>, double, 3>;
template class detail::SweepAndPruneImpl<double, 3>;
template class AlgorithmFront<double, 3, detail::SweepAndPruneImpl<double, 3>>;
template class BasicSweepAndPrune<double, 3>;

}  // namespace broadphase
