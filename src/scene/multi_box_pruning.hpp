// Multi box pruning: the persistent structure behind the scene's
// UpdateMode::multi_box_pruning (scene.hpp).
//
// The space is cut into a grid of regions along every axis but the sweep
// axis (axis 0); the regions are derived from the data (its bounds, its
// count and its box sizes) and derived again when the data drifts. Region
// coordinates are clamped to the grid, so the border regions reach to
// infinity: an object outside the derived bounds is still in a region and
// still meets everything (PhysX's MBP drops such objects; we do not).
//
// Each region keeps its entries (a copy of the box, the object's id and its
// lowest region coordinates) in one array sorted by min on the sweep axis,
// across frames. A frame works region by region, so that a region's array is
// read while it is in cache: the entries of changed objects are rewritten in
// place (or dropped, or appended when an object enters the region), the
// array is put back in order by insertion sort (cheap: it was nearly in
// order), and each changed entry scans its neighbourhood in the array:
// forward while min0 <= its max0, backward while min0 >= its min0 minus the
// region's widest entry. An object is in every region its box touches, up to
// kMaxSpan of them; larger objects are "oversize", kept in one list that
// every changed object is tested against. A pair seen in several regions is
// reported by one only: the region at the per-axis max of the two boxes'
// lowest region coordinates (inside both ranges, since the boxes overlap).
//
// Cost of a frame: O(entries of the regions with a change) for the passes,
// plus, per changed object, O(entries in its window), about (region
// entries) x 2 x (box width / region length) when sizes are alike.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/detail/parallel.hpp>
#include "scene/change_marks.hpp"

namespace broadphase {
namespace detail {

/// The regions an object's entries are in (MultiBoxPruning).
template <int D>
struct PruningRange {
    std::array<std::int32_t, D> lo{}, hi{};
};
/// An object's place in MultiBoxPruning.
template <int D>
struct PruningState {
    PruningRange<D> range;                             // regions its entries are in (or would be)
    std::uint32_t oversize_at = ~std::uint32_t(0);     // index in oversize_, or none
    bool present = false;
    bool in_regions = false;  // has entries in regions
    bool outside = false;     // counted in outside_
    bool is_oversize() const { return oversize_at != ~std::uint32_t(0); }
};

template <class T, int D>
class MultiBoxPruning : public ChangeMarks<T, D, PruningState<D>> {
    using Marks = ChangeMarks<T, D, PruningState<D>>;
    using Marks::boxes_, Marks::flag_, Marks::state_, Marks::marked_, Marks::present_, Marks::kChanged,
        Marks::kErased;

public:
    using box_type = BasicBox<T, D>;
    using Id = std::uint32_t;
    /// The most regions one object may be in; bigger objects are oversize.
    static constexpr int kMaxSpan = 4;
    /// Entries per region the derivation aims at.
    static constexpr std::size_t kTargetEntries = 256;

    /// Ids must be below this (the top bit marks changed entries).
    static constexpr Id max_id = (Id(1) << 31) - 1;

    /// Applies the recorded changes to the regions, deriving them again
    /// first when needed (see needs_rederive), and with search, calls
    /// emit(c, other) once for every pair of overlapping present objects
    /// where c changed (set() since the last finish()): a pair of two
    /// changed objects comes out from the one with the lower id. Each
    /// region's pairs are searched right after it is rewritten, while it is
    /// in cache. O(entries of the touched regions + changes + windows), or
    /// O(n log n) for a derivation.
    ///
    /// emit(thread, c, other) is called on up to `threads` threads at once
    /// (thread in [0, threads)): the regions are shared out between them.
    template <class Emit>
    void commit(Emit&& emit, bool search = true, unsigned threads = 1) {
        this->filled_ = true;
        if (needs_rederive()) {
            rederive();
            if (search) for_touched_regions(threads, [&](std::uint32_t r, unsigned me) { region_pairs(r, emit, me); });
            if (search) oversize_changed_pairs(emit);
            return;
        }
        for (Id id : marked_) {
            State& s = state_[id];
            if (s.in_regions || s.is_oversize()) touch_range(s);  // leaves (or is rewritten in) these
            if (flag_[id] & kErased) {
                take_out(s);
                continue;
            }
            Range now = range_of(boxes_[id]);
            if (s.in_regions && same(now, s.range)) {
                // The common move: still in the same regions, whose entries refresh rewrites.
                const bool out = is_outside(boxes_[id]);
                outside_ = outside_ - s.outside + out;
                s.outside = out;
                continue;
            }
            const bool was_in = s.in_regions, was_oversize = s.is_oversize();
            const Range before = s.range;
            take_out(s);
            s.range = now;
            put_in(id, s);
            if (!s.in_regions) continue;
            // Regions it enters get it appended; the others rewrite it in place.
            for_each_region(now, [&](std::uint32_t r) {
                if (was_in && !was_oversize && inside(before, coords_[r])) return;
                regions_[r].incoming.push_back(id);
                touch(r);
            });
        }
        for_touched_regions(threads, [&](std::uint32_t r, unsigned me) {
            refresh(r);
            if (search) region_pairs(r, emit, me);
        });
        if (search) oversize_changed_pairs(emit);
    }
    /// commit() without the pair search.
    void commit(unsigned threads = 1) {
        commit([](unsigned, Id, Id) {}, false, threads);
    }

    /// Forgets every object and frees the memory. O(1) (and the frees).
    void clear() { *this = MultiBoxPruning{}; }
    /// Clears the frame's marks. O(changes).
    void finish() {
        for (Id id : marked_) flag_[id] = 0;
        marked_.clear();
        for (std::uint32_t r : touched_) regions_[r].touched = false;
        touched_.clear();
    }

    /// Whether the regions must be derived again: never derived, the object
    /// count doubled or halved since, too many oversize objects, or an
    /// eighth of the objects lie outside the derived bounds. O(1).
    bool needs_rederive() const {
        return this->drifted(derived_, derived_count_, outside_) || oversize_.size() > 64 + present_ / 64;
    }

    std::size_t region_count() const { return regions_.size(); }
    std::size_t oversize_count() const { return oversize_.size(); }

    /// Checks the regions' order and contents against the objects (tests).
    /// O(n).
    bool validate() const {
        std::size_t entries = 0, expected = 0;
        for (std::uint32_t r = 0; r < regions_.size(); ++r) {
            const auto& e = regions_[r].entries;
            entries += e.size();
            for (std::size_t j = 0; j < e.size(); ++j) {
                if (j > 0 && e[j].lo[0] < e[j - 1].lo[0]) return false;
                const Id o = e[j].id();
                if (o >= state_.size() || !state_[o].present || !state_[o].in_regions) return false;
                if (!inside(state_[o].range, coords_[r])) return false;
                for (int k = 0; k < D; ++k)
                    if (e[j].lo[k] != boxes_[o].min[k] || e[j].hi[k] != boxes_[o].max[k]) return false;
            }
        }
        std::size_t present = 0;
        for (const State& s : state_) {
            if (!s.present) continue;
            ++present;
            if (s.in_regions) expected += span(s.range);
            else if (!s.is_oversize()) return false;
        }
        return present == present_ && entries == expected;
    }

private:
    static constexpr std::uint32_t kNone = ~std::uint32_t(0);
    static constexpr Id kChangedEntry = Id(1) << 31;

    using Range = PruningRange<D>;
    using State = PruningState<D>;
    /// One object in one region: its box, its id (with kChangedEntry set
    /// while the object changed this frame, so the pair search reads the
    /// entries alone) and its lowest region coordinates (16 bits per cut
    /// axis) for the ownership rule.
    struct Entry {
        std::array<T, D> lo, hi;
        Id tagged;
        std::uint32_t corner;
        Id id() const { return tagged & ~kChangedEntry; }
        bool changed() const { return (tagged & kChangedEntry) != 0; }
    };
    struct Region {
        std::vector<Entry> entries;  // sorted by lo[0]
        std::vector<Id> incoming;    // objects entering this frame
        double widest = 0;           // widest entry on axis 0
        bool touched = false;
    };

    void touch(std::uint32_t r) {
        if (!regions_[r].touched) regions_[r].touched = true, touched_.push_back(r);
    }
    void touch_range(const State& s) {
        if (s.in_regions) for_each_region(s.range, [&](std::uint32_t r) { touch(r); });
    }

    /// Leaves the oversize list and the outside count (entries go in refresh).
    void take_out(State& s) {
        outside_ -= s.outside;
        s.outside = false;
        s.in_regions = false;
        if (!s.is_oversize()) return;
        const Id last = oversize_.back();
        oversize_[s.oversize_at] = last;
        state_[last].oversize_at = s.oversize_at;
        oversize_.pop_back();
        s.oversize_at = kNone;
    }
    /// Joins the regions of s.range (entries appended by the caller) or the
    /// oversize list.
    void put_in(Id id, State& s) {
        s.outside = is_outside(boxes_[id]);
        outside_ += s.outside;
        if (span(s.range) > std::size_t(kMaxSpan)) {
            s.oversize_at = static_cast<std::uint32_t>(oversize_.size());
            oversize_.push_back(id);
        } else {
            s.in_regions = true;
        }
    }

    /// Rewrites a touched region: drops the entries of erased objects and of
    /// objects that left it, rewrites those of changed ones, appends the
    /// incoming ones, restores the order and the widest width.
    void refresh(std::uint32_t r) {
        Region& g = regions_[r];
        auto& e = g.entries;
        // One pass that writes only what changes: most entries stay as
        // they are, in place, until the first one dropped.
        std::size_t kept = 0;
        double widest = 0;
        for (std::size_t j = 0; j < e.size(); ++j) {
            const Id o = e[j].id();
            const std::uint8_t f = flag_[o];
            if (f) {
                if (f & kErased) continue;
                const State& s = state_[o];
                if (!s.in_regions || !inside(s.range, coords_[r])) continue;
                e[j] = entry_of(o);
            } else if (e[j].tagged != o) {
                e[j].tagged = o;  // changed last frame, not this one
            }
            if (kept != j) e[kept] = e[j];
            widest = std::max(widest, width0(e[kept]));
            ++kept;
        }
        e.resize(kept);
        for (Id o : g.incoming) e.push_back(entry_of(o)), widest = std::max(widest, width0(e.back()));
        g.incoming.clear();
        g.widest = widest;
        // Insertion sort: the array was in order but for the changed entries.
        for (std::size_t j = 1; j < e.size(); ++j) {
            if (!(e[j].lo[0] < e[j - 1].lo[0])) continue;
            const Entry x = e[j];
            std::size_t i = j;
            do {
                e[i] = e[i - 1];
                --i;
            } while (i > 0 && x.lo[0] < e[i - 1].lo[0]);
            e[i] = x;
        }
    }

    /// An entry's width on the sweep axis; 0 for NaN (a point at infinity:
    /// inf - inf), which widens nothing, rightly.
    static double width0(const Entry& x) {
        const double w = double(x.hi[0]) - double(x.lo[0]);
        return w > 0 ? w : 0;
    }

    Entry entry_of(Id o) const {
        Entry x;
        const box_type& b = boxes_[o];
        for (int k = 0; k < D; ++k) x.lo[k] = b.min[k], x.hi[k] = b.max[k];
        x.tagged = o | (flag_[o] & kChanged ? kChangedEntry : 0);
        x.corner = corner_of(state_[o].range.lo);
        return x;
    }
    static std::uint32_t corner_of(const std::array<std::int32_t, D>& lo) {
        std::uint32_t c = 0;
        for (int k = 1; k < D; ++k) c |= std::uint32_t(lo[k]) << (16 * (k - 1));
        return c;
    }

    /// The changed entries' pairs in one region.
    template <class Emit>
    void region_pairs(std::uint32_t r, Emit& emit, unsigned me) const {
        const Region& g = regions_[r];
        const auto& e = g.entries;
        const std::uint32_t here = corner_of(coords_[r]);
        const std::size_t n = e.size();
        for (std::size_t at = 0; at < n; ++at) {
            const Entry& c = e[at];
            if (!c.changed()) continue;
            const Id cid = c.id();
            // One branch per candidate (the tests combined without
            // short-circuits): a candidate is a pair about one time in
            // seven, so separate early exits would mispredict often.
            auto consider = [&](const Entry& x, bool hit) {
                for (int k = 1; k < D; ++k) hit &= static_cast<int>(!(x.hi[k] < c.lo[k])) & static_cast<int>(!(c.hi[k] < x.lo[k]));
                hit &= !(x.changed() & (x.tagged < c.tagged));  // both changed: found from x's side
                hit &= owner(c.corner, x.corner) == here;       // else another region reports it
                if (hit) emit(me, cid, x.id());
            };
            for (std::size_t j = at + 1; j < n && !(c.hi[0] < e[j].lo[0]); ++j) consider(e[j], true);
            const T reach = reach_of(c.lo[0], g.widest);
            for (std::size_t j = at; j-- > 0 && !(e[j].lo[0] < reach);) consider(e[j], !(e[j].hi[0] < c.lo[0]));
            // Oversize objects, from c's lowest region only; a changed oversize
            // object leaves changed objects in regions to this.
            if (here == c.corner)
                for (Id o : oversize_)
                    if (overlaps(boxes_[cid], boxes_[o])) emit(me, cid, o);
        }
    }

    /// f(region, thread) for every touched region, in tasks of a few regions.
    template <class F>
    void for_touched_regions(unsigned threads, F&& f) {
        constexpr std::size_t per_task = 8;
        const std::size_t tasks = (touched_.size() + per_task - 1) / per_task;
        run_tasks(threads, tasks, [&](std::size_t t, unsigned me) {
            const std::size_t end = std::min(touched_.size(), (t + 1) * per_task);
            for (std::size_t i = t * per_task; i < end; ++i) f(touched_[i], me);
        });
    }

    template <class Emit>
    void oversize_changed_pairs(Emit& emit) const {
        for (Id c : oversize_)
            if (flag_[c] & kChanged) oversize_pairs(c, emit);
    }

    /// A changed oversize object's pairs: against every present object but
    /// the changed ones in regions (they find it through the oversize list).
    template <class Emit>
    void oversize_pairs(Id c, Emit& emit) const {
        const box_type& b = boxes_[c];
        for (Id o = 0; o < state_.size(); ++o) {
            const State& s = state_[o];
            if (o == c || !s.present) continue;
            if ((flag_[o] & kChanged) && (s.in_regions || o < c)) continue;
            if (overlaps(b, boxes_[o])) emit(0u, c, o);
        }
    }

    /// The ownership rule: per cut axis, the max of the two lowest coordinates.
    static std::uint32_t owner(std::uint32_t a, std::uint32_t b) {
        std::uint32_t c = 0;
        for (int k = 1; k < D; ++k) {
            const int shift = 16 * (k - 1);
            c |= std::max((a >> shift) & 0xffffu, (b >> shift) & 0xffffu) << shift;
        }
        return c;
    }

    /// Where the backward scan from an entry with min0 = lo may stop: every
    /// entry with a smaller min0 ends before lo. Rounding only widens it.
    static T reach_of(T lo, double widest) {
        constexpr T lowest = -std::numeric_limits<T>::infinity();
        if (widest == std::numeric_limits<double>::infinity()) return lowest;
        double r = double(lo) - widest;
        if (!std::isfinite(r)) return static_cast<T>(r);  // -inf, +inf (lo = +inf) or NaN (no stop: scans on)
        r -= (std::fabs(r) + std::fabs(double(lo)) + widest) * 8 * double(std::numeric_limits<T>::epsilon());
        if (r < double(std::numeric_limits<T>::lowest())) return lowest;
        return std::nextafter(static_cast<T>(r), lowest);  // at or below r after rounding to T
    }

    /// Derives the grid from the present objects and fills the regions.
    /// O(n log n).
    void rederive() {
        compute_grid();
        oversize_.clear();
        outside_ = 0;
        for (Region& g : regions_) g.entries.clear(), g.incoming.clear(), g.touched = false;
        touched_.clear();
        for (Id id = 0; id < state_.size(); ++id) {
            State& s = state_[id];
            s.oversize_at = kNone;
            s.in_regions = s.outside = false;
            if (!s.present) continue;
            s.range = range_of(boxes_[id]);
            put_in(id, s);
            if (s.in_regions) for_each_region(s.range, [&](std::uint32_t r) { regions_[r].incoming.push_back(id); });
        }
        for (std::uint32_t r = 0; r < regions_.size(); ++r) {
            Region& g = regions_[r];
            for (Id o : g.incoming) g.entries.push_back(entry_of(o));
            g.incoming.clear();
            std::sort(g.entries.begin(), g.entries.end(), [](const Entry& a, const Entry& b) { return a.lo[0] < b.lo[0]; });
            g.widest = 0;
            for (const Entry& x : g.entries) g.widest = std::max(g.widest, width0(x));
            touch(r);
        }
        derived_ = true;
        derived_count_ = present_;
    }

    /// Grid dimensions and cell sizes from the present objects' finite boxes.
    void compute_grid() {
        std::array<double, D> lo, hi, width_sum;
        lo.fill(std::numeric_limits<double>::infinity());
        hi.fill(-std::numeric_limits<double>::infinity());
        width_sum.fill(0);
        std::size_t n = 0;
        for (Id id = 0; id < state_.size(); ++id) {
            if (!state_[id].present) continue;
            const box_type& b = boxes_[id];
            bool finite = true;
            for (int k = 0; k < D; ++k) finite &= std::isfinite(double(b.min[k])) && std::isfinite(double(b.max[k]));
            if (!finite) continue;  // infinite boxes do not shape the grid
            ++n;
            for (int k = 0; k < D; ++k) {
                const double c = 0.5 * (double(b.min[k]) + double(b.max[k]));
                lo[k] = std::min(lo[k], c);
                hi[k] = std::max(hi[k], c);
                width_sum[k] += double(b.max[k]) - double(b.min[k]);
            }
        }
        const std::size_t wanted = std::max<std::size_t>(1, present_ / kTargetEntries);
        const double per_axis = D > 1 ? std::pow(double(wanted), 1.0 / (D - 1)) : 1.0;
        std::size_t total = 1;
        for (int k = 0; k < D; ++k) {
            origin_[k] = n ? lo[k] : 0.0;
            bounds_hi_[k] = n ? hi[k] : 0.0;
            dims_[k] = 1;
            inv_cell_[k] = 0;
            if (k == 0 || n == 0) continue;
            const double extent = hi[k] - lo[k];
            const double mean_width = width_sum[k] / double(n);
            // Cells at least twice the mean box width, so that most boxes
            // touch one or two regions per axis.
            double g = std::floor(per_axis + 0.5);
            if (mean_width > 0) g = std::min(g, std::floor(extent / (2 * mean_width)));
            if (!(g >= 1)) g = 1;
            g = std::min(g, 256.0);
            dims_[k] = static_cast<std::int32_t>(g);
            inv_cell_[k] = extent > 0 ? g / extent : 0;
            total *= static_cast<std::size_t>(dims_[k]);
        }
        regions_.assign(total, Region{});
        coords_.resize(total);
        for (std::uint32_t r = 0; r < total; ++r) {
            std::uint32_t x = r;
            coords_[r][0] = 0;
            for (int k = 1; k < D; ++k) {
                coords_[r][k] = static_cast<std::int32_t>(x % static_cast<std::uint32_t>(dims_[k]));
                x /= static_cast<std::uint32_t>(dims_[k]);
            }
        }
    }

    std::int32_t coord(int k, T v) const {
        const double x = (double(v) - origin_[k]) * inv_cell_[k];
        if (!(x > 0)) return 0;  // also NaN from 0 * inf (one region on this axis)
        if (x >= double(dims_[k] - 1)) return dims_[k] - 1;
        return static_cast<std::int32_t>(x);
    }
    Range range_of(const box_type& b) const {
        Range g;
        for (int k = 1; k < D; ++k) g.lo[k] = coord(k, b.min[k]), g.hi[k] = coord(k, b.max[k]);
        return g;
    }
    static std::size_t span(const Range& g) {
        std::size_t n = 1;
        for (int k = 1; k < D; ++k) n *= static_cast<std::size_t>(g.hi[k] - g.lo[k] + 1);
        return n;
    }
    static bool same(const Range& a, const Range& b) {
        bool eq = true;
        for (int k = 1; k < D; ++k) eq &= static_cast<int>(a.lo[k] == b.lo[k]) & static_cast<int>(a.hi[k] == b.hi[k]);
        return eq;
    }
    static bool inside(const Range& g, const std::array<std::int32_t, D>& c) {
        for (int k = 1; k < D; ++k)
            if (c[k] < g.lo[k] || c[k] > g.hi[k]) return false;
        return true;
    }
    bool is_outside(const box_type& b) const {
        for (int k = 0; k < D; ++k) {
            const double c = 0.5 * (double(b.min[k]) + double(b.max[k]));
            if (!(c >= origin_[k] && c <= bounds_hi_[k])) return true;
        }
        return false;
    }
    template <class F>
    void for_each_region(const Range& g, F&& f) const {
        std::array<std::int32_t, D> c = g.lo;
        for (;;) {
            std::uint32_t r = 0;
            for (int k = D - 1; k >= 1; --k) r = r * static_cast<std::uint32_t>(dims_[k]) + static_cast<std::uint32_t>(c[k]);
            f(r);
            int k = 1;
            for (; k < D; ++k) {
                if (c[k] < g.hi[k]) {
                    ++c[k];
                    break;
                }
                c[k] = g.lo[k];
            }
            if (k >= D) return;
        }
    }

    std::vector<Region> regions_;
    std::vector<std::array<std::int32_t, D>> coords_;  // each region's grid coordinates
    std::vector<std::uint32_t> touched_;               // regions with a change this frame
    std::vector<Id> oversize_;
    std::array<double, D> origin_{}, bounds_hi_{}, inv_cell_{};
    std::array<std::int32_t, D> dims_{};
    std::size_t derived_count_ = 0, outside_ = 0;
    bool derived_ = false;
};

}  // namespace detail
}  // namespace broadphase
