// One algorithm class, shared by the uniform and the hybrid grid; a policy
// says which axes are gridded and whether buckets are swept. The hybrid
// grid is HybridGridCore with a sweep axis. The uniform grid finds the
// pairs of one set by UniformGridCore (home cells), and those of two sets,
// its queries and its sparse scenes by HybridGridCore with no sweep axis
// (cells on every axis, owner cells, hashed).
#pragma once
#include "algorithm_front.hpp"

namespace broadphase {
namespace detail {

template <class T, int D, class Policy>
class GridAlgorithmImpl;  // src/grid/grid_algorithm_impl.hpp

/// BasicUniformGrid and BasicHybridGrid: the calls every algorithm has
/// (detail/algorithm_front.hpp) and the grid's tuning.
template <class T, int D, class Policy>
class GridAlgorithm : public AlgorithmFront<T, D, GridAlgorithmImpl<T, D, Policy>> {
public:
    /// Target boxes per cell; 0 (the default) keeps the policy's tuned value. O(1).
    void set_boxes_per_cell(double n);
    /// Smallest cell side in median box extents; 0 keeps the policy's value. O(1).
    void set_min_cell_extents(double r);

    /// The cell side chosen by the last build or pair search. O(1).
    T cell_size() const;
};

}  // namespace detail
}  // namespace broadphase
