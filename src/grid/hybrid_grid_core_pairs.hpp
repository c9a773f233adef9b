// HybridGridCore's pairs and queries (the class, its members' contracts and its
// cell keys are in hybrid_grid_core.hpp, which includes this file at its end): the
// pairs of each bucket, the query of the table, and the large boxes against
// the table (among themselves: large_box_sweep.hpp). Apart from the build
// (hybrid_grid_core_build.hpp) so that neither file outgrows a reading; both are
// one class's members.
//
// Member functions are defined `inline` as they were when written in the
// class body: compilers weigh that hint when inlining the bucket loops.
#pragma once

#include "grid/hybrid_grid_core.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>
#include "core/box_record.hpp"
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/parallel.hpp>
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"

namespace broadphase {
namespace detail {

// ---- all pairs --------------------------------------------------------------

template <class T, int D>
template <class Sink>
inline void HybridGridCore<T, D>::self_pairs(const View& v, Sink& sink, unsigned threads) {
    const std::size_t nb = starts_.size() - 1;
    large_sweep_.prepare(v, large_ids_, sort_);
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
            task_pairs_.run(threads, np, sink, [&](std::size_t p, PairSink& s, unsigned thread) {
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
        if (!sink.stopped()) large_sweep_.pairs(sink);
        table_done_ = false;
        return;
    }
    const std::size_t bucket_tasks = table_done_ ? 0 : task_count(threads, entries_, 1024);
    table_done_ = false;
    const std::size_t large_tasks = (nl + large_per_task - 1) / large_per_task;
    const std::size_t tasks = bucket_tasks + large_tasks + (nl >= 2 ? 1 : 0);
    if (tasks == 0 || sink.stopped()) return;
    task_pairs_.run(threads, tasks, sink, [&](std::size_t t, PairSink& s, unsigned thread) {
        if (t < bucket_tasks) {
            bucket_pairs(bucket_at_entry(even_bound(entries_, bucket_tasks, t)),
                         bucket_at_entry(even_bound(entries_, bucket_tasks, t + 1)), s, scratch_[thread]);
        } else if (t < bucket_tasks + large_tasks) {
            const std::size_t first = (t - bucket_tasks) * large_per_task;
            large_table_pairs(v, first, std::min(nl, first + large_per_task), s);
        } else {
            large_sweep_.pairs(s);
        }
    });
    share_capacity(threads);
}

template <class T, int D>
inline bool HybridGridCore<T, D>::single_cell_bucket(std::size_t s, std::size_t end) const {
    const std::uint64_t first = keys_[s];
    if (((first >> flag_shift) & all_flags_) != all_flags_) return false;
    for (std::size_t j = s + 1; j < end; ++j)
        if (keys_[j] != first) return false;
    return true;
}

template <class T, int D>
inline auto HybridGridCore<T, D>::bucket_soa(std::size_t s, std::size_t end, ThreadScratch& scratch) const -> View {
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

template <class T, int D>
inline std::size_t HybridGridCore<T, D>::bucket_at_entry(std::size_t e) const {
    const auto last = starts_.end() - 1;
    return static_cast<std::size_t>(std::lower_bound(starts_.begin(), last, static_cast<std::uint32_t>(e)) -
                                    starts_.begin());
}

template <class T, int D>
template <class Sink>
inline void HybridGridCore<T, D>::bucket_pairs(std::size_t first, std::size_t last, Sink& sink, ThreadScratch& scratch,
                                         std::size_t end_of_last) const {
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

// ---- queries and large boxes ------------------------------------------------

template <class T, int D>
template <class Emit>
inline void HybridGridCore<T, D>::query(const View& v, const BasicBox<T, D>& q, Emit&& emit) const {
    query_table(v, q, emit);
    for (std::size_t t = 0; t < large_ids_.size(); ++t) {
        const std::uint32_t id = large_ids_[t];
        if (v.overlaps(id, q)) emit(id);
    }
}

template <class T, int D>
template <class Emit>
inline void HybridGridCore<T, D>::query_table(const View& v, const BasicBox<T, D>& q, Emit&& emit) const {
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

template <class T, int D>
template <class Sink>
inline void HybridGridCore<T, D>::large_table_pairs(const View& v, std::size_t first, std::size_t last, Sink& sink) const {
    for (std::size_t t = first; t < last && !sink.stopped(); ++t) {
        const std::uint32_t a = large_ids_[t];
        query_table(v, box_at(v, a), [&](std::uint32_t b) {
            if (a < b) sink(a, b);
            else sink(b, a);
        });
    }
}

}  // namespace detail
}  // namespace broadphase
