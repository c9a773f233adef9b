// find_sphere_pairs' own search for spheres of similar radii (the DEM case):
// one uniform grid over the centers, no boxes, no box pairs.
//
// Cells are cubes of side h just above the largest diameter d = 2 max(r),
// so two touching spheres have centers in the same or adjacent cells. Each
// sphere sits in exactly one cell (its center's). Cells are numbered
// z-major, y, x with one empty cell of padding on every side; a counting
// sort by cell number orders the spheres and leaves a table of where each
// cell starts. Then, in that order, a sphere is tested against the spheres
// after it in its own cell and those in the 13 cells after its cell (x + 1;
// the cells x - 1 .. x + 1 of row y + 1; of rows y - 1, y, y + 1 at z + 1):
// five runs that are contiguous in the sorted order, read from the table.
// Each pair is so tested once, by the exact test |ci - cj|^2 <= (ri + rj)^2
// in double (the same expression as the box path's).
//
// Parallel: the input is cut into parts that each count and place their own
// spheres (stable: a cell's spheres stay in input order), and the sorted
// spheres are cut at cell boundaries into tasks, each writing its own
// buffer; the buffers are concatenated in task order, which is the
// single-thread order, so the output is the same for any thread count.
//
// Why not the library's grids: those take boxes, put a box into every cell
// it touches (about 2.8 cells here), test box against box, and the pairs
// they report (2.26 million at 1M spheres of solid fraction 0.3, against
// 1.19 million touching) must then be tested again through random accesses
// to the centers. Here each sphere is stored once, in sorted order (the
// tests read neighbours from cache) and tested with its final test.
//
// The table has a cell per 1/8 sphere at most: sparse scenes get cells up
// to 2 d; scenes that would need more (a few far-apart clusters, outliers
// far away), radii spread over more than 2x the mean, an infinite radius or
// all radii zero go to the box path instead (Finder::find returns false).
//
// Exactness: h >= d (1 + 2^-16). If two spheres pass the test, then
// |dx| <= ri + rj <= d on every axis up to a few rounding errors; the cell
// coordinate is trunc((x - lo) / h), computed in double (monotone in x),
// whose rounding error is far below the 2^-16 margin while an axis has
// fewer than 2^32 cells. So their cells differ by at most one on each axis.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <broadphase/broadphase.hpp>

namespace sphere_grid {

namespace bp = broadphase;

/// Runs tasks on the calling thread and on helper threads kept for the
/// process, without ever waiting for a helper that has not started.
///
/// Tasks are claimed one at a time from a shared counter; the call returns
/// when every task has run. The caller claims tasks too, so if no helper
/// gets a core (the machine's cores busy with other work) the caller runs
/// them all and waits for nothing but tasks already claimed. An OpenMP
/// parallel region instead ends in a barrier that waits for every thread of
/// the team: on a loaded machine a team thread may wait a scheduler time
/// slice (milliseconds) for a core, at every phase. Measured here: with two
/// threads and the other core busy, the search took 1.5-2x as long as on
/// one thread through OpenMP.
class Pool {
public:
    /// f(task) for every task in [0, tasks), on up to `threads` threads
    /// (this one included). The first exception a task throws is rethrown
    /// once all tasks have ended.
    template <class F>
    static void run(unsigned threads, std::size_t tasks, F&& f) {
        if (threads <= 1 || tasks <= 1) {
            for (std::size_t t = 0; t < tasks; ++t) f(t);
            return;
        }
        auto job = std::make_shared<Job>();
        job->tasks = tasks;
        job->f = [&f](std::size_t t) { f(t); };
        instance().post(job, std::min<std::size_t>(threads, tasks) - 1);
        work(*job);
        std::unique_lock<std::mutex> lock(job->m);
        job->all_done.wait(lock, [&] { return job->done == job->tasks; });
        if (job->error) std::rethrow_exception(job->error);
    }

private:
    struct Job {
        std::function<void(std::size_t)> f;  // valid while the caller waits: called only for claimed tasks
        std::size_t tasks = 0;
        std::atomic<std::size_t> next{0};
        std::size_t done = 0;  // under m
        std::exception_ptr error;
        std::mutex m;
        std::condition_variable all_done;
    };

    static Pool& instance() {
        static Pool* pool = new Pool;  // never destroyed: helpers may outlive static destruction
        return *pool;
    }

    /// Hands the job to `helpers` helper threads, starting any missing.
    void post(const std::shared_ptr<Job>& job, std::size_t helpers) {
        std::lock_guard<std::mutex> lock(m_);
        while (started_ < helpers) {
            std::thread([this] { serve(); }).detach();
            ++started_;
        }
        job_ = job;
        ++generation_;
        wake_.notify_all();
    }

    /// A helper: waits for a new job, works on it, again.
    void serve() {
        std::uint64_t seen = 0;
        for (;;) {
            std::shared_ptr<Job> job;
            {
                std::unique_lock<std::mutex> lock(m_);
                wake_.wait(lock, [&] { return generation_ != seen; });
                seen = generation_;
                job = job_;
            }
            if (job) work(*job);
        }
    }

    static void work(Job& job) {
        for (;;) {
            const std::size_t t = job.next.fetch_add(1);
            if (t >= job.tasks) return;
            std::exception_ptr error;
            try {
                job.f(t);
            } catch (...) {
                error = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(job.m);
            if (error && !job.error) job.error = error;
            if (++job.done == job.tasks) job.all_done.notify_all();
        }
    }

    std::mutex m_;
    std::condition_variable wake_;
    std::shared_ptr<Job> job_;
    std::uint64_t generation_ = 0;
    std::size_t started_ = 0;
};

/// Runs f(part, begin, end) over `parts` equal contiguous parts of [0, n)
/// on up to `threads` threads.
template <class F>
void run_parts(unsigned threads, std::size_t parts, std::size_t n, F&& f) {
    Pool::run(threads, parts, [&](std::size_t p) {
        f(p, bp::detail::even_bound(n, parts, p), bp::detail::even_bound(n, parts, p + 1));
    });
}

/// What the first pass found in one part of the input.
struct Survey {
    double lo[3] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                    std::numeric_limits<double>::infinity()};
    double hi[3] = {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                    -std::numeric_limits<double>::infinity()};
    double rmax = 0, rsum = 0;
    std::size_t valid = 0;   // spheres with a number center and a radius >= 0
    std::size_t gridded = 0; // ... of which the center is finite (the others touch nothing)
    bool infinite_radius = false;
    std::vector<std::uint32_t> invalid;

    void merge(const Survey& s) {
        for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], s.lo[k]), hi[k] = std::max(hi[k], s.hi[k]);
        rmax = std::max(rmax, s.rmax);
        rsum += s.rsum;
        valid += s.valid;
        gridded += s.gridded;
        infinite_radius = infinite_radius || s.infinite_radius;
        invalid.insert(invalid.end(), s.invalid.begin(), s.invalid.end());
    }
};

/// The result of find(): pairs (a < b), the invalid spheres (increasing),
/// whether max_pairs was exceeded (then pairs holds the first max_pairs).
struct Result {
    std::vector<bp::Pair> pairs;
    std::vector<std::uint32_t> invalid;
    bool exceeded = false;
};

/// Sorts pairs (a < b, a < n) by (a, b) in O(K + n): a counting sort by a,
/// then each a's few partners sorted by b.
inline void sort_pairs(std::vector<bp::Pair>& pairs, std::size_t n) {
    const std::size_t k = pairs.size();
    if (k < 2) return;
    std::vector<std::uint32_t> start(n + 1, 0);
    for (const bp::Pair& p : pairs) ++start[p.a + 1];
    for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    std::vector<std::uint32_t> b(k);
    {
        std::vector<std::uint32_t> at(start.begin(), start.end() - 1);
        for (const bp::Pair& p : pairs) b[at[p.a]++] = p.b;
    }
    for (std::size_t a = 0; a < n; ++a) {
        const std::uint32_t s = start[a], e = start[a + 1];
        if (e - s > 1) std::sort(b.begin() + s, b.begin() + e);
        for (std::uint32_t t = s; t < e; ++t) pairs[t] = {static_cast<std::uint32_t>(a), b[t]};
    }
}

template <class T>
class Finder {
public:
    Finder(const T* centers, const T* radii, bool one_radius, std::size_t n, unsigned threads)
        : c_(centers), r_(radii), one_(one_radius), n_(n), threads_(bp::detail::plan_threads(threads, n, 1 << 15)) {}

    /// Every touching pair, or false (nothing done but a pass over the
    /// input) when the grid does not suit it: an infinite radius, all radii
    /// zero, radii spread (the largest over twice the mean), or centers
    /// spread so that the table would need cells over 2 d.
    bool find(Result& out, std::uint64_t max_pairs) {
        survey();
        if (!plan()) return false;
        sort_cells();
        pairs(out, max_pairs);
        out.invalid = std::move(all_.invalid);
        return true;
    }

private:
    double radius(std::size_t i) const { return static_cast<double>(one_ ? r_[0] : r_[i]); }

    /// Parts to cut a pass into: `per_thread` a thread (1 without threads).
    std::size_t part_count(std::size_t per_thread) const { return threads_ <= 1 ? 1 : threads_ * per_thread; }

    // ---- pass 1: validity, bounds, radii ------------------------------------

    void survey() {
        const std::size_t parts = part_count(4);
        parts_.assign(parts, Survey{});
        run_parts(threads_, parts, n_, [&](std::size_t p, std::size_t b, std::size_t e) {
            Survey& s = parts_[p];
            for (std::size_t i = b; i < e; ++i) {
                const T* ci = c_ + 3 * i;
                const T ri = one_ ? r_[0] : r_[i];
                if (std::isnan(ci[0]) || std::isnan(ci[1]) || std::isnan(ci[2]) || !(ri >= 0)) {
                    s.invalid.push_back(static_cast<std::uint32_t>(i));
                    continue;
                }
                ++s.valid;
                const double rd = static_cast<double>(ri);
                if (std::isinf(rd)) s.infinite_radius = true;
                s.rmax = std::max(s.rmax, rd);
                s.rsum += rd;
                if (!(std::isfinite(ci[0]) && std::isfinite(ci[1]) && std::isfinite(ci[2]))) continue;
                ++s.gridded;
                for (int k = 0; k < 3; ++k) {
                    const double x = static_cast<double>(ci[k]);
                    s.lo[k] = std::min(s.lo[k], x);
                    s.hi[k] = std::max(s.hi[k], x);
                }
            }
        });
        all_ = Survey{};
        for (const Survey& s : parts_) all_.merge(s);
    }

    // ---- the grid -----------------------------------------------------------

    /// Cell side and grid shape; false when the grid does not suit.
    bool plan() {
        if (all_.infinite_radius || !(all_.rmax > 0)) return false;
        if (all_.rmax > 2 * (all_.rsum / static_cast<double>(all_.valid))) return false;
        if (all_.gridded == 0) return true;
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

    /// Cell number of a gridded sphere's center: (z, y, x) packed, each 1-based.
    std::uint32_t cell_of(const T* ci) const {
        std::uint64_t key = 0;
        for (int k = 2; k >= 0; --k) {
            const double x = (static_cast<double>(ci[k]) - all_.lo[k]) * inv_h_;
            const auto cell = std::min(static_cast<std::uint64_t>(x) + 1, dims_[k] - 2);
            key = key * dims_[k] + cell;
        }
        return static_cast<std::uint32_t>(key);
    }

    static constexpr std::uint32_t not_gridded = ~std::uint32_t(0);

    /// Counting sort of the gridded spheres by cell (stable: input order
    /// within a cell), leaving start_[c], the first sorted position of cell
    /// c (start_[cells] = the count); the centers (and radii) are copied in
    /// that order (a gather: a pass over the sorted order reading the
    /// input, faster here than writing whole spheres in the scatter). With
    /// threads, each part of the input counts and places its own spheres
    /// (a table of counts per part, up to four parts).
    void sort_cells() {
        const std::size_t m = all_.gridded;
        const std::size_t cells = static_cast<std::size_t>(dims_[0] * dims_[1] * dims_[2]);
        const std::size_t parts = threads_ <= 1 ? 1 : std::min<std::size_t>(part_count(1), 4);
        const std::size_t row = cells + 1;  // part p's counts: table_[p * row + 1 + c]
        cell_.reset(new std::uint32_t[n_]);
        table_.reset(new std::uint32_t[parts * row]);
        run_parts(threads_, parts, n_, [&](std::size_t p, std::size_t b, std::size_t e) {
            std::uint32_t* count = table_.get() + p * row + 1;
            std::fill(count - 1, count + cells, 0u);
            for (std::size_t i = b; i < e; ++i) {
                const T* ci = c_ + 3 * i;
                const T ri = one_ ? r_[0] : r_[i];
                const bool gridded = ri >= 0 && std::isfinite(ci[0]) && std::isfinite(ci[1]) && std::isfinite(ci[2]);
                const std::uint32_t c = gridded ? cell_of(ci) : not_gridded;
                cell_[i] = c;
            }
            for (std::size_t i = b; i < e; ++i)
                if (cell_[i] != not_gridded) ++count[cell_[i]];
        });
        // Where each part's spheres of each cell go: cell by cell, part by part.
        std::uint32_t sum = 0;
        if (parts == 1) {
            std::uint32_t* count = table_.get();
            for (std::size_t c = 1; c <= cells; ++c) {
                const std::uint32_t here = count[c];
                count[c] = sum;
                sum += here;
            }
        } else {
            for (std::size_t c = 1; c <= cells; ++c)
                for (std::size_t p = 0; p < parts; ++p) {
                    std::uint32_t& k = table_[p * row + c];
                    const std::uint32_t here = k;
                    k = sum;
                    sum += here;
                }
        }
        // (Not value-initialized: every element is written below.)
        keys_.reset(new std::uint32_t[m]);
        ids_.reset(new std::uint32_t[m]);
        points_.reset(new Point[m]);
        run_parts(threads_, parts, n_, [&](std::size_t p, std::size_t b, std::size_t e) {
            std::uint32_t* next = table_.get() + p * row + 1;
            for (std::size_t i = b; i < e; ++i) {
                const std::uint32_t c = cell_[i];
                if (c == not_gridded) continue;
                const std::uint32_t at = next[c]++;
                keys_[at] = c;
                ids_[at] = static_cast<std::uint32_t>(i);
            }
        });
        run_parts(threads_, part_count(4), m, [&](std::size_t, std::size_t b, std::size_t e) {
            for (std::size_t t = b; t < e; ++t) {
                const std::uint32_t i = ids_[t];
                const T* ci = c_ + 3 * static_cast<std::size_t>(i);
                points_[t] = {static_cast<double>(ci[0]), static_cast<double>(ci[1]), static_cast<double>(ci[2]), radius(i)};
            }
        });
        // The last part's row now holds each cell's end, that is the next
        // cell's start: shifted by one, it is the start table.
        start_ = table_.get() + (parts - 1) * row;
        start_[0] = 0;
    }

    // ---- pairs --------------------------------------------------------------

    struct Point {
        double x, y, z, r;
    };

    /// A task's pairs, written straight into `buf`, which is grown before
    /// each sphere to hold all of its candidates.
    struct Buffer {
        std::vector<bp::Pair> buf;
        std::size_t size = 0;
        void room(std::size_t more) {
            if (size + more > buf.size()) buf.resize(std::max(buf.size() * 2, size + more + 1024));
        }
    };

    /// Pairs of the spheres at sorted positions [first, last), which start
    /// and end at cell boundaries.
    template <bool One>
    void task_pairs(std::size_t first, std::size_t last, Buffer& out) const {
        const std::uint64_t nx = dims_[0], nxy = dims_[0] * dims_[1];
        // The rows after a cell, as offsets of their x - 1 cell; each run
        // spans cells offset .. offset + 2 (x - 1 .. x + 1).
        const std::uint64_t rows[4] = {nx - 1, nxy - nx - 1, nxy - 1, nxy + nx - 1};
        const std::uint32_t* keys = keys_.get();
        const std::uint32_t* start = start_;
        const std::uint32_t* ids = ids_.get();
        const Point* pt = points_.get();
        const double rr_one = 2.0 * (One ? static_cast<double>(r_[0]) : 0.0);
        for (std::size_t s = first; s < last;) {
            const std::uint64_t k = keys[s];
            const std::size_t e = start[k + 1];
            // Runs: this cell after i and cell x + 1; then the four rows.
            const std::size_t next = start[k + 2];
            std::size_t rb[4], re[4], span = next - s;
            for (int q = 0; q < 4; ++q) rb[q] = start[k + rows[q]], re[q] = start[k + rows[q] + 3], span += re[q] - rb[q];
            for (std::size_t i = s; i < e; ++i) {
                out.room(span);
                bp::Pair* w = out.buf.data() + out.size;
                const Point p = pt[i];
                const std::uint32_t a = ids[i];
                auto run = [&](std::size_t jb, std::size_t je) {
                    for (std::size_t j = jb; j < je; ++j) {
                        const Point& o = pt[j];
                        const double dx = p.x - o.x, dy = p.y - o.y, dz = p.z - o.z;
                        const double rr = One ? rr_one : p.r + o.r;
                        const std::uint32_t b = ids[j];
                        if (dx * dx + dy * dy + dz * dz <= rr * rr) *w++ = a < b ? bp::Pair{a, b} : bp::Pair{b, a};
                    }
                };
                run(i + 1, next);
                for (int q = 0; q < 4; ++q) run(rb[q], re[q]);
                out.size = static_cast<std::size_t>(w - out.buf.data());
            }
            s = e;
        }
    }

    void pairs(Result& res, std::uint64_t max_pairs) {
        const std::size_t m = all_.gridded;
        // Tasks of about equal spheres, cut at cell boundaries; several per
        // thread so that a thread slowed by other work on the machine does
        // not hold the others up.
        const std::size_t tasks = threads_ <= 1 ? 1 : std::min<std::size_t>(threads_ * 8, std::max<std::size_t>(m / 8192, 1));
        std::vector<std::size_t> cut(tasks + 1);
        for (std::size_t t = 0; t <= tasks; ++t) {
            std::size_t b = bp::detail::even_bound(m, tasks, t);
            while (b > 0 && b < m && keys_[b] == keys_[b - 1]) ++b;
            cut[t] = std::max(b, t ? cut[t - 1] : 0);
        }
        std::vector<Buffer> bufs(tasks);
        Pool::run(threads_, tasks, [&](std::size_t t) {
            bufs[t].room(2 * (cut[t + 1] - cut[t]));  // granular packings: one to three contacts a sphere
            if (one_) task_pairs<true>(cut[t], cut[t + 1], bufs[t]);
            else task_pairs<false>(cut[t], cut[t + 1], bufs[t]);
        });
        std::vector<std::size_t> at(tasks + 1, 0);
        for (std::size_t t = 0; t < tasks; ++t) at[t + 1] = at[t] + bufs[t].size;
        std::size_t total = at[tasks];
        if (total > max_pairs) {
            res.exceeded = true;
            total = static_cast<std::size_t>(max_pairs);
        }
        if (tasks == 1) {
            bufs[0].buf.resize(total);
            res.pairs = std::move(bufs[0].buf);
            return;
        }
        res.pairs.resize(total);
        Pool::run(threads_, tasks, [&](std::size_t t) {
            if (at[t] >= total) return;
            const std::size_t k = std::min(bufs[t].size, total - at[t]);
            std::memcpy(res.pairs.data() + at[t], bufs[t].buf.data(), k * sizeof(bp::Pair));
            std::vector<bp::Pair>().swap(bufs[t].buf);
        });
    }

    const T* c_;
    const T* r_;
    bool one_;
    std::size_t n_;
    unsigned threads_;
    std::vector<Survey> parts_;
    Survey all_;
    double h_ = 1, inv_h_ = 1;
    std::uint64_t dims_[3] = {3, 3, 3};
    std::unique_ptr<std::uint32_t[]> cell_;   // per input sphere: its cell, or not_gridded
    std::unique_ptr<std::uint32_t[]> table_;  // per part and cell: counts, then positions
    std::uint32_t* start_ = nullptr;          // per cell: first sorted position; then the count
    std::unique_ptr<std::uint32_t[]> keys_, ids_;  // per sorted position: cell, input index
    std::unique_ptr<Point[]> points_;             // per sorted position: center, radius
};

}  // namespace sphere_grid
