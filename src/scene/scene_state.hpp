// What a BasicScene (../../scene.hpp) holds behind its pointer: the engines
// that find the pairs, the statics' index, the query tree, the current set
// as each object's partners, and the scratch the updates reuse. The public
// class keeps by value only what its inline members read (the objects, the
// marks of what changed, the pairs and events it hands out); everything
// here is reached by its out-of-line members (../scene-inl.hpp, with
// scene_update.hpp and scene_queries.hpp), compiled once in the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/broadphase.hpp>
#include <broadphase/dynamic_tree.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/detail/prefetch.hpp>
#include "scene/engines.hpp"
#include "scene/enlarged_bounds.hpp"
#include "scene/incremental_grid.hpp"
#include "scene/multi_box_pruning.hpp"
#include "scene/static_set.hpp"

namespace broadphase {
namespace detail {

/// The private state of a BasicScene<T, D> (see the top of this file). One
/// allocation, made by the scene's constructor; fields are named as the
/// scene's members they were, less the trailing underscore.
template <class T, int D>
struct SceneState {
    using Id = std::uint32_t;
    using box_type = BasicBox<T, D>;

    // The current pairs, two ways (scene_update.hpp): each object's
    // partners (both ways, unordered), up to date when partners_valid; the
    // sorted array (the scene's current_), up to date unless the scene's
    // pairs_behind_ (pairs() then makes it from the partners).
    std::vector<std::vector<Id>> partners;
    bool partners_valid = true;
    std::vector<std::uint32_t> adds;  // per object: partners the update adds, or a cursor (all 0 between updates)
    std::vector<std::uint32_t> mark;  // per object: a stamp (diff_by_partners)
    std::uint32_t stamp = 0;
    std::vector<Id> grouped;          // fresh's partners, grouped by changed object
    std::vector<Pair> found, fresh, stale, kept;
    std::mutex pairs_mutex;                // pairs() making the array from the partners
    std::vector<std::vector<Pair>> parts;  // per thread
    PairSortScratch sort_scratch;

    // The engines (engines.hpp): changed objects in, their pairs out.
    MultiBoxPruning<T, D> pruning;
    IncrementalGrid<T, D> grid;
    EnlargedBounds<T, D> enlarged;
    Rebuild<T, D> rebuild;
    std::size_t grid_crowded_at = 0;  // live objects when automatic found the grid crowded (0: never)

    // Statics apart (static_set.hpp): the engines hold the dynamic objects
    // only, listed densely so that a fill or a rebuild visits them and not
    // the statics.
    StaticSet<T, D> statics;
    std::vector<Id> dynamic_ids;
    std::vector<std::uint32_t> dynamic_slot;  // per object: its place in dynamic_ids, or ~0
    bool sets_stale = false;                  // statics and dynamic_ids to be made again from the objects
    // Each dynamic object's statics, found with an enlarged box and kept
    // while its box stays inside and no static changed (static_pairs_of()).
    struct StaticHit {
        box_type box;
        Id id;
        bool filtered;  // its filter is not the default (a filter change makes every cache stale)
    };
    struct StaticCache {
        box_type fat{};                // the enlarged box the hits were found with
        std::vector<StaticHit> hits;   // every static overlapping it, at generation `generation`
        MotionMark<T, D> motion;       // the box's centre when they were found, and the update
        std::uint64_t generation = ~std::uint64_t(0);  // statics.generation() then
    };
    std::vector<StaticCache> static_cache;  // per place in dynamic_ids
    std::uint64_t updates = 0;
    BasicPairFinder<T, D> static_finder;  // changed statics against the dynamic objects
    BasicBoxes<T, D> static_side, dynamic_side;
    std::vector<Id> static_side_ids, dynamic_side_ids, changed_dynamic;
    std::vector<Pair> cross;

    // The queries' tree, synced lazily by the first query (or tree()) after
    // changes; the scene keeps the marks of what changed since.
    BasicDynamicTree<T, D> tree;
    std::size_t tree_churn = 0;  // leaves inserted or re-inserted since the last rebuild
    std::mutex tree_mutex;

    /// Asks for a dynamic object's cached statics a few objects ahead: each
    /// list is a cache miss of its own (half the frame of 2,000 movers
    /// over 2 million statics was spent waiting for them).
    void prefetch_statics(std::uint32_t place) const {
        const StaticCache& c = static_cache[place];
        if (!c.hits.empty()) prefetch_read(c.hits.data()), prefetch_read(c.hits.data() + c.hits.size() - 1);
    }
};

}  // namespace detail
}  // namespace broadphase
