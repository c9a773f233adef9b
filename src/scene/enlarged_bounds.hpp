// Enlarged bounds: the scene's engine for coherent motion (UpdateMode::
// enlarged, scene.hpp). Each dynamic object has an enlarged box, its box
// grown by its motion (enlarged_box() below: the rule the scene's static
// caches follow too), and keeps its candidates: the objects whose enlarged
// boxes overlap its own. A pair of boxes that overlap is a pair of
// enlarged boxes that overlap, so an object's pairs are among its
// candidates. A frame:
// - a changed object still inside its enlarged box touches no structure:
//   its pairs are its candidates' boxes tested against its own (a list of
//   its own, its candidates' boxes read from one array);
// - one that left it (or is new) gets a new enlarged box, which the grid of
//   enlarged boxes (incremental_grid.hpp) places and queries; its old
//   candidates forget it and its new ones learn it. O(its candidates), the
//   lists are short.
// So the pairs stay exact on the current boxes, and a frame where the
// movers stay inside their enlarged boxes never reads the grid (Box2D's
// and Jolt's fat boxes, with exact pairs kept by the re-test).
//
// Cost of a frame: O(changed objects x their candidates), plus for each
// that left its enlarged box a grid rewrite and query (incremental_grid.hpp)
// and the edit of its candidates' lists. Memory: per object its two boxes
// and its list; the grid's own.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/geometry.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/detail/box_rules.hpp>
#include <broadphase/detail/parallel.hpp>
#include <broadphase/detail/prefetch.hpp>
#include "scene/incremental_grid.hpp"

namespace broadphase {
namespace detail {

/// How far an enlarged box reaches: kMarginFrames times the object's speed
/// on each axis (per frame, or per move where moves are seen one by one),
/// at least `floor` and at most `cap` times its largest side. Two uses,
/// measured apart (docs/scene.md): a dynamic object's statics are kept
/// with room for 8 frames of its motion, up to half its size (a longer
/// reach costs a few more statics, a re-find costs an index query); its
/// dynamic candidates, with at least an eighth of its size (what a still
/// object's first small steps need; Box2D keeps 0.1 m on bodies of about
/// 1 m), at most a quarter (more candidates cost every frame).
struct EnlargeRule {
    static constexpr double kMarginFrames = 8;
    double floor;
    double cap;
};
inline constexpr EnlargeRule kStaticReach{0, 0.5};
inline constexpr EnlargeRule kCandidateReach{0.125, 0.25};

/// The motion an enlarged box is sized from: the centre of the box it was
/// last made for and when (a frame count; 0: never).
template <class T, int D>
struct MotionMark {
    T center[D] = {};
    std::uint64_t frame = 0;
    T step[D] = {};  // the largest step a move made on each axis since (where moves are seen one by one)
};

/// Box b enlarged by its motion since `mark` (by `rule`), at frame `now`;
/// mark takes b's centre and `now`. The result contains b (else b itself,
/// where rounding or a non-finite margin would break that).
template <class T, int D>
BasicBox<T, D> enlarged_box(const BasicBox<T, D>& b, MotionMark<T, D>& mark, std::uint64_t now, const EnlargeRule& rule) {
    T center[D];
    double largest = 0;
    for (int k = 0; k < D; ++k) {
        center[k] = b.min[k] / 2 + b.max[k] / 2;
        largest = std::max(largest, static_cast<double>(b.max[k]) - static_cast<double>(b.min[k]));
    }
    const double frames = mark.frame != 0 && now > mark.frame ? double(now - mark.frame) : 0;
    BasicBox<T, D> fat = b;
    for (int k = 0; k < D; ++k) {
        double m = rule.floor * largest;
        if (frames > 0) {
            const double speed = std::abs(static_cast<double>(center[k]) - static_cast<double>(mark.center[k])) / frames;
            m = std::max(m, EnlargeRule::kMarginFrames * std::max(speed, static_cast<double>(mark.step[k])));
        }
        mark.step[k] = T(0);
        m = std::min(m, largest * rule.cap);
        const T margin = m >= 0 && m <= 1e30 ? static_cast<T>(m) : T(0);  // (NaN, inf: none)
        fat.min[k] -= margin, fat.max[k] += margin;
        mark.center[k] = center[k];
    }
    mark.frame = now;
    for (int k = 0; k < D; ++k)
        if (!(fat.min[k] <= b.min[k]) || !(b.max[k] <= fat.max[k])) return b;  // (rounding)
    return fat;
}

template <class T, int D>
class EnlargedBounds {
public:
    using box_type = BasicBox<T, D>;
    using Id = std::uint32_t;
    static constexpr Id max_id = IncrementalGrid<T, D>::max_id;
    static constexpr bool kFollows = true;
    /// Changes followed since it last ran (the scene counts them: engines.hpp).
    std::size_t idle_changes = 0;

    /// The object is present with this (valid) box. O(1).
    void set(Id id, const box_type& box) {
        grow(id);
        if (slot_[id].present) {
            MotionMark<T, D>& m = motion_[id];
            const box_type& was = slot_[id].box;
            for (int k = 0; k < D; ++k) {
                const T step = std::abs((box.min[k] - was.min[k]) / 2 + (box.max[k] - was.max[k]) / 2);
                if (step > m.step[k]) m.step[k] = step;  // (NaN: not taken)
            }
        }
        slot_[id].box = box;
        mark(id, kChanged);
    }
    /// The object is gone. O(1).
    void erase(Id id) {
        if (id < slot_.size() && (slot_[id].present || slot_[id].flag)) mark(id, kErased);  // (flag: set this frame)
    }

    /// Applies the changes and, with search, calls frame(thread, c, other)
    /// once for every pair of overlapping present objects where c changed.
    template <class Frame>
    void commit(Frame& frame, bool search, unsigned threads) {
        ++frames_;
        // New enlarged boxes for the objects that left theirs (or came, or
        // went): a new epoch, which makes every entry naming them in other
        // lists stale (dropped when met), and the grid told.
        for (Id id : marked_) {
            Slot& s = slot_[id];
            if (s.flag == kErased) {
                if (s.present) grid_.erase(id), s.present = false, renew(id);
                continue;
            }
            if (s.present && broadphase::contains(fat_[id], s.box)) continue;
            fat_[id] = enlarged_box(s.box, motion_[id], frames_, kCandidateReach);
            grid_.set(id, fat_[id]);
            s.present = true;
            s.flag = kRenewed;
            renew(id);
        }
        // Their candidates now, both ways: each pair of enlarged boxes with a
        // renewed object, once, from the grid; its pair, if the boxes meet,
        // reported there (a renewed object's candidates are not scanned below).
        const bool find = search;
        grid_.commit(
            [&](unsigned, Id a, Id b) {
                add(a, b);
                add(b, a);
                if (find && overlap(slot_[a].box, slot_[b].box)) frame(0u, a, b);
            },
            true, 1);
        if (!search) return;
        // Every other changed object's candidates tested on the boxes now,
        // but for the renewed ones (their pairs came above); its stale
        // entries dropped on the way (each list is its object's: the tasks
        // write disjoint lists).
        constexpr std::size_t per_task = 256;
        const std::size_t m = marked_.size();
        run_tasks(threads, (m + per_task - 1) / per_task, [&](std::size_t t, unsigned me) {
            const std::size_t end = std::min(m, (t + 1) * per_task);
            for (std::size_t i = t * per_task; i < end; ++i) {
                if (i + 2 < end) {
                    const auto& ahead = candidates_[marked_[i + 2]];
                    if (!ahead.empty()) prefetch_read(ahead.data());
                }
                const Id c = marked_[i];
                if (slot_[c].flag != kChanged) continue;
                const box_type b = slot_[c].box;
                std::vector<Entry>& list = candidates_[c];
                std::size_t kept = 0;
                for (std::size_t j = 0; j < list.size(); ++j) {
                    const Entry e = list[j];
                    const Slot& o = slot_[e.id];
                    if (o.epoch != e.epoch) continue;  // stale: dropped
                    list[kept++] = e;
                    if (o.flag == kRenewed || (o.flag == kChanged && e.id < c)) continue;  // (reported elsewhere)
                    if (overlap(o.box, b)) frame(me, c, e.id);
                }
                list.resize(kept);
            }
        });
    }
    /// Clears the frame's marks. O(changes).
    void finish() {
        for (Id id : marked_) slot_[id].flag = 0;
        marked_.clear();
        grid_.finish();
    }
    /// Forgets every object and frees the memory (allocates nothing).
    void clear() { *this = EnlargedBounds{}; }
    /// Whether it holds every object (else the scene fills it).
    bool filled() const { return grid_.filled(); }
    /// The grid's crowding (IncrementalGrid::crowding).
    double crowding() const { return grid_.crowding(); }
    /// An object's enlarged box (id present). O(1).
    const box_type& enlarged(Id id) const { return fat_[id]; }
    /// An object's candidates (id present; tests). O(its list).
    std::vector<Id> candidates(Id id) const {
        std::vector<Id> out;
        for (const Entry& e : candidates_[id])
            if (slot_[e.id].epoch == e.epoch) out.push_back(e.id);
        return out;
    }

private:
    static constexpr std::uint8_t kChanged = 1, kErased = 2, kRenewed = 3;  // kRenewed: changed, a new enlarged box
    static bool overlap(const box_type& a, const box_type& b) {
        bool hit = true;
        for (int k = 0; k < D; ++k) hit &= detail::intervals_overlap_flat(a.min[k], a.max[k], b.min[k], b.max[k]);
        return hit;
    }
    /// What a scan reads of a candidate, in one place.
    struct Slot {
        box_type box{};          // its box now
        std::uint32_t epoch = 0;  // bumped when its enlarged box is made again or it leaves
        std::uint8_t flag = 0;   // kChanged / kErased this frame (kRenewed once committed)
        bool present = false;    // in the grid, with an enlarged box and candidates
    };
    /// A candidate, as of its epoch.
    struct Entry {
        Id id;
        std::uint32_t epoch;
    };

    void grow(Id id) {
        if (id < slot_.size()) return;
        const std::size_t n = std::size_t(id) + 1;
        fat_.resize(n), motion_.resize(n), candidates_.resize(n);
        slot_.resize(n);  // last: its size says the others'
    }
    void mark(Id id, std::uint8_t f) {
        if (!slot_[id].flag) marked_.push_back(id);
        slot_[id].flag = f;  // the last word wins
    }
    /// The object's entries elsewhere go stale, its own list is emptied.
    void renew(Id id) {
        ++slot_[id].epoch;
        candidates_[id].clear();
    }
    /// b joins a's candidates; a full list first drops its stale entries
    /// (so a list holds at most about twice its live candidates).
    void add(Id a, Id b) {
        std::vector<Entry>& list = candidates_[a];
        if (list.size() == list.capacity() && !list.empty()) {
            std::size_t kept = 0;
            for (const Entry& e : list)
                if (slot_[e.id].epoch == e.epoch) list[kept++] = e;
            list.resize(kept);
        }
        list.push_back(Entry{b, slot_[b].epoch});
    }

    IncrementalGrid<T, D> grid_;  // the enlarged boxes
    std::vector<Slot> slot_;
    std::vector<box_type> fat_;  // each object's enlarged box
    std::vector<MotionMark<T, D>> motion_;
    std::vector<std::vector<Entry>> candidates_;
    std::vector<Id> marked_;
    std::uint64_t frames_ = 0;
};

}  // namespace detail
}  // namespace broadphase
