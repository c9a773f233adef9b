// TEMPORARY placeholder: being written. Same interface as the other algorithms.
#pragma once
#include "sweep_and_prune.hpp"
namespace broadphase {
template <class T, int D>
class BasicHybridGrid : public BasicSweepAndPrune<T, D> {};
using HybridGrid = BasicHybridGrid<float, 3>;
}  // namespace broadphase
