// The incremental grid: the persistent structure behind the scene's
// UpdateMode::grid (scene.hpp). A frame costs what changed: each changed
// object is rewritten in place (or moved between two cells) and queries
// the 27 cells around its own, whatever the number of objects that did not
// move.
//
// Each object with a box no wider than the cell side h on any axis lives in
// one cell, its *home*: the cell of its min corner, in a dense table of
// cells laid over the min corners' span (coordinates clamped, so far
// outliers land in the edge cells and still meet everything). Two such
// boxes that overlap have min corners less than h apart on every axis, so
// homes at most one apart: a changed object finds all its partners among
// the 27 cells around its home. Wider objects ("large") are kept in one
// list, which every changed object is tested against; a large changed
// object scans the cells a box overlapping it can have its home in.
//
// h comes from the boxes when the grid is derived (the extent that all but
// one object in 512 fit under, or the largest when that is at most twice
// it), and the table from their span, at most 4 cells an object (wider
// cells past that). The grid is derived again when the object count
// doubled or halved, or too many objects are large or outside the span.
//
// Each entry carries its object's id with a "changed" bit while the object
// changed this frame, so that a pair of two changed objects is reported
// once (from the lower id) without a lookup.
//
// Cost of a frame: O(changes) to rewrite, plus per changed object the 27
// cells around it and the entries in them (about 27 x the objects a cell
// holds, near 1 where the boxes fill their volume) and the large list.
// A derivation is O(n).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/detail/box_rules.hpp>
#include <broadphase/detail/parallel.hpp>
#include <broadphase/detail/prefetch.hpp>
#include "scene/change_marks.hpp"
#include "scene/home_cells.hpp"

namespace broadphase {
namespace detail {

/// An object's place in IncrementalGrid.
struct GridState {
    std::uint32_t cell = ~std::uint32_t(0);  // its home cell, the large list, or none (not placed)
    std::uint32_t slot = 0;                  // its index in that cell, or in the large list
    bool present = false;
    bool outside = false;  // placed with its min corner outside the span (counted in outside_)
};

template <class T, int D>
class IncrementalGrid : public ChangeMarks<T, D, GridState> {
    static_assert(D >= 1 && D <= 3, "the grid indexes at most 3 axes");
    using Marks = ChangeMarks<T, D, GridState>;
    using Marks::boxes_, Marks::flag_, Marks::state_, Marks::marked_, Marks::present_, Marks::kChanged,
        Marks::kErased;

public:
    using box_type = BasicBox<T, D>;
    using Id = std::uint32_t;
    /// Ids must be below this (the top bit marks changed entries).
    static constexpr Id max_id = (Id(1) << 31) - 1;
    /// Cells the table may have per object.
    static constexpr double kCellsPerObject = 4;

    /// Applies the recorded changes (deriving the grid again first when
    /// needed) and, with search, calls emit(thread, c, other) once for every
    /// pair of overlapping present objects where c changed (set() since the
    /// last finish()); a pair of two changed objects comes from the one with
    /// the lower id. Queries run on up to `threads` threads (thread in
    /// [0, threads)). O(changes + their cells' entries + large objects), or
    /// O(n) for a derivation.
    template <class Emit>
    void commit(Emit&& emit, bool search = true, unsigned threads = 1) {
        this->filled_ = true;
        if (needs_rederive()) {
            derive();
        } else {
            // Each rewrite is a few dependent cache misses (the object's
            // state, its cell's header, that cell's last entry): asked for
            // 8, 4 and 2 objects ahead, so that they overlap.
            const std::size_t m = marked_.size();
            for (std::size_t i = 0; i < m; ++i) {
                if (i + 8 < m) prefetch_read(&state_[marked_[i + 8]]), prefetch_read(&boxes_[marked_[i + 8]]);
                if (i + 4 < m) {
                    const std::uint32_t c = state_[marked_[i + 4]].cell;
                    if (c < kLarge) prefetch_read(&cells_[c]);
                }
                if (i + 2 < m) {
                    const std::uint32_t c = state_[marked_[i + 2]].cell;
                    if (c < kLarge && !cells_[c].empty()) prefetch_write(&cells_[c].back());
                }
                const Id id = marked_[i];
                take_out(id);
                if (flag_[id] & kChanged) put_in(id);
            }
        }
        if (!search) return;
        constexpr std::size_t per_task = 256;
        const std::size_t m = marked_.size();
        run_tasks(threads, (m + per_task - 1) / per_task, [&](std::size_t t, unsigned me) {
            const std::size_t end = std::min(m, (t + 1) * per_task);
            // One object behind: an object's cells are gathered (their
            // entries asked for) before the one before it is scanned, so
            // that its cache misses overlap that scan.
            Around around[2];
            Around* ready = nullptr;
            for (std::size_t i = t * per_task; i < end; ++i) {
                // The objects a few ahead: their boxes and states are random accesses.
                if (i + 4 < end) prefetch_read(&boxes_[marked_[i + 4]]), prefetch_read(&state_[marked_[i + 4]]);
                const Id id = marked_[i];
                if (!(flag_[id] & kChanged)) continue;
                if (state_[id].cell == kLarge) {
                    large_pairs(id, emit, me);
                    continue;
                }
                Around& next = ready == &around[0] ? around[1] : around[0];
                gather_around(id, next);
                if (ready) small_pairs(*ready, emit, me);
                ready = &next;
            }
            if (ready) small_pairs(*ready, emit, me);
        });
    }
    /// commit() without the pair search.
    void commit(unsigned threads = 1) {
        commit([](unsigned, Id, Id) {}, false, threads);
    }

    /// Forgets every object and frees the memory. O(1) (and the frees).
    void clear() { *this = IncrementalGrid{}; }
    /// Clears the frame's marks. O(changes).
    void finish() {
        for (Id id : marked_) {
            const State& s = state_[id];
            if (s.present && s.cell != kLarge && s.cell != kNone) cells_[s.cell][s.slot].tagged = id;
            flag_[id] = 0;
        }
        marked_.clear();
    }

    std::size_t large_count() const { return large_.size(); }
    /// How many objects, on average over the objects, share the home cell
    /// of one (itself included), when the grid was last derived: about 1-3
    /// where the boxes fill their volume, far more where the table's cells
    /// had to stretch over clusters in a large world (the cells a query
    /// reads then hold crowds). 0 before the first derivation.
    double crowding() const { return crowding_; }
    /// The cell side on each axis (0 before the first commit).
    T cell_side(int k) const { return static_cast<T>(h_[k]); }

    /// Checks every entry against its object (tests). O(n + cells).
    bool validate() const {
        std::size_t placed = 0;
        for (std::size_t c = 0; c < cells_.size(); ++c)
            for (std::size_t j = 0; j < cells_[c].size(); ++j) {
                const Entry& e = cells_[c][j];
                const Id o = e.tagged & ~kChangedEntry;
                if (o >= state_.size() || !state_[o].present || state_[o].cell != c || state_[o].slot != j) return false;
                if (home_of(boxes_[o]) != c) return false;
                for (int k = 0; k < D; ++k)
                    if (e.lo[k] != boxes_[o].min[k] || e.hi[k] != boxes_[o].max[k]) return false;
                ++placed;
            }
        std::size_t present = 0;
        for (Id o = 0; o < state_.size(); ++o) {
            const State& s = state_[o];
            if (!s.present) continue;
            ++present;
            if (s.cell == kLarge && (s.slot >= large_.size() || large_[s.slot] != o)) return false;
        }
        return present == present_ && placed + large_.size() == present_;
    }

private:
    static constexpr std::uint32_t kNone = ~std::uint32_t(0), kLarge = kNone - 1;
    static constexpr Id kChangedEntry = Id(1) << 31;

    struct Entry {
        T lo[D], hi[D];
        Id tagged;  // the object's id, with kChangedEntry while it changed this frame
    };
    using State = GridState;

    // ---- the table -----------------------------------------------------------

    /// Clamped cell coordinate of x on axis k, in [1, dim - 2] (a spare cell
    /// at each end, so the 27 cells around any home exist).
    std::size_t coord(double x, int k) const {
        return clamped_cell<std::size_t>(x, origin_[k], inv_h_[k], 0.0, limit_[k]) + 1;
    }
    bool is_outside(const box_type& b) const {
        for (int k = 0; k < D; ++k) {
            const double t = (static_cast<double>(b.min[k]) - origin_[k]) * inv_h_[k];
            if (!(t >= 0 && t < limit_[k] + 1)) return true;
        }
        return false;
    }
    /// The home cell of a box, or kLarge when it is wider than a cell on
    /// some axis (or infinite).
    std::uint32_t home_of(const box_type& b) const {
        std::size_t c = 0;
        for (int k = 0; k < D; ++k) {
            const double lo = static_cast<double>(b.min[k]), hi = static_cast<double>(b.max[k]);
            if (!(hi - lo <= small_limit_[k])) return kLarge;
            c += coord(lo, k) * stride_[k];
        }
        return static_cast<std::uint32_t>(c);
    }

    Entry entry_of(Id id) const {
        Entry e;
        const box_type& b = boxes_[id];
        for (int k = 0; k < D; ++k) e.lo[k] = b.min[k], e.hi[k] = b.max[k];
        e.tagged = id | (flag_[id] & kChanged ? kChangedEntry : 0);
        return e;
    }

    /// Takes a placed object out of its cell (the last entry fills its slot)
    /// or out of the large list. O(1).
    void take_out(Id id) {
        State& s = state_[id];
        if (s.cell == kNone) return;
        if (s.cell == kLarge) {
            const Id last = large_.back();
            large_[s.slot] = last;
            state_[last].slot = s.slot;
            large_.pop_back();
        } else {
            auto& cell = cells_[s.cell];
            const Entry last = cell.back();
            cell[s.slot] = last;
            state_[last.tagged & ~kChangedEntry].slot = s.slot;
            cell.pop_back();
        }
        outside_ -= s.outside;
        s.outside = false;
        s.cell = kNone;
    }

    /// Places a present object by its box: into its home cell, or the large list. O(1) amortized.
    void put_in(Id id) {
        State& s = state_[id];
        const std::uint32_t c = home_of(boxes_[id]);
        if (c == kLarge) {
            s.cell = kLarge;
            s.slot = static_cast<std::uint32_t>(large_.size());
            large_.push_back(id);
        } else {
            s.cell = c;
            s.slot = static_cast<std::uint32_t>(cells_[c].size());
            cells_[c].push_back(entry_of(id));
        }
        s.outside = is_outside(boxes_[id]);
        outside_ += s.outside;
    }

    // ---- deriving the grid -----------------------------------------------------

    bool needs_rederive() const {
        return this->drifted(derived_, derived_count_, outside_) || large_.size() > 64 + present_ / 128;
    }

    /// Cell sides, span and table from the present objects' boxes, then
    /// every present object placed. O(n).
    void derive() {
        derived_ = true;
        derived_count_ = present_;
        const std::size_t n = state_.size();
        double lo[D], hi[D], h[D];
        auto each = [&](auto&& f) {
            for (Id id = 0; id < n; ++id)
                if (state_[id].present) f(boxes_[id]);
        };
        plan_home_cells<D>(each, std::max(kCellsPerObject * double(present_), 4096.0), 2, scratch_, lo, hi, h);
        const std::size_t stride = home_cell_table<D>(lo, hi, h, 2, origin_, h_, inv_h_, limit_, small_limit_, stride_);
        for (auto& cell : cells_) cell.clear();
        cells_.resize(stride);
        large_.clear();
        outside_ = 0;
        for (Id id = 0; id < n; ++id) {
            state_[id].cell = kNone;
            state_[id].outside = false;
            if (state_[id].present) put_in(id);
        }
        double shared = 0;
        for (const auto& cell : cells_) shared += double(cell.size()) * double(cell.size());
        crowding_ = present_ > 0 ? shared / double(present_) : 0;
    }

    // ---- the queries -------------------------------------------------------------

    /// The runs of entries a changed object in a cell is to scan.
    struct Run {
        const Entry* begin;
        const Entry* end;
    };
    struct Around {
        Id id;
        std::size_t count;
        Run runs[64];  // (27 at most: see gather_around)
    };

    /// A changed object in a cell, first pass: the cells around its home
    /// where a partner's home can be (on each axis, from the cell of min - h
    /// to that of max: 2 or 3 of the 3 around it), their non-empty runs of
    /// entries, with the entries asked for. Each cell is two dependent cache
    /// misses (its header, its entries): gathered apart from the scan, the
    /// misses of its cells (and of the next object's) overlap instead of
    /// following one another.
    void gather_around(Id id, Around& out) const {
        const box_type& b = boxes_[id];
        std::size_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
        for (int k = 0; k < D; ++k) {
            // A partner's min is above min - h (its extent is below h), and
            // at most max: its home's coordinate lies between theirs.
            c0[k] = coord(static_cast<double>(b.min[k]) - h_[k], k);
            c1[k] = coord(static_cast<double>(b.max[k]), k);
            // (At most 3 cells: the extent is below h - 1e-6 h. The bound
            // keeps the runs in their array whatever the rounding.)
            c1[k] = std::min(c1[k], c0[k] + 3);
        }
        out.id = id;
        std::size_t n = 0;
        auto gather = [&](std::size_t row) {
            for (std::size_t c = row + c0[0]; c <= row + c1[0]; ++c) {
                const auto& cell = cells_[c];
                const Entry* first = cell.data();
                prefetch_read(first);
                out.runs[n] = Run{first, first + cell.size()};
                n += !cell.empty();
            }
        };
        if constexpr (D == 1) {
            gather(0);
        } else if constexpr (D == 2) {
            for (std::size_t y = c0[1]; y <= c1[1]; ++y) gather(y * stride_[1]);
        } else {
            for (std::size_t z = c0[2]; z <= c1[2]; ++z)
                for (std::size_t y = c0[1]; y <= c1[1]; ++y) gather(z * stride_[2] + y * stride_[1]);
        }
        out.count = n;
    }

    /// Second pass: the gathered entries, skipping those of changed objects
    /// with lower ids (they report the pair); then every large object.
    template <class Emit>
    void small_pairs(const Around& around, Emit& emit, unsigned me) const {
        const Id id = around.id;
        const box_type& b = boxes_[id];
        const Id tag = id | kChangedEntry;
        for (std::size_t r = 0; r < around.count; ++r)
            for (const Entry* e = around.runs[r].begin; e != around.runs[r].end; ++e) {
                // One branch a candidate: the tests combined.
                bool hit = e->tagged != tag;
                hit &= !((e->tagged & kChangedEntry) && e->tagged < tag);
                for (int k = 0; k < D; ++k) hit &= detail::intervals_overlap_flat(e->lo[k], e->hi[k], b.min[k], b.max[k]);
                if (hit) emit(me, id, e->tagged & ~kChangedEntry);
            }
        for (Id o : large_)
            if (overlaps(b, boxes_[o])) emit(me, id, o);
    }

    /// A changed large object: every unchanged object in the cells a box
    /// overlapping it can have its home in (or in every cell, when that
    /// range is most of the table), then the other large objects.
    template <class Emit>
    void large_pairs(Id id, Emit& emit, unsigned me) const {
        const box_type& b = boxes_[id];
        auto consider = [&](const Entry& e) {
            if (e.tagged & kChangedEntry) return;  // a changed small object reports the pair
            bool hit = true;
            for (int k = 0; k < D; ++k) hit &= detail::intervals_overlap_flat(e.lo[k], e.hi[k], b.min[k], b.max[k]);
            if (hit) emit(me, id, e.tagged);
        };
        std::size_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
        double span = 1;
        for (int k = 0; k < D; ++k) {
            c0[k] = coord(static_cast<double>(b.min[k]), k) - 1;
            c1[k] = coord(static_cast<double>(b.max[k]), k);
            span *= double(c1[k] - c0[k] + 1);
        }
        if (span * 2 > double(cells_.size())) {
            for (const auto& cell : cells_)
                for (const Entry& e : cell) consider(e);
        } else {
            for (std::size_t z = c0[D > 2 ? 2 : 0]; z <= c1[D > 2 ? 2 : 0]; ++z) {
                if (D <= 2 && z != c0[0]) break;
                for (std::size_t y = c0[D > 1 ? 1 : 0]; y <= c1[D > 1 ? 1 : 0]; ++y) {
                    if (D <= 1 && y != c0[0]) break;
                    const std::size_t row = (D > 2 ? z * stride_[D > 2 ? 2 : 0] : 0) + (D > 1 ? y * stride_[D > 1 ? 1 : 0] : 0);
                    for (std::size_t x = c0[0]; x <= c1[0]; ++x)
                        for (const Entry& e : cells_[row + x]) consider(e);
                }
            }
        }
        for (Id o : large_) {
            if (o == id || ((flag_[o] & kChanged) && o < id)) continue;
            if (overlaps(b, boxes_[o])) emit(me, id, o);
        }
    }

    std::vector<std::vector<Entry>> cells_;
    std::vector<Id> large_;
    std::vector<double> scratch_;
    std::size_t derived_count_ = 0, outside_ = 0;
    double crowding_ = 0;
    bool derived_ = false;
    double origin_[D] = {}, h_[D] = {}, inv_h_[D] = {}, small_limit_[D] = {}, limit_[D] = {};
    std::size_t stride_[D] = {};
};

}  // namespace detail
}  // namespace broadphase
