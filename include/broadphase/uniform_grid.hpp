// TEMPORARY placeholder: being written. Same interface as the other algorithms.
#pragma once
#include "sweep_and_prune.hpp"
namespace broadphase {
template <class T, int D>
class BasicUniformGrid : public BasicSweepAndPrune<T, D> {};
using UniformGrid = BasicUniformGrid<float, 3>;
}  // namespace broadphase
