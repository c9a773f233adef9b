// A scene for physics engines: objects added, removed and moved through
// stable ids, each static or dynamic, with a user value and a collision
// filter; after each update(), the pairs that began and the pairs that
// ended since the last one (PhysX's created and deleted pairs, Box2D's begin
// and end touch events), and the whole current set; box, point, sphere, ray
// and box-cast queries.
//
// Pairs are exact on the current (tight) boxes, as everywhere in the
// library: a and b overlap iff on every axis !(a.max < b.min || b.max <
// a.min). Static-static pairs are never computed. Events are exactly the
// difference between consecutive updates' pair sets: begun = now \ before,
// ended = before \ now, where a pair of the previous set whose object was
// removed (or became invalid, or filtered out) has ended.
//
// Statics: static objects are kept apart from the engines, in an index
// built in bulk (detail/scene/static_set.hpp: a uniform grid, plus a
// small delta for statics added since, rebuilt once it holds an eighth of
// the base); the engines and the update methods below hold and count the
// dynamic objects only. Each dynamic object keeps the statics around a box
// enlarged by its motion (detail::kStaticReach): while its box stays
// inside and no static changed, its static pairs are re-tested from that
// list and the index is not read. A frame costs O(changed dynamic objects +
// their pairs), whatever the statics; a frame where statics were added,
// moved, removed or refiltered also costs one search of those statics
// against the dynamic objects, and every cache is found again on its
// object's next move.
//
// How update() finds the pairs, chosen per update (UpdateMode::automatic) or
// by the user. The scene is the registry of objects and the event diff; an
// engine finds the pairs, and every engine implements one interface
// (detail/scene/engines.hpp): the changed objects in (added, moved, removed,
// type or filter changed since the last update), every pair with a changed
// object out; the pairs between unchanged objects are kept from before. The
// engines (grid, multi_box_pruning, enlarged, rebuild) are described at
// UpdateMode below and in docs/scene.md ("How each method works"); automatic
// is two rules: (1) follow the changes while that is expected to cost less
// than a rebuild (the changed share of the dynamic objects at most
// rebuild_share()), else rebuild; (2) follow them by the grid, or by multi
// box pruning where the grid's cells hold crowds (kGridCrowding); an idle
// engine keeps following changes until that has cost about a fill (then it
// is dropped). All end with the events: while few objects changed
// (kPartnerShare), each changed object's pairs now against its partners
// before, so an update costs what changed, not the pairs held (pairs()
// sorts them on demand); past it, one merge with the sorted array. Memory
// is reused between updates. The tree (dynamic_tree.hpp, fat boxes) serves
// the queries, brought up to date lazily. set_fat_pairs(true): the pairs
// of the fat boxes (a superset, as Bullet and Box2D report).
//
// Thread safety: the const functions (queries included) may run on many
// threads at once between updates; the others are single-writer.
//
// This file holds the class and its contracts, and the inline members that
// read or mark the objects (add, move, remove, the object fields, pairs(),
// begun(), ended()). Everything else, the engines, the statics' index, the
// query tree and the update's scratch, is behind one pointer
// (detail::SceneState, detail/scene/scene_state.hpp), and the member
// bodies are in src/scene/scene_impl.hpp (with detail/scene/scene_update.hpp,
// the update machinery, and detail/scene/scene_queries.hpp, the queries):
// compiled once in the library (src/scene/scene.cpp) for float and double, 2-D
// and 3-D; header-only, included at the end of this file. Other scalar
// types or dimensions with the compiled library: include
// <src/scene/scene_impl.hpp> after this file. The queries taking a
// callback erase it here (hits reach it in blocks, as the Index's do) and
// call one compiled member per kind of query.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "boxes.hpp"
#include "dynamic_tree.hpp"
#include "options.hpp"
#include "pairs.hpp"

namespace broadphase {

/// Static objects never move and never meet each other; dynamic ones meet both.
enum class ObjectType : std::uint8_t { static_object, dynamic_object };

/// Which objects may meet. Two objects may meet iff each one's mask has a
/// bit of the other's category, and they are not in the same nonzero group.
/// The default (category 1, every mask bit, group 0) meets everything.
struct Filter {
    std::uint64_t category = 1;
    std::uint64_t mask = ~std::uint64_t(0);
    std::int32_t group = 0;  ///< nonzero: never meets an object of the same group

    static bool may_meet(const Filter& a, const Filter& b) {
        if ((a.mask & b.category) == 0 || (b.mask & a.category) == 0) return false;
        return a.group == 0 || a.group != b.group;
    }
};

namespace detail {
/// A clipped cast's filter, erased: a Filter (Filter::may_meet), a
/// predicate pred(id) -> bool, or neither (every object).
struct CastFilterRef {
    const Filter* filter = nullptr;
    void* pred = nullptr;
    bool (*test)(void* pred, std::uint32_t id) = nullptr;
};

/// What a BasicScene holds behind its pointer (detail/scene/scene_state.hpp).
template <class T, int D>
struct SceneState;

/// A caller's f(id, t) behind a pointer (the Scene's ray hits): false when
/// f returned false (stop; void means go on, as detail::call_go_on).
template <class T>
struct RayHitRef {
    void* f;
    bool (*call)(void* f, std::uint32_t id, T t);
};

template <class F, class T>
bool call_ray_hit(void* fp, std::uint32_t id, T t) {
    return call_go_on(*static_cast<F*>(fp), id, t);
}

/// A clipped cast's f(id, t) behind a pointer, its answer as the T that
/// steers the cast (BasicDynamicTree::ray_cast_clipped): an f returning
/// bool or void answers cast_stop (0, for false) or cast_continue (+inf).
template <class T>
struct CastCallbackRef {
    void* f;
    T (*call)(void* f, std::uint32_t id, T t);
};

template <class F, class T>
T call_cast(void* fp, std::uint32_t id, T t) {
    F& f = *static_cast<F*>(fp);
    using R = std::invoke_result_t<F&, std::uint32_t&, T&>;
    if constexpr (std::is_void_v<R>) {
        f(id, t);
        return std::numeric_limits<T>::infinity();
    } else if constexpr (std::is_same_v<std::decay_t<R>, bool>) {
        return f(id, t) ? std::numeric_limits<T>::infinity() : T(0);
    } else {
        return static_cast<T>(f(id, t));
    }
}

template <class Q>
bool call_cast_filter(void* qp, std::uint32_t id) {
    return static_cast<bool>((*static_cast<Q*>(qp))(id));
}

}  // namespace detail

/// How update() finds the pairs (see the top of this file).
enum class UpdateMode : std::uint8_t {
    automatic,          ///< grid (multi_box_pruning where crowded), or rebuild past rebuild_share()
    rebuild,            ///< every pair from scratch, by the best one-shot algorithm
    multi_box_pruning,  ///< query each changed object in its regions' sorted lists
    grid,               ///< each object in the cell of its min corner; each changed one queries the 27 cells around it
    enlarged,           ///< each object's candidates kept by enlarged boxes; a changed one re-tests them
};

/// The name of a mode: the enumerator's name ("multi_box_pruning"), spelt as
/// the Algorithm names are; Python and the CLI use these names (the CLI
/// also accepts them with hyphens).
inline const char* to_string(UpdateMode m) {
    switch (m) {
        case UpdateMode::automatic: return "automatic";
        case UpdateMode::rebuild: return "rebuild";
        case UpdateMode::multi_box_pruning: return "multi_box_pruning";
        case UpdateMode::grid: return "grid";
        case UpdateMode::enlarged: return "enlarged";
    }
    return "?";
}

template <class T, int D>
class BasicScene {
public:
    using Tree = BasicDynamicTree<T, D>;
    using vec_type = typename Tree::vec_type;
    using box_type = BasicBox<T, D>;
    /// An object's id: stable while the object lives. Ids of removed objects
    /// are reused, but only after the update() that reports their pairs ended.
    using Id = std::uint32_t;
    static constexpr Id null = ~Id(0);

    /// An empty scene: one allocation (its engines, tree and scratch,
    /// their memory empty).
    BasicScene();
    ~BasicScene();
    /// Not copyable nor movable: concurrent const calls sync the tree and
    /// the pairs under the scene's own locks.
    BasicScene(const BasicScene&) = delete;
    BasicScene& operator=(const BasicScene&) = delete;

    /// Adds an object; returns its id. An invalid box (NaN, min > max) is
    /// kept but meets nothing until moved to a valid one. O(1). Returns null
    /// (and adds nothing) when every id is taken: ids are 32-bit, and a
    /// scene holds at most max_boxes ids, removed ones not yet reusable included.
    Id add(const box_type& box, ObjectType type = ObjectType::dynamic_object, std::uint64_t user_value = 0,
           const Filter& filter = {}) {
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

    /// Removes an object; false if id is not a live object. Its pairs end at
    /// the next update(). O(1).
    bool remove(Id id) {
        if (!contains(id)) return false;
        touch(id);
        retired_.push_back(id);
        objects_[id].alive = false;
        --live_;
        return true;
    }

    /// Gives an object its new box (the tight box). O(1). With fat pairs on,
    /// a move that stays inside the object's fat box changes no pair and
    /// costs the next update nothing (only the queries' tree follows it).
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

    /// Adds n objects of one type at once; ids_out[i] gets boxes[i]'s id.
    /// O(n), the memory for all of them made once. A static world is added
    /// this way: the next update() builds the statics' index in bulk (see
    /// "Statics" at the top of this file; measured: docs/measured-in-code.md\#scene).
    void add(const box_type* boxes, std::size_t n, Id* ids_out, ObjectType type = ObjectType::dynamic_object);

    /// Moves (ids[i] gets boxes[i]) or removes n objects at once. Returns
    /// how many ids were live.
    std::size_t move(const Id* ids, const box_type* boxes, std::size_t n) {
        std::size_t done = 0;
        for (std::size_t i = 0; i < n; ++i) done += move(ids[i], boxes[i]) ? 1 : 0;
        return done;
    }
    std::size_t remove(const Id* ids, std::size_t n) {
        std::size_t done = 0;
        for (std::size_t i = 0; i < n; ++i) done += remove(ids[i]) ? 1 : 0;
        return done;
    }

    bool set_type(Id id, ObjectType type) {
        return contains(id) && (touch(id), objects_[id].type = type, set_meet(id), true);
    }
    bool set_filter(Id id, const Filter& f) {
        return contains(id) && (touch(id), objects_[id].filter = f, set_meet(id), true);
    }
    bool set_user_value(Id id, std::uint64_t v) { return contains(id) && (objects_[id].user_value = v, true); }

    bool contains(Id id) const { return id < objects_.size() && objects_[id].alive; }
    std::size_t size() const { return live_; }
    /// Object fields (id must be live).
    const box_type& box(Id id) const { return objects_[id].box; }
    ObjectType type(Id id) const { return objects_[id].type; }
    const Filter& filter(Id id) const { return objects_[id].filter; }
    std::uint64_t user_value(Id id) const { return objects_[id].user_value; }

    /// Threads for the pair search and the algorithm (Options::threads and
    /// Options::algorithm apply; sorted and max_pairs do not).
    void set_options(const Options& o) { options_ = o; }
    void set_update_mode(UpdateMode m) { mode_ = m; }
    /// The margin of the fat boxes (see BasicDynamicTree::set_margin;
    /// default 0.1): a move within it does not touch the queries' tree, nor,
    /// with fat pairs on, the pairs. False (nothing changed) unless finite
    /// and >= 0. With fat pairs on, every object's fat box is made again: O(n).
    bool set_margin(T margin);
    T margin() const { return margin_; }

    /// Fat pairs: off (the default), pairs are exact on the tight boxes. On,
    /// a pair is two objects whose fat boxes overlap (each tight box grown by
    /// margin() on every side, and grown again only when the tight box leaves
    /// it), as Bullet's and Box2D's pair caches report: a superset of the
    /// exact pairs that changes only when a fat box does, so jittering or
    /// slowly moving objects cause no events and no work. The tree and sweep
    /// and prune methods then run as multi box pruning. Switching it makes
    /// every object changed for the next update: O(n).
    void set_fat_pairs(bool on);
    bool fat_pairs() const { return fat_pairs_; }
    /// The box an object's pairs are found with: its tight box, or with fat
    /// pairs on its fat box (id must be live).
    const box_type& pair_box(Id id) const { return objects_[id].pair_box; }
    /// Whether the last update ran incrementally.
    bool last_update_incremental() const { return last_method_ != UpdateMode::rebuild; }
    /// The method the last update ran: rebuild, tree, multi_box_pruning or
    /// sweep_and_prune (the first sweep_and_prune update is a rebuild that
    /// also sorts the endpoints).
    UpdateMode last_method() const { return last_method_; }
    /// The tree holding the objects with valid boxes (user value = object id),
    /// brought up to date first.
    const Tree& tree() const;

    /// Finds the current pairs and the events since the last update.
    /// Status::out_of_memory if an allocation failed (the pairs did not
    /// fit): the previous set is then kept (the next update reports against
    /// it), no events are given, and the scene stays usable. (So does a
    /// change, add() to set_margin(), that throws std::bad_alloc: the scene
    /// is as it was before the call.)
    Report update();

    /// The pairs of the last update, (a, b) with a < b, sorted. Kept as
    /// each object's list of partners, and made into this array by the first
    /// call after an update that changed it: O(K) then (K pairs), O(1) after
    /// (safe from concurrent const calls, as the queries are). An engine that
    /// follows the events needs never call it.
    const std::vector<Pair>& pairs() const {
        if (pairs_behind_.load(std::memory_order_acquire)) listed_pairs();
        return current_;
    }
    /// How many pairs the last update found (pairs().size(), without making
    /// the array). O(1).
    std::size_t pair_count() const { return pair_count_; }
    /// Pairs in the last update's set and not in the one before, sorted.
    const std::vector<Pair>& begun() const { return begun_; }
    /// Pairs in the set before the last update and not in it, sorted.
    const std::vector<Pair>& ended() const { return ended_; }

    // Queries: exact on the current tight boxes of the live objects with
    // valid boxes (moves since the last update() included; objects'
    // filters do not apply, except in the clipped casts below). Callbacks
    // return bool (false stops) or void, and each call returns false when
    // its callback stopped it. Typical cost O(log n + hits); see
    // dynamic_tree.hpp. The first query after changes brings the tree up to
    // date (O(changes * log n), under a lock, so concurrent queries stay
    // safe).

    /// f(id) for every object whose box overlaps q.
    template <class F>
    bool for_each_overlap(const box_type& q, F&& f) const {
        return overlaps(q, hit_callback_ref(f));
    }
    /// f(id) for every object whose box contains point p.
    template <class F>
    bool for_each_containing(const vec_type& p, F&& f) const {
        return containing(p, hit_callback_ref(f));
    }
    /// f(id) for every object whose box the closed sphere touches.
    template <class F>
    bool for_each_overlapping_sphere(const vec_type& center, T radius, F&& f) const {
        return sphere_overlaps(center, radius, hit_callback_ref(f));
    }
    /// The first object along origin + t * direction, t in [0, max_t]:
    /// {id, t}, id == null when nothing is hit.
    struct Hit {
        Id id = null;
        T t = T(0);
    };
    Hit ray_cast(const vec_type& origin, const vec_type& direction, T max_t) const;
    /// f(id, t) for every object the ray hits.
    template <class F>
    void for_each_ray_hit(const vec_type& origin, const vec_type& direction, T max_t, F&& f) const {
        using Fn = std::remove_reference_t<F>;
        ray_hits(origin, direction, max_t, {erased(f), &detail::call_ray_hit<Fn, T>});
    }
    /// The first object box `moving` touches when swept along `displacement`.
    Hit box_cast(const box_type& moving, const vec_type& displacement) const;

    // Casts an engine steers (Tree::ray_cast_clipped() and box_cast_clipped()
    // in dynamic_tree.hpp give the whole contract): filter first, then
    // f(id, t) -> T for each object hit within the current clip, t its
    // entry; f returns cast_ignore (< 0: skip the hit), cast_stop (0: stop),
    // a t' below the clip (clip the cast to t': farther subtrees are pruned)
    // or cast_continue; or bool (false stops) or void. `filter` is either
    // a Filter, the query's own (an object is tested iff Filter::may_meet(
    // filter, its filter): with the default Filter, category 1, objects
    // whose mask lacks bit 1 are skipped), or a predicate bool(Id); by
    // default every object. Typically O(log n + hits) node visits, fewer as
    // the clip shrinks; the result says how many (Tree::CastResult).
    using CastResult = typename Tree::CastResult;
    using AcceptAll = typename Tree::AcceptAll;
    static constexpr T cast_ignore = Tree::cast_ignore;
    static constexpr T cast_stop = Tree::cast_stop;
    static constexpr T cast_continue = Tree::cast_continue;

    /// The ray origin + t * direction, t in [0, max_t], against the
    /// objects' boxes: filter, then f(id, t) steering the cast (see above).
    template <class F, class Q = AcceptAll>
    CastResult ray_cast_clipped(const vec_type& origin, const vec_type& direction, T max_t, F&& f,
                                Q&& filter = Q{}) const {
        using Fn = std::remove_reference_t<F>;
        return ray_cast_erased(origin, direction, max_t, {erased(f), &detail::call_cast<Fn, T>}, cast_filter(filter));
    }
    /// Box `moving` swept along `displacement` (t in [0, 1]) against the
    /// objects' boxes: filter, then f(id, t) steering the cast (see above).
    template <class F, class Q = AcceptAll>
    CastResult box_cast_clipped(const box_type& moving, const vec_type& displacement, F&& f, Q&& filter = Q{}) const {
        using Fn = std::remove_reference_t<F>;
        return box_cast_erased(moving, displacement, {erased(f), &detail::call_cast<Fn, T>}, cast_filter(filter));
    }

    /// Share of the dynamic objects changed past which UpdateMode::automatic
    /// rebuilds rather than following the changes, for objects holding
    /// `partners` pairs each on average (2 x pairs / dynamic objects).
    /// The ratio of two costs linear in `partners`, fitted on the replays
    /// (measured: docs/measured-in-code.md\#scene): a rebuild's an object over the
    /// grid's a changed object. It is 21% with no partners, 14% at 2, 11%
    /// at 8 (a pile).
    static double rebuild_share(double partners) { return (1 + 0.28 * partners) / (4.8 + 3 * partners); }
    /// Crowding (detail::IncrementalGrid::crowding) past which automatic
    /// follows the changes by multi box pruning instead of the grid, until
    /// the object count doubles or halves.
    static constexpr double kGridCrowding = 16;
    /// Share of live objects changed up to which an incremental update
    /// reads and edits the changed objects' lists of partners; past it, it
    /// merges into the sorted array of all pairs (docs/scene.md).
    static constexpr double kPartnerShare = 0.04;

private:
    // The bodies of what follows are in src/scene/scene_impl.hpp and, for the
    // update machinery and the queries, detail/scene/scene_update.hpp and
    // detail/scene/scene_queries.hpp.
    using State = detail::SceneState<T, D>;

    // What the queries compile to, whatever the callback's type: f erased,
    // the tree walked out of line.
    bool overlaps(const box_type& q, HitCallbackRef f) const;
    bool containing(const vec_type& p, HitCallbackRef f) const;
    bool sphere_overlaps(const vec_type& center, T radius, HitCallbackRef f) const;
    void ray_hits(const vec_type& origin, const vec_type& direction, T max_t, detail::RayHitRef<T> f) const;
    CastResult ray_cast_erased(const vec_type& origin, const vec_type& direction, T max_t,
                               detail::CastCallbackRef<T> f, detail::CastFilterRef filter) const;
    CastResult box_cast_erased(const box_type& moving, const vec_type& displacement, detail::CastCallbackRef<T> f,
                               detail::CastFilterRef filter) const;
    template <class F>
    static void* erased(F& f) {
        return const_cast<void*>(static_cast<const void*>(std::addressof(f)));
    }
    /// A cast's filter, erased: a Filter, every object (AcceptAll), or a predicate.
    template <class Q>
    static detail::CastFilterRef cast_filter(Q& q) {
        if constexpr (std::is_same_v<std::decay_t<Q>, Filter>)
            return {&q, nullptr, nullptr};
        else if constexpr (std::is_same_v<std::decay_t<Q>, AcceptAll>)
            return {};
        else
            return {nullptr, erased(q), &detail::call_cast_filter<Q>};
    }
    Id object_of(std::uint32_t proxy) const;
    Hit hit_of(const typename Tree::Hit& h) const;
    /// The tree, brought up to date with the objects changed since its last
    /// sync. Safe from concurrent const calls: one of them syncs under the lock.
    const Tree& synced_tree() const;

    // How update() finds the pairs.
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
    void listed_pairs() const;
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

    /// The box pairs are found with for tight box b (see set_fat_pairs).
    box_type pairing_box_of(const box_type& b) const {
        if (!fat_pairs_ || !b.valid()) return b;
        box_type f = b;
        for (int k = 0; k < D; ++k) f.min[k] -= margin_, f.max[k] += margin_;
        return f;
    }
    /// Every live object's pair box made again from its tight box (after touch_all). O(n).
    void refresh_pair_boxes();
    void touch_all();
    /// Room for n objects in the registry and the per-object marks.
    void reserve_objects(std::size_t n);

    /// Marks an object changed since the last update (and since the tree's
    /// last sync). Called before the object changes: what may throw (growing
    /// the marks) comes first, so a bad_alloc leaves the object as it was,
    /// at most marked changed, which is harmless. (The update's own
    /// per-object arrays are grown by the update.)
    void touch(Id id) {
        mark_tree_stale(id);
        if (id >= dirty_flag_.size()) {
            meet_.resize(objects_.size(), 0);
            dirty_flag_.resize(objects_.size(), 0);  // last: its size stands for both
        }
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
        if (id >= tree_stale_.size())
            proxy_.resize(objects_.size(), Tree::null), tree_stale_.resize(objects_.size(), 0);  // tree_stale_ last, as above
        if (!tree_stale_[id]) tree_pending_.push_back(id), tree_stale_[id] = 1;
        tree_behind_.store(true, std::memory_order_relaxed);
    }

    struct Object {
        box_type box{};       // the tight box
        box_type pair_box{};  // the box pairs are found with: box, or with fat pairs its fat box
        std::uint64_t user_value = 0;
        Filter filter{};
        ObjectType type = ObjectType::dynamic_object;
        bool alive = false;
    };

    static Pair ordered(Id a, Id b) { return a < b ? Pair{a, b} : Pair{b, a}; }

    // By value: what the inline members read or mark. The rest is behind
    // state_ (detail/scene/scene_state.hpp).
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
    // (pairs() then makes it from each object's partners, in state_).
    mutable std::vector<Pair> current_;
    mutable std::atomic<bool> pairs_behind_{false};
    std::size_t pair_count_ = 0;
    std::vector<Pair> begun_, ended_;
    // What changed since the tree's last sync (the tree is in state_).
    mutable std::vector<std::uint32_t> proxy_;      // each object's leaf in the tree
    mutable std::vector<std::uint8_t> tree_stale_;  // changed since the tree's last sync
    mutable std::vector<Id> tree_pending_;
    mutable std::atomic<bool> tree_behind_{false};
    std::unique_ptr<State> state_;  // never null
};

/// A scene of 3-D float boxes.
using Scene = BasicScene<float, 3>;

// Compiled in the library, src/scene/scene.cpp, for float and double in 2-D and 3-D.
}  // namespace broadphase
