// Brute force: every box against every other, SIMD-width at a time.
//
// O(n^2) tests, no build cost, no memory beyond the input. With threads,
// runs of rows of equal cost are tasks (see detail/parallel.hpp). It is the oracle
// every other algorithm is tested against, and it wins below a few hundred
// boxes, where any structure costs more to build than it saves.
#pragma once
#include "algorithm_front.hpp"

namespace broadphase {
namespace detail {
template <class T, int D>
class BruteForceImpl;  // src/brute_force/brute_force_impl.hpp
}  // namespace detail

/// Every box against every other (the calls: algorithm_front.hpp).
template <class T, int D>
class BasicBruteForce : public AlgorithmFront<T, D, detail::BruteForceImpl<T, D>> {};

/// Brute force over 3-D float boxes.
using BruteForce = BasicBruteForce<float, 3>;

// Compiled in the library, src/brute_force/brute_force.cpp, for float and double in 2-D and 3-D.

}  // namespace broadphase

