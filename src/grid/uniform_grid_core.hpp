// The uniform grid's core: one home cell per box and a half stencil of
// neighbours (the grid search of Taichi's DEM tutorial, for boxes, without
// world bounds), the uniform grid's pair search in one set.
//
// The cell side h is at least the extent of every "small" box on every axis,
// so two overlapping small boxes have home cells (the cells of their min
// corners) at most one apart on each axis. Boxes are sorted by home-cell key
// (z, y, x linear, x fastest), so a row of cells along x is one run of the
// sorted array. A box then meets only: later boxes of its own cell, the
// next cell of its row, and cells x-1..x+1 of four rows ahead: (y+1, z),
// (y-1..y+1, z+1). Each pair is tested exactly once (the 13 forward cells of
// the 26 neighbours, plus the own cell after i), so nothing is de-duplicated.
// The rows' runs are found by cursors that only move forward, because the
// neighbour keys grow with the cell key: O(cells) for the whole walk.
//
// Each box is stored once (no copies into the cells it touches), so memory
// and binning cost n, not n times the cells a box spans. Boxes bigger than h
// ("large") are matched apart: against the table row by row (or by a scan
// when that is cheaper) and among themselves by a sweep.
//
// Cell coordinates are computed in double and clamped, so the one-apart
// property holds exactly whatever the offset or scale of the coordinates
// (the smallness test keeps a 1e-6 relative margin against rounding).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/box_rules.hpp>
#include "core/large_box_sweep.hpp"
#include <broadphase/detail/parallel.hpp>
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"
#include "core/stats.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
class UniformGridCore {
    static_assert(D >= 1 && D <= 3, "home cells index at most 3 axes");
    using View = SoaView<T, D>;

public:
    /// Below this plan fill() the cells the memory budget allows are far
    /// wider than the boxes (clusters far apart, a dense object in a sparse
    /// world): crowds of boxes share a cell and the stencil walk tests them
    /// all against each other (stadium:100000, 100,000 boxes in a world
    /// 100 times their cube's side). self_pairs then declines, and the
    /// caller uses hashed cells, which cost nothing where space is empty
    /// (measured, with the fills of the built-in scenes:
    /// docs/measured-in-code.md#uniform-grid).
    static constexpr double min_fill = 0.5;

    /// Every pair within `v`, ids as positions in v, a < b, on up to
    /// `threads` threads (the same pairs in the same order for any count).
    /// O(n + cells) to bin by counting sort, then the stencil walk: about
    /// 14 cells' boxes tested per box. Returns false, having reported
    /// nothing, when the plan's fill is below min_fill (points, whose cells
    /// are sized by their density, are never declined).
    template <class Sink>
    bool self_pairs(const View& v, Sink& sink, StatsScratch& stats_scratch, unsigned threads = 1) {
        threads = std::max(threads, 1u);
        if (!choose_cells(v, stats_scratch)) return false;
        bin(v, threads);
        walk(sink, threads);
        large_pairs(v, sink);
        return true;
    }

    /// What a pair search over `v` would do, without doing it: the cell
    /// sides and the grid's span. The automatic choice uses
    /// it (a crowded grid means clustered or mixed data: the hybrid grid's
    /// sweep copes better). O(n) plus a sample sort.
    struct Plan {
        double h[D] = {};             ///< cell side per axis
        std::size_t cells = 0;        ///< cells of the grid
        double lo[D] = {}, hi[D] = {};  ///< the grid's span of min corners
        double ext[D] = {};           ///< the extent bounds (boxes above one are large)
        /// Box extent over cell side (the largest such ratio over the axes):
        /// 1 when cells fit the boxes, small when the memory budget or the
        /// span of the data stretched them.
        double fill() const {
            double f = 0;
            for (int k = 0; k < D; ++k)
                if (h[k] > 0) f = std::max(f, ext[k] / h[k]);
            return f;
        }
    };
    static Plan plan(const View& v, StatsScratch& scratch) { return plan(v, scene_stats(v, scratch)); }

    /// A plan guessed from the sample alone (its extents, and its centres'
    /// 1st to 99th percentiles for the span), without plan()'s passes over
    /// every box: cell sides, span and fill() (within a few percent of
    /// plan()'s on every built-in scene). O(1). The
    /// automatic choice uses it to choose between the grids cheaply.
    static Plan estimated_plan(const SceneStats<D>& s) {
        Plan p;
        double widest = 0;
        for (int k = 0; k < D; ++k) {
            p.ext[k] = std::isfinite(s.extent_p99[k]) ? s.extent_p99[k] : 0;
            widest = std::max(widest, p.ext[k]);
        }
        if (!(widest > 0) || !std::isfinite(widest)) return p;  // points: fill() 0
        for (int k = 0; k < D; ++k) {
            p.h[k] = std::max(p.ext[k], widest / 8);
            p.lo[k] = std::isfinite(s.center_lo[k]) ? s.center_lo[k] : 0;
            p.hi[k] = std::isfinite(s.center_hi[k]) ? std::max(p.lo[k], s.center_hi[k]) : p.lo[k];
        }
        fit_budget(p, cell_budget(s.n));
        return p;
    }

    /// The same, from statistics of v already taken.
    static Plan plan(const View& v, const SceneStats<D>& s) {
        Plan p;
        // Cells are boxes of their own shape: on each axis, at least the
        // boxes' extent there (the sample's 99th percentile, or the largest
        // finite extent of all when it is not far above it: then no box is
        // large). Flat or thin data (a terrain, edges along an axis) gets
        // flat or thin cells, which hold fewer boxes that do not overlap.
        double most[D];
        max_finite_extents(v, most);
        double widest = 0;
        for (int k = 0; k < D; ++k) {
            double e = std::isfinite(s.extent_p99[k]) ? s.extent_p99[k] : 0;
            if (most[k] <= 2 * e) e = most[k];
            p.ext[k] = e * (1 + 1e-5);  // room for the smallness margin
            widest = std::max(widest, p.ext[k]);
        }
        min_corner_bounds(v, p.lo, p.hi);
        const bool points = !(widest > 0) || !std::isfinite(widest);
        if (points) {
            // Points (or boxes thinner than the sample sees): start from the
            // volume's share per box.
            double volume = 1;
            for (int k = 0; k < D; ++k) volume *= std::max(p.hi[k] - p.lo[k], 1e-30);
            widest = std::pow(volume / static_cast<double>(std::max<std::size_t>(v.n, 1)), 1.0 / D);
            if (!(widest > 0) || !std::isfinite(widest)) widest = 1;
        }
        // No side below 1/8 of the widest: a cell that thin holds few
        // boxes anyway, and zero-thickness data would get no cells at all.
        for (int k = 0; k < D; ++k) p.h[k] = points ? widest : std::max(p.ext[k], widest / 8);
        // Far outliers: bound the grid by the centres' percentiles instead
        // (the rest is clamped into the edge cells).
        const double budget = cell_budget(v.n);
        if (grid_cells(p.lo, p.hi, p.h) > budget) {
            for (int k = 0; k < D; ++k) {
                p.lo[k] = std::max(p.lo[k], s.center_lo[k] - p.ext[k]);
                p.hi[k] = std::max(p.lo[k], std::min(p.hi[k], s.center_hi[k] + p.ext[k]));
            }
        }
        fit_budget(p, budget);
        return p;
    }

    /// The widest side of the last grid's cells.
    T cell_size() const {
        double h = 0;
        for (int k = 0; k < D; ++k) h = std::max(h, h_[k]);
        return static_cast<T>(h);
    }
    /// Boxes kept out of the table (bigger than a cell) by the last call.
    std::size_t large_count() const { return large_ids_.size(); }

private:
    static constexpr std::uint32_t large_cell = ~std::uint32_t(0);
    /// Boxes in a box's stencil runs past which one call to the widest
    /// kernel takes them all (tried 8, 16, 32, 64: see docs/choosing.md).
    static constexpr std::size_t wide_runs_from = 16;
    /// Boxes in a box's stencil runs up to which (every run of at most 4)
    /// one SSE2 batch a run is taken, empty runs too, and the hits emitted
    /// from one mask: no branch per run, where the loop form mispredicts on
    /// which runs are empty. Past 8, the batches of empty runs cost more
    /// than the mispredictions they save (measured:
    /// docs/measured-in-code.md#uniform-grid).
    static constexpr std::size_t short_runs_up_to = 8;

    // ---- cell size and the grid's extent ----------------------------------------

    /// Lays the grid out from plan(): cells of side h over the min corners'
    /// span, a spare cell at each end of every axis. False when the plan's
    /// fill is below min_fill (boxes with an extent only).
    bool choose_cells(const View& v, StatsScratch& scratch) {
        const Plan p = plan(v, scratch);
        bool points = true;
        for (int k = 0; k < D; ++k) points = points && !(p.ext[k] > 0);
        if (!points && p.fill() < min_fill) return false;
        std::size_t stride = 1;
        for (int k = 0; k < D; ++k) {
            const double h = p.h[k];
            dim_[k] = static_cast<std::size_t>(axis_cells(p.lo[k], p.hi[k], h));
            limit_[k] = static_cast<double>(dim_[k] - 3);
            stride_[k] = stride;
            stride *= dim_[k];
            origin_[k] = p.lo[k];
            h_[k] = h;
            inv_h_[k] = 1.0 / h;
            small_limit_[k] = h * (1 - 1e-6);
        }
        cells_ = stride;
        return true;
    }

    /// Cells the grid may have: a few per box (the prefix sum over them
    /// stays a small part of the work).
    static double cell_budget(std::size_t n) {
        return std::min(std::max(8.0 * static_cast<double>(n), 4096.0), 2147483648.0);
    }

    /// Cells along one axis of a grid of side h over [lo, hi], spare cells
    /// included; capped (overflow and NaN too) at a count fit_budget grows away.
    static double axis_cells(double lo, double hi, double h) {
        const double c = std::floor((hi - lo) / h) + 3;
        return c < 1e30 ? c : 1e30;
    }

    /// Cells of a grid of side h over [lo, hi], spare cells included.
    static double grid_cells(const double* lo, const double* hi, const double* h) {
        double c = 1;
        for (int k = 0; k < D; ++k) c *= axis_cells(lo[k], hi[k], h[k]);
        return c;
    }

    /// Keeps a plan's arithmetic finite whatever the coordinates: a span
    /// inside +-DBL_MAX/4 (min corners near +-DBL_MAX, possible with T =
    /// double, would overflow hi - lo; boxes past it fall into the edge
    /// cells, as far outliers do) and sides in [1e-300, 1e300] (a side of 0,
    /// from points or subnormal extents, would give 0/0). Any side is exact:
    /// a box is binned as small only when its extent is below the side.
    static void bound_plan(Plan& p) {
        const double m = std::numeric_limits<double>::max() / 4;
        for (int k = 0; k < D; ++k) {
            p.lo[k] = p.lo[k] >= -m ? std::min(p.lo[k], m) : -m;  // (NaN: -m)
            p.hi[k] = p.hi[k] >= p.lo[k] ? std::min(p.hi[k], m) : p.lo[k];
            p.h[k] = p.h[k] >= 1e-300 ? std::min(p.h[k], 1e300) : 1e-300;
        }
    }

    /// Grows every side of p's cells by one factor until the grid has at
    /// most `budget` cells; sets p.cells.
    static void fit_budget(Plan& p, double budget) {
        bound_plan(p);
        for (int iter = 0; iter < 64 && grid_cells(p.lo, p.hi, p.h) > budget; ++iter) {
            const double grow = std::max(1.01, std::pow(grid_cells(p.lo, p.hi, p.h) / budget, 1.0 / D));
            for (int k = 0; k < D; ++k) p.h[k] *= grow;
        }
        p.cells = static_cast<std::size_t>(grid_cells(p.lo, p.hi, p.h));
    }

    /// Exact bounds of the finite min corners per axis. O(n).
    static void min_corner_bounds(const View& v, double* lo, double* hi) {
        for (int k = 0; k < D; ++k) {
            const T* x = v.lo[k];
            T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
            for (std::size_t i = 0; i < v.n; ++i) {
                const T t = x[i];
                const bool finite = t >= std::numeric_limits<T>::lowest() && t <= std::numeric_limits<T>::max();
                mn = finite && t < mn ? t : mn;
                mx = finite && t > mx ? t : mx;
            }
            lo[k] = static_cast<double>(mn);
            hi[k] = static_cast<double>(mx);
            if (hi[k] < lo[k]) lo[k] = hi[k] = 0;  // no finite min corner
        }
    }

    /// The largest finite extent of any box, per axis. O(n).
    static void max_finite_extents(const View& v, double* most) {
        for (int k = 0; k < D; ++k) {
            const T* lo = v.lo[k];
            const T* hi = v.hi[k];
            T m = T(0);
            for (std::size_t i = 0; i < v.n; ++i) {
                const T e = hi[i] - lo[i];
                m = e > m && e <= std::numeric_limits<T>::max() ? e : m;  // skips inf and NaN
            }
            most[k] = static_cast<double>(m);
        }
    }

    // ---- binning (counting sort) ------------------------------------------------

    /// Clamped cell coordinate of x on axis k, in [1, dim - 2]: monotone and
    /// never more than one apart for points less than h apart.
    std::size_t coord(double x, int k) const {
        return clamped_cell<std::size_t>(x, origin_[k], inv_h_[k], 0.0, limit_[k]) + 1;
    }

    /// Home cell of box i, or large_cell when it is larger than h on some
    /// axis (or infinite).
    std::uint32_t home_of(const View& v, std::size_t i) const {
        std::size_t c = 0;
        for (int k = 0; k < D; ++k) {
            const double a = static_cast<double>(v.lo[k][i]), b = static_cast<double>(v.hi[k][i]);
            if (!(b - a <= small_limit_[k])) return large_cell;
            c += coord(a, k) * stride_[k];
        }
        return static_cast<std::uint32_t>(c);
    }

    /// Counting sort of the small boxes by home cell (stable: a cell keeps
    /// input order), copied in that order to padded struct-of-arrays.
    /// end_[c + 1] is where cell c's boxes end, end_[c] where they start.
    void bin(const View& v, unsigned threads) {
        const std::size_t n = v.n;
        resize_buffer(home_, n);
        run_parts(threads, n, [&](std::size_t, std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) home_[i] = home_of(v, i);
        });
        // Room for any grid this many boxes can get (the cell count moves
        // with h from frame to frame; untouched capacity costs no memory
        // traffic), and for every box being large.
        if (end_.capacity() < cells_ + 1) end_.reserve(std::max(cells_, static_cast<std::size_t>(cell_budget(n))) + 1);
        resize_buffer(end_, cells_ + 1);
        std::fill(end_.begin(), end_.end(), 0u);
        if (large_ids_.capacity() < n) large_ids_.reserve(n + n / 4);
        large_ids_.clear();
        std::uint32_t* count = end_.data() + 1;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t c = home_[i];
            if (c == large_cell) large_ids_.push_back(static_cast<std::uint32_t>(i));
            else ++count[c];
        }
        // Exclusive prefix sum: end_[c + 1] = start of cell c, for now.
        std::uint32_t sum = 0;
        for (std::size_t c = 0; c < cells_; ++c) {
            const std::uint32_t k = count[c];
            count[c] = sum;
            sum += k;
        }
        const std::size_t m = sum;
        resize_buffer(ids_, m);
        resize_buffer(cell_of_, m);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint32_t c = home_[i];
            if (c == large_cell) continue;
            const std::uint32_t at = count[c]++;  // after this, end_[c + 1] = end of cell c
            ids_[at] = static_cast<std::uint32_t>(i);
            cell_of_[at] = c;
        }
        for (int k = 0; k < D; ++k) {
            resize_buffer(lo_[k], m + simd::width);
            resize_buffer(hi_[k], m + simd::width);
        }
        run_parts(threads, m, [&](std::size_t, std::size_t first, std::size_t last) {
            for (int k = 0; k < D; ++k) {
                T* lo = lo_[k].data();
                T* hi = hi_[k].data();
                const T* sl = v.lo[k];
                const T* sh = v.hi[k];
                for (std::size_t t = first; t < last; ++t) {
                    lo[t] = sl[ids_[t]];
                    hi[t] = sh[ids_[t]];
                }
            }
        });
        // Padding lanes never overlap anything (NaN compares false).
        for (int k = 0; k < D; ++k)
            for (std::size_t p = 0; p < static_cast<std::size_t>(simd::width); ++p)
                lo_[k][m + p] = hi_[k][m + p] = std::numeric_limits<T>::quiet_NaN();
        sorted_.n = m;
        for (int k = 0; k < D; ++k) sorted_.lo[k] = lo_[k].data(), sorted_.hi[k] = hi_[k].data();
    }

    // ---- the stencil walk -------------------------------------------------------

    /// Cell offsets of the forward rows: (y+1, z) and (y-1..y+1, z+1).
    int forward_rows(std::size_t* delta) const {
        int r = 0;
        if constexpr (D >= 2) delta[r++] = stride_[1];
        if constexpr (D >= 3) {
            delta[r++] = stride_[2] - stride_[1];
            delta[r++] = stride_[2];
            delta[r++] = stride_[2] + stride_[1];
        }
        return r;
    }

    /// Pairs of the small boxes at sorted positions [first, last): each
    /// against the rest of its cell and the next (the own row), and against
    /// cells x-1..x+1 of each forward row.
    template <class Sink>
    void walk_range(std::size_t first, std::size_t last, Sink& sink) const {
        std::size_t delta[4] = {0, 0, 0, 0};
        const int rows = forward_rows(delta);
        const std::uint32_t* end = end_.data();
        const std::uint32_t* id = ids_.data();
        const std::uint32_t* cell = cell_of_.data();
        const View& bv = sorted_;
        for (std::size_t i = first; i < last; ++i) {
            const std::size_t c = cell[i];
            const BasicBox<T, D> q = box_at(bv, i);
            const std::uint32_t a = id[i];
            auto emit = [&](std::size_t j) {
                // Branch-free order: which of the two comes first is random.
                const std::uint32_t b = id[j];
                sink(std::min(a, b), std::max(a, b));
            };
            // Runs: [0] the rest of the own cell and the next; [1..rows] the
            // forward rows' three cells.
            std::size_t b0[5], b1[5];
            b0[0] = i + 1;
            b1[0] = end[c + 2];
            std::size_t boxes = b1[0] - b0[0];
            for (int r = 0; r < rows; ++r) {
                const std::size_t row = c + delta[r];
                b0[r + 1] = end[row - 1];
                b1[r + 1] = end[row + 2];
                boxes += b1[r + 1] - b0[r + 1];
            }
            // Crowded neighbourhoods (meshes, piles): every run in one call
            // to the widest kernel, a masked batch per short run. Sparse
            // ones: inlined (a call would cost more than it saves), one
            // batch a run when every run is short, else a loop per run.
            if (boxes > wide_runs_from) {
                scan_runs_padded(bv, b0, b1, rows + 1, q, emit);
            } else if (boxes > short_runs_up_to || !scan_short_runs_padded(bv, b0, b1, rows + 1, q, emit)) {
                for (int r = 0; r <= rows; ++r) scan_overlaps_padded(bv, b0[r], b1[r], q, emit);
            }
            if ((i & 1023) == 0 && sink.stopped()) return;
        }
    }

    template <class Sink>
    void walk(Sink& sink, unsigned threads) {
        const std::size_t m = ids_.size();
        if (threads <= 1 || m < 4096) {
            walk_range(0, m, sink);
            return;
        }
        // Tasks are slabs of space; a few thousand boxes each keep their pair
        // counts steady from frame to frame, so their buffers stop growing.
        const std::size_t tasks = task_count(threads, m, 4096);
        task_pairs_.run(threads, tasks, sink, [&](std::size_t t, PairSink& s, unsigned) {
            walk_range(even_bound(m, tasks, t), even_bound(m, tasks, t + 1), s);
        });
    }

    // ---- large boxes ------------------------------------------------------------

    /// Large boxes against the small ones, row by row over the home cells a
    /// small box overlapping them can have ([cell(q.min) - 1, cell(q.max)]
    /// on every axis), then among themselves by a sweep.
    template <class Sink>
    void large_pairs(const View& v, Sink& sink) {
        const std::size_t nl = large_ids_.size();
        if (nl == 0 || sink.stopped()) return;
        const std::uint32_t* id = ids_.data();
        const std::uint32_t* end = end_.data();
        for (std::size_t t = 0; t < nl && !sink.stopped(); ++t) {
            const std::uint32_t a = large_ids_[t];
            const BasicBox<T, D> q = box_at(v, a);
            auto emit = [&](std::size_t j) {
                const std::uint32_t b = id[j];
                if (a < b) sink(a, b);
                else sink(b, a);
            };
            std::size_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0};
            double rows = 1;
            for (int k = 0; k < D; ++k) {
                c0[k] = coord(static_cast<double>(q.min[k]), k) - 1;
                c1[k] = coord(static_cast<double>(q.max[k]), k);
                if (k > 0) rows *= static_cast<double>(c1[k] - c0[k] + 1);
            }
            if (rows * 8 > static_cast<double>(sorted_.n)) {
                scan_overlaps_padded(sorted_, 0, sorted_.n, q, emit);
                continue;
            }
            for (std::size_t z = c0[2]; z <= c1[2]; ++z)
                for (std::size_t y = c0[1]; y <= c1[1]; ++y) {
                    const std::size_t row = (D > 2 ? z * stride_[D > 2 ? 2 : 0] : 0) + (D > 1 ? y * stride_[D > 1 ? 1 : 0] : 0);
                    const std::size_t b0 = end[row + c0[0]], b1 = end[row + c1[0] + 1];
                    if (b1 > b0) scan_overlaps_padded(sorted_, b0, b1, q, emit);
                }
        }
        if (nl >= 2 && !sink.stopped()) {
            large_sweep_.prepare(v, large_ids_, sort_);
            large_sweep_.pairs(sink);
        }
    }

    double h_[D] = {}, inv_h_[D] = {}, small_limit_[D] = {};
    double origin_[D] = {};
    double limit_[D] = {};
    std::size_t dim_[D] = {}, stride_[D] = {};
    std::size_t cells_ = 0;
    std::vector<std::uint32_t> home_;     // per box: its home cell, or large_cell
    std::vector<std::uint32_t> end_;      // per cell + 1: where its boxes end (end_[c] = start of c)
    std::vector<std::uint32_t> ids_;      // per sorted box: its index in the input
    std::vector<std::uint32_t> cell_of_;  // per sorted box: its home cell
    std::vector<T> lo_[D], hi_[D];        // sorted boxes, padded with NaN
    View sorted_{};
    std::vector<std::uint32_t> large_ids_;
    LargeBoxSweep<T, D> large_sweep_;  // the large boxes among themselves
    SortScratch sort_;
    TaskPairs task_pairs_;
};

}  // namespace detail
}  // namespace broadphase
