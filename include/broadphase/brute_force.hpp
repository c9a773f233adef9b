// Brute force: every box against every other, SIMD-width at a time.
//
// O(n^2) tests, no build cost, no memory beyond the input. With threads,
// runs of rows of equal cost are tasks (see detail/parallel.hpp). It is the oracle
// every other algorithm is tested against, and it wins below a few hundred
// boxes, where any structure costs more to build than it saves.
#pragma once
// For the body file, which checks that it comes after this.
#define BROADPHASE_DECLARED_BRUTE_FORCE

#include "detail/algorithm_front.hpp"

namespace broadphase {
namespace detail {
template <class T, int D>
class BruteForceImpl;  // detail/brute_force-inl.hpp
}  // namespace detail

/// Every box against every other (the calls: detail/algorithm_front.hpp).
template <class T, int D>
class BasicBruteForce : public detail::AlgorithmFront<T, D, detail::BruteForceImpl<T, D>> {};

/// Brute force over 3-D float boxes.
using BruteForce = BasicBruteForce<float, 3>;

// Compiled once in the library, src/brute_force.cpp (detail/extern_templates.hpp).
#define BROADPHASE_BRUTE_FORCE_TEMPLATES(T, D, prefix) \
    BROADPHASE_FRONT_TEMPLATES(T, D, prefix, BruteForceImpl, BasicBruteForce)
#if BROADPHASE_EXTERN_TEMPLATES
BROADPHASE_COMPILED_TYPES(BROADPHASE_BRUTE_FORCE_TEMPLATES, extern)
#endif

}  // namespace broadphase

#if !BROADPHASE_EXTERN_TEMPLATES
#include "detail/brute_force-inl.hpp"
#endif
