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
// in double. With AVX2 and AVX-512 (chosen at run time as the box kernels
// are, simd.hpp) the candidates are tested by cluster (cell_cluster.hpp,
// issue 46): up to four consecutive particles of a bin against each run of
// the stencil at once (8 candidates a vector with AVX-512, 4 with AVX2),
// each particle's hits compressed into its own row; the rows and pairs are
// the per-particle scans' (cell_scan.hpp, which SSE2 and the portable loop
// run), order included.
//
// This file holds the class: its members' contracts, the small ones'
// bodies, and its state. The bodies of the rest are in two
// siblings, included at the end (each of them includes this file, so either
// may be included alone): cell_list_build.hpp (wrap, bin and sort) and
// cell_list_traversal.hpp (the stencil and the traversals).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <broadphase/pairs.hpp>
#include <broadphase/simd.hpp>
#include "cell_list/cell_cluster.hpp"
#include <broadphase/detail/cell_frame.hpp>
#include "cell_list/cell_scan.hpp"
#include <broadphase/large_array.hpp>
#include <broadphase/detail/pair_output.hpp>
#include <broadphase/detail/parallel.hpp>
#include <broadphase/detail/prefetch.hpp>
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"
#include "simd/sse2/cell_kernels.hpp"
#include "simd/avx2/cell_kernels.hpp"
#include "simd/avx512/cell_kernels.hpp"
#include "spheres/sphere_rule.hpp"


namespace broadphase {
namespace detail {

class CellList {
public:
    /// Bins per reach on each axis. 1 (bins a reach wide, 27 in the full
    /// stencil) beat 2 (bins reach/2 wide, 125: fewer candidates but runs
    /// a third as long; measured: docs/measured-in-code.md#cell-list-and-neighbour-lists).
    int bins_per_reach = 1;

    /// The cluster kernels (cell_cluster.hpp) at AVX2 and AVX-512; false:
    /// the per-particle scans at every level (the same rows and pairs).
    bool clusters = true;

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
    /// threads: the request (0: the default), planned for the sort and the
    /// pair search at `cost` a particle with `min_boxes_per_thread`
    /// (threads.hpp).
    bool sort(const V& v, const CellFrame& frame, double extra, unsigned threads, Work cost,
              std::size_t min_boxes_per_thread, std::vector<std::uint32_t>& invalid,
              double max_coarsening = std::numeric_limits<double>::infinity());

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
    const LargeVector<std::uint32_t>& ids() const { return ids_; }
    const double* x(int k) const { return pos_[k].data(); }
    /// Per input particle: its sorted position, or ~0 when not sorted.
    const LargeVector<std::uint32_t>& where() const { return where_; }

    // ---- traversal ----------------------------------------------------------

    /// Writes the pairs within reach of the half stencil, each unordered
    /// pair of images once, as Pair{min id, max id}, into `out` (replacing
    /// what it held). Output order: bin by bin, the same for every thread
    /// count. max_pairs bounds the output; `exceeded` says it was reached.
    /// One task (one thread) writes straight into an output that allows it
    /// (PairOutput::direct); otherwise each task writes into memory of its
    /// own, kept between calls, copied into `out` at the end.
    /// Returns the number of pairs written.
    std::size_t pairs(PairOutput& out, std::uint64_t max_pairs, bool& exceeded) {
        return traverse_pairs(out, max_pairs, exceeded);
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
    const LargeVector<std::uint32_t>& row_counts() const { return count_; }
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
        // Grown as they fill (without copies: LargeArray), kept between calls.
        LargeArray<std::uint32_t> cols;   // rows: column ids
        LargeArray<std::uint32_t> codes;  // rows: packed images
        LargeArray<Pair> pairs;           // pairs
        std::size_t size = 0;
    };

    /// Where a pairs task writes: the task's own Out, or (one task) the
    /// caller's output straight. room(k) makes room for k more.
    struct PairDest {
        PairOutput* out = nullptr;  // else own
        LargeArray<Pair>* own = nullptr;
        Pair* at = nullptr;
        std::size_t cap = 0, size = 0;
        Pair* room(std::size_t k) {
            if (size + k > cap) grow(size + k);
            return at + size;
        }
        void grow(std::size_t need);
    };

    /// Pass 1: validity, radii, and the bounds of the centres (which the
    /// open axes' bins span; a periodic axis spans the cell).
    template <class V>
    void survey(const V& v, std::vector<std::uint32_t>& invalid);

    /// Bins on each axis and the stencil's reach m; false when it does not
    /// suit (see sort()).
    bool plan(double max_coarsening);

    std::uint32_t bin_of(const double w[3]) const;

    /// Counting sort of the gridded particles by bin (stable: input order
    /// within a bin), leaving start_[b], bin b's first sorted position;
    /// then the wrapped centres (and radii) gathered in that order. With
    /// threads, up to four parts of the input each count and place their
    /// own particles (a table of counts per part).
    template <class V>
    void bin_and_sort(const V& v);

    /// Many bins (a table past the caches): a radix sort of (bin, index),
    /// whose passes read and write in streams, instead of a counting sort's
    /// two random updates of the table a particle (measured:
    /// docs/measured-in-code.md#cell-list-and-neighbour-lists).
    template <class V>
    void radix_by_bin(const V& v);

    template <class V>
    void count_by_bin(const V& v);

    /// The wrapped centres (and radii) in sorted order, read from the
    /// input (a gather: faster here than moving whole particles in the
    /// sort). The arrays are padded by 8: the vector kernels read whole
    /// vectors past a run's end.
    template <class V>
    void gather(const V& v);

    static constexpr std::size_t prefetch_ahead = 16;
    static constexpr std::size_t pad = 8;  // see gather

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
    void stencil_runs(std::uint32_t key, bool half, std::vector<Run>& runs) const;

    /// A row of the stencil as offsets of its first and last bin from the
    /// centre bin's number (interior bins only).
    struct Row {
        std::int64_t lo, hi;
    };

    /// The rows of the full and half stencils for interior bins.
    void plan_stencil();

    /// Bin c on axis k, wrapped on a periodic axis (image p), or false
    /// when outside an open axis.
    bool wrap_bin(int k, std::int64_t c, std::int64_t& b, int& p) const;

    /// The scan arguments for sorted particle i (the run's fields are
    /// filled per run).
    template <bool One>
    ScanArgs args_for(std::size_t i) const;
    static void set_run(ScanArgs& a, const Run& r) {
        a.sh[0] = r.sh[0], a.sh[1] = r.sh[1], a.sh[2] = r.sh[2];
        a.shifted = r.shifted;
    }

    void make_tasks();

    struct Scratch {
        std::vector<Run> runs;
        std::vector<std::uint32_t> cols, codes;
    };

    /// The cluster kernels' tasks (cell_cluster.hpp): the same rows and
    /// pairs as task_rows and task_pairs, a cluster of up to four
    /// particles of a bin against each run at once.
    template <bool One>
    void cluster_args(ClusterArgs& a, std::size_t g, int n) const;
    template <class Isa, bool One>
    void cluster_scan(ClusterArgs& a, int n, std::size_t e, bool half, const std::vector<Run>& runs,
                      std::uint32_t** rows, std::uint32_t** codes) const;
    template <class Isa, bool One, class F>
    void for_each_cluster(std::size_t t, Scratch& sc, bool half, F&& f);
    template <class Isa, bool One>
    void cluster_rows(std::size_t t, Scratch& sc, bool half, bool images, std::uint64_t budget);
    template <class Isa, bool One>
    void cluster_pairs(std::size_t t, Scratch& sc, PairDest& dest, std::uint64_t budget);

    template <class Isa, bool One>
    void task_pairs(std::size_t t, Scratch& sc, PairDest& dest, std::uint64_t budget);

    std::size_t traverse_pairs(PairOutput& res, std::uint64_t max_pairs, bool& exceeded);

public:
    /// The rows' tasks (valid after rows()).
    std::size_t tasks() const { return tasks_; }
    const std::vector<std::size_t>& cuts() const { return cut_; }

private:
    template <class Isa, bool One>
    void task_rows(std::size_t t, Scratch& sc, bool half, bool images, std::uint64_t budget);

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
    LargeVector<std::uint32_t> where_;      // per input particle: sorted position or not_sorted
    /// A gridded particle's wrapped centre and radius, in input order: the
    /// survey reads the input in a stream once and leaves these, so that
    /// binning reads no input again and the gather (in bin order, random)
    /// reads one line a particle where the caller's layout may need two
    /// or more (measured: docs/measured-in-code.md#cell-list-and-neighbour-lists).
    struct alignas(32) Wrapped {
        double w[3];
        double r;
    };
    LargeVector<Wrapped> wrapped_;
    LargeVector<std::uint32_t> bin_;        // per input particle: bin
    LargeVector<std::uint32_t> table_;      // per part and bin: counts, then positions
    BasicRadixScratch<LargeVector<std::uint32_t>> radix_;
    std::uint32_t* start_ = nullptr;        // per bin: first sorted position (in table_)
    LargeVector<std::uint32_t> ids_, keys_; // per sorted position: particle, bin
    std::vector<Row> full_rows_, half_rows_;
    Run still_{};                           // a run seen through image 0
    LargeVector<double> pos_[3], rad_;      // per sorted position: wrapped centre, radius
    std::size_t tasks_ = 0;
    std::vector<std::size_t> cut_, at_;
    std::vector<Out> outs_;
    std::vector<PairDest> dests_;
    std::vector<Scratch> scratch_;
    LargeVector<std::uint32_t> count_;      // per sorted position: row entries
};

}  // namespace detail
}  // namespace broadphase

// Wrap, bin and sort, and the traversals, after the class they define the
// members of.
