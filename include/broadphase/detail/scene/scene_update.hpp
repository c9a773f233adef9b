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

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <vector>

#include "../../broadphase.hpp"
#include "../../options.hpp"
#include "../../pairs.hpp"
#include "../../scene.hpp"
#include "../exceptions.hpp"
#include "../parallel.hpp"
#include "incremental_sweep.hpp"
#include "incremental_grid.hpp"
#include "multi_box_pruning.hpp"

namespace broadphase {

// The members that run the library's algorithms are defined outside the
// class, as in the algorithms' headers: a class template's members defined
// inside it are inline, and GCC may instantiate inline members for
// inlining even where the class is declared `extern template` (compiled
// mode). (For update() it did not: a file calling it defined 30-32
// functions either way with the extern templates, 541 header-only.)

template <class T, int D>
Report BasicScene<T, D>::update() {
    Report r;
    BROADPHASE_TRY {
        r = update_or_throw();
    } BROADPHASE_CATCH(const std::bad_alloc&) {
        // The sweep and the regions may be half-way through a change:
        // dropped, to be made again from the objects when next wanted.
        if (sweep_on_) sweep_.clear(), sweep_on_ = false;  // (clear() allocates nothing)
        pruning_ = detail::MultiBoxPruning<T, D>{};
        pruning_on_ = false;
        grid_ = detail::IncrementalGrid<T, D>{};
        grid_on_ = false;
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
    std::size_t changed = 0;
    for (Id id : dirty_) changed += objects_[id].alive;
    UpdateMode method = mode_;
    if (method == UpdateMode::automatic) {
        const bool crowded = grid_crowded_at_ != 0 && live_ < 2 * grid_crowded_at_ && 2 * live_ > grid_crowded_at_;
        if (double(changed) <= kGridShare * double(live_) && !crowded) method = UpdateMode::grid;
        else if (double(changed) <= kIncrementalShare * double(live_)) method = UpdateMode::multi_box_pruning;
        else method = UpdateMode::rebuild;
    }
    if (fat_pairs_ && (method == UpdateMode::tree || method == UpdateMode::sweep_and_prune))
        method = UpdateMode::multi_box_pruning;  // their searches use the tree's tight boxes
    if (objects_.size() >= std::min({Sweep::max_id, detail::MultiBoxPruning<T, D>::max_id, detail::IncrementalGrid<T, D>::max_id})) {
        // Ids beyond what the sweep, the regions and the grid can tag (2^31 objects).
        if (method == UpdateMode::sweep_and_prune || method == UpdateMode::multi_box_pruning || method == UpdateMode::grid)
            method = UpdateMode::rebuild;
        pruning_on_ = grid_on_ = false;
    }
    // The sweep is kept only while it runs: following every move through
    // rebuild frames would cost more than sorting it again. Its first
    // frame is a rebuild, after which it is filled with the boxes.
    const bool fill_sweep = method == UpdateMode::sweep_and_prune && !sweep_on_;
    if (fill_sweep) method = UpdateMode::rebuild;
    if (method != UpdateMode::sweep_and_prune && sweep_on_) sweep_.clear(), sweep_on_ = false;

    fresh_.clear();
    sync_engine(pruning_, pruning_on_, method == UpdateMode::multi_box_pruning, method == UpdateMode::multi_box_pruning);
    sync_engine(grid_, grid_on_, method == UpdateMode::grid, method == UpdateMode::grid);
    if (mode_ == UpdateMode::automatic && method == UpdateMode::grid && grid_.crowding() > kGridCrowding) {
        // Right this time; multi box pruning from the next update on, and
        // the grid's memory freed.
        grid_crowded_at_ = std::max<std::size_t>(live_, 1);
        grid_ = detail::IncrementalGrid<T, D>{};
        grid_on_ = false;
    }
    Report r;
    if (method == UpdateMode::rebuild) {
        r = rebuilt_pairs();
        if (!r.ok()) return r;
        sort_pairs(found_);
        const std::vector<Pair>& before = pairs();
        difference(found_, before, begun_);
        difference(before, found_, ended_);
        if (fill_sweep) fill_sweep_from_objects();
        take_found();
    } else {
        // The changed objects' pairs before, from their partners while few
        // objects changed, else from the sorted array.
        const bool by_partners = double(dirty_.size()) <= kPartnerShare * double(std::max<std::size_t>(live_, 1));
        if (by_partners && !partners_valid_) list_partners();
        if (method == UpdateMode::sweep_and_prune) {
            // The sweep works from the changed objects' pairs before, sorted.
            if (by_partners) collect_stale();
            else split_current();
            sweep_changed_pairs();
            if (by_partners) apply_changes();
            else merge_changed_pairs();
        } else {
            if (method == UpdateMode::tree) synced_tree(), changed_pairs(method);
            if (by_partners) {
                diff_by_partners();
            } else {
                sort_pairs(fresh_);
                split_current();
                merge_changed_pairs();
            }
        }
    }
    for (Id id : dirty_) dirty_flag_[id] = 0, requery_flag_[id] = 0;
    dirty_.clear();
    if (pruning_on_) pruning_.finish();
    if (grid_on_) grid_.finish();
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

/// Brings an incremental engine (the multi box pruning regions, the
/// grid) up to date with the changed objects: fills it the first time it
/// is wanted, and keeps it up to date from then on (O(changes) a frame),
/// so that it can serve again without being filled again. With search,
/// appends to fresh_ every pair with a changed object, each once.
template <class T, int D>
template <class Engine>
inline void BasicScene<T, D>::sync_engine(Engine& engine, bool& on, bool wanted, bool search) {
    if (!on) {
        if (!wanted) return;
        // Every object in, without marks; then the changed ones as changed.
        on = true;
        for (Id id = 0; id < objects_.size(); ++id)
            if (objects_[id].alive && objects_[id].pair_box.valid() && !dirty_flag_[id]) engine.set(id, objects_[id].pair_box);
        engine.commit();
        engine.finish();
    }
    for (Id id : dirty_) {
        const Object& o = objects_[id];
        if (o.alive && o.pair_box.valid()) engine.set(id, o.pair_box);
        else engine.erase(id);
    }
    // Threads: one per 1,024 changed objects at most.
    const unsigned threads = detail::plan_threads(options_.threads, dirty_.size(), 1024);
    if (!search) return engine.commit(threads);
    if (parts_.size() < threads) parts_.resize(threads);
    for (unsigned t = 0; t < threads; ++t) parts_[t].clear();
    engine.commit(
        [&](unsigned me, Id a, Id b) {
            if (may_pair(a, b)) parts_[me].push_back(ordered(a, b));
        },
        true, threads);
    for (unsigned t = 0; t < threads; ++t) fresh_.insert(fresh_.end(), parts_[t].begin(), parts_[t].end());
}

/// Appends to fresh_ object id's pairs found in the (synced) tree; a pair
/// of two objects both marked in `asked` comes from the lower id only.
template <class T, int D>
inline void BasicScene<T, D>::tree_pairs_of(Id id, const std::vector<std::uint8_t>& asked) {
    tree_.for_each_overlap(objects_[id].box, [&](std::uint32_t proxy) {
        const Id other = object_of(proxy);
        if (other == id || (asked[other] && other < id)) return;  // itself; or found from the other side
        if (may_pair(id, other)) fresh_.push_back(ordered(id, other));
    });
}

/// Whether objects a and b may form a pair (not both static, filters).
template <class T, int D>
inline bool BasicScene<T, D>::may_pair(Id a, Id b) const {
    const std::uint8_t x = meet_[a], y = meet_[b];  // packed: no visit to the objects for plain ones
    if (x & y & kStatic) return false;
    if (!((x | y) & kFiltered)) return true;
    return Filter::may_meet(objects_[a].filter, objects_[b].filter);
}

/// fresh_ += every pair with a changed object found in the tree, each
/// once (unsorted).
template <class T, int D>
inline void BasicScene<T, D>::changed_pairs(UpdateMode method) {
    if (method == UpdateMode::tree) {
        for (Id id : dirty_)
            if (objects_[id].alive && objects_[id].box.valid()) tree_pairs_of(id, dirty_flag_);
    }
}

// The current set is held two ways, at least one of them up to date
// (partners_valid_ or !pairs_behind_): each object's partners, which the
// updates with few changed objects read and change (O(their pairs)), and
// the sorted array current_, which rebuilds and updates with many changed
// objects replace (O(K) merges, cheaper there than K scattered list edits;
// see kPartnerShare), and which pairs() makes from the partners on demand.

/// stale_ = the last set's pairs with a changed (or removed) object,
/// sorted, from the changed objects' partners: O(their pairs), not O(K); a
/// pair of two changed objects is taken from the lower id.
template <class T, int D>
inline void BasicScene<T, D>::collect_stale() {
    stale_.clear();
    for (Id id : dirty_)
        for (Id other : partners_[id])
            if (!dirty_flag_[other] || id < other) stale_.push_back(ordered(id, other));
    sort_pairs(stale_);
}

/// The events from fresh_ (every pair with a changed object now, sorted)
/// against stale_ (the same before), and the partners changed to match:
/// O(changed objects' pairs + their partners' lists). Every allocation
/// comes first (the lists that grow are reserved), so a bad_alloc leaves
/// the last set as it was.
template <class T, int D>
inline void BasicScene<T, D>::apply_changes() {
    difference(fresh_, stale_, begun_);
    difference(stale_, fresh_, ended_);
    edit_partners();
}

/// The events from fresh_ (every pair with a changed object now, each
/// once, in any order) against the changed objects' partners, one object at
/// a time: each pair goes to its changed object (the lower id when both
/// changed), the object's partners before are stamped, and its pairs now
/// either find their stamp (kept) or begin; stamps left unfound end. Then
/// the partners are edited. O(changed objects' pairs before and now), with
/// only the events sorted (the merge of sorted sets it replaces sorted
/// both sets first: 9,000 pairs each for 1% of a pile of 100,000).
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

/// found_ (the whole new set, sorted) becomes the current set. O(1).
template <class T, int D>
inline void BasicScene<T, D>::take_found() {
    std::lock_guard<std::mutex> lock(pairs_mutex_);
    current_.swap(found_);
    pair_count_ = current_.size();
    partners_valid_ = false;
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

/// fresh_ by the incremental sweep: removed objects leave it, moved ones
/// are bubbled to their new places and report each pair whose overlap
/// flipped (toggles_, possibly several times a pair), new ones go in.
/// A moved object's pairs are then its previous ones (stale_) with the
/// flipped ones (an odd number of flips) changed over. Objects new to
/// the sweep, and those whose type or filter changed, are asked of the
/// tree instead. Cost: the endpoints the moves pass, plus O(K log K) for
/// the K toggles and O(n) memory moves when objects come or go.
template <class T, int D>
inline void BasicScene<T, D>::sweep_changed_pairs() {
    gone_.clear();
    added_.clear();
    added_boxes_.clear();
    toggles_.clear();
    for (Id id : dirty_) {
        const Object& o = objects_[id];
        const bool wanted = o.alive && o.pair_box.valid();
        if (sweep_.contains(id)) {
            if (!wanted) gone_.push_back(id);
        } else if (wanted) {
            added_.push_back(id);
            added_boxes_.push_back(o.pair_box);
            requery_flag_[id] = 1;
        }
    }
    sweep_.remove_batch(gone_.data(), gone_.size());
    for (Id id : dirty_)
        if (sweep_.contains(id))
            sweep_.move(id, objects_[id].pair_box, [&](std::uint32_t a, std::uint32_t b, bool) { toggles_.push_back(Pair{a, b}); });
    sweep_.insert_batch(added_.data(), added_boxes_.data(), added_.size());

    // Pairs flipped an odd number of times, between objects not asked of the tree.
    sort_pairs(toggles_);
    std::size_t flipped = 0;
    for (std::size_t i = 0; i < toggles_.size();) {
        std::size_t j = i + 1;
        while (j < toggles_.size() && toggles_[j] == toggles_[i]) ++j;
        const Pair p = toggles_[i];
        if ((j - i) % 2 == 1 && !(requery_flag_[p.a] | requery_flag_[p.b]) && may_pair(p.a, p.b)) toggles_[flipped++] = p;
        i = j;
    }
    toggles_.resize(flipped);
    // The previous pairs that still stand unless flipped.
    survivors_.clear();
    for (const Pair& p : stale_)
        if (sweep_.contains(p.a) && sweep_.contains(p.b) && !(requery_flag_[p.a] | requery_flag_[p.b])) survivors_.push_back(p);
    std::set_symmetric_difference(survivors_.begin(), survivors_.end(), toggles_.begin(), toggles_.end(),
                                  std::back_inserter(fresh_));
    // Every pair of the objects asked of the tree, each once.
    bool asked = false;
    for (Id id : dirty_) {
        if (!requery_flag_[id] || !sweep_.contains(id)) continue;
        if (!asked) synced_tree(), asked = true;
        tree_pairs_of(id, requery_flag_);
    }
    if (asked) sort_pairs(fresh_);
}

/// Puts every live object with a valid box into the (empty) sweep.
template <class T, int D>
inline void BasicScene<T, D>::fill_sweep_from_objects() {
    sweep_on_ = true;  // first: if filling fails, update() empties it again
    added_.clear();
    added_boxes_.clear();
    for (Id id = 0; id < objects_.size(); ++id)
        if (objects_[id].alive && objects_[id].pair_box.valid()) added_.push_back(id), added_boxes_.push_back(objects_[id].pair_box);
    sweep_.reserve(objects_.size(), added_.size());
    sweep_.insert_batch(added_.data(), added_boxes_.data(), added_.size());
}

template <class T, int D>
inline Report BasicScene<T, D>::rebuilt_pairs() {
    Report r;
    gather();
    Options o = options_;
    o.sorted = false;
    o.max_pairs = no_budget;
    found_.clear();
    if (dynamic_.size() > 0) {
        Report a = finder_.find_pairs(dynamic_, found_, o);
        if (!a.ok()) return r.status = a.status, r;
        const std::size_t self = found_.size();
        if (static_.size() > 0) {
            Report b = finder_.find_pairs(dynamic_, static_, cross_, o);
            if (!b.ok()) return r.status = b.status, r;
        } else {
            cross_.clear();
        }
        // To ids, filtered, a < b.
        std::size_t kept = 0;
        for (std::size_t i = 0; i < self; ++i) {
            const Id a = dynamic_ids_[found_[i].a], b = dynamic_ids_[found_[i].b];
            if (Filter::may_meet(objects_[a].filter, objects_[b].filter)) found_[kept++] = ordered(a, b);
        }
        found_.resize(kept);
        for (const Pair& p : cross_) {
            const Id a = dynamic_ids_[p.a], b = static_ids_[p.b];
            if (Filter::may_meet(objects_[a].filter, objects_[b].filter)) found_.push_back(ordered(a, b));
        }
    }
    return r;
}

/// The live objects with valid boxes, dynamic and static apart.
template <class T, int D>
inline void BasicScene<T, D>::gather() {
    dynamic_.resize(0);
    static_.resize(0);
    dynamic_ids_.clear();
    static_ids_.clear();
    for (Id id = 0; id < objects_.size(); ++id) {
        const Object& o = objects_[id];
        if (!o.alive || !o.pair_box.valid()) continue;
        if (o.type == ObjectType::dynamic_object) {
            dynamic_.push_back(o.pair_box);
            dynamic_ids_.push_back(id);
        } else {
            static_.push_back(o.pair_box);
            static_ids_.push_back(id);
        }
    }
}

}  // namespace broadphase
