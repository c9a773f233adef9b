// AdaptiveGridCore's build (the class and its members' contracts are in
// adaptive_grid_core.hpp, which includes this file at its end): the quantisation
// frame, the instance store, and the level-by-level split of the nodes,
// whose two passes the class describes ("building one level", above Tally).
// Apart from the queries (adaptive_grid_core_queries.hpp) so that neither file
// outgrows a reading; both are one class's members.
//
// Member functions are defined `inline` as they were when written in the
// class body: compilers weigh that hint when inlining.
#pragma once

#include "grid/adaptive_grid_core.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <broadphase/pairs.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/parallel.hpp>
#include "simd/dispatch.hpp"

namespace broadphase {
namespace detail {

// ---- the build --------------------------------------------------------------

template <class T, int D>
inline void AdaptiveGridCore<T, D>::build(const SoaView<T, D>& v, const Params& params, unsigned threads,
                                          std::size_t min_boxes_per_thread) {
    params_ = params;
    if (params_.leaf_capacity < 1) params_.leaf_capacity = 1;
    params_.resident_children = std::min<std::uint32_t>(params_.resident_children, 1u << (2 * D));
    threads_ = std::max(threads, 1u);
    min_boxes_ = min_boxes_per_thread;
    n_ = v.n;
    nodes_.clear();
    store_size_ = 0;
    set_frame(v);
    quantize_all(v);

    Node root;
    root.leaf = false;
    nodes_.push_back(root);
    resize_buffer(cur_start_, 2);
    cur_start_[0] = 0;
    cur_start_[1] = static_cast<std::uint32_t>(n_);

    const Rec* recs = boxq_.data();  // level 0: the boxes in order
    std::size_t level_begin = 0;
    while (level_begin < nodes_.size()) {
        const std::size_t level_end = nodes_.size();
        if (!split_level(v, recs, level_begin, level_end)) {  // (without exceptions: flagged)
            nodes_.clear();  // an empty tree, in which nothing meets
            store_size_ = 0;
            return;
        }
        std::swap(cur_, next_);
        std::swap(cur_start_, next_start_);
        recs = cur_.data();
        level_begin = level_end;
    }
    keep_headroom();
    // Pad the store so scans may read whole SIMD batches past a node's end.
    const std::size_t padded = store_size_ + 16;
    for (int k = 0; k < D; ++k) {
        resize_buffer(lo_[k], padded);
        resize_buffer(hi_[k], padded);
    }
    resize_buffer(flags_, padded);
    resize_buffer(ids_, padded);  // last: grow_store takes its size for every array's
}

template <class T, int D>
inline void AdaptiveGridCore<T, D>::set_frame(const View& v) {
    // Finite bounds, parts of the boxes on separate threads (min and max
    // are exact: the same result for any split).
    const unsigned threads = threads_for_boxes(v.n, Work::eighth);
    const std::size_t parts = part_count(threads, v.n);
    resize_buffer(part_bounds_, parts * 2 * D);
    run_parts(threads, v.n, [&](std::size_t p, std::size_t first, std::size_t last) {
        double* out = part_bounds_.data() + p * 2 * D;
        for (int k = 0; k < D; ++k) {
            double l = std::numeric_limits<double>::infinity(), h = -l;
            for (std::size_t i = first; i < last; ++i) {
                const T a = v.lo[k][i], b = v.hi[k][i];
                if (finite(a)) l = std::min(l, double(a)), h = std::max(h, double(a));
                if (finite(b)) l = std::min(l, double(b)), h = std::max(h, double(b));
            }
            out[2 * k] = l, out[2 * k + 1] = h;
        }
    });
    double lo[D], hi[D];
    for (int k = 0; k < D; ++k) {
        lo[k] = std::numeric_limits<double>::infinity();
        hi[k] = -lo[k];
        for (std::size_t p = 0; p < parts; ++p) {
            lo[k] = std::min(lo[k], part_bounds_[p * 2 * D + 2 * k]);
            hi[k] = std::max(hi[k], part_bounds_[p * 2 * D + 2 * k + 1]);
        }
        if (!(lo[k] <= hi[k])) lo[k] = 0, hi[k] = 0;
    }
    // The bulk: 2nd..98th percentile of sampled min corners.
    if (v.n >= 64) {
        const std::size_t step = std::max<std::size_t>(1, v.n / 256);
        for (int k = 0; k < D; ++k) {
            sample_.clear();
            for (std::size_t i = 0; i < v.n; i += step)
                if (finite(v.lo[k][i])) sample_.push_back(double(v.lo[k][i]));
            if (sample_.size() < 16) continue;
            std::sort(sample_.begin(), sample_.end());
            const double a = sample_[sample_.size() / 50], b = sample_[sample_.size() - 1 - sample_.size() / 50];
            const double spread = std::max(b - a, 1e-30 + 1e-6 * std::max(std::fabs(a), std::fabs(b)));
            lo[k] = std::max(lo[k], a - 1024 * spread);
            hi[k] = std::min(hi[k], b + 1024 * spread);
        }
    }
    double extent = 0;
    for (int k = 0; k < D; ++k) extent = std::max(extent, hi[k] - lo[k]);
    double scale = extent > 0 ? double(std::uint32_t(1) << bits) / extent : 1.0;
    if (!(scale < double(std::numeric_limits<T>::max())) || !(scale > double(std::numeric_limits<T>::min())))
        scale = 1.0;
    scale_ = T(scale);
    for (int k = 0; k < D; ++k) origin_[k] = T(lo[k]);
}

template <class T, int D>
inline void AdaptiveGridCore<T, D>::quantize_all(const View& v) {
    resize_buffer(boxq_, v.n);
    run_parts(threads_for_boxes(v.n, Work::quarter), v.n, [&](std::size_t, std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {
            Rec& r = boxq_[i];
            for (int k = 0; k < D; ++k) {
                r.lo[k] = quantize(v.lo[k][i], k);
                r.hi[k] = quantize(v.hi[k][i], k);
            }
            r.id = static_cast<std::uint32_t>(i);
        }
    });
}

// ---- the store --------------------------------------------------------------

template <class T, int D>
inline std::uint32_t AdaptiveGridCore<T, D>::start_flags(const Rec& r, const std::uint32_t* cell, int shift) {
    std::uint32_t f = 0;
    for (int k = 0; k < D; ++k)
        if ((r.lo[k] >> shift) == cell[k]) f |= 1u << k;
    return f;
}

template <class T, int D>
inline void AdaptiveGridCore<T, D>::keep_headroom() {
    auto room = [](auto& v, std::size_t n) {
        if (v.capacity() < n + n / 4) v.reserve(n + n / 4 + 16);
    };
    room(nodes_, nodes_.size());
    room(next_start_, next_start_.size());
    room(cur_start_, cur_start_.size());
    auto same = [](auto& a, auto& b) {
        const std::size_t n = std::max(a.capacity(), b.capacity());
        a.reserve(n);
        b.reserve(n);
    };
    same(cur_, next_);
    same(cur_start_, next_start_);
}

template <class T, int D>
inline void AdaptiveGridCore<T, D>::grow_store(std::size_t extra) {
    std::size_t n = store_size_ + extra + 16;
    if (n <= ids_.size()) return;
    n = n <= ids_.capacity() ? ids_.capacity() : std::max(n, ids_.size() + ids_.size() / 2);
    for (int k = 0; k < D; ++k) {
        resize_buffer(lo_[k], n);
        resize_buffer(hi_[k], n);
    }
    resize_buffer(flags_, n);
    resize_buffer(ids_, n);  // last: the check above takes its size for all, so a failed resize leaves it short
}

template <class T, int D>
inline void AdaptiveGridCore<T, D>::write_instance(std::size_t at, const View& v, const Rec& r, const std::uint32_t* cell,
                                                int shift) {
    const std::uint32_t id = r.id;
    ids_[at] = id;
    flags_[at] = static_cast<std::uint8_t>(start_flags(r, cell, shift));
    for (int k = 0; k < D; ++k) {
        lo_[k][at] = v.lo[k][id];
        hi_[k][at] = v.hi[k][id];
    }
}

// ---- building one level -----------------------------------------------------

template <class T, int D>
inline void AdaptiveGridCore<T, D>::classify(const Node& nd, const Rec* recs, std::uint32_t b, std::uint32_t e, Tally& t) {
    const int cshift = bits - 2 * nd.level - 2;
    for (std::uint32_t r = b; r < e; ++r) {
        const Rec& rec = recs[r];
        std::uint32_t packed = 0, touched = 1;
        std::uint64_t cm = ~std::uint64_t(0);
        for (int k = 0; k < D; ++k) {
            t.max_lo[k] = std::max(t.max_lo[k], rec.lo[k]);
            t.min_hi[k] = std::min(t.min_hi[k], rec.hi[k]);
            const std::uint32_t base = nd.cell[k] * 4;
            const std::uint32_t ca = rec.lo[k] >> cshift, cb = rec.hi[k] >> cshift;
            const std::uint32_t lo = std::max(ca, base) - base;
            const std::uint32_t hi = std::min(cb, base + 3) - base;
            packed |= (lo | (hi << 2)) << (4 * k);
            touched *= std::min<std::uint32_t>(cb - ca + 1, 1024);
            cm &= masks_.m[k][lo][hi];
        }
        if (touched > params_.resident_children) {
            ranges_[r] = ~0u;
            ++t.residents;
            continue;
        }
        ranges_[r] = packed;
        for (; cm; cm &= cm - 1) ++t.count[count_trailing_zeros(cm)];
    }
}

template <class T, int D>
inline std::uint64_t AdaptiveGridCore<T, D>::children_of(std::uint32_t packed) {
    std::uint64_t cm = ~std::uint64_t(0);
    for (int k = 0; k < D; ++k) {
        const std::uint32_t r = packed >> (4 * k);
        cm &= masks_.m[k][r & 3][(r >> 2) & 3];
    }
    return cm;
}

template <class T, int D>
inline auto AdaptiveGridCore<T, D>::decide(std::uint32_t m, bool splits, const Tally& t) -> LevelNode {
    LevelNode ln{};
    if (!splits || t.share_point()) {  // (boxes sharing a point: no cell can separate them)
        ln.leaf = true;
        ln.instances = m;
        return ln;
    }
    ln.instances = t.residents;
    std::uint64_t below = 0;  // a box may go to several children: up to 4^D copies
    for (int c = 0; c < 64; ++c) {
        if (!t.count[c]) continue;
        ln.mask |= std::uint64_t(1) << c;
        below += t.count[c];
    }
    // (Saturated past 32 bits: the level's total below, checked in
    // split_level on the calling thread, is then too many as well.)
    ln.below = static_cast<std::uint32_t>(std::min<std::uint64_t>(below, max_boxes + 1));
    ln.leaf = ln.mask == 0;  // (every box stays: stored in order, as a leaf)
    return ln;
}

template <class T, int D>
inline std::size_t AdaptiveGridCore<T, D>::slice_run_end(std::size_t ti) const {
    if (!level_tasks_[ti].slice) return ti;
    const std::uint32_t node = level_tasks_[ti].first;
    std::size_t tj = ti + 1;
    while (tj < level_tasks_.size() && level_tasks_[tj].slice && level_tasks_[tj].first == node) ++tj;
    return tj;
}

template <class T, int D>
template <class F>
inline void AdaptiveGridCore<T, D>::for_each_slice_run(F&& f) const {
    for (std::size_t ti = 0; ti < level_tasks_.size();) {
        const std::size_t tj = slice_run_end(ti);
        if (tj == ti) {
            ++ti;
            continue;
        }
        f(ti, tj, level_tasks_[ti].first);
        ti = tj;
    }
}

template <class T, int D>
inline std::uint32_t AdaptiveGridCore<T, D>::total_count(std::size_t ti, std::size_t tj, int c) const {
    std::uint32_t n = 0;
    for (std::size_t t = ti; t < tj; ++t) n += level_tasks_[t].tally.count[c];
    return n;
}

template <class T, int D>
inline void AdaptiveGridCore<T, D>::plan_level(std::size_t lb, std::size_t nl) {
    level_tasks_.clear();
    std::uint32_t group_first = 0, group_boxes = 0;
    auto close_group = [&](std::uint32_t last) {
        if (last > group_first) {
            LevelTask t;
            t.first = group_first, t.last = last, t.begin = cur_start_[group_first], t.end = cur_start_[last];
            t.slice = false;
            level_tasks_.push_back(t);
        }
        group_first = last;
        group_boxes = 0;
    };
    for (std::uint32_t i = 0; i < nl; ++i) {
        const std::uint32_t b = cur_start_[i], e = cur_start_[i + 1];
        if (e - b > slice_boxes && may_split(nodes_[lb + i], e - b)) {
            close_group(i);
            for (std::uint32_t s = b; s < e; s += slice_boxes) {
                LevelTask t;
                t.first = i, t.last = i + 1, t.begin = s, t.end = std::min(e, s + slice_boxes);
                t.slice = true;
                level_tasks_.push_back(t);
            }
            group_first = i + 1;
            continue;
        }
        group_boxes += e - b;
        if (group_boxes >= slice_boxes) close_group(i + 1);
    }
    close_group(static_cast<std::uint32_t>(nl));
}

template <class T, int D>
inline bool AdaptiveGridCore<T, D>::split_level(const View& v, const Rec* recs, std::size_t lb, std::size_t le) {
    const std::size_t nl = le - lb;
    resize_buffer(ranges_, cur_start_[nl]);
    resize_buffer(level_nodes_, nl);
    plan_level(lb, nl);
    const std::size_t ntasks = level_tasks_.size();
    if (task_counts_.size() < ntasks) task_counts_.resize(ntasks);
    const unsigned threads = ntasks > 1 ? threads_ : 1u;

    // 1. Classify and count; whole nodes decide at once.
    run_tasks(threads, ntasks, [&](std::size_t ti, unsigned) {
        LevelTask& task = level_tasks_[ti];
        if (task.slice) {
            task.tally.clear();
            classify(nodes_[lb + task.first], recs, task.begin, task.end, task.tally);
            return;
        }
        Tally t;
        t.clear();
        std::vector<std::uint32_t>& counts = task_counts_[ti];
        counts.clear();
        for (std::uint32_t i = task.first; i < task.last; ++i) {
            const Node& nd = nodes_[lb + i];
            const std::uint32_t b = cur_start_[i], e = cur_start_[i + 1];
            const bool splits = may_split(nd, e - b);
            if (splits) {
                t.clear();
                classify(nd, recs, b, e, t);
            }
            const LevelNode& ln = level_nodes_[i] = decide(e - b, splits, t);
            if (!ln.leaf)  // its children's counts, in order, for step 4
                for (std::uint64_t m = ln.mask; m; m &= m - 1) counts.push_back(t.count[count_trailing_zeros(m)]);
        }
    });

    // 2. Big nodes decide from the sum of their slices' tallies.
    for_each_slice_run([&](std::size_t ti, std::size_t tj, std::uint32_t i) {
        Tally total;
        total.clear();
        for (std::size_t t = ti; t < tj; ++t) total.add(level_tasks_[t].tally);
        level_nodes_[i] = decide(cur_start_[i + 1] - cur_start_[i], true, total);
    });

    // 3. Prefix sums: where each node's instances, children and boxes go.
    std::size_t store = store_size_, children = le, below = 0;
    for (std::size_t i = 0; i < nl; ++i) {
        LevelNode& ln = level_nodes_[i];
        ln.store_at = static_cast<std::uint32_t>(store);
        ln.child_at = static_cast<std::uint32_t>(children);
        ln.next_at = static_cast<std::uint32_t>(below);
        store += ln.instances;
        if (!ln.leaf) children += static_cast<std::size_t>(popcount64(ln.mask)), below += ln.below;
    }
    // 32-bit store, child and box positions
    if (!require_indices(store) || !require_indices(children) || !require_indices(below)) return false;
    grow_store(store - store_size_);
    store_size_ = store;
    nodes_.resize(children);
    resize_buffer(next_, below);
    resize_buffer(next_start_, children - le + 1);
    next_start_[0] = 0;
    for (std::size_t i = 0; i < nl; ++i) {
        const LevelNode& ln = level_nodes_[i];
        Node& nd = nodes_[lb + i];
        nd.begin = ln.store_at;
        nd.end = ln.store_at + ln.instances;
        nd.leaf = ln.leaf;
        nd.mask = ln.leaf ? 0 : ln.mask;
        nd.first_child = ln.leaf ? 0 : ln.child_at;
    }
    // A big inner node's slices take their places in order: each one's
    // boxes of child c follow those of the slices before it. Then its
    // children are made (their ends are known).
    for_each_slice_run([&](std::size_t ti, std::size_t tj, std::uint32_t i) {
        const LevelNode& ln = level_nodes_[i];
        if (!ln.leaf) {
            std::uint32_t at[64], sum = 0, residents = 0;
            for (int c = 0; c < 64; ++c) at[c] = sum, sum += total_count(ti, tj, c);
            for (std::size_t t = ti; t < tj; ++t) {
                Tally& tl = level_tasks_[t].tally;
                for (int c = 0; c < 64; ++c) {
                    const std::uint32_t k = tl.count[c];
                    tl.count[c] = at[c];
                    at[c] += k;
                }
                const std::uint32_t k = tl.residents;
                tl.residents = residents;
                residents += k;
            }
            make_children(nodes_[lb + i], ln, at, le);
        }
    });

    // 4. Write instances, children and boxes.
    run_tasks(threads, ntasks, [&](std::size_t ti, unsigned) {
        const LevelTask& task = level_tasks_[ti];
        if (task.slice) {
            const Node& nd = nodes_[lb + task.first];
            const LevelNode& ln = level_nodes_[task.first];
            const int shift = bits - 2 * nd.level;
            if (ln.leaf) {
                std::size_t at = ln.store_at + (task.begin - cur_start_[task.first]);
                for (std::uint32_t r = task.begin; r < task.end; ++r) write_instance(at++, v, recs[r], nd.cell, shift);
                return;
            }
            std::uint32_t offset[64];
            for (int c = 0; c < 64; ++c) offset[c] = ln.next_at + task.tally.count[c];
            write_split(v, nd, recs, task.begin, task.end, ln.store_at + task.tally.residents, offset);
            return;
        }
        const std::uint32_t* counts = task_counts_[ti].data();
        for (std::uint32_t i = task.first; i < task.last; ++i) {
            const Node& nd = nodes_[lb + i];
            const LevelNode& ln = level_nodes_[i];
            const std::uint32_t b = cur_start_[i], e = cur_start_[i + 1];
            const int shift = bits - 2 * nd.level;
            if (ln.leaf) {
                std::size_t at = ln.store_at;
                for (std::uint32_t r = b; r < e; ++r) write_instance(at++, v, recs[r], nd.cell, shift);
                continue;
            }
            std::uint32_t offset[64], ends[64], sum = 0;
            for (std::uint64_t m = ln.mask; m; m &= m - 1) {
                const int c = count_trailing_zeros(m);
                offset[c] = ln.next_at + sum;
                sum += *counts++;
                ends[c] = sum;
            }
            make_children(nd, ln, ends, le);
            write_split(v, nd, recs, b, e, ln.store_at, offset);
        }
    });
    return true;
}

template <class T, int D>
inline void AdaptiveGridCore<T, D>::make_children(const Node& nd, const LevelNode& ln, const std::uint32_t* ends,
                                               std::size_t le) {
    std::uint32_t at = ln.child_at;
    for (int c = 0; c < (1 << (2 * D)); ++c) {
        if (!((ln.mask >> c) & 1u)) continue;
        Node& child = nodes_[at];
        child = Node{};
        child.leaf = false;
        child.level = static_cast<std::uint8_t>(nd.level + 1);
        for (int k = 0; k < D; ++k) child.cell[k] = nd.cell[k] * 4 + ((c >> (2 * k)) & 3);
        next_start_[at - le + 1] = ln.next_at + ends[c];
        ++at;
    }
}

template <class T, int D>
inline void AdaptiveGridCore<T, D>::write_split(const View& v, const Node& nd, const Rec* recs, std::uint32_t b,
                                             std::uint32_t e, std::size_t store_at, std::uint32_t* offset) {
    const int shift = bits - 2 * nd.level;
    Rec* next = next_.data();
    for (std::uint32_t r = b; r < e; ++r) {
        const std::uint32_t packed = ranges_[r];
        if (packed == ~0u) {
            write_instance(store_at++, v, recs[r], nd.cell, shift);
            continue;
        }
        for (std::uint64_t cm = children_of(packed); cm; cm &= cm - 1) next[offset[count_trailing_zeros(cm)]++] = recs[r];
    }
}

}  // namespace detail
}  // namespace broadphase
