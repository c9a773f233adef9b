// The compiled library: brute force (<broadphase/brute_force.hpp>) for float and double boxes
// in 2-D and 3-D: its algorithm (brute_force/brute_force_impl.hpp) and the front
// that holds it.
#include <broadphase/brute_force.hpp>
#include "brute_force/brute_force_impl.hpp"

namespace broadphase {

template class detail::AlgorithmBase<detail::BruteForceImpl<float, 2>, float, 2>;
template class detail::BruteForceImpl<float, 2>;
template class AlgorithmFront<float, 2, detail::BruteForceImpl<float, 2>>;
template class BasicBruteForce<float, 2>;
template class detail::AlgorithmBase<detail::BruteForceImpl<float, 3>, float, 3>;
template class detail::BruteForceImpl<float, 3>;
template class AlgorithmFront<float, 3, detail::BruteForceImpl<float, 3>>;
template class BasicBruteForce<float, 3>;
template class detail::AlgorithmBase<detail::BruteForceImpl<double, 2>, double, 2>;
template class detail::BruteForceImpl<double, 2>;
template class AlgorithmFront<double, 2, detail::BruteForceImpl<double, 2>>;
template class BasicBruteForce<double, 2>;
template class detail::AlgorithmBase<detail::BruteForceImpl<double, 3>, double, 3>;
template class detail::BruteForceImpl<double, 3>;
template class AlgorithmFront<double, 3, detail::BruteForceImpl<double, 3>>;
template class BasicBruteForce<double, 3>;

}  // namespace broadphase
