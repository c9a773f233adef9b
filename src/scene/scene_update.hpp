// The Scene's update machinery: SceneState's update() (scene_state.hpp;
// the contract is BasicScene::update's, in <broadphase/scene.hpp>) and the
// methods it runs to find the pairs of the changed objects (the engines of
// engines.hpp, a rebuild, the statics), and the merges with the previous
// set that give the events. See scene_queries.hpp for the queries.
//
// The helpers are defined `inline`; update() is not (see below). What they
// reach of the state's work (SceneWork: the engines, the statics, the
// scratch) is named `st`; the registry's fields (objects_, dirty_, ...)
// are the state's own.
#pragma once

#include <broadphase/scene.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/options.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/detail/exceptions.hpp>
#include <broadphase/detail/box_rules.hpp>
#include <broadphase/detail/parallel.hpp>
#include "scene/enlarged_bounds.hpp"
#include "scene/incremental_grid.hpp"
#include "scene/multi_box_pruning.hpp"
#include "scene/scene_state.hpp"
#include "scene/static_set.hpp"

namespace broadphase {
namespace detail {

// The members that run the library's algorithms are defined outside the
// class, as in the algorithms' headers: a class template's members defined
// inside it are inline, and GCC may instantiate inline members for
// inlining even where the class is declared `extern template` (compiled
// mode). (For update() it did not: a file calling it defined 30-32
// functions either way with the extern templates, 541 header-only.)

/// What an engine sees of the update that runs it (engines.hpp): the pair
/// sink and which objects are static.
template <class T, int D>
struct SceneState<T, D>::Frame {
    SceneState& scene;
    Work& st;

    /// A pair with a changed object, from thread `me`: kept when the two may meet.
    void operator()(unsigned me, Id a, Id b) {
        if (scene.may_pair(a, b)) st.parts[me].push_back(ordered(a, b));
    }
    /// Whether an object is static: the engines hold none, and the tree's
    /// queries skip them (the scene pairs them: static_pairs()).
    bool is_static(Id id) const { return (scene.meet_[id] & kStatic) != 0; }
};

/// f(engine) for each engine that holds objects between updates.
template <class T, int D>
template <class F>
inline void SceneState<T, D>::for_each_engine(F&& f) {
    Work& st = work_;
    f(st.pruning);
    f(st.grid);
    f(st.enlarged);
}

template <class T, int D>
Report SceneState<T, D>::update() {
    Work& st = work_;
    Report r = detail::on_throw<std::bad_alloc>([&] { return update_or_throw(); }, [&] {
        // The engines may be half-way through a change: dropped, to be
        // filled again from the objects when next wanted.
        for_each_engine([](auto& engine) { engine.clear(); });  // (allocates nothing)
        st.statics.clear();
        st.sets_stale = true;  // made again from the objects by the next update
        Report failed;
        failed.status = Status::out_of_memory;
        return failed;
    });
    if (!r.ok()) begun_.clear(), ended_.clear();  // (a rebuild's finder reports its failure without throwing)
    return r;
}

template <class T, int D>
inline Report SceneState<T, D>::update_or_throw() {
    Work& st = work_;
    // Everything that may fail comes before the new set is taken: the
    // freed ids' room is made now, so the end allocates nothing.
    free_.reserve(free_.size() + retired_.size());
    // The update's per-object arrays, grown here rather than by each add()
    // (nothing to grow in a frame that added no object).
    if (st.adds.size() < objects_.size()) {
        st.partners.resize(objects_.size());
        st.mark.resize(objects_.size(), 0);
        st.adds.resize(objects_.size(), 0);  // last: its size stands for the three
    }
    // The statics and the list of dynamic objects follow the changes first;
    // the methods below are chosen by, and see, the dynamic objects only.
    ++st.updates;
    if (st.sets_stale) refill_sets();
    else file_changes();
    st.statics.commit();
    std::size_t changed = 0;
    for (Id id : dirty_) changed += objects_[id].alive && !(meet_[id] & kStatic);
    const std::size_t live = st.dynamic_ids.size();
    UpdateMode method = mode_;
    if (method == UpdateMode::automatic) {
        const bool crowded = st.grid_crowded_at != 0 && live < 2 * st.grid_crowded_at && 2 * live > st.grid_crowded_at;
        // The two rules of the top of scene.hpp: follow the changes while
        // that costs less than a rebuild, by the grid unless it is crowded.
        const double partners = 2.0 * double(pair_count_) / double(std::max<std::size_t>(live, 1));
        if (double(changed) > Scene::rebuild_share(partners) * double(live)) method = UpdateMode::rebuild;
        else method = crowded ? UpdateMode::multi_box_pruning : UpdateMode::grid;
    }
    if (objects_.size() >= std::min({detail::MultiBoxPruning<T, D>::max_id,
                                     detail::IncrementalGrid<T, D>::max_id, detail::EnlargedBounds<T, D>::max_id})) {
        // Ids beyond what the regions and the grids can tag (2^31 objects).
        method = UpdateMode::rebuild;
        for_each_engine([](auto& engine) { engine.clear(); });
    }
    // The changed objects' pairs before, from their partners while few
    // objects changed, else from the sorted array.
    const bool by_partners = double(dirty_.size()) <= Scene::kPartnerShare * double(std::max<std::size_t>(live_, 1));
    if (method != UpdateMode::rebuild && by_partners && !st.partners_valid) list_partners();
    st.fresh.clear();
    Frame frame{*this, st};
    // Every engine learns the changes (those that follow), the one that
    // runs finds the changed objects' pairs (fresh).
    sync_engine(st.pruning, method == UpdateMode::multi_box_pruning, method == UpdateMode::multi_box_pruning, frame);
    sync_engine(st.grid, method == UpdateMode::grid, method == UpdateMode::grid, frame);
    sync_engine(st.enlarged, method == UpdateMode::enlarged, method == UpdateMode::enlarged, frame);
    if (mode_ == UpdateMode::automatic && method == UpdateMode::grid && st.grid.crowding() > Scene::kGridCrowding) {
        // Right this time; multi box pruning from the next update on, and
        // the grid's memory freed.
        st.grid_crowded_at = std::max<std::size_t>(live, 1);
        st.grid.clear();
    }
    Report r;
    if (method == UpdateMode::rebuild) {
        r = rebuilt_pairs();
        if (!r.ok()) return r;
        sort_pairs(st.found);
        const std::vector<Pair>& before = pairs();
        difference(st.found, before, begun_);
        difference(before, st.found, ended_);
        // The partners follow the events while these are few against the
        // set (a frame of coherent motion), so that the next incremental
        // update need not list them all again: O(n + K).
        const bool edit = st.partners_valid && 4 * (begun_.size() + ended_.size()) <= st.found.size() + 1024;
        if (edit) edit_partners();
        take_found(edit);
    } else {
        static_pairs(frame);
        if (by_partners) {
            diff_by_partners();
        } else {
            sort_pairs(st.fresh);
            split_current();
            merge_changed_pairs();
        }
    }
    for (Id id : dirty_) dirty_flag_[id] = 0;
    dirty_.clear();
    for_each_engine([](auto& engine) {
        if (engine.filled()) engine.finish();
    });
    last_method_ = method;
    // Ids whose end events are now out may be reused.
    free_.insert(free_.end(), retired_.begin(), retired_.end());
    retired_.clear();
    r.pairs = pair_count_;
    return r;
}

template <class T, int D>
inline void SceneState<T, D>::sort_pairs(std::vector<Pair>& v) {
    broadphase::sort_pairs(v, objects_.size(), work_.sort_scratch);
}

/// out = a \ b, both sorted.
template <class T, int D>
inline void SceneState<T, D>::difference(const std::vector<Pair>& a, const std::vector<Pair>& b, std::vector<Pair>& out) {
    out.resize(a.size());
    out.resize(static_cast<std::size_t>(std::set_difference(a.begin(), a.end(), b.begin(), b.end(), out.begin()) - out.begin()));
}

/// Brings an engine up to date with the changed objects (engines.hpp):
/// fills it the first time it is wanted; keeps it up to date from then on
/// (O(changes) a frame) if it follows, so that it serves again without
/// being filled again, or else clears it when it is not wanted. A follower
/// that followed more changes than a quarter of the objects since it last
/// ran is dropped too: following had then cost about what filling it again
/// will (a ski rental: multi box pruning rewrites every region a change
/// touches, O(entries of those regions), about what the engine that ran
/// spent; measured: docs/measured-in-code.md#scene). With search, appends to
/// fresh every pair with a changed object, each once.
template <class T, int D>
template <class Engine>
inline void SceneState<T, D>::sync_engine(Engine& engine, bool wanted, bool search, Frame& frame) {
    Work& st = work_;
    if (!wanted && (!engine.filled() || !Engine::kFollows)) {
        if (engine.filled() && !Engine::kFollows) engine.clear();
        return;
    }
    if constexpr (Engine::kFollows) {
        if (wanted) {
            engine.idle_changes = 0;
        } else {
            engine.idle_changes += dirty_.size();
            if (engine.idle_changes > st.dynamic_ids.size() / 4 + 1024) return engine.clear();
        }
    }
    if (!engine.filled()) {
        // Every dynamic object in, unmarked; then the changed ones as changed.
        for (Id id : st.dynamic_ids)
            if (objects_[id].pair_box.valid() && !dirty_flag_[id]) engine.set(id, objects_[id].pair_box);
        engine.commit(frame, false, 1);
        engine.finish();
    }
    for (Id id : dirty_) {
        const Object& o = objects_[id];
        if (o.alive && o.pair_box.valid() && o.type == ObjectType::dynamic_object) engine.set(id, o.pair_box);
        else engine.erase(id);
    }
    // Threads: a changed object is Work::four_boxes (1,024 a thread by default).
    const unsigned threads =
        search ? plan_threads(options_.threads, dirty_.size(), broadphase::Work::four_boxes, options_.min_boxes_per_thread) : 1;
    if (st.parts.size() < threads) st.parts.resize(threads);
    for (unsigned t = 0; t < threads; ++t) st.parts[t].clear();
    engine.commit(frame, search, threads);
    for (unsigned t = 0; t < threads; ++t) st.fresh.insert(st.fresh.end(), st.parts[t].begin(), st.parts[t].end());
}

/// Whether objects a and b may form a pair (not both static, filters).
template <class T, int D>
inline bool SceneState<T, D>::may_pair(Id a, Id b) const {
    const std::uint8_t x = meet_[a], y = meet_[b];  // packed: no visit to the objects for plain ones
    if (x & y & kStatic) return false;
    if (!((x | y) & kFiltered)) return true;
    return Filter::may_meet(objects_[a].filter, objects_[b].filter);
}

// The current set is held two ways, at least one of them up to date
// (partners_valid or !pairs_behind_): each object's partners, which the
// updates with few changed objects read and change (O(their pairs)), and
// the sorted array current_, which rebuilds and updates with many changed
// objects replace (O(K) merges, cheaper there than K scattered list edits;
// see kPartnerShare), and which pairs() makes from the partners on demand.

/// The events from fresh (every pair with a changed object now, each
/// once, in any order) against the changed objects' partners, one object at
/// a time: each pair goes to its changed object (the lower id when both
/// changed), the object's partners before are stamped, and its pairs now
/// either find their stamp (kept) or begin; stamps left unfound end. Then
/// the partners are edited. O(changed objects' pairs before and now), with
/// only the events sorted (the merge of sorted sets it replaces sorted
/// both sets first, O(K log K) in all the changed objects' pairs;
/// measured: docs/measured-in-code.md#scene).
template <class T, int D>
inline void SceneState<T, D>::diff_by_partners() {
    Work& st = work_;
    // Every allocation first (the events are at most the pairs now and before).
    std::size_t before_count = 0;
    for (Id c : dirty_) before_count += st.partners[c].size();
    st.grouped.resize(st.fresh.size());
    begun_.clear();
    ended_.clear();
    begun_.reserve(st.fresh.size());
    ended_.reserve(before_count);
    // fresh grouped by changed object: counts in adds, then start offsets.
    auto owner = [&](const Pair& p) { return dirty_flag_[p.a] ? p.a : p.b; };
    for (const Pair& p : st.fresh) ++st.adds[owner(p)];
    std::uint32_t at = 0;
    for (Id id : dirty_) {
        const std::uint32_t c = st.adds[id];
        st.adds[id] = at;
        at += c;
    }
    for (const Pair& p : st.fresh) {
        const Id c = owner(p);
        st.grouped[st.adds[c]++] = c == p.a ? p.b : p.a;  // after this, st.adds[c] = end of c's group
    }
    if (st.stamp > ~std::uint32_t(0) - 4) std::fill(st.mark.begin(), st.mark.end(), 0u), st.stamp = 0;
    std::uint32_t start = 0;
    for (Id c : dirty_) {
        const std::uint32_t end = st.adds[c];
        st.adds[c] = 0;
        const std::uint32_t before = st.stamp += 2, kept = before + 1;
        auto counted = [&](Id other) { return !dirty_flag_[other] || c < other; };  // the pair is c's to report
        for (Id other : st.partners[c])
            if (counted(other)) st.mark[other] = before;
        for (std::uint32_t t = start; t < end; ++t) {
            const Id other = st.grouped[t];
            if (st.mark[other] == before) st.mark[other] = kept;
            else begun_.push_back(ordered(c, other));
        }
        for (Id other : st.partners[c])
            if (counted(other) && st.mark[other] == before) ended_.push_back(ordered(c, other));
        start = end;
    }
    sort_pairs(begun_);
    sort_pairs(ended_);
    edit_partners();
}

/// The partners edited by the events (begun_, ended_): the lists that grow
/// are reserved first, so a bad_alloc leaves the last set as it was.
/// O(events x list length).
template <class T, int D>
inline void SceneState<T, D>::edit_partners() {
    Work& st = work_;
    if (begun_.empty() && ended_.empty()) return;
    for (const Pair& p : begun_) ++st.adds[p.a], ++st.adds[p.b];
    detail::undo_on_throw(
        [&] {
            for (const Pair& p : begun_)
                for (Id id : {p.a, p.b})
                    if (st.adds[id]) st.partners[id].reserve(st.partners[id].size() + st.adds[id]), st.adds[id] = 0;
        },
        [&] {
            for (const Pair& p : begun_) st.adds[p.a] = st.adds[p.b] = 0;
        });
    // Nothing below allocates.
    auto drop = [](std::vector<Id>& list, Id other) {
        const auto at = std::find(list.begin(), list.end(), other);  // (always there)
        *at = list.back();
        list.pop_back();
    };
    for (const Pair& p : ended_) drop(st.partners[p.a], p.b), drop(st.partners[p.b], p.a);
    for (const Pair& p : begun_) st.partners[p.a].push_back(p.b), st.partners[p.b].push_back(p.a);
    pair_count_ = pair_count_ + begun_.size() - ended_.size();
    pairs_behind_.store(true, std::memory_order_release);
}

/// Every object's partners made from current_ (up to date): O(n + K).
/// May throw (leaving them out of date, as they were) only while the
/// lists are reserved.
template <class T, int D>
inline void SceneState<T, D>::list_partners() {
    Work& st = work_;
    for (const Pair& p : current_) ++st.adds[p.a], ++st.adds[p.b];
    detail::undo_on_throw(
        [&] {
            for (Id id = 0; id < st.partners.size(); ++id)
                if (st.adds[id] > st.partners[id].capacity()) st.partners[id].reserve(st.adds[id]);
        },
        [&] { std::fill(st.adds.begin(), st.adds.end(), 0u); });
    for (Id id = 0; id < st.partners.size(); ++id) st.partners[id].clear(), st.adds[id] = 0;
    for (const Pair& p : current_) st.partners[p.a].push_back(p.b), st.partners[p.b].push_back(p.a);
    st.partners_valid = true;
}

/// found (the whole new set, sorted) becomes the current set; the
/// partners stay valid only if they were edited to it. O(1).
template <class T, int D>
inline void SceneState<T, D>::take_found(bool partners_edited) {
    Work& st = work_;
    std::lock_guard<std::mutex> lock(st.pairs_mutex);
    current_.swap(st.found);
    pair_count_ = current_.size();
    st.partners_valid = partners_edited;
    pairs_behind_.store(false, std::memory_order_release);
}

/// current_ made from the partners: each object's higher partners, sorted,
/// in id order. O(K + the lists' sorts), once per update that changed the
/// set; under a lock, so concurrent const calls are safe.
template <class T, int D>
inline void SceneState<T, D>::listed_pairs() {
    Work& st = work_;
    std::lock_guard<std::mutex> lock(st.pairs_mutex);
    if (!pairs_behind_.load(std::memory_order_relaxed)) return;  // another call made it
    current_.resize(pair_count_);
    std::size_t k = 0;
    for (Id a = 0; a < st.partners.size(); ++a) {
        const std::size_t first = k;
        for (Id b : st.partners[a])
            if (a < b) current_[k++] = Pair{a, b};
        std::sort(current_.begin() + static_cast<std::ptrdiff_t>(first), current_.begin() + static_cast<std::ptrdiff_t>(k),
                  [](const Pair& x, const Pair& y) { return x.b < y.b; });
    }
    pairs_behind_.store(false, std::memory_order_release);
}

/// Splits the current set (up to date: made first if need be): pairs with
/// a changed (or removed) object to stale, the others to kept. O(K).
template <class T, int D>
inline void SceneState<T, D>::split_current() {
    Work& st = work_;
    pairs();
    const std::size_t n = current_.size();
    st.kept.resize(n);
    st.stale.resize(n);
    Pair* kept = st.kept.data();
    Pair* stale = st.stale.data();
    std::size_t k = 0, s = 0;
    for (const Pair& p : current_) {  // both written, one kept: no branch to mispredict
        const bool changed = dirty_flag_[p.a] | dirty_flag_[p.b];
        kept[k] = p;
        stale[s] = p;
        k += !changed;
        s += changed;
    }
    st.kept.resize(k);
    st.stale.resize(s);
}

/// The events and the new set from fresh (every pair with a changed
/// object, sorted), replacing stale in the array. O(K) merges; the
/// partners are then out of date.
template <class T, int D>
inline void SceneState<T, D>::merge_changed_pairs() {
    Work& st = work_;
    difference(st.fresh, st.stale, begun_);
    difference(st.stale, st.fresh, ended_);
    st.partners_valid = false;
    // Sized first and written through: cheaper than a push_back a pair.
    current_.resize(st.kept.size() + st.fresh.size());
    std::merge(st.kept.begin(), st.kept.end(), st.fresh.begin(), st.fresh.end(), current_.begin());
    pair_count_ = current_.size();
}

/// found = every pair now, from scratch, unsorted: the dynamic objects'
/// pairs among themselves (detail::Rebuild) and each dynamic object's
/// statics (their index). O(dynamic objects + K), whatever the statics.
template <class T, int D>
inline Report SceneState<T, D>::rebuilt_pairs() {
    Work& st = work_;
    st.rebuild.clear_boxes();
    for (Id id : st.dynamic_ids)
        if (objects_[id].pair_box.valid()) st.rebuild.add(id, objects_[id].pair_box);
    Report r = st.rebuild.find(options_, [&](Id a, Id b) { return may_pair(a, b); }, st.found);
    if (!r.ok() || st.statics.size() == 0) return r;
    const std::size_t n = st.dynamic_ids.size();
    for (std::uint32_t place = 0; place < n; ++place) {
        if (place + 4 < n) st.prefetch_statics(place + 4);
        const Id id = st.dynamic_ids[place];
        if (!objects_[id].pair_box.valid()) continue;
        static_pairs_of(place, id, [&](Id s) { st.found.push_back(ordered(id, s)); });
    }
    return r;
}

/// emit(s) for each static s whose box overlaps dynamic object id's (valid)
/// pair box and that may meet it (filters); `place` is its place in
/// dynamic_ids. From its cache of the
/// statics around it while its box stays inside the enlarged box they were
/// found with and no static changed since: O(those statics), in memory of
/// its own, the index untouched. Else they are found again, with a box
/// enlarged by its motion (detail::enlarged_box): O(an index query). Different
/// objects may run on different threads.
template <class T, int D>
template <class Emit>
inline void SceneState<T, D>::static_pairs_of(std::uint32_t place, Id id, Emit&& emit) {
    Work& st = work_;
    typename Work::StaticCache& cache = st.static_cache[place];
    const box_type& b = objects_[id].pair_box;
    if (cache.generation != st.statics.generation() || !broadphase::contains(cache.fat, b)) {
        cache.fat = detail::enlarged_box(b, cache.motion, st.updates, detail::kStaticReach);
        cache.generation = st.statics.generation();
        cache.hits.clear();
        st.statics.for_each_overlap(cache.fat, [&](Id s, const box_type& box, bool filtered) {
            cache.hits.push_back(typename Work::StaticHit{box, s, filtered});
        });
    }
    const bool plain = !(meet_[id] & kFiltered);
    for (const typename Work::StaticHit& h : cache.hits) {
        bool hit = true;
        for (int k = 0; k < D; ++k) hit &= detail::intervals_overlap_flat(h.box.min[k], h.box.max[k], b.min[k], b.max[k]);
        if (hit && ((plain && !h.filtered) || Filter::may_meet(objects_[id].filter, objects_[h.id].filter))) emit(h.id);
    }
}

/// The statics and the list of dynamic objects follow the changed
/// objects: O(changes).
template <class T, int D>
inline void SceneState<T, D>::file_changes() {
    Work& st = work_;
    if (st.dynamic_slot.size() < objects_.size()) st.dynamic_slot.resize(objects_.size(), ~std::uint32_t(0));
    bool touched = false;
    for (Id id : dirty_) {
        const Object& o = objects_[id];
        const bool dynamic = o.alive && o.type == ObjectType::dynamic_object;
        std::uint32_t& at = st.dynamic_slot[id];
        if (dynamic && at == ~std::uint32_t(0)) {
            st.static_cache.emplace_back();
            st.dynamic_ids.push_back(id);
            at = static_cast<std::uint32_t>(st.dynamic_ids.size() - 1);
        } else if (!dynamic && at != ~std::uint32_t(0)) {
            const Id last = st.dynamic_ids.back();
            st.dynamic_ids[at] = last;
            st.dynamic_slot[last] = at;
            st.dynamic_ids.pop_back();
            std::swap(st.static_cache[at], st.static_cache.back());
            st.static_cache.pop_back();
            at = ~std::uint32_t(0);
        }
        if (o.alive && o.type == ObjectType::static_object && o.pair_box.valid()) st.statics.set(id, o.pair_box, (meet_[id] & kFiltered) != 0), touched = true;
        else st.statics.erase(id);
    }
    if (touched) st.statics.touched();  // (a static refiltered: the caches' filter bits are stale)
}

/// The statics and the list of dynamic objects made from every object
/// (after an update failed half-way): O(n).
template <class T, int D>
inline void SceneState<T, D>::refill_sets() {
    Work& st = work_;
    st.statics.clear();
    st.dynamic_ids.clear();
    st.static_cache.clear();
    st.dynamic_slot.assign(objects_.size(), ~std::uint32_t(0));
    for (Id id = 0; id < objects_.size(); ++id) {
        const Object& o = objects_[id];
        if (!o.alive) continue;
        if (o.type == ObjectType::dynamic_object) {
            st.dynamic_slot[id] = static_cast<std::uint32_t>(st.dynamic_ids.size());
            st.dynamic_ids.push_back(id);
            st.static_cache.emplace_back();
        } else if (o.pair_box.valid()) {
            st.statics.set(id, o.pair_box, (meet_[id] & kFiltered) != 0);
        }
    }
    st.sets_stale = false;
}

/// Appends to fresh every pair of a changed object with a static (the
/// engines hold no statics): each changed dynamic object's statics, from
/// their index (O(its cells + overlaps)); then each changed static's
/// unchanged dynamic objects, by one search of the changed statics against
/// the dynamic objects (O(changed statics + dynamic objects), in frames
/// where statics changed only).
template <class T, int D>
inline void SceneState<T, D>::static_pairs(Frame& frame) {
    Work& st = work_;
    st.changed_dynamic.clear();
    st.static_side.resize(0), st.static_side_ids.clear();
    for (Id id : dirty_) {
        const Object& o = objects_[id];
        if (!o.alive || !o.pair_box.valid()) continue;
        if (o.type == ObjectType::dynamic_object) st.changed_dynamic.push_back(id);
        else st.static_side.push_back(o.pair_box), st.static_side_ids.push_back(id);
    }
    if (st.statics.size() > 0 && !st.changed_dynamic.empty()) {
        const std::size_t m = st.changed_dynamic.size();
        const unsigned threads = plan_threads(options_.threads, m, broadphase::Work::four_boxes, options_.min_boxes_per_thread);
        if (st.parts.size() < threads) st.parts.resize(threads);
        for (unsigned t = 0; t < threads; ++t) st.parts[t].clear();
        constexpr std::size_t per_task = 256;
        detail::run_tasks(threads, (m + per_task - 1) / per_task, [&](std::size_t t, unsigned me) {
            const std::size_t end = std::min(m, (t + 1) * per_task);
            for (std::size_t i = t * per_task; i < end; ++i) {
                if (i + 4 < end) st.prefetch_statics(st.dynamic_slot[st.changed_dynamic[i + 4]]);
                const Id c = st.changed_dynamic[i];
                static_pairs_of(st.dynamic_slot[c], c, [&](Id s) { st.parts[me].push_back(ordered(c, s)); });
            }
        });
        for (unsigned t = 0; t < threads; ++t) st.fresh.insert(st.fresh.end(), st.parts[t].begin(), st.parts[t].end());
    }
    if (st.static_side.size() == 0) return;
    st.dynamic_side.resize(0), st.dynamic_side_ids.clear();
    for (Id id : st.dynamic_ids)
        if (!dirty_flag_[id] && objects_[id].pair_box.valid())
            st.dynamic_side.push_back(objects_[id].pair_box), st.dynamic_side_ids.push_back(id);
    if (st.dynamic_side.size() == 0) return;
    Options o = options_;
    o.sorted = false;
    o.max_pairs = no_budget;
    const Report r = st.static_finder.find_pairs(st.static_side, st.dynamic_side, st.cross, o);
    if (r.status == Status::out_of_memory) detail::throw_or_abort(std::bad_alloc());
    if (st.parts.empty()) st.parts.resize(1);
    st.parts[0].clear();
    for (const Pair& p : st.cross) frame(0u, st.static_side_ids[p.a], st.dynamic_side_ids[p.b]);
    st.fresh.insert(st.fresh.end(), st.parts[0].begin(), st.parts[0].end());
}

}  // namespace detail
}  // namespace broadphase
