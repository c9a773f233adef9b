// The engines behind BasicScene's update (../../scene.hpp), and the one
// interface they implement: changed objects in, the changed objects' pairs
// out. The scene is the object registry and the event diff; which engine
// finds the pairs is the update mode (UpdateMode).
//
// An incremental engine holds its own picture of the objects' pair boxes and
// implements:
//
//   void set(Id id, const box_type& box)   the object is present with this
//                                          (valid) box: added or moved, or
//                                          its type or filter changed. O(1).
//   void erase(Id id)                      the object is gone, or its box is
//                                          no longer valid. O(1).
//   template <class Frame>
//   void commit(Frame& frame, bool search, unsigned threads)
//          applies the changes; with search, calls frame(thread, c, other)
//          once for every pair of overlapping present objects where c
//          changed (set() since the last finish()), on up to `threads`
//          threads. The frame filters (types, filters) and keeps the pairs.
//   void finish()                          clears the frame's marks.
//   void clear()                           forgets every object, frees memory.
//   bool filled() const                    holds every object (else the scene
//                                          fills it: set() for each, commit
//                                          without search, finish()).
//   static constexpr bool kFollows         kept up to date while other
//                                          engines run (so it serves again
//                                          without a fill), or cleared.
//
// The engines:
// - MultiBoxPruning (multi_box_pruning.hpp): regions with sorted entries;
//   follows.
// - IncrementalGrid (incremental_grid.hpp): home cells of min corners;
//   follows.
// - EnlargedBounds (enlarged_bounds.hpp): each object's candidates, kept
//   by enlarged boxes in a grid of their own; follows.
// (A TreeEngine, the changed objects queried against the scene's query
// tree, and a SweepEngine, an incremental sweep and prune on every axis,
// were removed: slower than the grid on every replay; measured:
// docs/measured-in-code.md#scene.)
// - Rebuild (below) is not incremental: every pair from scratch, by the
//   best one-shot algorithm, for frames where most objects changed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/broadphase.hpp>
#include "core/pair_finder_impl.hpp"  // PairFinder for every T, D
#include <broadphase/options.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/detail/parallel.hpp>

namespace broadphase {
namespace detail {

/// Every pair of the dynamic objects from scratch, by the best one-shot
/// algorithm (PairFinder, the automatic choice, all threads); the scene
/// adds their statics (static_set.hpp). O(n + K) and the search.
template <class T, int D>
class Rebuild {
public:
    using box_type = BasicBox<T, D>;
    using Id = std::uint32_t;

    /// Forgets the boxes of the last rebuild (keeps the memory).
    void clear_boxes() {
        dynamic_.resize(0);
        dynamic_ids_.clear();
    }
    /// An object with a valid box, for the next find().
    void add(Id id, const box_type& box) { dynamic_.push_back(box), dynamic_ids_.push_back(id); }
    /// out = every pair (a < b) of the added objects that meet(a, b) allows,
    /// unsorted.
    template <class Meet>
    Report find(const Options& options, Meet&& meet, std::vector<Pair>& out) {
        Report r;
        Options o = options;
        o.sorted = false;
        o.max_pairs = no_budget;
        out.clear();
        if (dynamic_.size() == 0) return r;
        Report a = finder_.find_pairs(dynamic_, out, o);
        if (!a.ok()) return r.status = a.status, r;
        // To ids, filtered, a < b.
        auto ordered = [](Id x, Id y) { return x < y ? Pair{x, y} : Pair{y, x}; };
        std::size_t kept = 0;
        for (const Pair& p : out) {
            const Id a = dynamic_ids_[p.a], b = dynamic_ids_[p.b];
            if (meet(a, b)) out[kept++] = ordered(a, b);
        }
        out.resize(kept);
        return r;
    }

private:
    BasicPairFinder<T, D> finder_;
    BasicBoxes<T, D> dynamic_;
    std::vector<Id> dynamic_ids_;
};

}  // namespace detail
}  // namespace broadphase
