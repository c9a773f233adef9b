// What two of the scene's incremental engines (multi_box_pruning.hpp,
// incremental_grid.hpp; the interface is in engines.hpp) share: the objects they hold, each with its box and
// the engine's own State (which has a `bool present`), and the changes
// recorded since the engine's last frame: set() (inserted or moved) and
// erase(), applied by the engine's commit().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <broadphase/boxes.hpp>

namespace broadphase {
namespace detail {

template <class T, int D, class State>
class ChangeMarks {
public:
    using box_type = BasicBox<T, D>;
    using Id = std::uint32_t;

    /// Records that the object is present with this (valid) box: inserted or
    /// moved. Takes effect at the engine's commit(). O(1).
    void set(Id id, const box_type& box) {
        grow(id);
        boxes_[id] = box;
        if (!state_[id].present) state_[id].present = true, ++present_;
        mark(id, kChanged);
    }

    /// Records that the object is gone (no-op if it was not present). O(1).
    void erase(Id id) {
        if (id >= state_.size() || !state_[id].present) return;
        state_[id].present = false;
        --present_;
        mark(id, kErased);
    }

    /// Objects present. O(1).
    std::size_t size() const { return present_; }
    /// Whether a commit() ran since it was made or cleared (the scene fills
    /// it before its first: engines.hpp). O(1).
    bool filled() const { return filled_; }
    /// Kept up to date while another engine runs (engines.hpp).
    static constexpr bool kFollows = true;
    /// Changes followed since the engine last ran (the scene's to count:
    /// it drops an engine that followed more than a fill would cost).
    std::size_t idle_changes = 0;

protected:
    static constexpr std::uint8_t kChanged = 1, kErased = 2;

    void grow(Id id) {
        if (id < state_.size()) return;
        boxes_.resize(std::size_t(id) + 1);
        flag_.resize(std::size_t(id) + 1, 0);
        state_.resize(std::size_t(id) + 1);  // last: its size says the others' (a failed resize leaves it short)
    }
    /// The rule both engines derive their layout again by: never derived,
    /// the object count doubled or halved since (past a slack of 1,024), or
    /// an eighth of the objects outside the derived bounds. O(1).
    bool drifted(bool derived, std::size_t derived_count, std::size_t outside) const {
        const std::size_t n = present_;
        if (!derived || n > 2 * derived_count + 1024 || 2 * n + 1024 < derived_count) return true;
        return outside * 8 > n + 64;
    }
    void mark(Id id, std::uint8_t f) {
        if (!flag_[id]) marked_.push_back(id);
        flag_[id] = f;  // the last word wins: erased after set, or set again
    }

    std::vector<State> state_;
    std::vector<box_type> boxes_;
    std::vector<std::uint8_t> flag_;  // kChanged / kErased this frame
    std::vector<Id> marked_;          // ids with a flag
    std::size_t present_ = 0;
    bool filled_ = false;
};

}  // namespace detail
}  // namespace broadphase
