// AdaptiveGridCore's queries (the class and its members' contracts are in
// adaptive_grid_core.hpp, which includes this file at its end): box queries,
// batches in Morton order, all pairs, and the walk down the occupancy masks
// that they share. Apart from the build (adaptive_grid_core_build.hpp) so that
// neither file outgrows a reading; both are one class's members.
//
// Member functions are defined `inline` as they were when written in the
// class body: compilers weigh that hint when inlining the walk.
#pragma once

#include "grid/adaptive_grid_core.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/detail/box_rules.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/parallel.hpp>
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"

namespace broadphase {
namespace detail {

// ---- queries ----------------------------------------------------------------

template <class T, int D>
template <class Emit>
inline void AdaptiveGridCore<T, D>::query(const BasicBox<T, D>& q, Emit&& emit) const {
    if (nodes_.empty()) return;
    std::uint32_t lo[D], hi[D];
    quantize(q, lo, hi);
    walk(0, true, lo, hi, q, emit);
}

template <class T, int D>
template <class Sink>
inline void AdaptiveGridCore<T, D>::query_batch(const SoaView<T, D>& queries, Sink& sink, unsigned threads,
                                             TaskPairs* buffers) const {
    if (nodes_.empty() || queries.n == 0) return;
    // Per-thread scratch: const queries may run on many threads at once,
    // and a thread's later batches allocate nothing.
    static thread_local BatchScratch scratch;
    std::vector<std::uint32_t>& keys = scratch.keys;
    std::vector<std::uint32_t>& order = scratch.order;
    resize_buffer(keys, queries.n);
    resize_buffer(order, queries.n);
    for (std::size_t i = 0; i < queries.n; ++i) {
        std::uint32_t key = 0;
        for (int k = 0; k < D; ++k) key |= spread_bits(quantize(queries.lo[k][i], k) >> (bits - 30 / D)) << k;
        keys[i] = key;
        order[i] = static_cast<std::uint32_t>(i);
    }
    radix_sort(keys, order, scratch.radix, threads);
    const std::uint32_t* ord = order.data();
    if (threads <= 1) {
        query_run(queries, ord, 0, queries.n, sink);
        return;
    }
    // Buffers kept by the caller when it can (two-set searches), else
    // per calling thread: const batches may run on many threads at once,
    // and each thread's later batches allocate nothing.
    static thread_local TaskPairs per_thread;
    TaskPairs& tasks = buffers ? *buffers : per_thread;
    const std::size_t nt = task_count(threads, queries.n, 256);
    tasks.run(threads, nt, sink, [&](std::size_t t, PairSink& s, unsigned) {
        query_run(queries, ord, even_bound(queries.n, nt, t), even_bound(queries.n, nt, t + 1), s);
    });
}

template <class T, int D>
template <class Sink>
inline void AdaptiveGridCore<T, D>::query_run(const SoaView<T, D>& queries, const std::uint32_t* order, std::size_t first,
                                           std::size_t last, Sink& sink) const {
    // path[0..depth): root, then each node's single child holding the
    // last query. Consecutive queries share most of it, so each one
    // starts at the deepest node holding it (testing only the
    // instances of the nodes above) instead of at the root.
    std::uint32_t path[max_level + 2];
    int depth = 1;
    path[0] = 0;
    for (std::size_t r = first; r < last && !sink.stopped(); ++r) {
        const std::uint32_t qi = order[r];
        const BasicBox<T, D> q = box_at(queries, qi);
        std::uint32_t lo[D], hi[D];
        quantize(q, lo, hi);
        int i = depth - 1;
        while (i > 0 && !inside(nodes_[path[i]], lo, hi)) --i;
        for (;;) {
            const Node& nd = nodes_[path[i]];
            if (nd.leaf) break;
            const int cshift = bits - 2 * (nd.level + 1);
            int bit = 0;
            bool single = true;
            for (int k = 0; k < D; ++k) {
                const std::uint32_t a = lo[k] >> cshift;
                single = single && a == (hi[k] >> cshift);
                bit |= static_cast<int>(a & 3u) << (2 * k);
            }
            if (!single || !((nd.mask >> bit) & 1u)) break;
            path[++i] = nd.first_child + static_cast<std::uint32_t>(popcount64(nd.mask & ((std::uint64_t(1) << bit) - 1)));
        }
        depth = i + 1;
        auto emit = [&](std::uint32_t id) { sink(qi, id); };
        for (int j = 0; j < i; ++j) scan_node(nodes_[path[j]], lo, q, emit);
        walk(path[i], true, lo, hi, q, emit);
    }
}

template <class T, int D>
inline std::uint32_t AdaptiveGridCore<T, D>::spread_bits(std::uint32_t x) {
    if constexpr (D == 3) {
        x &= 0x3ffu;
        x = (x | (x << 16)) & 0x030000ffu;
        x = (x | (x << 8)) & 0x0300f00fu;
        x = (x | (x << 4)) & 0x030c30c3u;
        x = (x | (x << 2)) & 0x09249249u;
    } else if constexpr (D == 2) {
        x &= 0x7fffu;
        x = (x | (x << 8)) & 0x00ff00ffu;
        x = (x | (x << 4)) & 0x0f0f0f0fu;
        x = (x | (x << 2)) & 0x33333333u;
        x = (x | (x << 1)) & 0x55555555u;
    }
    return x;
}

// ---- all pairs --------------------------------------------------------------

template <class T, int D>
template <class Sink>
inline void AdaptiveGridCore<T, D>::self_pairs(Sink& sink, unsigned threads) {
    if (threads <= 1) {
        node_pairs(0, nodes_.size(), sink);
        return;
    }
    const std::size_t nn = nodes_.size();
    const std::size_t nt = task_count(threads, nn, 64);
    task_pairs_.run(threads, nt, sink, [&](std::size_t t, PairSink& s, unsigned) {
        node_pairs(even_bound(nn, nt, t), even_bound(nn, nt, t + 1), s);
    });
}

template <class T, int D>
template <class Sink>
inline void AdaptiveGridCore<T, D>::node_pairs(std::size_t first, std::size_t last, Sink& sink) const {
    const SoaView<T, D> v = store_view();
    for (std::size_t ni = first; ni < last && !sink.stopped(); ++ni) {
        const Node& nd = nodes_[ni];
        // Instances of the node among themselves.
        for (std::uint32_t i = nd.begin; i + 1 < nd.end; ++i) {
            const std::uint32_t fi = flags_[i], idi = ids_[i];
            scan_overlaps_padded(v, i + 1, nd.end, box_at(v, i), [&](std::size_t j) {
                if (!owns_pair(fi, flags_[j], all_flags)) return;
                const std::uint32_t idj = ids_[j];
                if (idi < idj) sink(idi, idj);
                else sink(idj, idi);
            });
        }
        if (nd.leaf) continue;
        // Each resident against the subtree below.
        for (std::uint32_t i = nd.begin; i < nd.end; ++i) {
            const std::uint32_t idi = ids_[i];
            std::uint32_t lo[D], hi[D];
            for (int k = 0; k < D; ++k) lo[k] = boxq_[idi].lo[k], hi[k] = boxq_[idi].hi[k];
            const BasicBox<T, D> b = box_at(v, i);
            auto emit = [&](std::uint32_t idj) {
                if (idi < idj) sink(idi, idj);
                else sink(idj, idi);
            };
            walk(static_cast<std::uint32_t>(ni), false, lo, hi, b, emit);
        }
    }
}

// ---- the walk ---------------------------------------------------------------

template <class T, int D>
inline bool AdaptiveGridCore<T, D>::inside(const Node& nd, const std::uint32_t* lo, const std::uint32_t* hi) {
    const int shift = bits - 2 * nd.level;
    for (int k = 0; k < D; ++k)
        if ((lo[k] >> shift) != nd.cell[k] || (hi[k] >> shift) != nd.cell[k]) return false;
    return true;
}

template <class T, int D>
template <class Emit>
inline void AdaptiveGridCore<T, D>::scan_node(const Node& nd, const std::uint32_t* lo, const BasicBox<T, D>& b,
                                           Emit& emit) const {
    if (nd.begin != nd.end) scan_node(nd, lo, b, emit, store_view(), flags_.data(), ids_.data());
}

template <class T, int D>
template <class Emit>
inline void AdaptiveGridCore<T, D>::scan_node(const Node& nd, const std::uint32_t* lo, const BasicBox<T, D>& b, Emit& emit,
                                           const View& v, const std::uint8_t* flags, const std::uint32_t* ids) {
    const int shift = bits - 2 * nd.level;
    std::uint32_t f = 0;
    for (int k = 0; k < D; ++k)
        if ((lo[k] >> shift) == nd.cell[k]) f |= 1u << k;
    scan_overlaps_padded(v, nd.begin, nd.end, b, [&](std::size_t j) {
        if (owns_pair(f, flags[j], all_flags)) emit(ids[j]);
    });
}

template <class T, int D>
template <class Emit>
inline void AdaptiveGridCore<T, D>::walk(std::uint32_t start, bool with_start, const std::uint32_t* lo,
                                      const std::uint32_t* hi, const BasicBox<T, D>& b, Emit& emit) const {
    const Node* nodes = nodes_.data();
    const std::uint8_t* flags = flags_.data();
    const std::uint32_t* ids = ids_.data();
    const View v = store_view();
    std::uint32_t stack[64 * (max_level + 1)];
    int sp = 0;
    std::uint32_t ni = start;
    bool test = with_start;
    for (;;) {
        const Node& nd = nodes[ni];
        if (test && nd.begin != nd.end) scan_node(nd, lo, b, emit, v, flags, ids);
        test = true;
        std::uint64_t m = 0;
        if (!nd.leaf) {
            const int cshift = bits - 2 * (nd.level + 1);
            m = nd.mask;
            for (int k = 0; k < D; ++k) {
                const std::uint32_t base = nd.cell[k] * 4;
                const std::uint32_t a = std::max(lo[k] >> cshift, base) - base;
                const std::uint32_t c = std::min(hi[k] >> cshift, base + 3) - base;
                m &= masks_.m[k][a][c];
            }
        }
        if (m) {
            const std::uint64_t below = nd.mask;
            const std::uint32_t first = nd.first_child;
            // Later children onto the stack, the first one next.
            int bit = count_trailing_zeros(m);
            ni = first + static_cast<std::uint32_t>(popcount64(below & ((std::uint64_t(1) << bit) - 1)));
            for (m &= m - 1; m; m &= m - 1) {
                bit = count_trailing_zeros(m);
                stack[sp++] = first + static_cast<std::uint32_t>(popcount64(below & ((std::uint64_t(1) << bit) - 1)));
            }
            continue;
        }
        if (sp == 0) return;
        ni = stack[--sp];
    }
}

}  // namespace detail
}  // namespace broadphase
