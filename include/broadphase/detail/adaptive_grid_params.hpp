// The adaptive grid's tuning (BasicAdaptiveGrid::Params), apart from the
// grid itself (src/grid/adaptive_grid_core.hpp) so that adaptive_grid.hpp
// declares it without the grid.
#pragma once

#include <cstdint>

namespace broadphase {
namespace detail {

struct AdaptiveGridParams {
    /// A node with more instances than this splits (if that can separate them).
    std::uint32_t leaf_capacity = 32;
    /// A box touching more cells of the children's size than this stays
    /// in the node as a resident. It also bounds the instances of one box
    /// (at most this many), so it is capped at 4^D: larger values act as 4^D.
    std::uint32_t resident_children = 8;
};

}  // namespace detail
}  // namespace broadphase
