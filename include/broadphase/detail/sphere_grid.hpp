// find_sphere_pairs' grid for spheres of similar radii (the DEM case): one
// uniform grid over the centres, no boxes, no box pairs.
//
// Cells are cubes of side h just above the largest diameter d = 2 max(r),
// so two touching spheres have centres in the same or adjacent cells. Each
// sphere sits in exactly one cell (its centre's). Cells are numbered
// z-major, y, x with one empty cell of padding on every side; a counting
// sort by cell number orders the spheres and leaves a table of where each
// cell starts. Then, in that order, a sphere is tested against the spheres
// after it in its own cell and those in the 13 cells after its cell (x + 1;
// the cells x - 1 .. x + 1 of row y + 1; of rows y - 1, y, y + 1 at z + 1):
// five runs that are contiguous in the sorted order, read from the table.
// Each pair is so tested once, by spheres_touch (spheres.hpp's rule).
//
// Parallel: the input is cut into parts that each count and place their own
// spheres (stable: a cell's spheres stay in input order), and the sorted
// spheres are cut at cell boundaries into tasks, each writing its own
// buffer; the buffers are concatenated in task order, which is the
// single-thread order, so the output is the same for any thread count.
//
// Why not the box grids: those put a box into every cell it touches (about
// 2.8 cells here), test box against box, and the pairs they report (2.26
// million at 1M spheres of solid fraction 0.3, against 1.19 million
// touching) must then be tested again through random accesses to the
// centres. Here each sphere is stored once, in sorted order (the tests read
// neighbours from cache) and tested with its final test.
//
// The table has a cell per 1/8 sphere at most: sparse scenes get cells up
// to 2 d; scenes that would need more (a few far-apart clusters, outliers
// far away), radii spread over more than 2x the mean, an infinite radius or
// all radii zero go to the box path instead (find() returns false).
//
// Exactness: h >= d (1 + 2^-16). If two spheres pass the test, then
// |dx| <= ri + rj <= d on every axis up to a few rounding errors; the cell
// coordinate is trunc((x - lo) / h), computed in double (monotone in x),
// whose rounding error is far below the 2^-16 margin while an axis has
// fewer than 2^32 cells. So their cells differ by at most one on each axis.
//
// Memory: every buffer is a member kept between calls; after a call of a
// given size the next of that size allocates nothing.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../pairs.hpp"
#include "parallel.hpp"

namespace broadphase {
namespace detail {

/// The pair rule of spheres.hpp: |ci - cj|^2 <= (ri + rj)^2, every
/// operation in double, in this order. Every path (grid, box path, tests'
/// references) evaluates this one expression, so they agree bit for bit.
inline bool spheres_touch(double dx, double dy, double dz, double rr) {
    return dx * dx + dy * dy + dz * dz <= rr * rr;
}

/// Sorts pairs (a < b, a < n) by (a, b) in O(K + n): a counting sort by a,
/// then each a's few partners sorted by b. `start` and `b` are scratch.
inline void sort_pairs_by_first(std::vector<Pair>& pairs, std::size_t n, std::vector<std::uint32_t>& start,
                                std::vector<std::uint32_t>& b) {
    const std::size_t k = pairs.size();
    if (k < 2) return;
    start.assign(n + 1, 0);
    for (const Pair& p : pairs) ++start[p.a + 1];
    for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    b.resize(k);
    for (const Pair& p : pairs) b[start[p.a]++] = p.b;  // start[a] becomes a's end
    std::uint32_t s = 0;
    for (std::size_t a = 0; a < n; ++a) {
        const std::uint32_t e = start[a];
        if (e - s > 1) std::sort(b.begin() + s, b.begin() + e);
        for (std::uint32_t t = s; t < e; ++t) pairs[t] = {static_cast<std::uint32_t>(a), b[t]};
        s = e;
    }
}

/// The grid's state, kept between calls. V is spheres.hpp's SphereView.
class SphereGrid {
public:
    /// Every touching pair of `v` into `out` (replacing its contents), the
    /// invalid spheres (increasing) into `invalid`; `exceeded` when more
    /// than max_pairs pairs touch (then out holds the first max_pairs).
    /// Threads: up to `threads`, one per 8 min_per_thread spheres.
    /// Returns false, having done nothing but a pass over the input, when
    /// the grid does not suit: an infinite radius, all radii zero, radii
    /// spread (the largest over twice the mean), or centres spread so that
    /// the table would need cells over 2 d. O(n + pairs + cells).
    template <class V>
    bool find(const V& v, unsigned threads, std::size_t min_per_thread, std::uint64_t max_pairs, std::vector<Pair>& out,
              std::vector<std::uint32_t>& invalid, bool& exceeded) {
        // Threads only past 8 x Options::min_boxes_per_thread spheres each
        // (32,768 by default): a sphere costs about a tenth of a box.
        min_per_task_ = std::max<std::size_t>(2 * min_per_thread, 1);
        threads_ = plan_threads(threads, v.n, 8 * std::max<std::size_t>(min_per_thread, 1));
        exceeded = false;
        survey(v);
        if (!plan()) return false;
        sort_cells(v);
        if (v.radii) pairs<false>(v, max_pairs, out, exceeded);
        else pairs<true>(v, max_pairs, out, exceeded);
        invalid.clear();
        for (std::size_t p = 0; p < parts_used_; ++p)
            invalid.insert(invalid.end(), parts_[p].invalid.begin(), parts_[p].invalid.end());
        return true;
    }

private:
    /// What the first pass found in one part of the input.
    struct Survey {
        double lo[3], hi[3];
        double rmax, rsum;
        std::size_t valid;    // spheres with a number centre and a radius >= 0
        std::size_t gridded;  // ... of which the centre is finite (the others touch nothing)
        bool infinite_radius;
        std::vector<std::uint32_t> invalid;

        void reset() {
            for (int k = 0; k < 3; ++k) lo[k] = std::numeric_limits<double>::infinity(), hi[k] = -lo[k];
            rmax = rsum = 0;
            valid = gridded = 0;
            infinite_radius = false;
            invalid.clear();
        }
        void merge(const Survey& s) {
            for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], s.lo[k]), hi[k] = std::max(hi[k], s.hi[k]);
            rmax = std::max(rmax, s.rmax);
            rsum += s.rsum;
            valid += s.valid;
            gridded += s.gridded;
            infinite_radius = infinite_radius || s.infinite_radius;
        }
    };

    struct Point {
        double x, y, z, r;
    };

    /// f(part, begin, end) over `parts` equal contiguous parts of [0, n).
    template <class F>
    void run_parts(std::size_t parts, std::size_t n, F&& f) const {
        run_tasks(threads_, parts, [&](std::size_t p, unsigned) { f(p, even_bound(n, parts, p), even_bound(n, parts, p + 1)); });
    }

    /// Parts to cut a pass into: `per_thread` a thread (1 without threads).
    std::size_t part_count(std::size_t per_thread) const { return threads_ <= 1 ? 1 : threads_ * per_thread; }

    // ---- pass 1: validity, bounds, radii ------------------------------------

    template <class V>
    void survey(const V& v) {
        const std::size_t parts = part_count(4);
        if (parts_.size() < parts) parts_.resize(parts);
        parts_used_ = parts;
        run_parts(parts, v.n, [&](std::size_t p, std::size_t b, std::size_t e) {
            Survey& s = parts_[p];
            s.reset();
            for (std::size_t i = b; i < e; ++i) {
                const auto x = v.coord(i, 0), y = v.coord(i, 1), z = v.coord(i, 2);
                const auto ri = v.r(i);
                if (std::isnan(x) || std::isnan(y) || std::isnan(z) || !(ri >= 0)) {
                    s.invalid.push_back(static_cast<std::uint32_t>(i));
                    continue;
                }
                ++s.valid;
                const double rd = static_cast<double>(ri);
                if (std::isinf(rd)) s.infinite_radius = true;
                s.rmax = std::max(s.rmax, rd);
                s.rsum += rd;
                if (!(std::isfinite(x) && std::isfinite(y) && std::isfinite(z))) continue;
                ++s.gridded;
                const double c[3] = {static_cast<double>(x), static_cast<double>(y), static_cast<double>(z)};
                for (int k = 0; k < 3; ++k) s.lo[k] = std::min(s.lo[k], c[k]), s.hi[k] = std::max(s.hi[k], c[k]);
            }
        });
        all_.reset();
        for (std::size_t p = 0; p < parts; ++p) all_.merge(parts_[p]);
    }

    // ---- the grid -----------------------------------------------------------

    /// Cell side and grid shape; false when the grid does not suit.
    bool plan() {
        if (all_.infinite_radius || !(all_.rmax > 0)) return false;
        if (all_.rmax > 2 * (all_.rsum / static_cast<double>(all_.valid))) return false;
        if (all_.gridded == 0) {
            dims_[0] = dims_[1] = dims_[2] = 3;
            return true;
        }
        const double d = 2 * all_.rmax;
        // At most max_cells cells (the table's memory): sparse scenes get
        // cells larger than d, up to 2 d; beyond that (far apart clusters,
        // very sparse scenes) the box path suits better.
        const double max_cells = std::min(std::max(8.0 * static_cast<double>(all_.gridded), 65536.0), 4.0e9);  // 32-bit keys
        for (double scale = 1;; scale *= 1.05) {
            if (scale > 2) return false;
            h_ = d * scale * (1 + std::ldexp(1.0, -16));
            inv_h_ = 1 / h_;
            if (!std::isfinite(h_) || !std::isfinite(inv_h_)) return false;  // radii near overflow or underflow
            double cells = 1;
            for (int k = 0; k < 3; ++k) {
                const double span = (all_.hi[k] - all_.lo[k]) * inv_h_;  // as cell_of computes it
                cells *= span + 3;
                if (cells <= max_cells) dims_[k] = static_cast<std::uint64_t>(span) + 3;  // 1 .. trunc(span) + 1, padding
            }
            if (cells <= max_cells) return true;
        }
    }

    /// Cell number of a gridded sphere's centre: (z, y, x) packed, each 1-based.
    std::uint32_t cell_of(const double c[3]) const {
        std::uint64_t key = 0;
        for (int k = 2; k >= 0; --k) {
            const double x = (c[k] - all_.lo[k]) * inv_h_;
            const auto cell = std::min(static_cast<std::uint64_t>(x) + 1, dims_[k] - 2);
            key = key * dims_[k] + cell;
        }
        return static_cast<std::uint32_t>(key);
    }

    static constexpr std::uint32_t not_gridded = ~std::uint32_t(0);

    /// Counting sort of the gridded spheres by cell (stable: input order
    /// within a cell), leaving start_[c], the first sorted position of cell
    /// c (start_[cells] = the count); the centres (and radii) are copied in
    /// that order (a gather: a pass over the sorted order reading the
    /// input, faster here than writing whole spheres in the scatter). With
    /// threads, each part of the input counts and places its own spheres
    /// (a table of counts per part, up to four parts).
    template <class V>
    void sort_cells(const V& v) {
        const std::size_t n = v.n, m = all_.gridded;
        const std::size_t cells = static_cast<std::size_t>(dims_[0] * dims_[1] * dims_[2]);
        const std::size_t parts = threads_ <= 1 ? 1 : std::min<std::size_t>(part_count(1), 4);
        const std::size_t row = cells + 1;  // part p's counts: table_[p * row + 1 + c]
        cell_.resize(n);
        table_.resize(parts * row);
        run_parts(parts, n, [&](std::size_t p, std::size_t b, std::size_t e) {
            std::uint32_t* count = table_.data() + p * row + 1;
            std::fill(count - 1, count + cells, 0u);
            for (std::size_t i = b; i < e; ++i) {
                const double c[3] = {static_cast<double>(v.coord(i, 0)), static_cast<double>(v.coord(i, 1)),
                                     static_cast<double>(v.coord(i, 2))};
                const bool gridded = v.r(i) >= 0 && std::isfinite(c[0]) && std::isfinite(c[1]) && std::isfinite(c[2]);
                cell_[i] = gridded ? cell_of(c) : not_gridded;
            }
            for (std::size_t i = b; i < e; ++i)
                if (cell_[i] != not_gridded) ++count[cell_[i]];
        });
        // Where each part's spheres of each cell go: cell by cell, part by part.
        std::uint32_t sum = 0;
        for (std::size_t c = 1; c <= cells; ++c)
            for (std::size_t p = 0; p < parts; ++p) {
                std::uint32_t& k = table_[p * row + c];
                const std::uint32_t here = k;
                k = sum;
                sum += here;
            }
        keys_.resize(m);
        ids_.resize(m);
        points_.resize(m);
        run_parts(parts, n, [&](std::size_t p, std::size_t b, std::size_t e) {
            std::uint32_t* next = table_.data() + p * row + 1;
            for (std::size_t i = b; i < e; ++i) {
                const std::uint32_t c = cell_[i];
                if (c == not_gridded) continue;
                const std::uint32_t at = next[c]++;
                keys_[at] = c;
                ids_[at] = static_cast<std::uint32_t>(i);
            }
        });
        run_parts(part_count(4), m, [&](std::size_t, std::size_t b, std::size_t e) {
            for (std::size_t t = b; t < e; ++t) {
                const std::uint32_t i = ids_[t];
                points_[t] = {static_cast<double>(v.coord(i, 0)), static_cast<double>(v.coord(i, 1)),
                              static_cast<double>(v.coord(i, 2)), static_cast<double>(v.r(i))};
            }
        });
        // The last part's row now holds each cell's end, that is the next
        // cell's start: shifted by one, it is the start table.
        start_ = table_.data() + (parts - 1) * row;
        start_[0] = 0;
    }

    // ---- pairs --------------------------------------------------------------

    /// A task's pairs, written straight into `buf` (grown before each
    /// sphere to hold all of its candidates; never shrunk, so it is reused).
    struct Buffer {
        std::vector<Pair>* buf = nullptr;
        std::size_t size = 0;
        void room(std::size_t more) {
            if (size + more > buf->size()) buf->resize(std::max(buf->size() * 2, size + more + 1024));
        }
    };

    /// Pairs of the spheres at sorted positions [first, last), which start
    /// and end at cell boundaries.
    template <bool One>
    void task_pairs(std::size_t first, std::size_t last, double radius, Buffer& out) const {
        const std::uint64_t nx = dims_[0], nxy = dims_[0] * dims_[1];
        // The rows after a cell, as offsets of their x - 1 cell; each run
        // spans cells offset .. offset + 2 (x - 1 .. x + 1).
        const std::uint64_t rows[4] = {nx - 1, nxy - nx - 1, nxy - 1, nxy + nx - 1};
        const std::uint32_t* keys = keys_.data();
        const std::uint32_t* start = start_;
        const std::uint32_t* ids = ids_.data();
        const Point* pt = points_.data();
        const double rr_one = radius + radius;
        for (std::size_t s = first; s < last;) {
            const std::uint64_t k = keys[s];
            const std::size_t e = start[k + 1];
            // Runs: this cell after i and cell x + 1; then the four rows.
            const std::size_t next = start[k + 2];
            std::size_t rb[4], re[4], span = next - s;
            for (int q = 0; q < 4; ++q) rb[q] = start[k + rows[q]], re[q] = start[k + rows[q] + 3], span += re[q] - rb[q];
            for (std::size_t i = s; i < e; ++i) {
                out.room(span);
                Pair* w = out.buf->data() + out.size;
                const Point p = pt[i];
                const std::uint32_t a = ids[i];
                auto run = [&](std::size_t jb, std::size_t je) {
                    for (std::size_t j = jb; j < je; ++j) {
                        const Point& o = pt[j];
                        const std::uint32_t b = ids[j];
                        if (spheres_touch(p.x - o.x, p.y - o.y, p.z - o.z, One ? rr_one : p.r + o.r))
                            *w++ = a < b ? Pair{a, b} : Pair{b, a};
                    }
                };
                run(i + 1, next);
                for (int q = 0; q < 4; ++q) run(rb[q], re[q]);
                out.size = static_cast<std::size_t>(w - out.buf->data());
            }
            s = e;
        }
    }

    template <bool One, class V>
    void pairs(const V& v, std::uint64_t max_pairs, std::vector<Pair>& res, bool& exceeded) {
        const std::size_t m = all_.gridded;
        // Tasks of about equal spheres, cut at cell boundaries; several per
        // thread so that a thread slowed by other work on the machine does
        // not hold the others up.
        const std::size_t tasks = threads_ <= 1 ? 1 : std::min<std::size_t>(threads_ * 8, std::max<std::size_t>(m / min_per_task_, 1));
        cut_.resize(tasks + 1);
        for (std::size_t t = 0; t <= tasks; ++t) {
            std::size_t b = even_bound(m, tasks, t);
            while (b > 0 && b < m && keys_[b] == keys_[b - 1]) ++b;
            cut_[t] = std::max(b, t ? cut_[t - 1] : 0);
        }
        // Task 0 writes straight into the output; the others into buffers
        // kept between calls, copied after it.
        if (spare_.size() < tasks) spare_.resize(tasks);
        bufs_.resize(tasks);
        for (std::size_t t = 0; t < tasks; ++t) bufs_[t] = Buffer{t ? &spare_[t] : &res, 0};
        const double radius = static_cast<double>(v.radius);
        run_tasks(threads_, tasks, [&](std::size_t t, unsigned) {
            bufs_[t].room(2 * (cut_[t + 1] - cut_[t]));  // granular packings: one to three contacts a sphere
            task_pairs<One>(cut_[t], cut_[t + 1], radius, bufs_[t]);
        });
        at_.resize(tasks + 1);
        at_[0] = 0;
        for (std::size_t t = 0; t < tasks; ++t) at_[t + 1] = at_[t] + bufs_[t].size;
        std::size_t total = at_[tasks];
        if (total > max_pairs) {
            exceeded = true;
            total = static_cast<std::size_t>(max_pairs);
        }
        res.resize(std::max(total, bufs_[0].size));  // keeps task 0's pairs in place
        run_tasks(threads_, tasks, [&](std::size_t t, unsigned) {
            if (t == 0 || at_[t] >= total) return;
            const std::size_t k = std::min(bufs_[t].size, total - at_[t]);
            if (k) std::memcpy(res.data() + at_[t], bufs_[t].buf->data(), k * sizeof(Pair));  // (an empty buffer may have no storage)
        });
        res.resize(total);
    }

    unsigned threads_ = 1;
    std::size_t min_per_task_ = 8192;
    std::vector<Survey> parts_;
    std::size_t parts_used_ = 0;
    Survey all_{};
    double h_ = 1, inv_h_ = 1;
    std::uint64_t dims_[3] = {3, 3, 3};
    std::vector<std::uint32_t> cell_;         // per input sphere: its cell, or not_gridded
    std::vector<std::uint32_t> table_;        // per part and cell: counts, then positions
    std::uint32_t* start_ = nullptr;          // per cell: first sorted position; then the count
    std::vector<std::uint32_t> keys_, ids_;   // per sorted position: cell, input index
    std::vector<Point> points_;               // per sorted position: centre, radius
    std::vector<std::size_t> cut_, at_;       // per task: first sorted position; first output position
    std::vector<Buffer> bufs_;
    std::vector<std::vector<Pair>> spare_;    // tasks 1.. write here
};

}  // namespace detail
}  // namespace broadphase
