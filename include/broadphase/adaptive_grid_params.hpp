// The adaptive grid's tuning (BasicAdaptiveGrid::Params), in a header of its
// own so that the grid's code (src/grid/adaptive_grid_core.hpp) takes it
// without the algorithm class.
#pragma once

#include <cstdint>

namespace broadphase {

/// The adaptive grid's tuning (BasicAdaptiveGrid::set_params); the defaults
/// are the measured best on the built-in scenes.
struct AdaptiveGridParams {
    /// A node with more instances than this splits (if that can separate them).
    std::uint32_t leaf_capacity = 32;
    /// A box touching more cells of the children's size than this stays
    /// in the node as a resident. It also bounds the instances of one box
    /// (at most this many), so it is capped at 4^D: larger values act as 4^D.
    std::uint32_t resident_children = 8;
};

}  // namespace broadphase
