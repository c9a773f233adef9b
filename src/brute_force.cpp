// The compiled library: <broadphase/brute_force.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/brute_force.hpp>

namespace broadphase {
template class detail::AlgorithmBase<BasicBruteForce<float, 2>, float, 2>;
template class detail::AlgorithmBase<BasicBruteForce<float, 3>, float, 3>;
template class detail::AlgorithmBase<BasicBruteForce<double, 2>, double, 2>;
template class detail::AlgorithmBase<BasicBruteForce<double, 3>, double, 3>;
template class BasicBruteForce<float, 2>;
template class BasicBruteForce<float, 3>;
template class BasicBruteForce<double, 2>;
template class BasicBruteForce<double, 3>;
}  // namespace broadphase
