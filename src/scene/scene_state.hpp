// Everything a BasicScene (<broadphase/scene.hpp>) holds, behind its one
// pointer: detail::SceneState, made by the scene's constructor (with the
// four one-shot finders inside it, whose algorithm sets are allocations of
// their own: about 60 KB in all). The public class holds nothing else; each
// of its members is one call here (scene_impl.hpp), compiled once in the
// library.
//
// SceneState has two parts:
// - the registry, by value: the objects, the marks of what changed since
//   the last update and since the tree's last sync, the settings, the
//   pairs and events handed out. The per-object calls (add, move, remove,
//   set_type, ...) read and mark only these; they are inline here, so the
//   scene's compiled member is the one indirection a call pays.
// - the work (SceneWork, the field `work_`): the engines that find the
//   pairs (engines.hpp), the statics' index (static_set.hpp), the query
//   tree, the current set as each object's partners, and the scratch the
//   updates reuse; read by update() (scene_update.hpp) and the queries
//   (scene_queries.hpp), where it is named `st`.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/broadphase.hpp>
#include <broadphase/dynamic_tree.hpp>
#include <broadphase/options.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/scene.hpp>
#include <broadphase/detail/prefetch.hpp>
#include "scene/engines.hpp"
#include "scene/enlarged_bounds.hpp"
#include "scene/incremental_grid.hpp"
#include "scene/multi_box_pruning.hpp"
#include "scene/static_set.hpp"

namespace broadphase {
namespace detail {

/// What update() and the queries work with (see the top of this file).
template <class T, int D>
struct SceneWork {
    using Id = std::uint32_t;
    using box_type = BasicBox<T, D>;

    // The current pairs, two ways (scene_update.hpp): each object's
    // partners (both ways, unordered), up to date when partners_valid; the
    // sorted array (SceneState::current_), up to date unless pairs_behind_
    // (pairs() then makes it from the partners).
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
    // changes; the registry keeps the marks of what changed since.
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

/// The implementation of a BasicScene<T, D> (see the top of this file): the
/// registry and its per-object calls here; the rest in scene_impl.hpp,
/// scene_update.hpp and scene_queries.hpp. The contracts are the public
/// class's (scene.hpp). Fields keep the names they had as the scene's
/// members; everything is public to the scene, its only user.
template <class T, int D>
struct SceneState {
    using Scene = BasicScene<T, D>;
    using Tree = BasicDynamicTree<T, D>;
    using vec_type = typename Tree::vec_type;
    using box_type = BasicBox<T, D>;
    using Id = std::uint32_t;
    using Hit = typename Scene::Hit;
    using CastResult = typename Tree::CastResult;
    using Work = SceneWork<T, D>;
    static constexpr Id null = Scene::null;

    struct Object {
        box_type box{};       // the tight box
        box_type pair_box{};  // the box pairs are found with: box, or with fat pairs its fat box
        std::uint64_t user_value = 0;
        Filter filter{};
        ObjectType type = ObjectType::dynamic_object;
        bool alive = false;
    };

    // ---- The per-object calls: what a loop calls, inline here.

    Id add(const box_type& box, ObjectType type, std::uint64_t user_value, const Filter& filter) {
        // (Like every change here: if an allocation throws, the scene is as before.)
        const bool reuse = !free_.empty();
        Id id;
        if (reuse) {
            id = free_.back();
        } else {
            if (!fits_indices(std::uint64_t(objects_.size()) + 1)) return null;
            id = static_cast<Id>(objects_.size());
            objects_.emplace_back();
        }
        Object& o = objects_[id];
        o.box = box;
        o.pair_box = pairing_box_of(box);
        o.type = type;
        o.user_value = user_value;
        o.filter = filter;
        touch(id);  // may throw: the slot stays dead
        if (reuse) free_.pop_back();
        o.alive = true;
        ++live_;
        return id;
    }

    bool remove(Id id) {
        if (!contains(id)) return false;
        touch(id);
        retired_.push_back(id);
        objects_[id].alive = false;
        --live_;
        return true;
    }

    bool move(Id id, const box_type& box) {
        if (!contains(id)) return false;
        Object& o = objects_[id];
        if (fat_pairs_ && box.valid() && o.pair_box.valid() && broadphase::contains(o.pair_box, box)) {
            mark_tree_stale(id);
            o.box = box;
            return true;
        }
        touch(id);
        o.box = box;
        o.pair_box = pairing_box_of(box);
        return true;
    }

    bool set_type(Id id, ObjectType type) {
        return contains(id) && (touch(id), objects_[id].type = type, set_meet(id), true);
    }
    bool set_filter(Id id, const Filter& f) {
        return contains(id) && (touch(id), objects_[id].filter = f, set_meet(id), true);
    }
    bool set_user_value(Id id, std::uint64_t v) { return contains(id) && (objects_[id].user_value = v, true); }
    bool contains(Id id) const { return id < objects_.size() && objects_[id].alive; }

    /// The pairs of the last update, sorted: made from the partners by the
    /// first call after an update that changed them (listed_pairs).
    const std::vector<Pair>& pairs() {
        if (pairs_behind_.load(std::memory_order_acquire)) listed_pairs();
        return current_;
    }

    /// The box pairs are found with for tight box b (see set_fat_pairs).
    box_type pairing_box_of(const box_type& b) const {
        if (!fat_pairs_ || !b.valid()) return b;
        box_type f = b;
        for (int k = 0; k < D; ++k) f.min[k] -= margin_, f.max[k] += margin_;
        return f;
    }

    /// Marks an object changed since the last update (and since the tree's
    /// last sync). Called before the object changes: what may throw (growing
    /// the marks) comes first, so a bad_alloc leaves the object as it was.
    /// (The update's own per-object arrays are grown by the update.)
    void touch(Id id) {
        if (id >= dirty_flag_.size()) grow_marks();
        mark_tree_stale(id);
        if (!dirty_flag_[id]) dirty_.push_back(id), dirty_flag_[id] = 1;
        set_meet(id);
    }
    /// The packed meeting class of an object, from its type and filter.
    void set_meet(Id id) {
        const Object& o = objects_[id];
        const Filter plain{};
        meet_[id] = std::uint8_t((o.type == ObjectType::static_object ? kStatic : 0) |
                                 (o.filter.category == plain.category && o.filter.mask == plain.mask && o.filter.group == 0
                                      ? 0
                                      : kFiltered));
    }
    /// Marks an object's tight box changed since the tree's last sync.
    void mark_tree_stale(Id id) {
        if (id >= tree_stale_.size()) grow_marks();
        if (!tree_stale_[id]) tree_pending_.push_back(id), tree_stale_[id] = 1;
        tree_behind_.store(true, std::memory_order_relaxed);
    }
    /// The per-object marks grown to every object. Out of line and cold, so
    /// that the calls above stay small enough to be inlined whole into the
    /// scene's move() (with the resizes inlined, GCC called touch(): 79 ns a
    /// move of one body against 53 inline in the caller's loop before;
    /// docs/benchmarks/amd-epyc-2core-ab-issue55-scene.csv).
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((noinline, cold))
#endif
    void grow_marks() {
        const std::size_t n = objects_.size();
        proxy_.resize(n, Tree::null);
        tree_stale_.resize(n, 0);
        meet_.resize(n, 0);
        dirty_flag_.resize(n, 0);
    }

    static Pair ordered(Id a, Id b) { return a < b ? Pair{a, b} : Pair{b, a}; }

    // ---- The rest, out of line.

    // Changes that touch every object (scene_impl.hpp).
    void add(const box_type* boxes, std::size_t n, Id* ids_out, ObjectType type);
    bool set_margin(T margin);
    void set_fat_pairs(bool on);
    /// Every live object's pair box made again from its tight box (after touch_all). O(n).
    void refresh_pair_boxes();
    void touch_all();
    /// Room for n objects in the registry and the per-object marks.
    void reserve_objects(std::size_t n);

    // How update() finds the pairs (scene_update.hpp).
    Report update();
    Report update_or_throw();
    struct Frame;
    template <class Engine>
    void sync_engine(Engine& engine, bool wanted, bool search, Frame& frame);
    template <class F>
    void for_each_engine(F&& f);
    bool may_pair(Id a, Id b) const;
    void diff_by_partners();
    void edit_partners();
    void list_partners();
    void take_found(bool partners_edited);
    void listed_pairs();
    void split_current();
    void merge_changed_pairs();
    Report rebuilt_pairs();
    void file_changes();
    void refill_sets();
    void static_pairs(Frame& frame);
    template <class Emit>
    void static_pairs_of(std::uint32_t place, Id id, Emit&& emit);
    static void difference(const std::vector<Pair>& a, const std::vector<Pair>& b, std::vector<Pair>& out);
    /// Sorts pairs of ids by (a, b): the library's one pair sort (pairs.hpp).
    void sort_pairs(std::vector<Pair>& v);

    // The queries (scene_queries.hpp): the tree brought up to date first
    // (safe from concurrent calls: one of them syncs under the lock).
    const Tree& synced_tree();
    bool overlaps(const box_type& q, HitCallbackRef f);
    bool containing(const vec_type& p, HitCallbackRef f);
    bool sphere_overlaps(const vec_type& center, T radius, HitCallbackRef f);
    Hit ray_cast(const vec_type& origin, const vec_type& direction, T max_t);
    void ray_hits(const vec_type& origin, const vec_type& direction, T max_t, RayHitRef<T> f);
    Hit box_cast(const box_type& moving, const vec_type& displacement);
    CastResult ray_cast_erased(const vec_type& origin, const vec_type& direction, T max_t, CastCallbackRef<T> f,
                               CastFilterRef filter);
    CastResult box_cast_erased(const box_type& moving, const vec_type& displacement, CastCallbackRef<T> f,
                               CastFilterRef filter);
    Id object_of(std::uint32_t proxy) const { return static_cast<Id>(work_.tree.user_value(proxy)); }
    Hit hit_of(const typename Tree::Hit& h) const;

    // ---- The registry.
    std::vector<Object> objects_;
    std::vector<Id> free_, retired_;
    std::size_t live_ = 0;
    Options options_;
    UpdateMode mode_ = UpdateMode::automatic;
    UpdateMode last_method_ = UpdateMode::rebuild;
    bool fat_pairs_ = false;
    T margin_ = Tree::default_margin;  // the tree's margin (set_margin keeps both)
    std::vector<Id> dirty_;
    std::vector<std::uint8_t> dirty_flag_;  // changed since the last update (added, moved, removed, type, filter)
    static constexpr std::uint8_t kStatic = 1, kFiltered = 2;
    std::vector<std::uint8_t> meet_;  // kStatic | kFiltered (a filter other than the default) per object
    // The pairs: the sorted array current_, up to date unless pairs_behind_
    // (pairs() then makes it from each object's partners, in work_).
    std::vector<Pair> current_;
    std::atomic<bool> pairs_behind_{false};
    std::size_t pair_count_ = 0;
    std::vector<Pair> begun_, ended_;
    // What changed since the tree's last sync (the tree is in work_).
    std::vector<std::uint32_t> proxy_;      // each object's leaf in the tree
    std::vector<std::uint8_t> tree_stale_;  // changed since the tree's last sync
    std::vector<Id> tree_pending_;
    std::atomic<bool> tree_behind_{false};

    // ---- The work.
    Work work_;
};

}  // namespace detail
}  // namespace broadphase
