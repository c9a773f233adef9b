// The dense-particle cell list behind NeighborList (neighbor_list.hpp) and
// the periodic sphere pairs (spheres.hpp): particles sorted into cells a
// fraction of the interaction reach wide, each particle tested against the
// particles of a stencil of cells around its own, in a periodic cell that
// may be orthorhombic or triclinic, or an open domain, or a mix
// (orthorhombic only).
//
// Geometry. The cell's edge vectors are the rows a, b, c of h. A particle
// is wrapped into the cell (wrap() below: the image counts n are subtracted
// on periodic axes, so that its fractional coordinates s = x' h^-1 lie in
// [0, 1), up to rounding), then binned by s: bin k of an axis cut into n_k
// bins holds s in [k / n_k, (k + 1) / n_k). On an open axis the bins cut
// the particles' span. Two points whose bins differ by more than m_k on an
// axis are further apart than m_k bin widths measured across that axis
// (the bin's "perpendicular width": the cell's width across the planes
// spanned by the other two vectors, over n_k), so with m_k bin widths at
// least the reach (plus a margin for rounding) the stencil [-m_k, m_k] on
// every axis holds every image within reach. On a periodic axis, a stencil
// bin past the end wraps around with the image P_k = floor((k + d) / n_k);
// each offset d names one (bin, image), so a small cell (n_k < 2 m_k + 1,
// a cutoff above half the cell) visits every image within reach exactly
// once, a particle's own images included.
//
// The rule (what a candidate must satisfy; the callers document it to
// users): D = (x'_j - x'_i) + P h, each component evaluated in double as
// fl(fl(x'_jk - x'_ik) + (P h)_k), where (P h)_k = ((P_0 h_0k + P_1 h_1k)
// + P_2 h_2k) (exact for orthorhombic cells: one term is non-zero); the
// pair is in iff (D_0^2 + D_1^2) + D_2^2 <= reach^2, reach = (r_i + r_j) +
// extra (one radius: (r + r) + extra), all in double.
//
// Costs: O(n) to wrap, bin and sort (a counting sort); the traversal tests
// each particle against the particles of (2 m + 1)^3 bins (the full
// stencil, for full rows) or about half of them (the half stencil, for
// half rows and pairs). Bins are a reach wide (m = 1) unless the cell is
// too small or the bins too many. The sorted arrays are struct of arrays
// in double; the distance test runs 4 candidates an instruction with AVX2
// (2 with SSE2), chosen at run time as the box kernels are (simd.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../pairs.hpp"
#include "../simd.hpp"
#include "cell_frame.hpp"
#include "cell_scan.hpp"
#include "parallel.hpp"
#include "prefetch.hpp"
#include "radix_sort.hpp"
#include "sphere_rule.hpp"

// The scans are inlined into the traversal, which is compiled once per
// instruction set (its AVX2 copy under a target attribute; `flatten` inlines
// the whole call tree into each copy), so that a particle's constants stay
// in registers across its runs: a call per run cost a fifth of the time on
// sparse spheres.
#if defined(__GNUC__)
#define BROADPHASE_CELL_FLATTEN __attribute__((flatten))
#else
#define BROADPHASE_CELL_FLATTEN
#endif

namespace broadphase {
namespace detail {

class CellList {
public:
    /// Bins per reach on each axis. 1 (bins a reach wide, 27 in the full
    /// stencil) beat 2 (bins reach/2 wide, 125; 0.57x the candidates but
    /// runs a third as long): LJ liquid, 32,000 atoms, half list, 23.6 ms
    /// against 25.7 (AVX2, 2-core EPYC).
    int bins_per_reach = 1;

    /// What wrap and sort found.
    struct Summary {
        std::size_t gridded = 0;  // valid particles with a finite centre, sorted into bins
        bool infinite_radius = false;
        double rmax = 0, rsum = 0;
        std::size_t valid = 0;
    };

    /// Wraps, bins and sorts the particles of `v` (a SphereView) for
    /// pairs within (r_i + r_j) + extra; `one` means every radius is
    /// v.radius. Invalid particles (a NaN centre coordinate, a radius not
    /// >= 0) go to `invalid` (increasing); particles with an infinite
    /// coordinate are left out (they touch nothing). Returns false, with
    /// nothing sorted, when the stencil would exceed 127 bins an axis (a
    /// reach over 60 cells wide), a radius is infinite, or the grid does
    /// not fit 32-bit bin numbers; the caller then takes another path.
    /// O(n + bins).
    /// max_coarsening: also false when the bins would have to be more
    /// than that many times a reach wide on an open axis (far apart
    /// clusters, far outliers: the memory cap of 8 bins a particle), where
    /// a caller with a better path for sparse scenes takes it.
    template <class V>
    bool sort(const V& v, const CellFrame& frame, double extra, unsigned threads, std::size_t min_per_thread,
              std::vector<std::uint32_t>& invalid,
              double max_coarsening = std::numeric_limits<double>::infinity()) {
        frame_ = frame;
        threads_ = plan_threads(threads, v.n, std::max<std::size_t>(min_per_thread, 1));
        one_ = v.radii == nullptr;
        survey(v, invalid);
        if (sum_.infinite_radius || !(sum_.rmax < std::numeric_limits<double>::infinity())) return false;
        if (!std::isfinite(extra) || extra < 0) return false;
        extra_ = extra;
        reach_ = (sum_.rmax + sum_.rmax) + extra;
        if (!std::isfinite(reach_)) return false;
        if (!plan(max_coarsening)) return false;
        bin_and_sort(v);
        return true;
    }

    /// The largest reach any pair can have (2 rmax + extra). O(1).
    double reach() const { return reach_; }
    /// Whether every pair has at most one image within reach and no
    /// particle reaches its own images: each periodic axis has at least
    /// 2 m + 1 bins. O(1).
    bool one_image() const {
        for (int k = 0; k < 3; ++k)
            if (frame_.periodic[k] && bins_[k] < 2 * static_cast<std::uint64_t>(m_[k]) + 1) return false;
        return true;
    }
    const Summary& summary() const { return sum_; }
    std::size_t gridded() const { return sum_.gridded; }
    /// Per sorted position (gridded() of them; the arrays are padded past
    /// that): the particle's index; its wrapped centre.
    const std::vector<std::uint32_t>& ids() const { return ids_; }
    const double* x(int k) const { return pos_[k].data(); }
    /// Per input particle: its sorted position, or ~0 when not sorted.
    const std::vector<std::uint32_t>& where() const { return where_; }

    // ---- traversal ----------------------------------------------------------

    /// Writes the pairs within reach of the half stencil, each unordered
    /// pair of images once, as Pair{min id, max id}; with `images`, each
    /// pair's image P (of the larger id's particle relative to the
    /// smaller's... as found: see pairs_with_images) goes to `codes`.
    /// Output order: bin by bin, the same for every thread count.
    /// max_pairs bounds the output; `exceeded` says it was reached.
    void pairs(std::vector<Pair>& out, std::uint64_t max_pairs, bool& exceeded) {
        traverse_pairs(out, max_pairs, exceeded);
    }

    /// Rows: for each sorted position i, the particles j (input indices)
    /// within reach, with their images P (packed) relative to i: with the
    /// full stencil, all of them (`half` false: j != i or P != 0); with
    /// the half stencil (`half` true), each pair of images once, in the
    /// row of the particle that comes first in bin order (the own bin
    /// after i, then the bins after the own one). row_counts()[i] entries
    /// for sorted position i; for_each_row visits them.
    void rows(bool half, bool images, std::uint64_t max_entries, bool& exceeded);

    /// Entries for sorted position i after rows(). O(1).
    const std::vector<std::uint32_t>& row_counts() const { return count_; }
    /// f(sorted position, cols, codes, count) for every sorted position,
    /// task by task in order (codes null without images). Calls from one
    /// task come from one thread; with threads > 1 tasks run in parallel.
    template <class F>
    void for_each_row(bool parallel, F&& f) const {
        run_tasks(parallel ? threads_ : 1, tasks_, [&](std::size_t t, unsigned) {
            const Out& o = outs_[t];
            std::size_t at = 0;
            for (std::size_t i = cut_[t]; i < cut_[t + 1]; ++i) {
                const std::uint32_t c = count_[i];
                f(i, o.cols.data() + at, o.codes.empty() ? nullptr : o.codes.data() + at, c);
                at += c;
            }
        });
    }
    unsigned threads() const { return threads_; }

private:
    struct Part {
        double lo[3], hi[3];
        Summary s;
        std::vector<std::uint32_t> invalid;
        void reset() {
            for (int k = 0; k < 3; ++k) lo[k] = std::numeric_limits<double>::infinity(), hi[k] = -lo[k];
            s = Summary{};
            invalid.clear();
        }
    };

    /// A task's output, kept between calls.
    struct Out {
        std::vector<std::uint32_t> cols;   // rows: column ids
        std::vector<std::uint32_t> codes;  // rows: packed images
        std::vector<Pair> pairs;           // pairs
        std::size_t size = 0;
    };

    /// Pass 1: validity, radii, and the bounds of the centres (which the
    /// open axes' bins span; a periodic axis spans the cell).
    template <class V>
    void survey(const V& v, std::vector<std::uint32_t>& invalid) {
        const std::size_t n = v.n;
        const std::size_t parts = threads_ <= 1 ? 1 : threads_ * 4;
        if (parts_.size() < parts) parts_.resize(parts);
        where_.resize(n);
        wrapped_.resize(n);
        run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
            Part& s = parts_[p];
            s.reset();
            const std::size_t b = even_bound(n, parts, p), e = even_bound(n, parts, p + 1);
            for (std::size_t i = b; i < e; ++i) {
                const double x[3] = {static_cast<double>(v.coord(i, 0)), static_cast<double>(v.coord(i, 1)),
                                     static_cast<double>(v.coord(i, 2))};
                const double r = static_cast<double>(v.r(i));
                where_[i] = not_sorted;
                if (std::isnan(x[0]) || std::isnan(x[1]) || std::isnan(x[2]) || !(r >= 0)) {
                    s.invalid.push_back(static_cast<std::uint32_t>(i));
                    continue;
                }
                ++s.s.valid;
                if (std::isinf(r)) s.s.infinite_radius = true;
                s.s.rmax = std::max(s.s.rmax, r);
                s.s.rsum += r;
                if (!(std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]))) continue;
                ++s.s.gridded;
                where_[i] = 0;  // sorted later
                for (int k = 0; k < 3; ++k) s.lo[k] = std::min(s.lo[k], x[k]), s.hi[k] = std::max(s.hi[k], x[k]);
                Wrapped& h = wrapped_[i];
                double im[3];
                frame_.wrap(x, h.w, im);
                h.r = r;
            }
        });
        sum_ = Summary{};
        for (int k = 0; k < 3; ++k) lo_[k] = std::numeric_limits<double>::infinity(), hi_[k] = -lo_[k];
        invalid.clear();
        for (std::size_t p = 0; p < parts; ++p) {
            const Part& s = parts_[p];
            for (int k = 0; k < 3; ++k) lo_[k] = std::min(lo_[k], s.lo[k]), hi_[k] = std::max(hi_[k], s.hi[k]);
            sum_.gridded += s.s.gridded, sum_.valid += s.s.valid, sum_.rsum += s.s.rsum;
            sum_.rmax = std::max(sum_.rmax, s.s.rmax);
            sum_.infinite_radius = sum_.infinite_radius || s.s.infinite_radius;
            invalid.insert(invalid.end(), s.invalid.begin(), s.invalid.end());
        }
    }

    /// Bins on each axis and the stencil's reach m; false when it does not
    /// suit (see sort()).
    bool plan(double max_coarsening) {
        double big = 0;  // the largest magnitude in play, for the rounding margin
        for (int k = 0; k < 3; ++k) {
            if (sum_.gridded) big = std::max({big, std::fabs(lo_[k]), std::fabs(hi_[k])});
            for (int r = 0; r < 3; ++r) big = std::max(big, std::fabs(frame_.h[r][k]));
        }
        // Rounding in wrapping and binning is a few units of 2^-52 of the
        // magnitudes; the margin is far above it.
        const double reach = reach_ * (1 + 0x1p-20) + big * 0x1p-40;
        const double q = std::max(bins_per_reach, 1);
        const double max_bins = std::min(std::max(8.0 * static_cast<double>(sum_.gridded), 65536.0), 2.0e9);
        double extent[3];
        for (int k = 0; k < 3; ++k) extent[k] = frame_.periodic[k] ? frame_.width(k) : std::max(hi_[k] - lo_[k], 0.0);
        if (sum_.gridded == 0) for (int k = 0; k < 3; ++k) extent[k] = frame_.periodic[k] ? extent[k] : 0;
        double target = reach / q;
        if (!(target > 0)) {  // a zero reach at the origin: any positive width holds coincident points together
            const double e = std::max({extent[0], extent[1], extent[2]});
            target = e > 0 ? e / std::cbrt(max_bins) : 1.0;
        }
        for (int attempt = 0;; ++attempt) {
            if (attempt > 200) return false;
            double total = 1;
            for (int k = 0; k < 3; ++k) {
                double b = target > 0 ? std::floor(extent[k] / target) : max_bins;
                if (!(b >= 1)) b = 1;
                b = std::min(b, max_bins);
                bins_[k] = static_cast<std::uint64_t>(b);
                total *= b;
            }
            if (total <= max_bins) break;
            target *= std::max(1.01, std::cbrt(total / max_bins));
        }
        for (int k = 0; k < 3; ++k) {
            const double width = extent[k] / static_cast<double>(bins_[k]);  // across the axis
            if (!frame_.periodic[k] && bins_[k] > 1 && width > max_coarsening * reach) return false;
            if (!frame_.periodic[k] && bins_[k] == 1 && extent[k] > max_coarsening * reach) return false;
            double m = width > 0 ? std::ceil(reach / width) : 1;
            if (!frame_.periodic[k]) m = std::min<double>(m, static_cast<double>(bins_[k] - 1));
            if (!(m <= 127)) return false;
            m_[k] = static_cast<int>(std::max(m, frame_.periodic[k] ? 1.0 : 0.0));
            scale_[k] = frame_.periodic[k] ? static_cast<double>(bins_[k])
                                           : (extent[k] > 0 ? static_cast<double>(bins_[k]) / extent[k] : 0);
        }
        return true;
    }

    std::uint32_t bin_of(const double w[3]) const {
        std::uint64_t key = 0;
        for (int k = 2; k >= 0; --k) {
            const double s = frame_.periodic[k] ? frame_.frac(w, k) * scale_[k] : (w[k] - lo_[k]) * scale_[k];
            std::uint64_t b = s > 0 ? static_cast<std::uint64_t>(std::min(s, 4.0e9)) : 0;
            b = std::min(b, bins_[k] - 1);
            key = key * bins_[k] + b;
        }
        return static_cast<std::uint32_t>(key);
    }


    /// Counting sort of the gridded particles by bin (stable: input order
    /// within a bin), leaving start_[b], bin b's first sorted position;
    /// then the wrapped centres (and radii) gathered in that order. With
    /// threads, up to four parts of the input each count and place their
    /// own particles (a table of counts per part).
    template <class V>
    void bin_and_sort(const V& v) {
        const std::size_t bins = static_cast<std::size_t>(bins_[0] * bins_[1] * bins_[2]);
        if (bins >= (std::size_t(1) << 18) && sum_.gridded >= 65536) radix_by_bin(v);
        else count_by_bin(v);
        gather(v);
    }

    /// Many bins (a table past the caches): a radix sort of (bin, index),
    /// whose passes read and write in streams, instead of a counting sort's
    /// two random updates of the table a particle (1M random spheres at
    /// solid fraction 0.3, 1.7M bins: with the other changes of commit
    /// 5539b58, a find_sphere_pairs call 354 -> 227 ms).
    template <class V>
    void radix_by_bin(const V& v) {
        const std::size_t n = v.n, m = sum_.gridded;
        const std::size_t bins = static_cast<std::size_t>(bins_[0] * bins_[1] * bins_[2]);
        keys_.resize(m);
        ids_.resize(m);
        // (bin, index) of the gridded particles in input order: each part
        // counts its own, then writes from its offset.
        const std::size_t parts = threads_ <= 1 ? 1 : threads_ * 4;
        at_.assign(parts + 1, 0);
        run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
            std::size_t c = 0;
            for (std::size_t i = even_bound(n, parts, p); i < even_bound(n, parts, p + 1); ++i) c += where_[i] != not_sorted;
            at_[p + 1] = c;
        });
        for (std::size_t p = 0; p < parts; ++p) at_[p + 1] += at_[p];
        run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
            std::size_t c = at_[p];
            for (std::size_t i = even_bound(n, parts, p); i < even_bound(n, parts, p + 1); ++i) {
                if (where_[i] == not_sorted) continue;
                keys_[c] = bin_of(wrapped_[i].w);
                ids_[c++] = static_cast<std::uint32_t>(i);
            }
        });
        radix_sort(keys_, ids_, radix_, threads_);
        table_.resize(bins + 2);
        start_ = table_.data();
        std::size_t b = 0;
        for (std::size_t t = 0; t < m; ++t)
            for (const std::size_t k = keys_[t]; b <= k;) start_[b++] = static_cast<std::uint32_t>(t);
        while (b <= bins) start_[b++] = static_cast<std::uint32_t>(m);
        run_parts(threads_, m, [&](std::size_t, std::size_t b, std::size_t e) {
            for (std::size_t t = b; t < e; ++t) where_[ids_[t]] = static_cast<std::uint32_t>(t);
        });
    }

    template <class V>
    void count_by_bin(const V& v) {
        const std::size_t n = v.n, m = sum_.gridded;
        const std::size_t bins = static_cast<std::size_t>(bins_[0] * bins_[1] * bins_[2]);
        const std::size_t parts = threads_ <= 1 ? 1 : std::min<std::size_t>(threads_ * 2, 4);
        const std::size_t row = bins + 1;  // part p's counts: table_[p * row + 1 + b]
        bin_.resize(n);
        table_.resize(parts * row);
        run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
            std::uint32_t* count = table_.data() + p * row + 1;
            std::fill(count - 1, count + bins, 0u);
            for (std::size_t i = even_bound(n, parts, p); i < even_bound(n, parts, p + 1); ++i) {
                if (where_[i] == not_sorted) continue;
                const std::uint32_t b = bin_of(wrapped_[i].w);
                bin_[i] = b;
                ++count[b];
            }
        });
        // Where each part's particles of each bin go: bin by bin, part by part.
        std::uint32_t sum = 0;
        for (std::size_t b = 1; b <= bins; ++b)
            for (std::size_t p = 0; p < parts; ++p) {
                std::uint32_t& k = table_[p * row + b];
                const std::uint32_t here = k;
                k = sum;
                sum += here;
            }
        ids_.resize(m);
        keys_.resize(m);
        run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
            std::uint32_t* next = table_.data() + p * row + 1;
            for (std::size_t i = even_bound(n, parts, p); i < even_bound(n, parts, p + 1); ++i) {
                if (where_[i] == not_sorted) continue;
                const std::uint32_t b = bin_[i];
                const std::uint32_t at = next[b]++;
                ids_[at] = static_cast<std::uint32_t>(i);
                keys_[at] = b;
                where_[i] = at;
            }
        });
        // The last part's row now holds each bin's end, that is the next
        // bin's start: shifted by one, it is the start table.
        start_ = table_.data() + (parts - 1) * row;
        start_[0] = 0;
    }

    /// The wrapped centres (and radii) in sorted order, read from the
    /// input (a gather: faster here than moving whole particles in the
    /// sort). The arrays are padded by 4: the vector kernels read whole
    /// vectors past a run's end.
    template <class V>
    void gather(const V& v) {
        const std::size_t m = sum_.gridded;
        ids_.resize(m + pad);
        for (int k = 0; k < 3; ++k) pos_[k].resize(m + pad);
        rad_.resize(one_ ? 0 : m + pad);
        for (std::size_t t = m; t < m + pad; ++t) {
            ids_[t] = 0;
            for (int k = 0; k < 3; ++k) pos_[k][t] = 0;
            if (!one_) rad_[t] = 0;
        }
        const std::size_t gparts = threads_ <= 1 ? 1 : threads_ * 4;
        run_tasks(threads_, gparts, [&](std::size_t p, unsigned) {
            const std::size_t end = even_bound(m, gparts, p + 1);
            for (std::size_t t = even_bound(m, gparts, p); t < end; ++t) {
                // The reads follow the bin order, random in the input: ask
                // for the line a few particles ahead (one line a particle:
                // the survey's copy, half a line each).
                if (t + prefetch_ahead < end) prefetch_read(&wrapped_[ids_[t + prefetch_ahead]]);
                const Wrapped& h = wrapped_[ids_[t]];
                for (int k = 0; k < 3; ++k) pos_[k][t] = h.w[k];
                if (!one_) rad_[t] = h.r;
            }
        });
        radius_ = one_ ? static_cast<double>(v.radius) : 0;
        plan_stencil();
    }

    static constexpr std::size_t prefetch_ahead = 16;
    static constexpr std::size_t pad = 4;  // see gather

    /// A run of candidates: sorted positions [b, e) seen through image p.
    struct Run {
        std::uint32_t b, e;
        double sh[3];
        std::uint32_t code;
        bool shifted;    // p != 0
        bool positive;   // p's first non-zero component is positive
    };

    /// The runs of bin `key`'s stencil: the half stencil (offsets after 0,
    /// z then y then x first; the own bin is handled by the caller) or
    /// the full one (the own bin included, as an offset-0 run).
    void stencil_runs(std::uint32_t key, bool half, std::vector<Run>& runs) const {
        runs.clear();
        const std::uint64_t nx = bins_[0], ny = bins_[1];
        const std::int64_t c[3] = {static_cast<std::int64_t>(key % nx), static_cast<std::int64_t>((key / nx) % ny),
                                   static_cast<std::int64_t>(key / (nx * ny))};
        const int mx = m_[0], my = m_[1], mz = m_[2];
        bool interior = true;  // no bin of the stencil wraps or leaves the grid: the precomputed rows
        for (int k = 0; k < 3; ++k)
            interior = interior && c[k] >= m_[k] && c[k] + m_[k] < static_cast<std::int64_t>(bins_[k]);
        if (interior) {
            Run run = still_;
            for (const Row& r : half ? half_rows_ : full_rows_) {
                run.b = start_[key + r.lo], run.e = start_[key + r.hi + 1];
                if (run.e > run.b) runs.push_back(run);
            }
            return;
        }
        for (int dz = half ? 0 : -mz; dz <= mz; ++dz) {
            int pz;
            std::int64_t bz;
            if (!wrap_bin(2, c[2] + dz, bz, pz)) continue;
            for (int dy = (half && dz == 0) ? 0 : -my; dy <= my; ++dy) {
                int py;
                std::int64_t by;
                if (!wrap_bin(1, c[1] + dy, by, py)) continue;
                const int dx0 = (half && dz == 0 && dy == 0) ? 1 : -mx;
                // Consecutive x bins with the same image form one run.
                Run cur{};
                bool open = false;
                int cur_px = 0;
                std::int64_t last_bx = -2;
                for (int dx = dx0; dx <= mx; ++dx) {
                    int px;
                    std::int64_t bx;
                    if (!wrap_bin(0, c[0] + dx, bx, px)) continue;
                    const std::uint64_t b = (static_cast<std::uint64_t>(bz) * ny + static_cast<std::uint64_t>(by)) * nx +
                                            static_cast<std::uint64_t>(bx);
                    if (open && px == cur_px && bx == last_bx + 1) {
                        cur.e = start_[b + 1];
                    } else {
                        if (open && cur.e > cur.b) runs.push_back(cur);
                        const int p[3] = {px, py, pz};
                        cur.b = start_[b], cur.e = start_[b + 1];
                        cur.code = pack_image(p);
                        cur.shifted = px != 0 || py != 0 || pz != 0;
                        cur.positive = px > 0 || (px == 0 && (py > 0 || (py == 0 && pz > 0)));
                        for (int k = 0; k < 3; ++k) cur.sh[k] = frame_.shift(p, k);
                        cur_px = px;
                        open = true;
                    }
                    last_bx = bx;
                }
                if (open && cur.e > cur.b) runs.push_back(cur);
            }
        }
    }

    /// A row of the stencil as offsets of its first and last bin from the
    /// centre bin's number (interior bins only).
    struct Row {
        std::int64_t lo, hi;
    };

    /// The rows of the full and half stencils for interior bins.
    void plan_stencil() {
        const std::int64_t nx = static_cast<std::int64_t>(bins_[0]), nxy = nx * static_cast<std::int64_t>(bins_[1]);
        full_rows_.clear(), half_rows_.clear();
        for (int dz = -m_[2]; dz <= m_[2]; ++dz)
            for (int dy = -m_[1]; dy <= m_[1]; ++dy) {
                const std::int64_t at = dz * nxy + dy * nx;
                full_rows_.push_back({at - m_[0], at + m_[0]});
                if (dz > 0 || (dz == 0 && dy > 0)) half_rows_.push_back({at - m_[0], at + m_[0]});
                else if (dz == 0 && dy == 0 && m_[0] > 0) half_rows_.push_back({1, m_[0]});
            }
        still_ = Run{};
        still_.code = pack_image(zero_image);
    }

    /// Bin c on axis k, wrapped on a periodic axis (image p), or false
    /// when outside an open axis.
    bool wrap_bin(int k, std::int64_t c, std::int64_t& b, int& p) const {
        const std::int64_t n = static_cast<std::int64_t>(bins_[k]);
        if (!frame_.periodic[k]) {
            p = 0, b = c;
            return c >= 0 && c < n;
        }
        std::int64_t q = c >= 0 ? c / n : -((-c + n - 1) / n);
        b = c - q * n;
        p = static_cast<int>(q);
        return true;
    }

    /// The scan arguments for sorted particle i (the run's fields are
    /// filled per run).
    template <bool One>
    ScanArgs args_for(std::size_t i) const {
        ScanArgs a{};
        a.X = pos_[0].data(), a.Y = pos_[1].data(), a.Z = pos_[2].data();
        a.R = One ? nullptr : rad_.data();
        a.ids = ids_.data();
        a.xi = pos_[0][i], a.yi = pos_[1][i], a.zi = pos_[2][i];
        a.ri = One ? radius_ : rad_[i];
        const double reach1 = (radius_ + radius_) + extra_;
        a.rr_one = reach1 * reach1;
        a.extra = extra_;
        a.lim = 0;
        a.skip = ~std::size_t(0);
        return a;
    }
    static void set_run(ScanArgs& a, const Run& r) {
        a.sh[0] = r.sh[0], a.sh[1] = r.sh[1], a.sh[2] = r.sh[2];
        a.shifted = r.shifted;
    }

    void make_tasks() {
        const std::size_t m = sum_.gridded;
        tasks_ = threads_ <= 1 ? 1 : std::min<std::size_t>(threads_ * 8, std::max<std::size_t>(m / 1024, 1));
        cut_.resize(tasks_ + 1);
        for (std::size_t t = 0; t <= tasks_; ++t) {
            std::size_t b = even_bound(m, tasks_, t);
            while (b > 0 && b < m && keys_[b] == keys_[b - 1]) ++b;
            cut_[t] = std::max(b, t ? cut_[t - 1] : 0);
        }
        if (outs_.size() < tasks_) outs_.resize(tasks_);
        if (scratch_.size() < threads_) scratch_.resize(threads_);
    }

    struct Scratch {
        std::vector<Run> runs;
        std::vector<std::uint32_t> cols;
    };

    template <int L, bool One>
    inline void task_pairs(std::size_t t, Scratch& sc, std::uint64_t budget) {
        Out& o = outs_[t];
        o.size = 0;
        for (std::size_t s = cut_[t]; s < cut_[t + 1];) {
            const std::uint32_t key = keys_[s];
            const std::size_t e = start_[key + 1];
            stencil_runs(key, true, sc.runs);
            std::size_t total = (e - s) + 4;
            for (const Run& r : sc.runs) total += (r.e - r.b) + 4;
            if (sc.cols.size() < total) sc.cols.resize(total);
            for (std::size_t i = s; i < e; ++i) {
                ScanArgs a = args_for<One>(i);
                const std::uint32_t id = ids_[i];
                std::uint32_t* w = sc.cols.data();
                a.shifted = false;
                a.sh[0] = a.sh[1] = a.sh[2] = 0;
                w += cell_scan::run<L, One>(a, i + 1, e, w);
                for (const Run& run : sc.runs) {
                    set_run(a, run);
                    w += cell_scan::run<L, One>(a, run.b, run.e, w);
                }
                const std::size_t got = static_cast<std::size_t>(w - sc.cols.data());
                if (o.pairs.size() < o.size + got) o.pairs.resize(std::max(o.pairs.size() * 2, o.size + got + 1024));
                Pair* p = o.pairs.data() + o.size;
                for (std::size_t q = 0; q < got; ++q) {
                    const std::uint32_t b = sc.cols[q];
                    p[q] = id < b ? Pair{id, b} : Pair{b, id};
                }
                o.size += got;
            }
            if (o.size > budget) break;
            s = e;
        }
    }

    void traverse_pairs(std::vector<Pair>& res, std::uint64_t max_pairs, bool& exceeded);

public:
    /// The rows' tasks (valid after rows()).
    std::size_t tasks() const { return tasks_; }
    const std::vector<std::size_t>& cuts() const { return cut_; }

private:
    template <int L, bool One>
    inline void task_rows(std::size_t t, Scratch& sc, bool half, bool images, std::uint64_t budget) {
        Out& o = outs_[t];
        o.size = 0;
        const std::uint32_t own_code = pack_image(zero_image);
        for (std::size_t s = cut_[t]; s < cut_[t + 1];) {
            const std::uint32_t key = keys_[s];
            const std::size_t e = start_[key + 1];
            // Full: every bin of the stencil, the own one included. Half:
            // the own bin after i, then the half stencil: each pair of
            // images once, in the row of the particle visited first.
            stencil_runs(key, half, sc.runs);
            std::size_t total = half ? (e - s) + 4 : 0;
            for (const Run& r : sc.runs) total += (r.e - r.b) + 4;
            for (std::size_t i = s; i < e; ++i) {
                ScanArgs a = args_for<One>(i);
                if (o.cols.size() < o.size + total) {
                    o.cols.resize(std::max(o.cols.size() * 2, o.size + total + 1024));
                    if (images) o.codes.resize(o.cols.size());
                }
                std::uint32_t* const first = o.cols.data() + o.size;
                std::uint32_t* w = first;
                if (half) {
                    a.shifted = false;
                    w += cell_scan::run<L, One>(a, i + 1, e, w);
                    if (images) std::fill(o.codes.data() + o.size, o.codes.data() + o.size + (w - first), own_code);
                }
                for (const Run& run : sc.runs) {
                    set_run(a, run);
                    if (!half) a.skip = run.shifted ? ~std::size_t(0) : i;  // not i itself through image 0
                    const std::size_t got = cell_scan::run<L, One>(a, run.b, run.e, w);
                    if (images) {
                        std::uint32_t* c = o.codes.data() + (w - o.cols.data());
                        std::fill(c, c + got, run.code);
                    }
                    w += got;
                }
                const std::size_t got = static_cast<std::size_t>(w - first);
                count_[i] = static_cast<std::uint32_t>(got);
                o.size += got;
            }
            s = e;
            if (o.size > budget) {
                for (std::size_t i = s; i < cut_[t + 1]; ++i) count_[i] = 0;
                break;
            }
        }
    }

    /// The traversals' copies per instruction set.
    template <int L>
    BROADPHASE_CELL_FLATTEN void pairs_at(std::size_t t, Scratch& sc, std::uint64_t budget) {
        if (one_) task_pairs<L, true>(t, sc, budget);
        else task_pairs<L, false>(t, sc, budget);
    }
    template <int L>
    BROADPHASE_CELL_FLATTEN void rows_at(std::size_t t, Scratch& sc, bool half, bool images, std::uint64_t budget) {
        if (one_) task_rows<L, true>(t, sc, half, images, budget);
        else task_rows<L, false>(t, sc, half, images, budget);
    }
#if defined(BROADPHASE_SIMD_HAS_AVX2)
    BROADPHASE_CELL_AVX2 BROADPHASE_CELL_FLATTEN void pairs_avx2(std::size_t t, Scratch& sc, std::uint64_t budget) {
        if (one_) task_pairs<2, true>(t, sc, budget);
        else task_pairs<2, false>(t, sc, budget);
    }
    BROADPHASE_CELL_AVX2 BROADPHASE_CELL_FLATTEN void rows_avx2(std::size_t t, Scratch& sc, bool half, bool images,
                                                                 std::uint64_t budget) {
        if (one_) task_rows<2, true>(t, sc, half, images, budget);
        else task_rows<2, false>(t, sc, half, images, budget);
    }
#endif

    static constexpr std::uint32_t not_sorted = ~std::uint32_t(0);

    CellFrame frame_;
    unsigned threads_ = 1;
    bool one_ = true;
    double radius_ = 0, extra_ = 0, reach_ = 0;
    Summary sum_;
    double lo_[3] = {0, 0, 0}, hi_[3] = {0, 0, 0};
    std::uint64_t bins_[3] = {1, 1, 1};
    int m_[3] = {1, 1, 1};
    double scale_[3] = {1, 1, 1};
    std::vector<Part> parts_;
    std::vector<std::uint32_t> where_;      // per input particle: sorted position or not_sorted
    /// A gridded particle's wrapped centre and radius, in input order: the
    /// survey reads the input in a stream once and leaves these, so that
    /// binning reads no input again and the gather (in bin order, random)
    /// reads one line a particle where the caller's layout may need two
    /// or more (1M random spheres in random order, perf: the gather's
    /// share of a NeighborList build 14% -> 7%).
    struct alignas(32) Wrapped {
        double w[3];
        double r;
    };
    std::vector<Wrapped> wrapped_;
    std::vector<std::uint32_t> bin_;        // per input particle: bin
    std::vector<std::uint32_t> table_;      // per part and bin: counts, then positions
    RadixScratch radix_;
    std::uint32_t* start_ = nullptr;        // per bin: first sorted position (in table_)
    std::vector<std::uint32_t> ids_, keys_; // per sorted position: particle, bin
    std::vector<Row> full_rows_, half_rows_;
    Run still_{};                           // a run seen through image 0
    std::vector<double> pos_[3], rad_;      // per sorted position: wrapped centre, radius
    std::size_t tasks_ = 0;
    std::vector<std::size_t> cut_, at_;
    std::vector<Out> outs_;
    std::vector<Scratch> scratch_;
    std::vector<std::uint32_t> count_;      // per sorted position: row entries
};

inline void CellList::traverse_pairs(std::vector<Pair>& res, std::uint64_t max_pairs, bool& exceeded) {
    exceeded = false;
    make_tasks();
    run_tasks(threads_, tasks_, [&](std::size_t t, unsigned th) {
        const SimdLevel level = simd_level();
#if defined(BROADPHASE_SIMD_HAS_AVX2)
        if (level >= SimdLevel::avx2) return pairs_avx2(t, scratch_[th], max_pairs);
#endif
#if defined(BROADPHASE_SIMD_HAS_SSE2)
        if (level >= SimdLevel::sse2) return pairs_at<1>(t, scratch_[th], max_pairs);
#endif
        (void)level;
        pairs_at<0>(t, scratch_[th], max_pairs);
    });
    at_.resize(tasks_ + 1);
    at_[0] = 0;
    for (std::size_t t = 0; t < tasks_; ++t) at_[t + 1] = at_[t] + outs_[t].size;
    std::size_t total = at_[tasks_];
    if (total > max_pairs) {
        exceeded = true;
        total = static_cast<std::size_t>(max_pairs);
    }
    res.resize(total);
    run_tasks(threads_, tasks_, [&](std::size_t t, unsigned) {
        if (at_[t] >= total) return;
        const std::size_t k = std::min(outs_[t].size, total - at_[t]);
        if (k) std::memcpy(res.data() + at_[t], outs_[t].pairs.data(), k * sizeof(Pair));
    });
}

inline void CellList::rows(bool half, bool images, std::uint64_t max_entries, bool& exceeded) {
    exceeded = false;
    make_tasks();
    count_.resize(sum_.gridded);
    run_tasks(threads_, tasks_, [&](std::size_t t, unsigned th) {
        const SimdLevel level = simd_level();
#if defined(BROADPHASE_SIMD_HAS_AVX2)
        if (level >= SimdLevel::avx2) return rows_avx2(t, scratch_[th], half, images, max_entries);
#endif
#if defined(BROADPHASE_SIMD_HAS_SSE2)
        if (level >= SimdLevel::sse2) return rows_at<1>(t, scratch_[th], half, images, max_entries);
#endif
        (void)level;
        rows_at<0>(t, scratch_[th], half, images, max_entries);
    });
    std::uint64_t total = 0;
    for (std::size_t t = 0; t < tasks_; ++t) total += outs_[t].size;
    exceeded = total > max_entries;
}

}  // namespace detail
}  // namespace broadphase
