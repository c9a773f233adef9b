// BasicScene's update machinery (declared in ../../scene.hpp, which
// includes this file at its end, and documented there): update() and the
// methods it runs to find the pairs of the changed objects (multi box
// pruning, the incremental sweep, the tree, a rebuild), and the merges with
// the previous set that give the events. See scene_queries.hpp for the
// queries.
//
// Member functions are defined `inline` as they were when written in the
// class body; update() is not (see below).
#pragma once

// A body file: it comes after the header that declares what it defines,
// which includes it at its end, and does not include that header back.
#ifndef BROADPHASE_DECLARED_SCENE
#error "include <broadphase/scene.hpp> before <broadphase/detail/scene/scene_update.hpp>"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <vector>

#include "../../broadphase.hpp"
#include "../../options.hpp"
#include "../../pairs.hpp"
#include "../exceptions.hpp"
#include "../parallel.hpp"
#include "enlarged_bounds.hpp"
#include "incremental_grid.hpp"
#include "multi_box_pruning.hpp"
#include "static_set.hpp"

namespace broadphase {

// The members that run the library's algorithms are defined outside the
// class, as in the algorithms' headers: a class template's members defined
// inside it are inline, and GCC may instantiate inline members for
// inlining even where the class is declared `extern template` (compiled
// mode). (For update() it did not: a file calling it defined 30-32
// functions either way with the extern templates, 541 header-only.)

/// What an engine sees of the update that runs it (engines.hpp): the pair
/// sink and which objects are static.
template <class T, int D>
struct BasicScene<T, D>::Frame {
    BasicScene& scene;

    /// A pair with a changed object, from thread `me`: kept when the two may meet.
    void operator()(unsigned me, Id a, Id b) {
        if (scene.may_pair(a, b)) scene.parts_[me].push_back(ordered(a, b));
    }
    /// Whether an object is static: the engines hold none, and the tree's
    /// queries skip them (the scene pairs them: static_pairs()).
    bool is_static(Id id) const { return (scene.meet_[id] & kStatic) != 0; }
};

/// f(engine) for each engine that holds objects between updates.
template <class T, int D>
template <class F>
inline void BasicScene<T, D>::for_each_engine(F&& f) {
    f(pruning_);
    f(grid_);
    f(enlarged_);
}

template <class T, int D>
Report BasicScene<T, D>::update() {
    Report r;
    BROADPHASE_TRY {
        r = update_or_throw();
    } BROADPHASE_CATCH(const std::bad_alloc&) {
        // The engines may be half-way through a change: dropped, to be
        // filled again from the objects when next wanted.
        for_each_engine([](auto& engine) { engine.clear(); });  // (allocates nothing)
        statics_.clear();
        sets_stale_ = true;  // made again from the objects by the next update
        r = Report{};
        r.status = Status::out_of_memory;
    }
    if (!r.ok()) begun_.clear(), ended_.clear();  // (a rebuild's finder reports its failure without throwing)
    return r;
}

template <class T, int D>
inline Report BasicScene<T, D>::update_or_throw() {
    // Everything that may fail comes before the new set is taken: the
    // freed ids' room is made now, so the end allocates nothing.
    free_.reserve(free_.size() + retired_.size());
    // The statics and the list of dynamic objects follow the changes first;
    // the methods below are chosen by, and see, the dynamic objects only.
    ++updates_;
    if (sets_stale_) refill_sets();
    else file_changes();
    statics_.commit();
    std::size_t changed = 0;
    for (Id id : dirty_) changed += objects_[id].alive && !(meet_[id] & kStatic);
    const std::size_t live = dynamic_ids_.size();
    UpdateMode method = mode_;
    if (method == UpdateMode::automatic) {
        const bool crowded = grid_crowded_at_ != 0 && live < 2 * grid_crowded_at_ && 2 * live > grid_crowded_at_;
        // The two rules of the top of scene.hpp: follow the changes while
        // that costs less than a rebuild, by the grid unless it is crowded.
        const double partners = 2.0 * double(pair_count_) / double(std::max<std::size_t>(live, 1));
        if (double(changed) > rebuild_share(partners) * double(live)) method = UpdateMode::rebuild;
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
    const bool by_partners = double(dirty_.size()) <= kPartnerShare * double(std::max<std::size_t>(live_, 1));
    if (method != UpdateMode::rebuild && by_partners && !partners_valid_) list_partners();
    fresh_.clear();
    Frame frame{*this};
    // Every engine learns the changes (those that follow), the one that
    // runs finds the changed objects' pairs (fresh_).
    sync_engine(pruning_, method == UpdateMode::multi_box_pruning, method == UpdateMode::multi_box_pruning, frame);
    sync_engine(grid_, method == UpdateMode::grid, method == UpdateMode::grid, frame);
    sync_engine(enlarged_, method == UpdateMode::enlarged, method == UpdateMode::enlarged, frame);
    if (mode_ == UpdateMode::automatic && method == UpdateMode::grid && grid_.crowding() > kGridCrowding) {
        // Right this time; multi box pruning from the next update on, and
        // the grid's memory freed.
        grid_crowded_at_ = std::max<std::size_t>(live, 1);
        grid_.clear();
    }
    Report r;
    if (method == UpdateMode::rebuild) {
        r = rebuilt_pairs();
        if (!r.ok()) return r;
        sort_pairs(found_);
        const std::vector<Pair>& before = pairs();
        difference(found_, before, begun_);
        difference(before, found_, ended_);
        // The partners follow the events while these are few against the
        // set (a frame of coherent motion), so that the next incremental
        // update need not list them all again: O(n + K).
        const bool edit = partners_valid_ && 4 * (begun_.size() + ended_.size()) <= found_.size() + 1024;
        if (edit) edit_partners();
        take_found(edit);
    } else {
        static_pairs(frame);
        if (by_partners) {
            diff_by_partners();
        } else {
            sort_pairs(fresh_);
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

/// out = a \ b, both sorted.
template <class T, int D>
inline void BasicScene<T, D>::difference(const std::vector<Pair>& a, const std::vector<Pair>& b, std::vector<Pair>& out) {
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
/// fresh_ every pair with a changed object, each once.
template <class T, int D>
template <class Engine>
inline void BasicScene<T, D>::sync_engine(Engine& engine, bool wanted, bool search, Frame& frame) {
    if (!wanted && (!engine.filled() || !Engine::kFollows)) {
        if (engine.filled() && !Engine::kFollows) engine.clear();
        return;
    }
    if constexpr (Engine::kFollows) {
        if (wanted) {
            engine.idle_changes = 0;
        } else {
            engine.idle_changes += dirty_.size();
            if (engine.idle_changes > dynamic_ids_.size() / 4 + 1024) return engine.clear();
        }
    }
    if (!engine.filled()) {
        // Every dynamic object in, unmarked; then the changed ones as changed.
        for (Id id : dynamic_ids_)
            if (objects_[id].pair_box.valid() && !dirty_flag_[id]) engine.set(id, objects_[id].pair_box);
        engine.commit(frame, false, 1);
        engine.finish();
    }
    for (Id id : dirty_) {
        const Object& o = objects_[id];
        if (o.alive && o.pair_box.valid() && o.type == ObjectType::dynamic_object) engine.set(id, o.pair_box);
        else engine.erase(id);
    }
    // Threads: one per 1,024 changed objects at most.
    const unsigned threads = search ? detail::plan_threads(options_.threads, dirty_.size(), 1024) : 1;
    if (parts_.size() < threads) parts_.resize(threads);
    for (unsigned t = 0; t < threads; ++t) parts_[t].clear();
    engine.commit(frame, search, threads);
    for (unsigned t = 0; t < threads; ++t) fresh_.insert(fresh_.end(), parts_[t].begin(), parts_[t].end());
}

/// Whether objects a and b may form a pair (not both static, filters).
template <class T, int D>
inline bool BasicScene<T, D>::may_pair(Id a, Id b) const {
    const std::uint8_t x = meet_[a], y = meet_[b];  // packed: no visit to the objects for plain ones
    if (x & y & kStatic) return false;
    if (!((x | y) & kFiltered)) return true;
    return Filter::may_meet(objects_[a].filter, objects_[b].filter);
}

// The current set is held two ways, at least one of them up to date
// (partners_valid_ or !pairs_behind_): each object's partners, which the
// updates with few changed objects read and change (O(their pairs)), and
// the sorted array current_, which rebuilds and updates with many changed
// objects replace (O(K) merges, cheaper there than K scattered list edits;
// see kPartnerShare), and which pairs() makes from the partners on demand.

/// The events from fresh_ (every pair with a changed object now, each
/// once, in any order) against the changed objects' partners, one object at
/// a time: each pair goes to its changed object (the lower id when both
/// changed), the object's partners before are stamped, and its pairs now
/// either find their stamp (kept) or begin; stamps left unfound end. Then
/// the partners are edited. O(changed objects' pairs before and now), with
/// only the events sorted (the merge of sorted sets it replaces sorted
/// both sets first, O(K log K) in all the changed objects' pairs;
/// measured: docs/measured-in-code.md#scene).
template <class T, int D>
inline void BasicScene<T, D>::diff_by_partners() {
    // Every allocation first (the events are at most the pairs now and before).
    std::size_t before_count = 0;
    for (Id c : dirty_) before_count += partners_[c].size();
    grouped_.resize(fresh_.size());
    begun_.clear();
    ended_.clear();
    begun_.reserve(fresh_.size());
    ended_.reserve(before_count);
    // fresh_ grouped by changed object: counts in adds_, then start offsets.
    auto owner = [&](const Pair& p) { return dirty_flag_[p.a] ? p.a : p.b; };
    for (const Pair& p : fresh_) ++adds_[owner(p)];
    std::uint32_t at = 0;
    for (Id id : dirty_) {
        const std::uint32_t c = adds_[id];
        adds_[id] = at;
        at += c;
    }
    for (const Pair& p : fresh_) {
        const Id c = owner(p);
        grouped_[adds_[c]++] = c == p.a ? p.b : p.a;  // after this, adds_[c] = end of c's group
    }
    if (stamp_ > ~std::uint32_t(0) - 4) std::fill(mark_.begin(), mark_.end(), 0u), stamp_ = 0;
    std::uint32_t start = 0;
    for (Id c : dirty_) {
        const std::uint32_t end = adds_[c];
        adds_[c] = 0;
        const std::uint32_t before = stamp_ += 2, kept = before + 1;
        auto counted = [&](Id other) { return !dirty_flag_[other] || c < other; };  // the pair is c's to report
        for (Id other : partners_[c])
            if (counted(other)) mark_[other] = before;
        for (std::uint32_t t = start; t < end; ++t) {
            const Id other = grouped_[t];
            if (mark_[other] == before) mark_[other] = kept;
            else begun_.push_back(ordered(c, other));
        }
        for (Id other : partners_[c])
            if (counted(other) && mark_[other] == before) ended_.push_back(ordered(c, other));
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
inline void BasicScene<T, D>::edit_partners() {
    if (begun_.empty() && ended_.empty()) return;
    for (const Pair& p : begun_) ++adds_[p.a], ++adds_[p.b];
    BROADPHASE_TRY {
        for (const Pair& p : begun_)
            for (Id id : {p.a, p.b})
                if (adds_[id]) partners_[id].reserve(partners_[id].size() + adds_[id]), adds_[id] = 0;
    } BROADPHASE_CATCH_ALL {
        for (const Pair& p : begun_) adds_[p.a] = adds_[p.b] = 0;
        BROADPHASE_RETHROW;
    }
    // Nothing below allocates.
    auto drop = [](std::vector<Id>& list, Id other) {
        const auto at = std::find(list.begin(), list.end(), other);  // (always there)
        *at = list.back();
        list.pop_back();
    };
    for (const Pair& p : ended_) drop(partners_[p.a], p.b), drop(partners_[p.b], p.a);
    for (const Pair& p : begun_) partners_[p.a].push_back(p.b), partners_[p.b].push_back(p.a);
    pair_count_ = pair_count_ + begun_.size() - ended_.size();
    pairs_behind_.store(true, std::memory_order_release);
}

/// Every object's partners made from current_ (up to date): O(n + K).
/// May throw (leaving them out of date, as they were) only while the
/// lists are reserved.
template <class T, int D>
inline void BasicScene<T, D>::list_partners() {
    for (const Pair& p : current_) ++adds_[p.a], ++adds_[p.b];
    BROADPHASE_TRY {
        for (Id id = 0; id < partners_.size(); ++id)
            if (adds_[id] > partners_[id].capacity()) partners_[id].reserve(adds_[id]);
    } BROADPHASE_CATCH_ALL {
        std::fill(adds_.begin(), adds_.end(), 0u);
        BROADPHASE_RETHROW;
    }
    for (Id id = 0; id < partners_.size(); ++id) partners_[id].clear(), adds_[id] = 0;
    for (const Pair& p : current_) partners_[p.a].push_back(p.b), partners_[p.b].push_back(p.a);
    partners_valid_ = true;
}

/// found_ (the whole new set, sorted) becomes the current set; the
/// partners stay valid only if they were edited to it. O(1).
template <class T, int D>
inline void BasicScene<T, D>::take_found(bool partners_edited) {
    std::lock_guard<std::mutex> lock(pairs_mutex_);
    current_.swap(found_);
    pair_count_ = current_.size();
    partners_valid_ = partners_edited;
    pairs_behind_.store(false, std::memory_order_release);
}

/// current_ made from the partners: each object's higher partners, sorted,
/// in id order. O(K + the lists' sorts), once per update that changed the
/// set; under a lock, so concurrent const calls are safe.
template <class T, int D>
inline void BasicScene<T, D>::listed_pairs() const {
    std::lock_guard<std::mutex> lock(pairs_mutex_);
    if (!pairs_behind_.load(std::memory_order_relaxed)) return;  // another call made it
    current_.resize(pair_count_);
    std::size_t k = 0;
    for (Id a = 0; a < partners_.size(); ++a) {
        const std::size_t first = k;
        for (Id b : partners_[a])
            if (a < b) current_[k++] = Pair{a, b};
        std::sort(current_.begin() + static_cast<std::ptrdiff_t>(first), current_.begin() + static_cast<std::ptrdiff_t>(k),
                  [](const Pair& x, const Pair& y) { return x.b < y.b; });
    }
    pairs_behind_.store(false, std::memory_order_release);
}

/// Splits the current set (up to date: made first if need be): pairs with
/// a changed (or removed) object to stale_, the others to kept_. O(K).
template <class T, int D>
inline void BasicScene<T, D>::split_current() {
    pairs();
    const std::size_t n = current_.size();
    kept_.resize(n);
    stale_.resize(n);
    Pair* kept = kept_.data();
    Pair* stale = stale_.data();
    std::size_t k = 0, s = 0;
    for (const Pair& p : current_) {  // both written, one kept: no branch to mispredict
        const bool changed = dirty_flag_[p.a] | dirty_flag_[p.b];
        kept[k] = p;
        stale[s] = p;
        k += !changed;
        s += changed;
    }
    kept_.resize(k);
    stale_.resize(s);
}

/// The events and the new set from fresh_ (every pair with a changed
/// object, sorted), replacing stale_ in the array. O(K) merges; the
/// partners are then out of date.
template <class T, int D>
inline void BasicScene<T, D>::merge_changed_pairs() {
    difference(fresh_, stale_, begun_);
    difference(stale_, fresh_, ended_);
    partners_valid_ = false;
    // Sized first and written through: cheaper than a push_back a pair.
    current_.resize(kept_.size() + fresh_.size());
    std::merge(kept_.begin(), kept_.end(), fresh_.begin(), fresh_.end(), current_.begin());
    pair_count_ = current_.size();
}

/// found_ = every pair now, from scratch, unsorted: the dynamic objects'
/// pairs among themselves (detail::Rebuild) and each dynamic object's
/// statics (their index). O(dynamic objects + K), whatever the statics.
template <class T, int D>
inline Report BasicScene<T, D>::rebuilt_pairs() {
    rebuild_.clear_boxes();
    for (Id id : dynamic_ids_)
        if (objects_[id].pair_box.valid()) rebuild_.add(id, objects_[id].pair_box);
    Report r = rebuild_.find(options_, [&](Id a, Id b) { return may_pair(a, b); }, found_);
    if (!r.ok() || statics_.size() == 0) return r;
    const std::size_t n = dynamic_ids_.size();
    for (std::uint32_t place = 0; place < n; ++place) {
        if (place + 4 < n) prefetch_statics(place + 4);
        const Id id = dynamic_ids_[place];
        if (!objects_[id].pair_box.valid()) continue;
        static_pairs_of(place, id, [&](Id s) { found_.push_back(ordered(id, s)); });
    }
    return r;
}

/// emit(s) for each static s whose box overlaps dynamic object id's (valid)
/// pair box and that may meet it (filters); `place` is its place in
/// dynamic_ids_. From its cache of the
/// statics around it while its box stays inside the enlarged box they were
/// found with and no static changed since: O(those statics), in memory of
/// its own, the index untouched. Else they are found again, with a box
/// enlarged by its motion (detail::enlarged_box): O(an index query). Different
/// objects may run on different threads.
template <class T, int D>
template <class Emit>
inline void BasicScene<T, D>::static_pairs_of(std::uint32_t place, Id id, Emit&& emit) {
    StaticCache& cache = static_cache_[place];
    const box_type& b = objects_[id].pair_box;
    if (cache.generation != statics_.generation() || !broadphase::contains(cache.fat, b)) {
        cache.fat = detail::enlarged_box(b, cache.motion, updates_, detail::kStaticReach);
        cache.generation = statics_.generation();
        cache.hits.clear();
        statics_.for_each_overlap(cache.fat, [&](Id s, const box_type& box, bool filtered) {
            cache.hits.push_back(StaticHit{box, s, filtered});
        });
    }
    const bool plain = !(meet_[id] & kFiltered);
    for (const StaticHit& h : cache.hits) {
        bool hit = true;
        for (int k = 0; k < D; ++k) hit &= !(h.box.max[k] < b.min[k]) & !(b.max[k] < h.box.min[k]);
        if (hit && ((plain && !h.filtered) || Filter::may_meet(objects_[id].filter, objects_[h.id].filter))) emit(h.id);
    }
}

/// The statics and the list of dynamic objects follow the changed
/// objects: O(changes).
template <class T, int D>
inline void BasicScene<T, D>::file_changes() {
    if (dynamic_slot_.size() < objects_.size()) dynamic_slot_.resize(objects_.size(), ~std::uint32_t(0));
    bool touched = false;
    for (Id id : dirty_) {
        const Object& o = objects_[id];
        const bool dynamic = o.alive && o.type == ObjectType::dynamic_object;
        std::uint32_t& at = dynamic_slot_[id];
        if (dynamic && at == ~std::uint32_t(0)) {
            static_cache_.emplace_back();
            dynamic_ids_.push_back(id);
            at = static_cast<std::uint32_t>(dynamic_ids_.size() - 1);
        } else if (!dynamic && at != ~std::uint32_t(0)) {
            const Id last = dynamic_ids_.back();
            dynamic_ids_[at] = last;
            dynamic_slot_[last] = at;
            dynamic_ids_.pop_back();
            std::swap(static_cache_[at], static_cache_.back());
            static_cache_.pop_back();
            at = ~std::uint32_t(0);
        }
        if (o.alive && o.type == ObjectType::static_object && o.pair_box.valid()) statics_.set(id, o.pair_box, (meet_[id] & kFiltered) != 0), touched = true;
        else statics_.erase(id);
    }
    if (touched) statics_.touched();  // (a static refiltered: the caches' filter bits are stale)
}

/// The statics and the list of dynamic objects made from every object
/// (after an update failed half-way): O(n).
template <class T, int D>
inline void BasicScene<T, D>::refill_sets() {
    statics_.clear();
    dynamic_ids_.clear();
    static_cache_.clear();
    dynamic_slot_.assign(objects_.size(), ~std::uint32_t(0));
    for (Id id = 0; id < objects_.size(); ++id) {
        const Object& o = objects_[id];
        if (!o.alive) continue;
        if (o.type == ObjectType::dynamic_object) {
            dynamic_slot_[id] = static_cast<std::uint32_t>(dynamic_ids_.size());
            dynamic_ids_.push_back(id);
            static_cache_.emplace_back();
        } else if (o.pair_box.valid()) {
            statics_.set(id, o.pair_box, (meet_[id] & kFiltered) != 0);
        }
    }
    sets_stale_ = false;
}

/// Appends to fresh_ every pair of a changed object with a static (the
/// engines hold no statics): each changed dynamic object's statics, from
/// their index (O(its cells + overlaps)); then each changed static's
/// unchanged dynamic objects, by one search of the changed statics against
/// the dynamic objects (O(changed statics + dynamic objects), in frames
/// where statics changed only).
template <class T, int D>
inline void BasicScene<T, D>::static_pairs(Frame& frame) {
    changed_dynamic_.clear();
    static_side_.resize(0), static_side_ids_.clear();
    for (Id id : dirty_) {
        const Object& o = objects_[id];
        if (!o.alive || !o.pair_box.valid()) continue;
        if (o.type == ObjectType::dynamic_object) changed_dynamic_.push_back(id);
        else static_side_.push_back(o.pair_box), static_side_ids_.push_back(id);
    }
    if (statics_.size() > 0 && !changed_dynamic_.empty()) {
        const std::size_t m = changed_dynamic_.size();
        const unsigned threads = detail::plan_threads(options_.threads, m, 1024);
        if (parts_.size() < threads) parts_.resize(threads);
        for (unsigned t = 0; t < threads; ++t) parts_[t].clear();
        constexpr std::size_t per_task = 256;
        detail::run_tasks(threads, (m + per_task - 1) / per_task, [&](std::size_t t, unsigned me) {
            const std::size_t end = std::min(m, (t + 1) * per_task);
            for (std::size_t i = t * per_task; i < end; ++i) {
                if (i + 4 < end) prefetch_statics(dynamic_slot_[changed_dynamic_[i + 4]]);
                const Id c = changed_dynamic_[i];
                static_pairs_of(dynamic_slot_[c], c, [&](Id s) { parts_[me].push_back(ordered(c, s)); });
            }
        });
        for (unsigned t = 0; t < threads; ++t) fresh_.insert(fresh_.end(), parts_[t].begin(), parts_[t].end());
    }
    if (static_side_.size() == 0) return;
    dynamic_side_.resize(0), dynamic_side_ids_.clear();
    for (Id id : dynamic_ids_)
        if (!dirty_flag_[id] && objects_[id].pair_box.valid())
            dynamic_side_.push_back(objects_[id].pair_box), dynamic_side_ids_.push_back(id);
    if (dynamic_side_.size() == 0) return;
    Options o = options_;
    o.sorted = false;
    o.max_pairs = no_budget;
    const Report r = static_finder_.find_pairs(static_side_, dynamic_side_, cross_, o);
    if (r.status == Status::out_of_memory) BROADPHASE_THROW(std::bad_alloc());
    if (parts_.empty()) parts_.resize(1);
    parts_[0].clear();
    for (const Pair& p : cross_) frame(0u, static_side_ids_[p.a], dynamic_side_ids_[p.b]);
    fresh_.insert(fresh_.end(), parts_[0].begin(), parts_[0].end());
}

}  // namespace broadphase
