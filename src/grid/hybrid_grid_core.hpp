// The hybrid grid's core: hashed cells, each pair in its owner cell, and
// the boxes of a cell swept on the one axis left out of the grid. With no
// sweep axis (cells on every axis) it is also the uniform grid's structure
// for two sets, queries and sparse scenes (grid_algorithm.hpp).
//
// Cells are cubes of side h on some of the axes (all of them for the
// uniform grid; all but the sweep axis for the hybrid). Each box goes into
// every cell it touches. Cells are hashed into a table of buckets and boxes
// are placed by counting sort: count per bucket, prefix sum, scatter, all
// into flat arrays reused between frames. No world bounds: cell coordinates
// come from the data and are clamped, which keeps overlapping boxes in a
// common cell (floor and clamp are monotone), so far outliers cost nothing
// and are never dropped.
//
// Each pair is reported once, in its owner cell: the cell holding the max of
// the two boxes' min corners. Each entry carries, per grid axis, a bit
// saying "my box starts in this cell on this axis"; two boxes sharing a cell
// own the pair there iff on every axis at least one of them starts there.
// No hash set, no de-duplication pass.
//
// Boxes touching more than `max_cells` cells are "large": they stay out of
// the table and are matched against it like queries (the cells they cover,
// or a linear scan when that is cheaper), and against each other by sweep
// and prune. So a few huge boxes, or infinite slabs, cost little.
//
// This file holds the class: its types, its members' contracts, the cell
// coordinates and keys, and its state. The bodies of the rest are in two
// siblings, included at the end (each of them includes this file, so either
// may be included alone): hybrid_grid_core_build.hpp (the cell size and the
// placement) and hybrid_grid_core_pairs.hpp (the pairs, the queries and the large
// boxes).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <broadphase/boxes.hpp>
#include "core/box_record.hpp"
#include <broadphase/detail/box_rules.hpp>
#include "core/large_box_sweep.hpp"
#include <broadphase/detail/large_pages.hpp>
#include <broadphase/detail/parallel.hpp>
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"
#include "core/stats.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
class HybridGridCore {
    using View = SoaView<T, D>;
    using Record = BoxRecord<T>;

    static constexpr std::size_t chunk = 1024;  // boxes binned at a time

    /// What each thread needs of its own while binning and finding pairs.
    struct ThreadScratch {
        std::vector<T> soa_lo[D], soa_hi[D];  // one bucket as struct of arrays
        std::vector<Record> tmp_records;      // one partition or bucket, while sorting it
        std::vector<std::uint64_t> tmp_keys;
        std::vector<std::uint32_t> local;     // one partition's bucket counts
        std::vector<std::uint32_t> large;     // large boxes of one part, while binning
        std::vector<T> sweep_min;                // one partition's mins on the sweep axis
        std::vector<std::uint32_t> sweep_order;  // ... and their order
        SortScratch sort;

        static constexpr std::size_t buffers = 2 * D + 11;
        /// Visits every buffer (`buffers` of them): f(vector).
        template <class F>
        void each(F&& f) {
            for (int k = 0; k < D; ++k) f(soa_lo[k]), f(soa_hi[k]);
            f(tmp_records), f(tmp_keys), f(local), f(large), f(sweep_min), f(sweep_order);
            f(sort.keys), f(sort.keyed), f(sort.radix.keys), f(sort.radix.values), f(sort.radix.hist);
        }
    };

    /// Gives every thread's scratch the largest capacity any thread's has.
    /// Which thread meets the biggest bucket changes from frame to frame;
    /// this way no thread allocates in the next frame for what another
    /// already needed.
    void share_capacity(unsigned threads) {
        std::size_t most[ThreadScratch::buffers] = {};
        for (unsigned t = 0; t < threads; ++t) {
            std::size_t i = 0;
            scratch_[t].each([&](auto& v) { most[i] = std::max(most[i], v.capacity()), ++i; });
        }
        for (unsigned t = 0; t < threads; ++t) {
            std::size_t i = 0;
            scratch_[t].each([&](auto& v) { v.reserve(most[i++]); });
        }
    }

public:
    static constexpr int coord_bits = 20;
    static constexpr std::int64_t coord_limit = (std::int64_t(1) << (coord_bits - 1)) - 1;
    static constexpr int flag_shift = 60;
    // A cell key packs a coordinate per grid axis, coord_bits bits each,
    // below the start flags at flag_shift: three fit.
    static_assert(D >= 1 && D <= 3, "hashed cells pack at most 3 axes");

    struct Params {
        std::uint32_t axis_mask = (1u << D) - 1;  ///< which axes are gridded
        int sweep_axis = -1;                      ///< >= 0: buckets are sorted by min on this axis
        double boxes_per_cell = 8;                ///< target occupancy
        std::uint64_t max_cells = 27;             ///< boxes touching more cells are "large"
        double min_cell_extents = 1;              ///< cell side >= this many median box extents
        /// cell side >= this many 99th-percentile box extents (on each
        /// gridded axis): boxes of the largest sizes stay out of the large
        /// boxes' slow path even where dense clusters of small ones would
        /// pull the occupancy target's cells below them
        double min_cell_p99 = 0;
    };

    /// Chooses the cell size from the data, then bins every box; with a
    /// sweep axis, each bucket is then sorted by min on it. Binning and
    /// sorting run on up to `threads` threads; the result is the same for
    /// any count.
    ///
    /// With `for_pairs`, the second step of a large table's sort is left to
    /// self_pairs, which sorts each partition and finds its pairs while the
    /// partition is in cache; only self_pairs may follow such a build.
    void build(const View& v, const Params& p, StatsScratch& stats_scratch, unsigned threads = 1,
               bool for_pairs = false);

    /// Every pair within the built boxes, ids as given at build, a < b, on
    /// up to `threads` threads: runs of buckets of about equal entries, then
    /// runs of large boxes, then the large boxes among themselves, as tasks
    /// whose pairs, in task order, are those of one thread.
    template <class Sink>
    void self_pairs(const View& v, Sink& sink, unsigned threads = 1);

    /// Calls emit(id) once for every built box (in the table or large) overlapping q.
    template <class Emit>
    void query(const View& v, const BasicBox<T, D>& q, Emit&& emit) const;

    /// Ids of the large boxes, increasing.
    const std::vector<std::uint32_t>& large() const { return large_ids_; }
    T cell_size() const { return h_; }

private:
    // ---- cell coordinates and keys ----------------------------------------

    /// Cell coordinate of x on an axis, offset to be positive: trunc of
    /// (x - origin) / h clamped, plus coord_limit + 1. Monotone in x, and the
    /// same whether computed here or in bulk (see scale_clamp_trunc).
    int cell_of(T x, int axis) const {
        return scale_clamp_trunc(x, origin_[axis], inv_h_, T(coord_limit)) + int(coord_limit + 1);
    }
    static std::uint64_t pack(const int* c, int naxes) {
        std::uint64_t key = 0;
        for (int a = 0; a < naxes; ++a)
            key |= static_cast<std::uint64_t>(c[a]) << (a * coord_bits);
        return key;
    }
    std::uint32_t bucket_of(std::uint64_t cell_key) const { return hash_bucket(cell_key, table_bits_); }
    /// The bucket of an entry's key: its cell's, start flags left out (they
    /// reach the hash's top bits, which a table of 16 buckets takes whole).
    std::uint32_t entry_bucket(std::uint64_t key) const {
        return bucket_of(key & ((std::uint64_t(1) << flag_shift) - 1));
    }
    static std::uint32_t hash_bucket(std::uint64_t cell_key, int bits) {
        return static_cast<std::uint32_t>((cell_key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
    }
    static bool same_cell(std::uint64_t a, std::uint64_t b) {
        return ((a ^ b) & ((std::uint64_t(1) << flag_shift) - 1)) == 0;
    }
    bool owns(std::uint64_t a, std::uint64_t b) const {
        return owns_pair(a, b, all_flags_, flag_shift);
    }

    /// Cell span of q on the grid axes; returns the number of cells.
    std::uint64_t span(const BasicBox<T, D>& q, int* lo, int* hi) const {
        std::uint64_t cells = 1;
        for (int a = 0; a < naxes_; ++a) {
            const int k = axes_[a];
            lo[a] = cell_of(q.min[k], k);
            hi[a] = cell_of(q.max[k], k);
            cells *= static_cast<std::uint64_t>(hi[a] - lo[a] + 1);
        }
        return cells;
    }

    /// Visits every cell of a span: f(cell coords, start flags).
    template <class F>
    void for_each_cell(const int* lo, const int* hi, F&& f) const {
        int c[3] = {lo[0], naxes_ > 1 ? lo[1] : 0, naxes_ > 2 ? lo[2] : 0};
        for (;;) {
            f(c, start_flags(c[0] == lo[0], c[1] == lo[1], c[2] == lo[2]) & all_flags_);
            int a = 0;
            for (; a < naxes_; ++a) {
                if (c[a] < hi[a]) {
                    ++c[a];
                    break;
                }
                c[a] = lo[a];
            }
            if (a == naxes_) return;
        }
    }

    // ---- cell size ----------------------------------------------------------

    /// Cell side from the data: at least the median box extent (so a typical
    /// box touches at most two cells per axis), shrunk from the bounding
    /// volume's share per box until a sample says cells hold about
    /// boxes_per_cell boxes (clustered scenes need smaller cells than their
    /// bounds suggest).
    void choose_cell_size(const View& v, StatsScratch& scratch);

    /// Estimates, from a sample of box centres, how many boxes a box shares
    /// its cell with, and shrinks h while that is well above the target.
    double refine_cell_size(const View& v, double h, double h_min, StatsScratch& scratch);

    // ---- placement (counting sort) ------------------------------------------

    /// Visits the cells of a box binned as (min cell key, packed span):
    /// f(cell key, start flags). Keys are linear in the coordinates, so
    /// stepping a cell is an add.
    template <class F>
    void for_each_binned_cell(std::uint64_t key, std::uint32_t span, F&& f) const;

    /// Cell coordinates of one chunk of boxes, per grid axis.
    struct ChunkCells {
        std::int32_t lo[3][chunk], hi[3][chunk];
    };

    /// Per box: its min cell key and span (or "large"), from cell coordinates
    /// computed in chunks (SIMD) so no per-box coordinate arrays are kept.
    /// Parts of the boxes on separate threads; large ids gathered in order.
    /// Returns the number of table entries.
    std::uint64_t bin_boxes(const View& v);

    /// Keys and spans of boxes [begin, begin + m) from the chunk's cell
    /// coordinates; NA = number of grid axes, fixed so the loop unrolls.
    template <int NA>
    std::uint64_t key_boxes(const ChunkCells& cc, std::size_t begin, std::size_t m, std::vector<std::uint32_t>& large);

    /// Calls f(box, cell key, start flags) for every table entry of the
    /// boxes at positions [first, last), in input order or in `order`.
    template <class F>
    void for_each_entry(std::size_t first, std::size_t last, F&& f, const std::uint32_t* order = nullptr) const;

    /// Stable counting sort of the entries of all boxes into `groups`
    /// groups (group(key) < groups), parts of the boxes on separate threads:
    /// each part counts its entries per group, the counts are laid out
    /// group by group and part by part, and each part scatters its entries.
    /// Entries keep input order (or `order`) within a group whatever the
    /// thread count. Writes group starts to starts[0..groups] (when given).
    template <class Group>
    void scatter_entries(const View& src, std::size_t groups, Group&& group, std::uint32_t* starts,
                         const std::uint32_t* order);

    /// Counting sort of the entries by bucket. Small tables: one pass
    /// straight from the boxes. Large ones in two cache-friendly steps (MSD
    /// style): first into at most 2^partition_bits partitions (a few
    /// sequential write streams), then each partition, now small enough for
    /// the cache, by bucket in place, partitions on separate threads.
    /// Stable: within a bucket, entries keep input order. Which path runs
    /// depends on the data only, never on the thread count.
    void place(const View& v);

    /// Box indices sorted by min on `axis` (stable radix sort). O(n).
    const std::uint32_t* sweep_order(const View& v, int axis);

    void place_partitioned(const View& src);

    /// Partition p's entries by bucket, through a partition-sized scratch
    /// (with a sweep axis, taken in order of their min there, so that each
    /// bucket comes out in sweep order).
    void finish_partition(std::size_t p, std::size_t local_nb, ThreadScratch& scratch);

    /// Counting sort of partition p's entries by bucket (the low bits).
    void sort_partition(std::size_t p, std::size_t local_nb, ThreadScratch& scratch);

    // ---- pairs --------------------------------------------------------------

    /// True when all entries of [s, end) hold the same cell with every start
    /// flag set: one cell, and each box is in no other.
    bool single_cell_bucket(std::size_t s, std::size_t end) const;

    static constexpr std::size_t soa_min = 8;

    /// Copies the records of one bucket to struct-of-arrays scratch, padded
    /// so SIMD batches may read past the end.
    View bucket_soa(std::size_t s, std::size_t end, ThreadScratch& scratch) const;

    /// First bucket whose entries start at or after entry e (nb if none):
    /// cuts the table into runs of about equal entries.
    std::size_t bucket_at_entry(std::size_t e) const;

    /// Pairs within buckets [first, last). Buckets of a few boxes are
    /// tested record against record; longer ones are first copied to
    /// struct-of-arrays and tested SIMD-width at a time.
    /// `end` is where the entries of bucket last - 1 end, when starts_[last]
    /// is not known yet (another task's partition).
    template <class Sink>
    void bucket_pairs(std::size_t first, std::size_t last, Sink& sink, ThreadScratch& scratch,
                      std::size_t end_of_last = ~std::size_t(0)) const;

    // ---- queries and large boxes ---------------------------------------------

    /// Calls emit(id) for every table box overlapping q, each once: a box is
    /// reported in the cell that is the max of its and q's min cells.
    template <class Emit>
    void query_table(const View& v, const BasicBox<T, D>& q, Emit&& emit) const;

    /// Large boxes [first, last) against the table.
    template <class Sink>
    void large_table_pairs(const View& v, std::size_t first, std::size_t last, Sink& sink) const;

    Params params_;
    int axes_[3] = {0, 0, 0};
    int naxes_ = 0;
    std::uint32_t all_flags_ = 0;
    T origin_[D] = {};
    T h_ = T(1), inv_h_ = T(1);
    int table_bits_ = 4;
    double occupancy_ = 1;  // estimated boxes per occupied cell
    std::size_t entries_ = 0;
    std::vector<std::uint32_t> starts_;
    std::vector<std::uint32_t> counts_;        // per part and group, while scattering
    std::vector<std::uint64_t> part_entries_;  // per part, while binning
    LargeVector<Record> records_;  // per entry, grouped by bucket (large: on huge pages, see large_pages.hpp)
    LargeVector<std::uint64_t> keys_;
    std::vector<std::uint32_t> large_ids_;
    std::vector<std::uint8_t> is_large_;
    LargeBoxSweep<T, D> large_sweep_;  // the large boxes among themselves
    static constexpr std::size_t large_per_task = 64;
    unsigned threads_ = 1;
    bool defer_partitions_ = false;    // build(for_pairs): leave step 2 of a large sort to self_pairs
    bool partitions_pending_ = false;  // ... and it was left
    bool table_done_ = false;          // self_pairs found the table's pairs partition by partition
    PerThread<ThreadScratch> scratch_;
    TaskPairs task_pairs_;
    static constexpr std::size_t direct_entries = std::size_t(1) << 16;  // up to here: one pass, in cache
    static constexpr int partition_bits = 7;  // at most 128 partitions: write streams stay in L1
    std::vector<std::uint32_t> pstart_, order_;
    SortScratch sort_;
    LargeVector<std::uint64_t> box_key_;   // per box: key of its min cell
    LargeVector<std::uint32_t> box_span_;  // per box: cells - 1 per axis, 8 bits each
    static constexpr std::uint32_t large_span = ~0u;
};

}  // namespace detail
}  // namespace broadphase

// The build and the pairs, after the class they define the members of.
