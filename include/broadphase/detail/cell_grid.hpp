// The grid machinery the uniform and hybrid grids share.
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
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "../boxes.hpp"
#include "box_record.hpp"
#include "buffers.hpp"
#include "box_rules.hpp"
#include "parallel.hpp"
#include "radix_sort.hpp"
#include "simd.hpp"
#include "stats.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
class CellGrid {
    static_assert(D >= 1 && D <= 3, "hashed cells pack at most 3 axes");
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

    struct Params {
        std::uint32_t axis_mask = (1u << D) - 1;  ///< which axes are gridded
        int sweep_axis = -1;                      ///< >= 0: buckets are sorted by min on this axis
        double boxes_per_cell = 8;                ///< target occupancy
        std::uint64_t max_cells = 27;             ///< boxes touching more cells are "large"
        double min_cell_extents = 1;              ///< cell side >= this many median box extents
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
               bool for_pairs = false) {
        params_ = p;
        defer_partitions_ = for_pairs;
        partitions_pending_ = table_done_ = false;  // (even if a failed call left them set)
        threads_ = std::max(threads, 1u);
        scratch_.ensure(threads_);
        naxes_ = 0;
        for (int k = 0; k < D; ++k)
            if (p.axis_mask & (1u << k)) axes_[naxes_++] = k;
        all_flags_ = (1u << naxes_) - 1;
        choose_cell_size(v, stats_scratch);
        place(v);
        if (threads_ > 1) share_capacity(threads_);
    }

    /// Every pair within the built boxes, ids as given at build, a < b, on
    /// up to `threads` threads: runs of buckets of about equal entries, then
    /// runs of large boxes, then the large boxes among themselves, as tasks
    /// whose pairs, in task order, are those of one thread.
    template <class Sink>
    void self_pairs(const View& v, Sink& sink, unsigned threads = 1) {
        const std::size_t nb = starts_.size() - 1;
        prepare_large(v);
        const std::size_t nl = large_ids_.size();
        scratch_.ensure(threads);
        if (partitions_pending_) {
            // Sort each partition, then its buckets' pairs, while it is in cache.
            const std::size_t np = pstart_.size() - 1, local_nb = nb / np;
            auto partition = [&](std::size_t p, auto& s, ThreadScratch& scratch) {
                finish_partition(p, local_nb, scratch);
                bucket_pairs(p * local_nb, (p + 1) * local_nb, s, scratch, pstart_[p + 1]);
            };
            if (threads <= 1) {
                for (std::size_t p = 0; p < np && !sink.stopped(); ++p) partition(p, sink, scratch_[0]);
            } else {
                task_pairs_.run(threads, np, sink, [&](std::size_t p, VectorSink& s, unsigned thread) {
                    partition(p, s, scratch_[thread]);
                });
                share_capacity(threads);
            }
            starts_[nb] = static_cast<std::uint32_t>(entries_);
            partitions_pending_ = false;
        }
        if (threads <= 1) {
            if (!table_done_) bucket_pairs(0, nb, sink, scratch_[0]);
            large_table_pairs(v, 0, nl, sink);
            if (!sink.stopped()) large_large_pairs(sink);
            table_done_ = false;
            return;
        }
        const std::size_t bucket_tasks = table_done_ ? 0 : task_count(threads, entries_, 1024);
        table_done_ = false;
        const std::size_t large_tasks = (nl + large_per_task - 1) / large_per_task;
        const std::size_t tasks = bucket_tasks + large_tasks + (nl >= 2 ? 1 : 0);
        if (tasks == 0 || sink.stopped()) return;
        task_pairs_.run(threads, tasks, sink, [&](std::size_t t, VectorSink& s, unsigned thread) {
            if (t < bucket_tasks) {
                bucket_pairs(bucket_at_entry(even_bound(entries_, bucket_tasks, t)),
                             bucket_at_entry(even_bound(entries_, bucket_tasks, t + 1)), s, scratch_[thread]);
            } else if (t < bucket_tasks + large_tasks) {
                const std::size_t first = (t - bucket_tasks) * large_per_task;
                large_table_pairs(v, first, std::min(nl, first + large_per_task), s);
            } else {
                large_large_pairs(s);
            }
        });
        share_capacity(threads);
    }

    /// Calls emit(id) once for every built box (in the table or large) overlapping q.
    template <class Emit>
    void query(const View& v, const BasicBox<T, D>& q, Emit&& emit) const {
        query_table(v, q, emit);
        for (std::size_t t = 0; t < large_ids_.size(); ++t) {
            const std::uint32_t id = large_ids_[t];
            if (v.overlaps(id, q)) emit(id);
        }
    }

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
    void choose_cell_size(const View& v, StatsScratch& scratch) {
        const SceneStats<D> s = scene_stats(v, scratch);
        double h_min = 0, volume = 1;
        for (int k = 0; k < D; ++k) origin_[k] = static_cast<T>(s.center_lo[k]);
        for (int a = 0; a < naxes_; ++a) {
            const int k = axes_[a];
            const double e = std::isfinite(s.extent_median[k]) ? s.extent_median[k] : 0.0;
            h_min = std::max(h_min, e * params_.min_cell_extents);
            volume *= std::max(s.center_hi[k] - s.center_lo[k], 0.0) + e;
        }
        const double n = static_cast<double>(std::max<std::size_t>(v.n, 1));
        double h = std::max(h_min, std::pow(volume * params_.boxes_per_cell / n, 1.0 / naxes_));
        h = refine_cell_size(v, h, h_min, scratch);
        if (!(h > 0) || !std::isfinite(h) || h < 1e-30) h = 1;
        h_ = static_cast<T>(h);
        inv_h_ = static_cast<T>(1.0 / h);
        if (!(inv_h_ > T(0)) || !std::isfinite(static_cast<double>(inv_h_))) inv_h_ = T(1), h_ = T(1);
    }

    /// Estimates, from a sample of box centres, how many boxes a box shares
    /// its cell with, and shrinks h while that is well above the target.
    double refine_cell_size(const View& v, double h, double h_min, StatsScratch& scratch) {
        const std::size_t m = std::min<std::size_t>(v.n, 512);
        occupancy_ = 1;
        if (m < 16) return h;
        std::vector<std::uint64_t>& keys = scratch.keys;
        const double stride = static_cast<double>(v.n) / static_cast<double>(m);
        for (int iter = 0; iter < 6; ++iter) {
            keys.clear();
            for (std::size_t t = 0; t < m; ++t) {
                const auto i = static_cast<std::size_t>(static_cast<double>(t) * stride);
                std::uint64_t key = 0;
                for (int a = 0; a < naxes_; ++a) {
                    const int k = axes_[a];
                    double c = 0.5 * (static_cast<double>(v.lo[k][i]) + static_cast<double>(v.hi[k][i]));
                    if (!std::isfinite(c)) c = 0;
                    double cell = std::floor((c - static_cast<double>(origin_[k])) / h);
                    cell = cell >= -1e6 ? std::min(cell, 1e6) : -1e6;  // (NaN from h = inf: -1e6)
                    key = key * 2097152u + static_cast<std::uint64_t>(cell + 1e6);
                }
                keys.push_back(key);
            }
            std::sort(keys.begin(), keys.end());
            double same = 0;  // ordered pairs of sample boxes sharing a cell
            for (std::size_t i = 0; i < m;) {
                std::size_t j = i;
                while (j < m && keys[j] == keys[i]) ++j;
                const double c = static_cast<double>(j - i);
                same += c * (c - 1);
                i = j;
            }
            const double scale = (static_cast<double>(v.n) - 1) / (static_cast<double>(m) - 1);
            const double occupancy = 1 + same / static_cast<double>(m) * scale;
            occupancy_ = occupancy;
            if (occupancy <= 2 * params_.boxes_per_cell || h <= h_min) break;
            const double shrink = std::min(std::pow(occupancy / params_.boxes_per_cell, 1.0 / naxes_), 8.0);
            const double next = std::max(h_min, h / shrink);
            occupancy_ = std::max(1.0, occupancy * std::pow(next / h, naxes_));
            h = next;
        }
        return h;
    }

    // ---- placement (counting sort) ------------------------------------------

    /// Visits the cells of a box binned as (min cell key, packed span):
    /// f(cell key, start flags). Keys are linear in the coordinates, so
    /// stepping a cell is an add.
    template <class F>
    void for_each_binned_cell(std::uint64_t key, std::uint32_t span, F&& f) const {
        const std::uint32_t dx = span & 255u, dy = (span >> 8) & 255u, dz = (span >> 16) & 255u;
        for (std::uint32_t z = 0; z <= dz; ++z)
            for (std::uint32_t y = 0; y <= dy; ++y)
                for (std::uint32_t x = 0; x <= dx; ++x) {
                    const std::uint64_t k = key + x + (std::uint64_t(y) << coord_bits) + (std::uint64_t(z) << (2 * coord_bits));
                    f(k, start_flags(x == 0, y == 0, z == 0) & all_flags_);
                }
    }

    /// Cell coordinates of one chunk of boxes, per grid axis.
    struct ChunkCells {
        std::int32_t lo[3][chunk], hi[3][chunk];
    };

    /// Per box: its min cell key and span (or "large"), from cell coordinates
    /// computed in chunks (SIMD) so no per-box coordinate arrays are kept.
    /// Parts of the boxes on separate threads; large ids gathered in order.
    /// Returns the number of table entries.
    std::uint64_t bin_boxes(const View& v) {
        const std::size_t n = v.n;
        resize_buffer(box_key_, n);
        resize_buffer(box_span_, n);
        large_ids_.clear();
        const std::size_t parts = part_count(threads_, n);
        part_entries_.assign(parts, 0);
        run_parts(threads_, n, [&](std::size_t part, std::size_t first, std::size_t last) {
            std::vector<std::uint32_t>& large = scratch_[static_cast<unsigned>(part)].large;
            large.clear();
            ChunkCells cells;
            std::uint64_t total = 0;
            for (std::size_t begin = first; begin < last; begin += chunk) {
                const std::size_t m = std::min(chunk, last - begin);
                for (int a = 0; a < naxes_; ++a) {
                    const int k = axes_[a];
                    scale_clamp_trunc(v.lo[k] + begin, m, origin_[k], inv_h_, T(coord_limit), cells.lo[a]);
                    scale_clamp_trunc(v.hi[k] + begin, m, origin_[k], inv_h_, T(coord_limit), cells.hi[a]);
                }
                switch (naxes_) {
                    case 1: total += key_boxes<1>(cells, begin, m, large); break;
                    case 2: total += key_boxes<2>(cells, begin, m, large); break;
                    default: total += key_boxes<3>(cells, begin, m, large); break;
                }
            }
            part_entries_[part] = total;
        });
        std::uint64_t total = 0;
        for (std::size_t p = 0; p < parts; ++p) {
            total += part_entries_[p];
            const std::vector<std::uint32_t>& large = scratch_[static_cast<unsigned>(p)].large;
            large_ids_.insert(large_ids_.end(), large.begin(), large.end());
        }
        return total;
    }

    /// Keys and spans of boxes [begin, begin + m) from the chunk's cell
    /// coordinates; NA = number of grid axes, fixed so the loop unrolls.
    template <int NA>
    std::uint64_t key_boxes(const ChunkCells& cc, std::size_t begin, std::size_t m, std::vector<std::uint32_t>& large) {
        constexpr std::int32_t off = static_cast<std::int32_t>(coord_limit + 1);
        const std::uint64_t max_cells = params_.max_cells;
        std::uint64_t* box_key = box_key_.data() + begin;
        std::uint32_t* box_span = box_span_.data() + begin;
        std::uint64_t total = 0;
        for (std::size_t i = 0; i < m; ++i) {
            std::uint64_t cells = 1, key = 0;
            std::uint32_t packed = 0;
            for (int a = 0; a < NA; ++a) {
                const std::int32_t lo = cc.lo[a][i], d = cc.hi[a][i] - lo;
                cells *= static_cast<std::uint64_t>(d) + 1;
                key |= static_cast<std::uint64_t>(lo + off) << (a * coord_bits);
                packed |= static_cast<std::uint32_t>(d < 255 ? d : 255) << (8 * a);
            }
            box_key[i] = key;
            if (cells > max_cells) {
                large.push_back(static_cast<std::uint32_t>(begin + i));
                packed = large_span;
            } else {
                total += cells;
            }
            box_span[i] = packed;
        }
        return total;
    }

    /// Calls f(box, cell key, start flags) for every table entry of the
    /// boxes at positions [first, last), in input order or in `order`.
    template <class F>
    void for_each_entry(std::size_t first, std::size_t last, F&& f, const std::uint32_t* order = nullptr) const {
        const std::uint64_t* box_key = box_key_.data();
        const std::uint32_t* box_span = box_span_.data();
        for (std::size_t t = first; t < last; ++t) {
            const std::size_t i = order ? order[t] : t;
            const std::uint32_t sp = box_span[i];
            if (sp == 0) f(i, box_key[i], all_flags_);
            else if (sp != large_span)
                for_each_binned_cell(box_key[i], sp, [&](std::uint64_t k, std::uint32_t fl) { f(i, k, fl); });
        }
    }

    /// Stable counting sort of the entries of all boxes into `groups`
    /// groups (group(key) < groups), parts of the boxes on separate threads:
    /// each part counts its entries per group, the counts are laid out
    /// group by group and part by part, and each part scatters its entries.
    /// Entries keep input order (or `order`) within a group whatever the
    /// thread count. Writes group starts to starts[0..groups] (when given).
    template <class Group>
    void scatter_entries(const View& src, std::size_t groups, Group&& group, std::uint32_t* starts,
                         const std::uint32_t* order) {
        const std::size_t n = src.n;
        const std::size_t parts = part_count(threads_, n);
        resize_buffer(counts_, parts * groups);
        run_parts(threads_, n, [&](std::size_t part, std::size_t first, std::size_t last) {
            std::uint32_t* c = counts_.data() + part * groups;
            std::fill(c, c + groups, 0u);
            // One part counts every box: in input order, which reads memory in
            // sequence (counts do not depend on the order; parts' do).
            for_each_entry(first, last, [&](std::size_t, std::uint64_t key, std::uint32_t) { ++c[group(key)]; },
                           parts == 1 ? nullptr : order);
        });
        std::uint32_t sum = 0;
        for (std::size_t g = 0; g < groups; ++g) {
            if (starts) starts[g] = sum;
            for (std::size_t p = 0; p < parts; ++p) {
                std::uint32_t& c = counts_[p * groups + g];
                const std::uint32_t k = c;
                c = sum;
                sum += k;
            }
        }
        if (starts) starts[groups] = sum;
        run_parts(threads_, n, [&](std::size_t part, std::size_t first, std::size_t last) {
            // Locals, so that the stores below cannot be taken to change them.
            const View in = src;
            Record* const rec = records_.data();
            std::uint64_t* const keys = keys_.data();
            std::uint32_t* const cursor = counts_.data() + part * groups;
            for_each_entry(
                first, last,
                [&](std::size_t i, std::uint64_t key, std::uint32_t flags) {
                    const std::uint32_t at = cursor[group(key)]++;
                    write_record(rec[at], in, i, static_cast<std::uint32_t>(i));
                    keys[at] = key | (static_cast<std::uint64_t>(flags) << flag_shift);
                },
                order);
        });
    }

    /// Counting sort of the entries by bucket. Small tables: one pass
    /// straight from the boxes. Large ones in two cache-friendly steps (MSD
    /// style): first into at most 2^partition_bits partitions (a few
    /// sequential write streams), then each partition, now small enough for
    /// the cache, by bucket in place, partitions on separate threads.
    /// Stable: within a bucket, entries keep input order. Which path runs
    /// depends on the data only, never on the thread count.
    void place(const View& v) {
        const std::size_t n = v.n;
        const std::uint64_t entries = bin_boxes(v);
        if (!require_indices(entries)) {  // entries are placed by 32-bit counts and starts
            // (Without exceptions: flagged; an empty table, in which nothing meets.)
            entries_ = 0;
            large_ids_.clear();
            is_large_.clear();
            resize_buffer(starts_, 2);
            starts_[0] = starts_[1] = 0;
            return;
        }
        entries_ = static_cast<std::size_t>(entries);
        // About four buckets per occupied cell (estimated), never more than entries.
        const double cells = static_cast<double>(entries_) / std::max(1.0, occupancy_);
        table_bits_ = 4;
        while (static_cast<double>(std::size_t(1) << table_bits_) < 4 * cells &&
               (std::size_t(1) << table_bits_) < entries_ && table_bits_ < 30)
            ++table_bits_;
        const std::size_t nb = std::size_t(1) << table_bits_;
        resize_buffer(records_, entries_);
        resize_buffer(keys_, entries_);
        resize_buffer(starts_, nb + 1);
        if (entries_ <= direct_entries || table_bits_ <= 1) {
            // With a sweep axis, place boxes in order of their min there:
            // counting sort is stable, so every bucket comes out sorted.
            const std::uint32_t* order = params_.sweep_axis >= 0 ? sweep_order(v, params_.sweep_axis) : nullptr;
            const int bits = table_bits_;  // a copy: stores to uint32 arrays may alias the member
            scatter_entries(v, nb, [bits](std::uint64_t key) { return hash_bucket(key, bits); }, starts_.data(), order);
        } else {
            place_partitioned(v);
        }
        if (!large_ids_.empty()) {
            is_large_.assign(n, 0);
            for (std::uint32_t id : large_ids_) is_large_[id] = 1;
        } else {
            is_large_.clear();
        }
    }

    /// Box indices sorted by min on `axis` (stable radix sort). O(n).
    const std::uint32_t* sweep_order(const View& v, int axis) {
        sort_by_value(v.lo[axis], v.n, order_, sort_, threads_);
        return order_.data();
    }

    void place_partitioned(const View& src) {
        const std::size_t nb = std::size_t(1) << table_bits_;
        const int local_bits = std::max(table_bits_ - partition_bits, 1);
        const int shift = local_bits;
        const std::size_t np = nb >> local_bits;

        // 1. Whole records into partitions.
        resize_buffer(pstart_, np + 1);
        const int bits = table_bits_;
        scatter_entries(src, np, [bits, shift](std::uint64_t key) { return hash_bucket(key, bits) >> shift; },
                        pstart_.data(), nullptr);

        // 2. Each partition by bucket (now, or in self_pairs: see build).
        if (defer_partitions_) {
            partitions_pending_ = table_done_ = true;
            return;
        }
        const std::size_t local_nb = std::size_t(1) << local_bits;
        run_tasks(threads_, np, [&](std::size_t p, unsigned thread) { finish_partition(p, local_nb, scratch_[thread]); });
        starts_[nb] = static_cast<std::uint32_t>(entries_);
    }

    /// Partition p's entries by bucket, through a partition-sized scratch
    /// (with a sweep axis, taken in order of their min there, so that each
    /// bucket comes out in sweep order).
    void finish_partition(std::size_t p, std::size_t local_nb, ThreadScratch& scratch) {
        sort_partition(p, local_nb, scratch);
    }

    /// Counting sort of partition p's entries by bucket (the low bits).
    void sort_partition(std::size_t p, std::size_t local_nb, ThreadScratch& scratch) {
        Record* rec = records_.data();
        std::uint64_t* keys = keys_.data();
        std::vector<std::uint32_t>& local = scratch.local;
        if (local.size() < local_nb) resize_buffer(local, local_nb);
        const std::size_t ps = pstart_[p], pe = pstart_[p + 1];
        std::fill(local.begin(), local.begin() + static_cast<std::ptrdiff_t>(local_nb), 0u);
        const std::uint32_t mask = static_cast<std::uint32_t>(local_nb - 1);
        for (std::size_t j = ps; j < pe; ++j) ++local[entry_bucket(keys[j]) & mask];
        std::uint32_t sum = static_cast<std::uint32_t>(ps);
        for (std::size_t b = 0; b < local_nb; ++b) {
            const std::uint32_t c = local[b];
            starts_[p * local_nb + b] = sum;
            local[b] = sum - static_cast<std::uint32_t>(ps);
            sum += c;
        }
        const std::size_t m = pe - ps;
        if (m < 2) return;
        if (scratch.tmp_records.size() < m) resize_buffer(scratch.tmp_records, m);
        if (scratch.tmp_keys.size() < m) resize_buffer(scratch.tmp_keys, m);
        std::copy(rec + ps, rec + pe, scratch.tmp_records.begin());
        std::copy(keys + ps, keys + pe, scratch.tmp_keys.begin());
        const int axis = params_.sweep_axis;
        if (axis < 0) {
            for (std::size_t t = 0; t < m; ++t) {
                const std::uint32_t at = static_cast<std::uint32_t>(ps) + local[entry_bucket(scratch.tmp_keys[t]) & mask]++;
                rec[at] = scratch.tmp_records[t];
                keys[at] = scratch.tmp_keys[t];
            }
            return;
        }
        // The partition, in cache, in order of min on the sweep axis (a
        // stable radix sort), then counted out by bucket: each bucket is
        // sorted for its sweep. (Sorting each bucket afterwards by
        // comparison took 40% of the hybrid grid's time on uniform:100000.)
        if (scratch.sweep_min.size() < m) resize_buffer(scratch.sweep_min, m);
        for (std::size_t t = 0; t < m; ++t) scratch.sweep_min[t] = scratch.tmp_records[t].lo[axis];
        sort_by_value(scratch.sweep_min.data(), m, scratch.sweep_order, scratch.sort);
        const std::uint32_t* order = scratch.sweep_order.data();
        for (std::size_t u = 0; u < m; ++u) {
            const std::uint32_t t = order[u];
            const std::uint32_t at = static_cast<std::uint32_t>(ps) + local[entry_bucket(scratch.tmp_keys[t]) & mask]++;
            rec[at] = scratch.tmp_records[t];
            keys[at] = scratch.tmp_keys[t];
        }
    }

    /// True when all entries of [s, end) hold the same cell with every start
    /// flag set: one cell, and each box is in no other.
    bool single_cell_bucket(std::size_t s, std::size_t end) const {
        const std::uint64_t first = keys_[s];
        if (((first >> flag_shift) & all_flags_) != all_flags_) return false;
        for (std::size_t j = s + 1; j < end; ++j)
            if (keys_[j] != first) return false;
        return true;
    }

    static constexpr std::size_t soa_min = 8;

    /// Copies the records of one bucket to struct-of-arrays scratch, padded
    /// so SIMD batches may read past the end.
    View bucket_soa(std::size_t s, std::size_t end, ThreadScratch& scratch) const {
        const std::size_t m = end - s;
        View bv;
        for (int k = 0; k < D; ++k) {
            // Each checked on its own: a failed allocation may leave one grown.
            if (scratch.soa_lo[k].size() < m + simd::width) resize_buffer(scratch.soa_lo[k], m + simd::width);
            if (scratch.soa_hi[k].size() < m + simd::width) resize_buffer(scratch.soa_hi[k], m + simd::width);
            T* lo = scratch.soa_lo[k].data();
            T* hi = scratch.soa_hi[k].data();
            for (std::size_t t = 0; t < m; ++t) {
                lo[t] = records_[s + t].lo[k];
                hi[t] = records_[s + t].hi[k];
            }
            bv.lo[k] = lo;
            bv.hi[k] = hi;
        }
        bv.n = m;
        return bv;
    }

    /// First bucket whose entries start at or after entry e (nb if none):
    /// cuts the table into runs of about equal entries.
    std::size_t bucket_at_entry(std::size_t e) const {
        const auto last = starts_.end() - 1;
        return static_cast<std::size_t>(std::lower_bound(starts_.begin(), last, static_cast<std::uint32_t>(e)) -
                                        starts_.begin());
    }

    /// Pairs within buckets [first, last). Buckets of a few boxes are
    /// tested record against record; longer ones are first copied to
    /// struct-of-arrays and tested SIMD-width at a time.
    /// `end` is where the entries of bucket last - 1 end, when starts_[last]
    /// is not known yet (another task's partition).
    template <class Sink>
    void bucket_pairs(std::size_t first, std::size_t last, Sink& sink, ThreadScratch& scratch,
                      std::size_t end_of_last = ~std::size_t(0)) const {
        const Record* rec = records_.data();
        const std::uint64_t* keys = keys_.data();
        const int sweep = params_.sweep_axis;
        for (std::size_t b = first; b < last; ++b) {
            const std::size_t s = starts_[b];
            const std::size_t end = b + 1 < last || end_of_last == ~std::size_t(0) ? starts_[b + 1] : end_of_last;
            if (end - s < 2) continue;
            auto report = [&](std::size_t i, std::size_t j) {
                const std::uint64_t ki = keys[i], kj = keys[j];
                if (same_cell(ki, kj) && owns(ki, kj)) {
                    const std::uint32_t a = rec[i].id, bj = rec[j].id;
                    if (a < bj) sink(a, bj);
                    else sink(bj, a);
                }
            };
            if (end - s >= soa_min) {
                const View bv = bucket_soa(s, end, scratch);
                if (single_cell_bucket(s, end)) {
                    // Every entry is its box's only cell: every overlap is
                    // owned, no key checks. The hot path of very dense scenes.
                    if (sweep >= 0) {
                        sweep_pairs(bv, sweep, bv.n, [&](std::size_t i, std::size_t j) {
                            const std::uint32_t a = rec[s + i].id, bj = rec[s + j].id;
                            if (a < bj) sink(a, bj);
                            else sink(bj, a);
                        });
                    } else {
                        // In input order, so ids increase: a < b.
                        for (std::size_t i = 0; i + 1 < bv.n; ++i) {
                            const std::uint32_t a = rec[s + i].id;
                            scan_overlaps_padded(bv, i + 1, bv.n, box_at(bv, i),
                                                 [&](std::size_t j) { sink(a, rec[s + j].id); });
                        }
                    }
                } else if (sweep >= 0) {
                    sweep_pairs(bv, sweep, bv.n, [&](std::size_t i, std::size_t j) { report(s + i, s + j); });
                } else {
                    for (std::size_t i = 0; i + 1 < bv.n; ++i)
                        scan_overlaps_padded(bv, i + 1, bv.n, box_at(bv, i), [&](std::size_t j) { report(s + i, s + j); });
                }
            } else {
                for (std::size_t i = s; i + 1 < end; ++i) {
                    const RecordProbe<T> probe(rec[i]);
                    if (sweep >= 0) {
                        const T limit = rec[i].hi[sweep];
                        for (std::size_t j = i + 1; j < end && !(rec[j].lo[sweep] > limit); ++j)
                            if (probe.overlaps(rec[j])) report(i, j);
                    } else {
                        for (std::size_t j = i + 1; j < end; ++j)
                            if (probe.overlaps(rec[j])) report(i, j);
                    }
                }
            }
            if ((b & 63) == 0 && sink.stopped()) return;
        }
    }

    // ---- queries and large boxes ---------------------------------------------

    /// Calls emit(id) for every table box overlapping q, each once: a box is
    /// reported in the cell that is the max of its and q's min cells.
    template <class Emit>
    void query_table(const View& v, const BasicBox<T, D>& q, Emit&& emit) const {
        if (entries_ == 0) return;
        int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
        const std::uint64_t cells = span(q, lo, hi);
        if (cells > std::max<std::uint64_t>(64, entries_ / 4)) {
            // Cheaper to look at every box once than at every covered cell.
            scan_overlaps(v, 0, v.n, q, [&](std::size_t j) {
                if (is_large_.empty() || !is_large_[j]) emit(static_cast<std::uint32_t>(j));
            });
            return;
        }
        const Record qr = record_of(q);
        const RecordProbe<T> probe(qr);
        for_each_cell(lo, hi, [&](const int* c, std::uint32_t qflags) {
            const std::uint64_t cell = pack(c, naxes_);
            const std::uint32_t b = bucket_of(cell);
            const std::uint64_t qkey = cell | (static_cast<std::uint64_t>(qflags) << flag_shift);
            for (std::size_t j = starts_[b], end = starts_[b + 1]; j < end; ++j)
                if (probe.overlaps(records_[j]) && same_cell(keys_[j], qkey) && owns(keys_[j], qkey))
                    emit(records_[j].id);
        });
    }

    /// Large boxes [first, last) against the table.
    template <class Sink>
    void large_table_pairs(const View& v, std::size_t first, std::size_t last, Sink& sink) const {
        for (std::size_t t = first; t < last && !sink.stopped(); ++t) {
            const std::uint32_t a = large_ids_[t];
            query_table(v, box_at(v, a), [&](std::uint32_t b) {
                if (a < b) sink(a, b);
                else sink(b, a);
            });
        }
    }

    /// Sorts the large boxes by min on axis 0 into struct-of-arrays, for
    /// large_large_pairs.
    void prepare_large(const View& v) {
        const std::size_t nl = large_ids_.size();
        large_view_ = View{};
        if (nl < 2) return;
        sort_by_value_of(v, large_ids_, large_order_);
        for (int k = 0; k < D; ++k) {
            resize_buffer(large_lo_[k], nl + simd::width);
            resize_buffer(large_hi_[k], nl + simd::width);
        }
        for (int k = 0; k < D; ++k) {
            for (std::size_t t = 0; t < nl; ++t) {
                large_lo_[k][t] = v.lo[k][large_order_[t]];
                large_hi_[k][t] = v.hi[k][large_order_[t]];
            }
            large_view_.lo[k] = large_lo_[k].data();
            large_view_.hi[k] = large_hi_[k].data();
        }
        large_view_.n = nl;
    }

    /// Large boxes against each other: a sweep on axis 0 (after prepare_large).
    template <class Sink>
    void large_large_pairs(Sink& sink) const {
        if (large_view_.n < 2) return;
        sweep_pairs(large_view_, 0, large_view_.n, [&](std::size_t i, std::size_t j) {
            const std::uint32_t a = large_order_[i], b = large_order_[j];
            if (a < b) sink(a, b);
            else sink(b, a);
        });
    }

    /// ids sorted by their boxes' min on axis 0 (ties by id): out = box ids.
    void sort_by_value_of(const View& v, const std::vector<std::uint32_t>& ids, std::vector<std::uint32_t>& out) {
        const std::size_t m = ids.size();
        resize_buffer(large_mins_, m);
        for (std::size_t t = 0; t < m; ++t) large_mins_[t] = v.lo[0][ids[t]];
        sort_by_value(large_mins_.data(), m, large_rank_, sort_);
        resize_buffer(out, m);
        for (std::size_t t = 0; t < m; ++t) out[t] = ids[large_rank_[t]];
    }

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
    std::vector<Record> records_;  // per entry, grouped by bucket
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint32_t> large_ids_;
    std::vector<std::uint8_t> is_large_;
    std::vector<std::uint32_t> large_order_, large_rank_;  // large boxes in sweep order
    std::vector<T> large_mins_, large_lo_[D], large_hi_[D];
    View large_view_{};
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
    std::vector<std::uint64_t> box_key_;   // per box: key of its min cell
    std::vector<std::uint32_t> box_span_;  // per box: cells - 1 per axis, 8 bits each
    static constexpr std::uint32_t large_span = ~0u;
};

}  // namespace detail
}  // namespace broadphase
