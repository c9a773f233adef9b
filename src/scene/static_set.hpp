// The scene's static objects (ObjectType::static_object), apart from the
// engines: statics never move and never meet each other, so no frame needs
// to visit them. They are held in a base, built in bulk, and a small delta
// of those added since, as a log-structured store keeps a large run and a
// small fresh one. The scene asks it for the statics each changed dynamic
// object overlaps.
//
// The base is a home-cell grid (StaticGrid below): each static no wider
// than a cell lives in the cell of its min corner, in one array grouped by
// cell (counting sort), so a query reads the runs of the 2-3 cells a
// partner's home can be in on each axis (a run of consecutive cells along
// x is one run of entries) and nothing else; the few wider statics (at
// most about 1 in 512, by the choice of the cell side) are held in
// BasicIndex (the uniform grid). The delta is a home-cell grid of its own.
// (The uniform grid alone served the base first: a box spanning the cells
// it overlaps, hashed, gave 0.75 us a query over 2 million touching tiles;
// the home cells, 0.1. As the delta, built again each frame a level
// streams: 11.7 ms a frame for 1% of 2 million tiles out and in, 8.0 with
// the home cells; docs/scene.md.)
//
// - set(id, box): the static is present with this box. A static already
//   held with the same box stays where it is (its type or filter changed:
//   the scene re-pairs it, the index does not care); otherwise its old
//   entry dies and it joins the delta.
// - erase(id): its entry dies (a flag; queries skip dead entries).
// - commit(): the delta is built again when statics joined it (O(delta)); the base
//   is built again over every live entry once the delta holds more than an
//   eighth of the base (so each static added pays for about 8 entries of a
//   rebuild: O(1) amortised) or a quarter of the base is dead.
//
// The scene drops it whole when an allocation fails in the middle of a
// change (update() then reports out_of_memory) and fills it again.
//
// Cost: a query O(the cells around it + their entries) in the base and in
// the delta, and a uniform grid query in the wide statics when there are
// any; a frame that changed no static costs nothing here, one that added
// statics O(delta) to build the delta again.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/broadphase.hpp>
#include "core/pair_finder_impl.hpp"  // Index for every T, D
#include <broadphase/options.hpp>
#include <broadphase/detail/box_rules.hpp>
#include <broadphase/detail/exceptions.hpp>
#include <broadphase/detail/large_pages.hpp>
#include <broadphase/detail/prefetch.hpp>
#include "scene/home_cells.hpp"

namespace broadphase {
namespace detail {

/// The base's index: a home-cell grid over boxes that are built once and
/// queried (see the top of this file). Boxes wider than a cell on some axis
/// go to `wide`, a uniform grid.
template <class T, int D>
class StaticGrid {
public:
    using box_type = BasicBox<T, D>;

    static constexpr std::uint32_t none = ~std::uint32_t(0);

    /// Builds over boxes [0, n): at(i) gives box i, id_of(i) its id (not
    /// none), which the queries report. O(n).
    template <class At, class IdOf>
    void build(std::size_t n, At&& at, IdOf&& id_of) {
        derive(n, at);
        const std::size_t cells = start_.size() - 1;
        std::fill(start_.begin(), start_.end(), 0u);
        home_.resize(n);
        wide_ids_.clear();
        wide_boxes_.resize(0);
        for (std::size_t i = 0; i < n; ++i) {
            const box_type b = at(i);
            home_[i] = home_of(b);
            if (home_[i] == kWide) wide_ids_.push_back(static_cast<std::uint32_t>(i)), wide_boxes_.push_back(b);
            else ++start_[home_[i] + 1];
        }
        for (std::size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
        entries_.resize(n - wide_ids_.size());
        LargeVector<std::uint32_t>& fill = cursor_;
        fill.assign(start_.begin(), start_.end() - 1);
        position_.resize(n);
        for (std::size_t w = 0; w < wide_ids_.size(); ++w) {
            position_[wide_ids_[w]] = kWide | static_cast<std::uint32_t>(w);
            wide_ids_[w] = id_of(wide_ids_[w]);
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (home_[i] == kWide) continue;
            const box_type b = at(i);
            const std::uint32_t at_entry = fill[home_[i]]++;
            Entry& e = entries_[at_entry];
            for (int k = 0; k < D; ++k) e.lo[k] = b.min[k], e.hi[k] = b.max[k];
            e.id = id_of(i);
            position_[i] = at_entry;
        }
        if (!wide_.build(wide_boxes_).ok()) detail::throw_or_abort(std::bad_alloc());  // (its only failure)
        home_.clear(), home_.shrink_to_fit();
    }

    /// Where box i of the last build went (for kill()).
    std::uint32_t position(std::size_t i) const { return position_[i]; }
    /// The box at a position is gone: the queries skip it. O(1).
    void kill(std::uint32_t at) { retag(at, none); }
    /// The id reported for the box at a position becomes `id`. O(1).
    void retag(std::uint32_t at, std::uint32_t id) {
        if (at & kWide) wide_ids_[at & ~kWide] = id;
        else entries_[at].id = id;
    }

    /// f(id, box) for each live box overlapping the closed box q: the box
    /// and id come from the entry itself (no second lookup, which was a
    /// cache miss of its own on 2 million statics).
    template <class F>
    void for_each_overlap(const box_type& q, F&& f) const {
        if (start_.size() > 1) {
            std::size_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
            for (int k = 0; k < D; ++k) {
                // A box overlapping q has its min in [q.min - h, q.max]
                // (its extent is below h): its home lies between their cells.
                c0[k] = coord(static_cast<double>(q.min[k]) - h_[k], k);
                c1[k] = coord(static_cast<double>(q.max[k]), k);
            }
            // Rows of cells (runs along x) in batches of 16, in three
            // rounds: their bounds asked for, then their entries, then
            // scanned, so that a query's cache misses (a row's bounds, then
            // its entries: two dependent ones a row) overlap rather than
            // follow one another.
            constexpr int batch = 16;
            std::size_t rows[batch];
            int n = 0;
            auto flush = [&]() {
                for (int r = 0; r < n; ++r) prefetch_read(&start_[rows[r] + c0[0]]);
                const Entry* first[batch];
                const Entry* last[batch];
                for (int r = 0; r < n; ++r) {
                    first[r] = entries_.data() + start_[rows[r] + c0[0]];
                    last[r] = entries_.data() + start_[rows[r] + c1[0] + 1];
                    if (first[r] != last[r]) prefetch_read(first[r]), prefetch_read(last[r] - 1);
                }
                for (int r = 0; r < n; ++r)
                    for (const Entry* e = first[r]; e != last[r]; ++e) {
                        bool hit = e->id != none;
                        for (int k = 0; k < D; ++k) hit &= detail::intervals_overlap_flat(e->lo[k], e->hi[k], q.min[k], q.max[k]);
                        if (hit) {
                            box_type b;
                            for (int k = 0; k < D; ++k) b.min[k] = e->lo[k], b.max[k] = e->hi[k];
                            f(e->id, b);
                        }
                    }
                n = 0;
            };
            auto row = [&](std::size_t r) {
                rows[n++] = r;
                if (n == batch) flush();
            };
            if constexpr (D == 1) {
                row(0);
            } else if constexpr (D == 2) {
                for (std::size_t y = c0[1]; y <= c1[1]; ++y) row(y * stride_[1]);
            } else {
                for (std::size_t z = c0[2]; z <= c1[2]; ++z)
                    for (std::size_t y = c0[1]; y <= c1[1]; ++y) row(z * stride_[2] + y * stride_[1]);
            }
            flush();
        }
        if (!wide_ids_.empty())
            wide_.for_each_overlap(q, [&](std::uint32_t w) {
                if (wide_ids_[w] != none) f(wide_ids_[w], wide_boxes_[w]);
            });
    }

private:
    struct Entry {
        T lo[D], hi[D];
        std::uint32_t id;  // none: gone
    };
    static constexpr std::uint32_t kWide = std::uint32_t(1) << 31;  // a home_ value, and a position's tag

    std::size_t coord(double x, int k) const { return clamped_cell<std::size_t>(x, origin_[k], inv_h_[k], 0.0, limit_[k]); }
    std::uint32_t home_of(const box_type& b) const {  // (cells stay below 2^31: 4 a box)
        std::size_t c = 0;
        for (int k = 0; k < D; ++k) {
            const double lo = static_cast<double>(b.min[k]), hi = static_cast<double>(b.max[k]);
            if (!(hi - lo <= small_limit_[k])) return kWide;
            c += coord(lo, k) * stride_[k];
        }
        return static_cast<std::uint32_t>(c);
    }

    /// The cell side per axis (the extent all but 1 box in 512 fit under,
    /// or the largest when that is at most twice it) and the table over the
    /// min corners' span (their 1st to 99th percentile when the whole span
    /// would need too many cells: outliers clamp into the edge cells), at
    /// most 4 cells a box (wider cells past that). As the incremental
    /// grid's derivation (incremental_grid.hpp).
    template <class At>
    void derive(std::size_t n, At& at) {
        double lo[D], hi[D], h[D];
        auto each = [&](auto&& f) {
            for (std::size_t i = 0; i < n; ++i) f(at(i));
        };
        // (At most 2^30 cells: a cell index stays below kWide.)
        plan_home_cells<D>(each, std::min(std::max(4 * double(n), 4096.0), double(1u << 30)), 0, scratch_, lo, hi, h);
        const std::size_t stride = home_cell_table<D>(lo, hi, h, 0, origin_, h_, inv_h_, limit_, small_limit_, stride_);
        start_.assign(stride + 1, 0u);
    }

    double origin_[D] = {}, h_[D] = {}, inv_h_[D] = {}, limit_[D] = {}, small_limit_[D] = {};
    std::size_t stride_[D] = {};
    LargeVector<std::uint32_t> start_;  // per cell: its first entry; one past the last cell: the count
    LargeVector<Entry> entries_;        // grouped by home cell
    LargeVector<std::uint32_t> home_, cursor_, position_;
    std::vector<std::uint32_t> wide_ids_;
    std::vector<double> scratch_;
    BasicBoxes<T, D> wide_boxes_;
    BasicIndex<T, D> wide_;
};

template <class T, int D>
class StaticSet {
public:
    using box_type = BasicBox<T, D>;
    using Id = std::uint32_t;
    static constexpr std::uint32_t none = ~std::uint32_t(0);
    static constexpr std::uint32_t kFiltered = std::uint32_t(1) << 31;  // in an entry's id

    /// The static `id` (below 2^31 - 1) is present with `box` (valid);
    /// `filtered`: it has a filter other than the default, reported with it
    /// (so that the caller need not look it up). O(1) (amortised).
    void set(Id id, const box_type& box, bool filtered) {
        const Id tagged = id | (filtered ? kFiltered : 0);
        if (id < slot_.size() && slot_[id] != none) {
            const std::uint32_t s = slot_[id];
            if (same(entries_[s].box, box)) {
                entries_[s].id = tagged;
                if (s < built_) base_.retag(base_.position(s), tagged);
                else if (s - built_ < delta_built_) delta_.retag(delta_.position(s - built_), tagged);
                return;
            }
            kill(s);
        }
        ++generation_;
        if (id >= slot_.size()) slot_.resize(std::size_t(id) + 1, none);
        entries_.push_back(Entry{box, tagged});  // (the delta: entries past built_)
        slot_[id] = static_cast<std::uint32_t>(entries_.size() - 1);
        ++live_;
        delta_dirty_ = true;
    }
    /// The static `id` is gone, or no longer static or valid (no-op if it
    /// was not held). O(1).
    void erase(Id id) {
        if (id >= slot_.size() || slot_[id] == none) return;
        kill(slot_[id]);
    }
    bool contains(Id id) const { return id < slot_.size() && slot_[id] != none; }
    std::size_t size() const { return live_; }

    /// Brings the indexes up to date with the changes (see the top of this
    /// file).
    void commit() {
        const std::size_t base = built_, delta = entries_.size() - built_;
        if (delta * 8 > base + 1024 || dead_ * 4 > base + 1024) {
            rebuild_base();
        } else if (delta_dirty_) {
            build_delta();
        }
        delta_dirty_ = false;
    }

    /// f(id, box, filtered) for each held static whose box overlaps the
    /// closed box q. commit() must have run since the last change.
    template <class F>
    void for_each_overlap(const box_type& q, F&& f) const {
        auto report = [&](Id tagged, const box_type& b) { f(tagged & ~kFiltered, b, (tagged & kFiltered) != 0); };
        if (built_ > 0) base_.for_each_overlap(q, report);
        if (delta_built_ > 0) delta_.for_each_overlap(q, report);
    }
    /// Counts the changes to the set (a static added, moved or gone, or
    /// touched: see touched()): a caller's copy of a query's answer holds
    /// while it is unchanged.
    std::uint64_t generation() const { return generation_; }
    /// A static changed in a way the set does not see (its filter): the
    /// callers' copies are out of date all the same.
    void touched() { ++generation_; }

    /// Forgets every static and frees the memory (the generation goes on).
    void clear() {
        const std::uint64_t g = generation_ + 1;
        *this = StaticSet{};
        generation_ = g;
    }

private:
    struct Entry {
        box_type box;
        Id id;  // with kFiltered; none: dead
    };
    static bool same(const box_type& a, const box_type& b) {
        for (int k = 0; k < D; ++k)
            if (!(a.min[k] == b.min[k] && a.max[k] == b.max[k])) return false;
        return true;
    }
    void kill(std::uint32_t s) {
        ++generation_;
        slot_[entries_[s].id & ~kFiltered] = none;
        entries_[s].id = none;
        --live_;
        if (s < built_) ++dead_, base_.kill(base_.position(s));
        else if (s - built_ < delta_built_) delta_.kill(delta_.position(s - built_));
        // (an entry the delta's index does not hold yet is left out of its next build)
    }
    /// The delta's index over entries_[built_, end) (a dead entry's id is
    /// none: the index holds it and skips it).
    void build_delta() {
        const std::size_t n = entries_.size() - built_;
        delta_built_ = 0;  // (if the build throws, no query reads it)
        delta_.build(n, [&](std::size_t i) { return entries_[built_ + i].box; },
                     [&](std::size_t i) { return entries_[built_ + i].id; });
        delta_built_ = n;
    }
    /// Every live entry into the base, in place; an empty delta.
    void rebuild_base() {
        std::size_t k = 0;
        for (std::size_t i = 0; i < entries_.size(); ++i) {
            if (entries_[i].id == none) continue;
            entries_[k] = entries_[i];
            slot_[entries_[k].id & ~kFiltered] = static_cast<std::uint32_t>(k);
            ++k;
        }
        entries_.resize(k);
        built_ = k;
        dead_ = 0;
        base_.build(k, [&](std::size_t i) { return entries_[i].box; }, [&](std::size_t i) { return entries_[i].id; });
        build_delta();
    }

    LargeVector<Entry> entries_;       // [0, built_): the base's; past it: the delta's
    LargeVector<std::uint32_t> slot_;  // per id: its entry, or none
    std::size_t built_ = 0, dead_ = 0, live_ = 0;
    std::size_t delta_built_ = 0;  // the entries past built_ that delta_ holds
    bool delta_dirty_ = false;     // statics joined the delta since it was built
    std::uint64_t generation_ = 0;
    StaticGrid<T, D> base_, delta_;
};

}  // namespace detail
}  // namespace broadphase
