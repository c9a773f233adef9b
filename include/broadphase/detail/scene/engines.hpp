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
//          The engines that cannot find a changed object's pairs alone ask
//          the frame: frame.tree() (the queries' dynamic tree, up to date),
//          frame.stale() (the pairs before with a changed object, sorted),
//          frame.requery(id) (its type or filter changed: its pairs before
//          say nothing of its pairs now).
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
// - TreeEngine (below): each changed object queried against the queries'
//   tree, which the scene keeps anyway; holds nothing else.
// - EnlargedBounds (enlarged_bounds.hpp): each object's candidates, kept
//   by enlarged boxes in a grid of their own; follows.
// - SweepEngine (below): sorted endpoints on every axis (incremental_sweep.hpp),
//   pairs flipped by endpoint swaps; cleared when another engine runs
//   (following every move through frames where most objects move costs
//   more than sorting again).
// - Rebuild (below) is not incremental: every pair from scratch, by the
//   best one-shot algorithm, for frames where most objects changed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "../../boxes.hpp"
#include "../../broadphase.hpp"
#include "../../options.hpp"
#include "../../pairs.hpp"
#include "../parallel.hpp"
#include "incremental_sweep.hpp"

namespace broadphase {
namespace detail {

/// emit(id, other) for each object of the scene's tree (user value = id)
/// whose box overlaps `box`, except id itself and those for which
/// skip(other) (a changed object with a lower id: it reports the pair).
/// The tree and sweep engines' query. O(log n + overlaps).
template <class Tree, class Box, class Skip, class Emit>
void tree_pairs(const Tree& tree, std::uint32_t id, const Box& box, Skip&& skip, Emit&& emit) {
    tree.for_each_overlap(box, [&](std::uint32_t proxy) {
        const auto other = static_cast<std::uint32_t>(tree.user_value(proxy));
        if (other != id && !skip(other)) emit(id, other);
    });
}

/// Changed objects queried against the scene's dynamic tree (frame.tree()).
/// O(changes x (log n + their overlaps)).
template <class T, int D>
class TreeEngine {
public:
    using box_type = BasicBox<T, D>;
    using Id = std::uint32_t;
    static constexpr bool kFollows = false;

    void set(Id id, const box_type& box) { mark(id), changed_.push_back(Change{id, box}); }
    void erase(Id id) { mark(id); }  // (the tree no longer holds it: no pair with it is found)
    template <class Frame>
    void commit(Frame& frame, bool search, unsigned threads) {
        if (!search || changed_.empty()) return;
        const auto& tree = frame.tree();
        constexpr std::size_t per_task = 256;
        const std::size_t m = changed_.size();
        run_tasks(threads, (m + per_task - 1) / per_task, [&](std::size_t t, unsigned me) {
            const std::size_t end = std::min(m, (t + 1) * per_task);
            for (std::size_t i = t * per_task; i < end; ++i) {
                const Id id = changed_[i].id;
                tree_pairs(
                    tree, id, changed_[i].box,
                    [&](Id other) { return frame.is_static(other) || (other < id && other < flag_.size() && flag_[other]); },
                    [&](Id a, Id b) { frame(me, a, b); });
            }
        });
    }
    void finish() {
        for (Id id : marked_) flag_[id] = 0;
        changed_.clear();
        marked_.clear();
    }
    void clear() { *this = TreeEngine{}; }
    bool filled() const { return true; }  // the tree is the scene's

private:
    struct Change {
        Id id;
        box_type box;
    };
    void mark(Id id) {
        if (id >= flag_.size()) flag_.resize(std::size_t(id) + 1, 0);
        if (!flag_[id]) flag_[id] = 1, marked_.push_back(id);
    }
    std::vector<Change> changed_;
    std::vector<Id> marked_;
    std::vector<std::uint8_t> flag_;  // marked this frame
};

/// The incremental sweep and prune (incremental_sweep.hpp) as an engine:
/// removed objects leave it, moved ones are bubbled to their new places and
/// report each pair whose overlap flipped (possibly several times a pair),
/// new ones go in. A moved object's pairs are then its pairs before
/// (frame.stale()) with the flipped ones changed over. Objects new to the
/// sweep, and those whose type or filter changed, are asked of the tree.
/// Cost: the endpoints the moves pass, O(F log F) for F flips, and O(n)
/// memory moves when objects come or go.
template <class T, int D>
class SweepEngine {
public:
    using box_type = BasicBox<T, D>;
    using Id = std::uint32_t;
    using Sweep = IncrementalSweep<T, D>;
    static constexpr Id max_id = Sweep::max_id;
    static constexpr bool kFollows = false;

    void set(Id id, const box_type& box) {
        grow(id);
        if (sweep_.contains(id)) moved_.push_back(id), moved_boxes_.push_back(box);
        else added_.push_back(id), added_boxes_.push_back(box), ask_[id] = 1;  // (marked last: finish() unmarks the listed)
    }
    void erase(Id id) {
        if (sweep_.contains(id)) gone_.push_back(id);
    }
    template <class Frame>
    void commit(Frame& frame, bool search, unsigned /*threads*/) {
        filled_ = true;  // first: if this fails, the scene clears it
        auto flipped = [&](std::uint32_t a, std::uint32_t b, bool) { toggles_.push_back(Pair{a, b}); };
        auto ignored = [](std::uint32_t, std::uint32_t, bool) {};
        sweep_.remove_batch(gone_.data(), gone_.size());
        if (search) {
            for (std::size_t i = 0; i < moved_.size(); ++i) sweep_.move(moved_[i], moved_boxes_[i], flipped);
        } else {
            for (std::size_t i = 0; i < moved_.size(); ++i) sweep_.move(moved_[i], moved_boxes_[i], ignored);
        }
        if (!added_.empty()) {
            sweep_.reserve(ask_.size(), sweep_.size() + added_.size());
            sweep_.insert_batch(added_.data(), added_boxes_.data(), added_.size());
        }
        if (!search) return;
        for (Id id : moved_)
            if (frame.requery(id)) ask_[id] = 1;
        auto asked = [&](Id id) { return id < ask_.size() && ask_[id]; };

        // Pairs flipped an odd number of times, between objects not asked of the tree.
        sort_pairs(toggles_, ask_.size(), sort_scratch_);
        std::size_t odd = 0;
        for (std::size_t i = 0; i < toggles_.size();) {
            std::size_t j = i + 1;
            while (j < toggles_.size() && toggles_[j] == toggles_[i]) ++j;
            const Pair p = toggles_[i];
            if ((j - i) % 2 == 1 && !asked(p.a) && !asked(p.b)) toggles_[odd++] = p;
            i = j;
        }
        toggles_.resize(odd);
        // The pairs before that still stand unless flipped.
        survivors_.clear();
        for (const Pair& p : frame.stale())
            if (sweep_.contains(p.a) && sweep_.contains(p.b) && !asked(p.a) && !asked(p.b)) survivors_.push_back(p);
        now_.clear();
        std::set_symmetric_difference(survivors_.begin(), survivors_.end(), toggles_.begin(), toggles_.end(),
                                      std::back_inserter(now_));
        for (const Pair& p : now_) frame(0u, p.a, p.b);
        // Every pair of the objects asked of the tree, each once.
        bool any = false;
        for (Id id : moved_) any = any || asked(id);
        any = any || !added_.empty();
        if (!any) return;
        const auto& tree = frame.tree();
        auto ask = [&](Id id, const box_type& box) {
            tree_pairs(
                tree, id, box, [&](Id other) { return !sweep_.contains(other) || (other < id && asked(other)); },
                [&](Id a, Id b) { frame(0u, a, b); });
        };
        for (std::size_t i = 0; i < moved_.size(); ++i)
            if (asked(moved_[i])) ask(moved_[i], moved_boxes_[i]);
        for (std::size_t i = 0; i < added_.size(); ++i) ask(added_[i], added_boxes_[i]);
    }
    void finish() {
        for (Id id : moved_) ask_[id] = 0;
        for (Id id : added_) ask_[id] = 0;
        moved_.clear(), moved_boxes_.clear(), added_.clear(), added_boxes_.clear(), gone_.clear(), toggles_.clear();
    }
    /// (Keeps the memory, and allocates nothing: update()'s bad_alloc path calls it.)
    void clear() {
        finish();
        sweep_.clear();
        filled_ = false;
    }
    bool filled() const { return filled_; }

private:
    void grow(Id id) {
        if (id >= ask_.size()) ask_.resize(std::size_t(id) + 1, 0);
    }

    Sweep sweep_;
    bool filled_ = false;
    std::vector<Id> moved_, added_, gone_;
    std::vector<box_type> moved_boxes_, added_boxes_;
    std::vector<std::uint8_t> ask_;  // per id: asked of the tree this frame (new to the sweep, or refiltered)
    std::vector<Pair> toggles_, survivors_, now_;
    PairSortScratch sort_scratch_;
};

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
