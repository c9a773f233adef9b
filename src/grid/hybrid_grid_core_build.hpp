// HybridGridCore's build (the class, its members' contracts and its cell keys are
// in hybrid_grid_core.hpp, which includes this file at its end): the cell size
// chosen from the data, and the placement of every box's entries into the
// hashed table by counting sort. Apart from the pairs and queries
// (hybrid_grid_core_pairs.hpp) so that neither file outgrows a reading; both are
// one class's members.
//
// Member functions are defined `inline` as they were when written in the
// class body: compilers weigh that hint when inlining.
#pragma once

#include "grid/hybrid_grid_core.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/box_record.hpp"
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/parallel.hpp>
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"
#include "core/stats.hpp"

namespace broadphase {
namespace detail {

// ---- the build --------------------------------------------------------------

template <class T, int D>
inline void HybridGridCore<T, D>::build(const View& v, const Params& p, StatsScratch& stats_scratch, unsigned threads,
                                  bool for_pairs) {
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

// ---- cell size --------------------------------------------------------------

template <class T, int D>
inline void HybridGridCore<T, D>::choose_cell_size(const View& v, StatsScratch& scratch) {
    const SceneStats<D> s = scene_stats(v, scratch);
    double h_min = 0, volume = 1;
    for (int k = 0; k < D; ++k) origin_[k] = static_cast<T>(s.center_lo[k]);
    for (int a = 0; a < naxes_; ++a) {
        const int k = axes_[a];
        const double e = std::isfinite(s.extent_median[k]) ? s.extent_median[k] : 0.0;
        h_min = std::max(h_min, e * params_.min_cell_extents);
        if (std::isfinite(s.extent_p99[k])) h_min = std::max(h_min, s.extent_p99[k] * params_.min_cell_p99);
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

template <class T, int D>
inline double HybridGridCore<T, D>::refine_cell_size(const View& v, double h, double h_min, StatsScratch& scratch) {
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

// ---- placement (counting sort) ----------------------------------------------

template <class T, int D>
template <class F>
inline void HybridGridCore<T, D>::for_each_binned_cell(std::uint64_t key, std::uint32_t span, F&& f) const {
    const std::uint32_t dx = span & 255u, dy = (span >> 8) & 255u, dz = (span >> 16) & 255u;
    for (std::uint32_t z = 0; z <= dz; ++z)
        for (std::uint32_t y = 0; y <= dy; ++y)
            for (std::uint32_t x = 0; x <= dx; ++x) {
                const std::uint64_t k = key + x + (std::uint64_t(y) << coord_bits) + (std::uint64_t(z) << (2 * coord_bits));
                f(k, start_flags(x == 0, y == 0, z == 0) & all_flags_);
            }
}

template <class T, int D>
inline std::uint64_t HybridGridCore<T, D>::bin_boxes(const View& v) {
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

template <class T, int D>
template <int NA>
inline std::uint64_t HybridGridCore<T, D>::key_boxes(const ChunkCells& cc, std::size_t begin, std::size_t m,
                                          std::vector<std::uint32_t>& large) {
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

template <class T, int D>
template <class F>
inline void HybridGridCore<T, D>::for_each_entry(std::size_t first, std::size_t last, F&& f,
                                           const std::uint32_t* order) const {
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

template <class T, int D>
template <class Group>
inline void HybridGridCore<T, D>::scatter_entries(const View& src, std::size_t groups, Group&& group,
                                            std::uint32_t* starts, const std::uint32_t* order) {
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

template <class T, int D>
inline void HybridGridCore<T, D>::place(const View& v) {
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

template <class T, int D>
inline const std::uint32_t* HybridGridCore<T, D>::sweep_order(const View& v, int axis) {
    sort_by_value(v.lo[axis], v.n, order_, sort_, threads_);
    return order_.data();
}

template <class T, int D>
inline void HybridGridCore<T, D>::place_partitioned(const View& src) {
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

template <class T, int D>
inline void HybridGridCore<T, D>::finish_partition(std::size_t p, std::size_t local_nb, ThreadScratch& scratch) {
    sort_partition(p, local_nb, scratch);
}

template <class T, int D>
inline void HybridGridCore<T, D>::sort_partition(std::size_t p, std::size_t local_nb, ThreadScratch& scratch) {
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
    // sorted for its sweep: O(m) a pass, where sorting each bucket
    // afterwards by comparison is O(m log m) and took most of the hybrid
    // grid's time (measured: docs/measured-in-code.md#hybrid-grid).
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

}  // namespace detail
}  // namespace broadphase
