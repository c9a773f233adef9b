// The grids' class: the calls every algorithm has (algorithm_front.hpp) and
// the grid's tuning, shared by the uniform and the hybrid grid
// (uniform_grid.hpp, hybrid_grid.hpp); a policy says which axes are gridded
// and whether buckets are swept. The hybrid grid is a hashed grid with a
// sweep in each cell. The uniform grid finds the pairs of one set by home
// cells, and those of two sets, its queries and its sparse scenes by the
// hashed grid with no sweep axis (cells on every axis, owner cells).
#pragma once
#include "algorithm_front.hpp"

namespace broadphase {

namespace detail {
template <class T, int D, class Policy>
class GridAlgorithmImpl;  // src/grid/grid_algorithm_impl.hpp
}  // namespace detail

/// The calls every algorithm has and the grid's tuning; Policy is
/// UniformGridPolicy or HybridGridPolicy (declared in their headers).
template <class T, int D, class Policy>
class GridFront : public AlgorithmFront<T, D, detail::GridAlgorithmImpl<T, D, Policy>> {
public:
    /// Target boxes per cell; 0 (the default) keeps the policy's tuned value. O(1).
    void set_boxes_per_cell(double n);
    /// Smallest cell side in median box extents; 0 keeps the policy's value. O(1).
    void set_min_cell_extents(double r);

    /// The cell side chosen by the last build or pair search. O(1).
    T cell_size() const;
};

}  // namespace broadphase
