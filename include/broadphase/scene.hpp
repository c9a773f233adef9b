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
// built in bulk (src/scene/static_set.hpp: a home-cell grid, plus a
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
// (src/scene/engines.hpp): the changed objects in (added, moved, removed,
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
// This file holds the public API and its contracts, with each call's cost,
// and one pointer: everything a scene holds (the objects, the marks of what
// changed, the engines, the statics' index, the query tree, the pairs and
// the update's scratch) is detail::SceneState (src/scene/scene_state.hpp). Each member is one call to it, compiled once in the
// library (src/scene/scene.cpp) for float and double, 2-D and 3-D: a
// per-object call (add, move, ...) costs a call and a pointer load more than
// the work it does. The queries taking a callback erase it here (hits reach
// it in blocks, as the Index's do) and call one compiled member per kind of
// query. Other scalar types or dimensions: the single header
// (single_include/broadphase.hpp), or src/scene/scene_impl.hpp after this
// file.
#pragma once
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

/// Everything a BasicScene holds, behind its pointer (src/scene/scene_state.hpp).
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

/// A caller's callback (or predicate) as the void* the erased calls take.
template <class F>
void* erased_callback(F& f) {
    return const_cast<void*>(static_cast<const void*>(std::addressof(f)));
}

/// A cast's filter, erased: a Filter, every object (AcceptAll, the tree's
/// type), or a predicate.
template <class AcceptAll, class Q>
CastFilterRef cast_filter_ref(Q& q) {
    if constexpr (std::is_same_v<std::decay_t<Q>, Filter>)
        return {&q, nullptr, nullptr};
    else if constexpr (std::is_same_v<std::decay_t<Q>, AcceptAll>)
        return {};
    else
        return {nullptr, erased_callback(q), &call_cast_filter<Q>};
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

    /// An empty scene: five allocations, about 60 KB (the state, and in it
    /// the four one-shot finders: the rebuild's, the changed statics', the
    /// statics' index's two), every other structure's memory empty.
    BasicScene();
    /// Frees everything the scene holds: O(n).
    ~BasicScene();
    /// Not copyable nor movable: concurrent const calls sync the tree and
    /// the pairs under the scene's own locks.
    BasicScene(const BasicScene&) = delete;
    BasicScene& operator=(const BasicScene&) = delete;

    // ---- Objects. Every change below marks the object for the next
    // update() and the queries' tree; if an allocation throws
    // std::bad_alloc, the scene is as it was before the call.

    /// Adds an object; returns its id. An invalid box (NaN, min > max) is
    /// kept but meets nothing until moved to a valid one. O(1) amortised.
    /// Returns null (and adds nothing) when every id is taken: ids are
    /// 32-bit, and a scene holds at most max_boxes ids, removed ones not yet
    /// reusable included.
    Id add(const box_type& box, ObjectType type = ObjectType::dynamic_object, std::uint64_t user_value = 0,
           const Filter& filter = {});

    /// Removes an object; false if id is not a live object. Its pairs end at
    /// the next update(). O(1).
    bool remove(Id id);

    /// Gives an object its new box (the tight box); false if id is not a
    /// live object. O(1). With fat pairs on, a move that stays inside the
    /// object's fat box changes no pair and costs the next update nothing
    /// (only the queries' tree follows it).
    bool move(Id id, const box_type& box);

    /// Adds n objects of one type at once; ids_out[i] gets boxes[i]'s id.
    /// O(n), the memory for all of them made once. A static world is added
    /// this way: the next update() builds the statics' index in bulk (see
    /// "Statics" at the top of this file; measured: docs/measured-in-code.md\#scene).
    void add(const box_type* boxes, std::size_t n, Id* ids_out, ObjectType type = ObjectType::dynamic_object);

    /// Moves n objects at once (ids[i] gets boxes[i]), as n move() calls:
    /// O(n). Returns how many ids were live.
    std::size_t move(const Id* ids, const box_type* boxes, std::size_t n);
    /// Removes n objects at once, as n remove() calls: O(n). Returns how
    /// many ids were live.
    std::size_t remove(const Id* ids, std::size_t n);

    /// Makes an object static or dynamic; false if id is not live. O(1).
    bool set_type(Id id, ObjectType type);
    /// Gives an object a new filter; false if id is not live. O(1).
    bool set_filter(Id id, const Filter& f);
    /// Gives an object a new user value (no update needed); false if id is
    /// not live. O(1).
    bool set_user_value(Id id, std::uint64_t v);

    /// Whether id is a live object. O(1).
    bool contains(Id id) const;
    /// Live objects. O(1).
    std::size_t size() const;
    /// An object's tight box (id must be live). O(1).
    const box_type& box(Id id) const;
    /// An object's type (id must be live). O(1).
    ObjectType type(Id id) const;
    /// An object's filter (id must be live). O(1).
    const Filter& filter(Id id) const;
    /// An object's user value (id must be live). O(1).
    std::uint64_t user_value(Id id) const;

    // ---- Settings.

    /// Threads for the pair search and the algorithm (Options::threads and
    /// Options::algorithm apply; sorted and max_pairs do not). O(1).
    void set_options(const Options& o);
    /// How the next updates find the pairs (UpdateMode). O(1).
    void set_update_mode(UpdateMode m);
    /// The margin of the fat boxes (see BasicDynamicTree::set_margin;
    /// default 0.1): a move within it does not touch the queries' tree, nor,
    /// with fat pairs on, the pairs. False (nothing changed) unless finite
    /// and >= 0. O(1); with fat pairs on, every object's fat box is made
    /// again: O(n).
    bool set_margin(T margin);
    /// The fat boxes' margin. O(1).
    T margin() const;

    /// Fat pairs: off (the default), pairs are exact on the tight boxes. On,
    /// a pair is two objects whose fat boxes overlap (each tight box grown by
    /// margin() on every side, and grown again only when the tight box leaves
    /// it), as Bullet's and Box2D's pair caches report: a superset of the
    /// exact pairs that changes only when a fat box does, so jittering or
    /// slowly moving objects cause no events and no work. Switching it makes
    /// every object changed for the next update: O(n).
    void set_fat_pairs(bool on);
    /// Whether fat pairs are on. O(1).
    bool fat_pairs() const;
    /// The box an object's pairs are found with: its tight box, or with fat
    /// pairs on its fat box (id must be live). O(1).
    const box_type& pair_box(Id id) const;
    /// Whether the last update followed the changes (any method but
    /// rebuild). O(1).
    bool last_update_incremental() const;
    /// The method the last update ran: rebuild, grid, multi_box_pruning or
    /// enlarged (never automatic: the method it chose). O(1).
    UpdateMode last_method() const;
    /// The tree holding the objects with valid boxes (user value = object id),
    /// brought up to date first: O(changes since the last sync x log n).
    const Tree& tree() const;

    // ---- Pairs and events.

    /// Finds the current pairs and the events since the last update.
    /// O(changed dynamic objects + their pairs) when it follows the changes,
    /// a one-shot search of the dynamic objects when it rebuilds (see the
    /// top of this file). Status::out_of_memory if an allocation failed (the
    /// pairs did not fit): the previous set is then kept (the next update
    /// reports against it), no events are given, and the scene stays usable.
    /// (So does a change, add() to set_margin(), that throws std::bad_alloc:
    /// the scene is as it was before the call.)
    Report update();

    /// The pairs of the last update, (a, b) with a < b, sorted. Kept as
    /// each object's list of partners, and made into this array by the first
    /// call after an update that changed it: O(K) then (K pairs), O(1) after
    /// (safe from concurrent const calls, as the queries are). An engine that
    /// follows the events needs never call it.
    const std::vector<Pair>& pairs() const;
    /// How many pairs the last update found (pairs().size(), without making
    /// the array). O(1).
    std::size_t pair_count() const;
    /// Pairs in the last update's set and not in the one before, sorted. O(1).
    const std::vector<Pair>& begun() const;
    /// Pairs in the set before the last update and not in it, sorted. O(1).
    const std::vector<Pair>& ended() const;

    // ---- Queries: exact on the current tight boxes of the live objects
    // with valid boxes (moves since the last update() included; objects'
    // filters do not apply, except in the clipped casts below). Callbacks
    // return bool (false stops) or void, and each call returns false when
    // its callback stopped it. Typical cost O(log n + hits); see
    // dynamic_tree.hpp. The first query after changes brings the tree up to
    // date (O(changes * log n), under a lock, so concurrent queries stay
    // safe).

    /// f(id) for every object whose box overlaps q. O(log n + hits).
    template <class F>
    bool for_each_overlap(const box_type& q, F&& f) const {
        return overlaps(q, hit_callback_ref(f));
    }
    /// f(id) for every object whose box contains point p. O(log n + hits).
    template <class F>
    bool for_each_containing(const vec_type& p, F&& f) const {
        return containing(p, hit_callback_ref(f));
    }
    /// f(id) for every object whose box the closed sphere touches.
    /// O(log n + hits).
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
    /// O(log n) typically: the walk prunes what lies past the nearest hit.
    Hit ray_cast(const vec_type& origin, const vec_type& direction, T max_t) const;
    /// f(id, t) for every object the ray hits. O(log n + hits).
    template <class F>
    void for_each_ray_hit(const vec_type& origin, const vec_type& direction, T max_t, F&& f) const {
        using Fn = std::remove_reference_t<F>;
        ray_hits(origin, direction, max_t, {detail::erased_callback(f), &detail::call_ray_hit<Fn, T>});
    }
    /// The first object box `moving` touches when swept along `displacement`.
    /// O(log n) typically, as ray_cast.
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
        return ray_cast_erased(origin, direction, max_t, {detail::erased_callback(f), &detail::call_cast<Fn, T>},
                               detail::cast_filter_ref<AcceptAll>(filter));
    }
    /// Box `moving` swept along `displacement` (t in [0, 1]) against the
    /// objects' boxes: filter, then f(id, t) steering the cast (see above).
    template <class F, class Q = AcceptAll>
    CastResult box_cast_clipped(const box_type& moving, const vec_type& displacement, F&& f, Q&& filter = Q{}) const {
        using Fn = std::remove_reference_t<F>;
        return box_cast_erased(moving, displacement, {detail::erased_callback(f), &detail::call_cast<Fn, T>},
                               detail::cast_filter_ref<AcceptAll>(filter));
    }

    // ---- The automatic mode's constants (the top of this file).

    /// Share of the dynamic objects changed past which UpdateMode::automatic
    /// rebuilds rather than following the changes, for objects holding
    /// `partners` pairs each on average (2 x pairs / dynamic objects).
    /// The ratio of two costs linear in `partners`, fitted on the replays
    /// (measured: docs/measured-in-code.md\#scene): a rebuild's an object over the
    /// grid's a changed object. It is 21% with no partners, 14% at 2, 11%
    /// at 8 (a pile). O(1).
    static double rebuild_share(double partners) { return (1 + 0.28 * partners) / (4.8 + 3 * partners); }
    /// Crowding (the mean, over objects, of the entries in their grid cell)
    /// past which automatic follows the changes by multi box pruning instead
    /// of the grid, until the object count doubles or halves.
    static constexpr double kGridCrowding = 16;
    /// Share of live objects changed up to which an incremental update
    /// reads and edits the changed objects' lists of partners; past it, it
    /// merges into the sorted array of all pairs (docs/scene.md).
    static constexpr double kPartnerShare = 0.04;

private:
    // The compiled halves of the query templates above, the callback
    // erased (src/scene/scene_queries.hpp).
    bool overlaps(const box_type& q, HitCallbackRef f) const;
    bool containing(const vec_type& p, HitCallbackRef f) const;
    bool sphere_overlaps(const vec_type& center, T radius, HitCallbackRef f) const;
    void ray_hits(const vec_type& origin, const vec_type& direction, T max_t, detail::RayHitRef<T> f) const;
    CastResult ray_cast_erased(const vec_type& origin, const vec_type& direction, T max_t,
                               detail::CastCallbackRef<T> f, detail::CastFilterRef filter) const;
    CastResult box_cast_erased(const box_type& moving, const vec_type& displacement, detail::CastCallbackRef<T> f,
                               detail::CastFilterRef filter) const;

    std::unique_ptr<detail::SceneState<T, D>> state_;  // everything the scene holds; never null
};

/// A scene of 3-D float boxes.
using Scene = BasicScene<float, 3>;

// Compiled in the library, src/scene/scene.cpp, for float and double in 2-D and 3-D.
}  // namespace broadphase
