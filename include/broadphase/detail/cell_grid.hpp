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
#include <vector>

#include "../boxes.hpp"
#include "box_record.hpp"
#include "buffers.hpp"
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
    /// sweep axis, each bucket is then sorted by min on it.
    void build(const View& v, const Params& p, StatsScratch& stats_scratch) {
        params_ = p;
        naxes_ = 0;
        for (int k = 0; k < D; ++k)
            if (p.axis_mask & (1u << k)) axes_[naxes_++] = k;
        all_flags_ = (1u << naxes_) - 1;
        choose_cell_size(v, stats_scratch);
        place(v);
    }

    /// Every pair within the built boxes, ids as given at build, a < b.
    /// Buckets of a few boxes are tested record against record; longer ones
    /// are first copied to struct-of-arrays and tested SIMD-width at a time.
    template <class Sink>
    void self_pairs(const View& v, Sink& sink) {
        const std::size_t nb = starts_.size() - 1;
        const Record* rec = records_.data();
        const std::uint64_t* keys = keys_.data();
        const int sweep = params_.sweep_axis;
        for (std::size_t b = 0; b < nb; ++b) {
            const std::size_t s = starts_[b], end = starts_[b + 1];
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
                const View bv = bucket_soa(s, end);
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
        large_pairs(v, sink);
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
    std::uint32_t bucket_of(std::uint64_t cell_key) const {
        return static_cast<std::uint32_t>((cell_key * 0x9E3779B97F4A7C15ull) >> (64 - table_bits_));
    }
    static bool same_cell(std::uint64_t a, std::uint64_t b) {
        return ((a ^ b) & ((std::uint64_t(1) << flag_shift) - 1)) == 0;
    }
    bool owns(std::uint64_t a, std::uint64_t b) const {
        return (((a | b) >> flag_shift) & all_flags_) == all_flags_;
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
            std::uint32_t flags = 0;
            for (int a = 0; a < naxes_; ++a)
                if (c[a] == lo[a]) flags |= 1u << a;
            f(c, flags);
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
                    cell = std::min(std::max(cell, -1e6), 1e6);
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
                    const std::uint32_t flags = (x == 0 ? 1u : 0u) | (y == 0 ? 2u : 0u) | (z == 0 ? 4u : 0u);
                    f(k, flags & all_flags_);
                }
    }

    /// Per box: its min cell key and span (or "large"), from cell coordinates
    /// computed in chunks (SIMD) so no per-box coordinate arrays are kept.
    /// Returns the number of table entries.
    std::uint64_t bin_boxes(const View& v) {
        const std::size_t n = v.n;
        resize_buffer(box_key_, n);
        resize_buffer(box_span_, n);
        large_ids_.clear();
        std::uint64_t total = 0;
        for (std::size_t begin = 0; begin < n; begin += chunk) {
            const std::size_t m = std::min(chunk, n - begin);
            for (int a = 0; a < naxes_; ++a) {
                const int k = axes_[a];
                scale_clamp_trunc(v.lo[k] + begin, m, origin_[k], inv_h_, T(coord_limit), cell_lo_[a]);
                scale_clamp_trunc(v.hi[k] + begin, m, origin_[k], inv_h_, T(coord_limit), cell_hi_[a]);
            }
            switch (naxes_) {
                case 1: total += key_boxes<1>(begin, m); break;
                case 2: total += key_boxes<2>(begin, m); break;
                default: total += key_boxes<3>(begin, m); break;
            }
        }
        return total;
    }

    /// Keys and spans of boxes [begin, begin + m) from the chunk's cell
    /// coordinates; NA = number of grid axes, fixed so the loop unrolls.
    template <int NA>
    std::uint64_t key_boxes(std::size_t begin, std::size_t m) {
        constexpr std::int32_t off = static_cast<std::int32_t>(coord_limit + 1);
        const std::uint64_t max_cells = params_.max_cells;
        std::uint64_t* box_key = box_key_.data() + begin;
        std::uint32_t* box_span = box_span_.data() + begin;
        std::uint64_t total = 0;
        for (std::size_t i = 0; i < m; ++i) {
            std::uint64_t cells = 1, key = 0;
            std::uint32_t packed = 0;
            for (int a = 0; a < NA; ++a) {
                const std::int32_t lo = cell_lo_[a][i], d = cell_hi_[a][i] - lo;
                cells *= static_cast<std::uint64_t>(d) + 1;
                key |= static_cast<std::uint64_t>(lo + off) << (a * coord_bits);
                packed |= static_cast<std::uint32_t>(d < 255 ? d : 255) << (8 * a);
            }
            box_key[i] = key;
            if (cells > max_cells) {
                large_ids_.push_back(static_cast<std::uint32_t>(begin + i));
                packed = large_span;
            } else {
                total += cells;
            }
            box_span[i] = packed;
        }
        return total;
    }

    /// Calls f(box, cell key, start flags) for every table entry, boxes in
    /// input order or in `order`.
    template <class F>
    void for_each_entry(std::size_t n, F&& f, const std::uint32_t* order = nullptr) const {
        const std::uint64_t* box_key = box_key_.data();
        const std::uint32_t* box_span = box_span_.data();
        for (std::size_t t = 0; t < n; ++t) {
            const std::size_t i = order ? order[t] : t;
            const std::uint32_t sp = box_span[i];
            if (sp == 0) f(i, box_key[i], all_flags_);
            else if (sp != large_span)
                for_each_binned_cell(box_key[i], sp, [&](std::uint64_t k, std::uint32_t fl) { f(i, k, fl); });
        }
    }

    /// Counting sort of the entries by bucket, in two cache-friendly steps
    /// (MSD style): first into at most 2^partition_bits partitions (a few
    /// sequential write streams), then each partition,
    /// now small enough for the cache, by bucket in place. Stable: within a
    /// bucket, entries keep input order.
    void place(const View& v) {
        const std::size_t n = v.n;
        entries_ = static_cast<std::size_t>(bin_boxes(v));
        // About four buckets per occupied cell (estimated), never more than entries.
        const double cells = static_cast<double>(entries_) / std::max(1.0, occupancy_);
        table_bits_ = 4;
        while (static_cast<double>(std::size_t(1) << table_bits_) < 4 * cells &&
               (std::size_t(1) << table_bits_) < entries_ && table_bits_ < 30)
            ++table_bits_;
        const std::size_t nb = std::size_t(1) << table_bits_;
        resize_buffer(records_, entries_);
        resize_buffer(keys_, entries_);
        Record* rec = records_.data();
        std::uint64_t* keys = keys_.data();
        const View src = v;
        resize_buffer(starts_, nb + 1);
        if (entries_ <= direct_entries || table_bits_ <= 1) {
            // Small enough for the cache: one counting sort, straight from the boxes.
            std::fill(starts_.begin(), starts_.end(), 0u);
            for_each_entry(n, [&](std::size_t, std::uint64_t key, std::uint32_t) { ++starts_[bucket_of(key) + 1]; });
            for (std::size_t b = 0; b < nb; ++b) starts_[b + 1] += starts_[b];
            resize_buffer(cursor_, nb);
            std::copy(starts_.begin(), starts_.end() - 1, cursor_.begin());
            std::uint32_t* cursor = cursor_.data();
            // With a sweep axis, place boxes in order of their min there:
            // counting sort is stable, so every bucket comes out sorted.
            const std::uint32_t* order = params_.sweep_axis >= 0 ? sweep_order(src, params_.sweep_axis) : nullptr;
            for_each_entry(
                n,
                [&](std::size_t i, std::uint64_t key, std::uint32_t flags) {
                    const std::uint32_t at = cursor[bucket_of(key)]++;
                    write_record(rec[at], src, i, static_cast<std::uint32_t>(i));
                    keys[at] = key | (static_cast<std::uint64_t>(flags) << flag_shift);
                },
                order);
        } else {
            // Large: sort each bucket afterwards, in cache.
            place_partitioned(src);
            if (params_.sweep_axis >= 0) sort_buckets(params_.sweep_axis);
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
        sort_by_value(v.lo[axis], v.n, order_, sort_);
        return order_.data();
    }

    void place_partitioned(const View& src) {
        const std::size_t n = src.n;
        const std::size_t nb = std::size_t(1) << table_bits_;
        const int local_bits = std::max(table_bits_ - partition_bits, 1);
        const int shift = local_bits;
        const std::size_t np = nb >> local_bits;
        Record* rec = records_.data();
        std::uint64_t* keys = keys_.data();

        // 1. Partition sizes, then scatter whole records into partitions.
        pstart_.assign(np + 1, 0);
        for_each_entry(n, [&](std::size_t, std::uint64_t key, std::uint32_t) { ++pstart_[(bucket_of(key) >> shift) + 1]; });
        for (std::size_t p = 0; p < np; ++p) pstart_[p + 1] += pstart_[p];
        cursor_.assign(pstart_.begin(), pstart_.end() - 1);
        std::uint32_t* cursor = cursor_.data();
        for_each_entry(n, [&](std::size_t i, std::uint64_t key, std::uint32_t flags) {
            const std::uint32_t at = cursor[bucket_of(key) >> shift]++;
            write_record(rec[at], src, i, static_cast<std::uint32_t>(i));
            keys[at] = key | (static_cast<std::uint64_t>(flags) << flag_shift);
        });

        // 2. Each partition by bucket, through a partition-sized scratch.
        const std::size_t local_nb = std::size_t(1) << local_bits;
        std::vector<std::uint32_t>& local = cursor_;
        if (local.size() < local_nb) resize_buffer(local, local_nb);
        for (std::size_t p = 0; p < np; ++p) {
            const std::size_t ps = pstart_[p], pe = pstart_[p + 1];
            std::fill(local.begin(), local.begin() + static_cast<std::ptrdiff_t>(local_nb), 0u);
            const std::uint32_t mask = static_cast<std::uint32_t>(local_nb - 1);
            for (std::size_t j = ps; j < pe; ++j) ++local[bucket_of(keys[j]) & mask];
            std::uint32_t sum = static_cast<std::uint32_t>(ps);
            for (std::size_t b = 0; b < local_nb; ++b) {
                const std::uint32_t c = local[b];
                starts_[p * local_nb + b] = sum;
                local[b] = sum - static_cast<std::uint32_t>(ps);
                sum += c;
            }
            const std::size_t m = pe - ps;
            if (m < 2) continue;
            if (tmp_records_.size() < m) resize_buffer(tmp_records_, m);
            if (tmp_keys_.size() < m) resize_buffer(tmp_keys_, m);
            std::copy(rec + ps, rec + pe, tmp_records_.begin());
            std::copy(keys + ps, keys + pe, tmp_keys_.begin());
            for (std::size_t t = 0; t < m; ++t) {
                const std::uint32_t at = static_cast<std::uint32_t>(ps) + local[bucket_of(tmp_keys_[t]) & mask]++;
                rec[at] = tmp_records_[t];
                keys[at] = tmp_keys_[t];
            }
        }
        starts_[nb] = static_cast<std::uint32_t>(entries_);
    }

    /// Sorts each bucket by min on the sweep axis (stable: ties keep input
    /// order), so the sweep inside a cell can stop early.
    void sort_buckets(int axis) {
        const std::size_t nb = starts_.size() - 1;
        for (std::size_t b = 0; b < nb; ++b) {
            const std::size_t s = starts_[b], e = starts_[b + 1];
            const std::size_t m = e - s;
            if (m < 2) continue;
            if (m <= 16) {  // insertion sort
                for (std::size_t i = s + 1; i < e; ++i) {
                    const Record r = records_[i];
                    const std::uint64_t k = keys_[i];
                    std::size_t j = i;
                    for (; j > s && r.lo[axis] < records_[j - 1].lo[axis]; --j) {
                        records_[j] = records_[j - 1];
                        keys_[j] = keys_[j - 1];
                    }
                    records_[j] = r;
                    keys_[j] = k;
                }
                continue;
            }
            // Sort (key, position) pairs: exact keys, ties by position (stable).
            resize_buffer(sort_.keyed, m);
            for (std::size_t t = 0; t < m; ++t)
                sort_.keyed[t] = {order_key(records_[s + t].lo[axis]), static_cast<std::uint32_t>(t)};
            std::sort(sort_.keyed.begin(), sort_.keyed.begin() + static_cast<std::ptrdiff_t>(m));
            if (tmp_records_.size() < m) resize_buffer(tmp_records_, m);
            if (tmp_keys_.size() < m) resize_buffer(tmp_keys_, m);
            std::copy(records_.begin() + static_cast<std::ptrdiff_t>(s), records_.begin() + static_cast<std::ptrdiff_t>(e),
                      tmp_records_.begin());
            std::copy(keys_.begin() + static_cast<std::ptrdiff_t>(s), keys_.begin() + static_cast<std::ptrdiff_t>(e),
                      tmp_keys_.begin());
            for (std::size_t t = 0; t < m; ++t) {
                const std::size_t from = sort_.keyed[t].second;
                records_[s + t] = tmp_records_[from];
                keys_[s + t] = tmp_keys_[from];
            }
        }
    }

    /// An order-preserving 64-bit key of a coordinate (exact for float and double).
    static std::uint64_t order_key(T x) {
        if constexpr (std::is_same_v<T, float>) return float_key(x);
        else return double_key(static_cast<double>(x));
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
    View bucket_soa(std::size_t s, std::size_t end) {
        const std::size_t m = end - s;
        View bv;
        for (int k = 0; k < D; ++k) {
            if (soa_lo_[k].size() < m + simd::width) {
                resize_buffer(soa_lo_[k], m + simd::width);
                resize_buffer(soa_hi_[k], m + simd::width);
            }
            T* lo = soa_lo_[k].data();
            T* hi = soa_hi_[k].data();
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

    /// Pairs involving large boxes: against the table, then among themselves.
    template <class Sink>
    void large_pairs(const View& v, Sink& sink) {
        const std::size_t nl = large_ids_.size();
        for (std::size_t t = 0; t < nl && !sink.stopped(); ++t) {
            const std::uint32_t a = large_ids_[t];
            query_table(v, box_at(v, a), [&](std::uint32_t b) {
                if (a < b) sink(a, b);
                else sink(b, a);
            });
        }
        if (nl < 2 || sink.stopped()) return;
        // Large against large: a sweep over them, sorted by min on axis 0.
        sort_by_value_of(v, large_ids_, large_order_);
        for (int k = 0; k < D; ++k) {
            resize_buffer(large_lo_[k], nl + simd::width);
            resize_buffer(large_hi_[k], nl + simd::width);
        }
        View lv;
        for (int k = 0; k < D; ++k) {
            for (std::size_t t = 0; t < nl; ++t) {
                large_lo_[k][t] = v.lo[k][large_order_[t]];
                large_hi_[k][t] = v.hi[k][large_order_[t]];
            }
            lv.lo[k] = large_lo_[k].data();
            lv.hi[k] = large_hi_[k].data();
        }
        lv.n = nl;
        sweep_pairs(lv, 0, nl, [&](std::size_t i, std::size_t j) {
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
    std::vector<std::uint32_t> starts_, cursor_;
    std::vector<Record> records_;  // per entry, grouped by bucket
    std::vector<T> soa_lo_[D], soa_hi_[D];  // one bucket as struct of arrays
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint32_t> large_ids_;
    std::vector<std::uint8_t> is_large_;
    std::vector<std::uint32_t> large_order_, large_rank_;  // large boxes in sweep order
    std::vector<T> large_mins_, large_lo_[D], large_hi_[D];
    static constexpr std::size_t chunk = 1024;
    static constexpr std::size_t direct_entries = std::size_t(1) << 16;  // up to here: one pass, in cache
    static constexpr int partition_bits = 7;  // at most 128 partitions: write streams stay in L1
    std::int32_t cell_lo_[3][chunk], cell_hi_[3][chunk];  // one chunk of boxes
    std::vector<std::uint32_t> pstart_, order_;
    SortScratch sort_;
    std::vector<Record> tmp_records_;
    std::vector<std::uint64_t> tmp_keys_;
    std::vector<std::uint64_t> box_key_;   // per box: key of its min cell
    std::vector<std::uint32_t> box_span_;  // per box: cells - 1 per axis, 8 bits each
    static constexpr std::uint32_t large_span = ~0u;
};

}  // namespace detail
}  // namespace broadphase
