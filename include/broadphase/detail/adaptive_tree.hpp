// The sparse linear adaptive grid (the structure of the article "Simple Fast
// Adaptive Grid to Accelerate Collision Detection between AABB of Particles",
// CodeProject, 2022): a root cell over
// the data's bounds, split into 4x4x4 children (4^D in D dimensions) only
// where boxes are, level by level, into flat arrays.
//
// Coordinates are first quantised once per box to 30-bit integers by a
// monotone map (clamped, so outliers and infinities land in the edge
// cells). The cell of a coordinate at level d is then q >> (30 - 2d), exact
// and the same at every level: a child's cell is its parent's cell times 4
// plus a digit 0..3 per axis.
//
// Every node stores "instances" of boxes in one struct-of-arrays store, in
// the range [begin, end):
// - a leaf: every box that touches its cell (a box touching several leaves
//   has an instance in each);
// - an internal node: its residents, the boxes too big for its children
//   (touching more than Params::resident_children of them); they stop there.
// The cells holding a box's instances are disjoint and cover the box. So
// for two overlapping boxes the point p = max(a.min, b.min), which lies in
// both, lies in exactly one instance cell of each, one nested in the other,
// and the pair is reported exactly there: at a node holding an instance of
// one box and reached (or held) by the other, iff p is in that node's cell,
// i.e. on every axis one of the two boxes starts in the cell (owns_pair,
// detail/box_rules.hpp).
// Each instance carries its start bits, so the test is one OR and compare.
// No per-box unique sets, no limit on how many boxes share a place.
//
// A node splits while it holds more than Params::leaf_capacity instances,
// unless its boxes share a common point (no subdivision could separate
// them: all of them overlap each other anyway) or it reaches level 15, the
// quantisation's resolution.
//
// Queries descend from the root, visiting the children the query box
// touches (one AND with the node's 64-bit occupancy mask), testing the
// instances of every node on the way, SIMD-width at a time.
//
// Build: O(n * levels), by counting sorts per node into flat arrays reused
// between builds (no allocation after warm-up). All pairs: per node, its
// instances among themselves, then each resident down its subtree.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "../boxes.hpp"
#include "buffers.hpp"
#include "box_rules.hpp"
#include "parallel.hpp"
#include "radix_sort.hpp"
#include "simd.hpp"

namespace broadphase {
namespace detail {

/// For axis k and a digit range [lo, hi] (0..3): the children (bit
/// sum_k digit_k * 4^k) whose digit on axis k lies in the range.
template <int D>
struct ChildRangeMasks {
    std::uint64_t m[D][4][4] = {};
    constexpr ChildRangeMasks() {
        constexpr int children = 1 << (2 * D);
        for (int k = 0; k < D; ++k)
            for (int lo = 0; lo < 4; ++lo)
                for (int hi = lo; hi < 4; ++hi)
                    for (int c = 0; c < children; ++c) {
                        const int digit = (c >> (2 * k)) & 3;
                        if (digit >= lo && digit <= hi) m[k][lo][hi] |= std::uint64_t(1) << c;
                    }
    }
};

template <class T, int D>
class AdaptiveTree {
    static_assert(D >= 1 && D <= 3, "4^D children must fit a 64-bit mask");

public:
    static constexpr int bits = 30;       ///< quantised coordinate bits
    static constexpr int max_level = 15;  ///< bits / 2: cells of one quantum
    static constexpr std::uint32_t all_flags = (1u << D) - 1;

    struct Params {
        /// A node with more instances than this splits (if that can separate them).
        std::uint32_t leaf_capacity = 32;
        /// A box touching more cells of the children's size than this stays
        /// in the node as a resident. It also bounds the instances of one box
        /// (at most this many), so it is capped at 4^D: larger values act as 4^D.
        std::uint32_t resident_children = 8;
    };

    struct BatchScratch {
        std::vector<std::uint32_t> keys, order;
        RadixScratch radix;
    };

    /// A box's quantised corners and index, carried down the levels.
    struct Rec {
        std::uint32_t lo[D], hi[D];
        std::uint32_t id;
    };

    struct Node {
        std::uint64_t mask = 0;        ///< children present
        std::uint32_t first_child = 0; ///< index of the child of the lowest bit
        std::uint32_t begin = 0, end = 0;  ///< its instances in the store
        std::uint32_t cell[D] = {};    ///< cell coordinates at `level`
        std::uint8_t level = 0;
        bool leaf = true;
    };

    /// Builds over v (the store copies what queries need). O(n * levels),
    /// on up to `threads` threads. The tree, down to the order of its nodes
    /// and instances, is the same for every thread count.
    void build(const SoaView<T, D>& v, const Params& params, unsigned threads = 1) {
        params_ = params;
        if (params_.leaf_capacity < 1) params_.leaf_capacity = 1;
        params_.resident_children = std::min<std::uint32_t>(params_.resident_children, 1u << (2 * D));
        threads_ = std::max(threads, 1u);
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

    std::size_t size() const { return n_; }
    const std::vector<Node>& nodes() const { return nodes_; }
    const Params& params() const { return params_; }
    std::size_t instances() const { return store_size_; }

    /// Quantises a box with the build's map (monotone, clamped).
    void quantize(const BasicBox<T, D>& b, std::uint32_t* lo, std::uint32_t* hi) const {
        for (int k = 0; k < D; ++k) {
            lo[k] = quantize(b.min[k], k);
            hi[k] = quantize(b.max[k], k);
        }
    }

    /// Calls emit(box index) once for every built box overlapping q.
    /// O(levels + nodes visited + instances tested).
    template <class Emit>
    void query(const BasicBox<T, D>& q, Emit&& emit) const {
        if (nodes_.empty()) return;
        std::uint32_t lo[D], hi[D];
        quantize(q, lo, hi);
        walk(0, true, lo, hi, q, emit);
    }

    /// Every (query index, built index) pair of a batch, to sink. The
    /// queries run in Morton order of their quantised min corners, so that
    /// consecutive ones walk the same nodes while they are in cache: faster
    /// per box than single queries in arbitrary order. O(n) to sort. With
    /// threads, runs of that order are tasks (same pairs, same order).
    template <class Sink>
    void query_batch(const SoaView<T, D>& queries, Sink& sink, unsigned threads = 1, TaskPairs* buffers = nullptr) const {
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
        tasks.run(threads, nt, sink, [&](std::size_t t, VectorSink& s, unsigned) {
            query_run(queries, ord, even_bound(queries.n, nt, t), even_bound(queries.n, nt, t + 1), s);
        });
    }

    /// The queries order[first..last) of a batch, in that order.
    template <class Sink>
    void query_run(const SoaView<T, D>& queries, const std::uint32_t* order, std::size_t first, std::size_t last,
                   Sink& sink) const {
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

    /// Every overlapping pair once: emit(a, b) with a < b. With threads,
    /// runs of nodes are tasks (same pairs, same order).
    template <class Sink>
    void self_pairs(Sink& sink, unsigned threads = 1) {
        if (threads <= 1) {
            node_pairs(0, nodes_.size(), sink);
            return;
        }
        const std::size_t nn = nodes_.size();
        const std::size_t nt = task_count(threads, nn, 64);
        task_pairs_.run(threads, nt, sink, [&](std::size_t t, VectorSink& s, unsigned) {
            node_pairs(even_bound(nn, nt, t), even_bound(nn, nt, t + 1), s);
        });
    }

    /// The pairs found at nodes [first, last): each node's instances among
    /// themselves, then each of its residents against the subtree below.
    template <class Sink>
    void node_pairs(std::size_t first, std::size_t last, Sink& sink) const {
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

    /// Checks the structure; returns "" or the first broken invariant:
    /// masks equal the children present, children one level down inside
    /// their parent, no leaf over capacity unless its boxes share a point,
    /// residents touch more children than the threshold, start bits right,
    /// and every box reachable (an instance, or a resident on the way) from
    /// every leaf cell it touches, with its instances' cells disjoint.
    std::string validate() const {
        if (nodes_.empty()) return n_ == 0 ? "" : "no root";
        std::vector<std::uint32_t> count(n_, 0);
        std::vector<std::uint64_t> volume(n_, 0);  // sum of covered quanta, per box (when it fits)
        for (std::size_t ni = 0; ni < nodes_.size(); ++ni) {
            const Node& nd = nodes_[ni];
            const int shift = bits - 2 * nd.level;
            if (nd.leaf != (nd.mask == 0)) return "node " + std::to_string(ni) + ": leaf flag and mask disagree";
            if (!nd.leaf) {
                const int nc = popcount64(nd.mask);
                if (nd.first_child + nc > nodes_.size()) return "node " + std::to_string(ni) + ": children out of range";
                int r = 0;
                for (std::uint64_t m = nd.mask; m; m &= m - 1, ++r) {
                    const int bit = count_trailing_zeros(m);
                    const Node& c = nodes_[nd.first_child + r];
                    if (c.level != nd.level + 1) return "node " + std::to_string(ni) + ": child level";
                    for (int k = 0; k < D; ++k)
                        if (c.cell[k] != nd.cell[k] * 4 + ((bit >> (2 * k)) & 3))
                            return "node " + std::to_string(ni) + ": child cell";
                    if (c.begin == c.end && c.leaf) return "node " + std::to_string(ni) + ": empty child in mask";
                }
            } else if (nd.end - nd.begin > params_.leaf_capacity && nd.level < max_level &&
                       !share_point(nd.begin, nd.end)) {
                for (std::uint32_t i = nd.begin; i < nd.end; ++i)
                    if (touched_children(nd, ids_[i]) <= params_.resident_children)
                        return "leaf " + std::to_string(ni) + " over capacity with separable boxes";
            }
            for (std::uint32_t i = nd.begin; i < nd.end; ++i) {
                const std::uint32_t id = ids_[i];
                if (id >= n_) return "instance with a bad id";
                std::uint32_t f = 0;
                std::uint64_t cells = 1;
                for (int k = 0; k < D; ++k) {
                    const std::uint32_t a = boxq_[id].lo[k] >> shift, b = boxq_[id].hi[k] >> shift;
                    if (a > nd.cell[k] || b < nd.cell[k]) return "box " + std::to_string(id) + " stored outside its cell";
                    if (a == nd.cell[k]) f |= 1u << k;
                    // quanta of the box inside this cell, on axis k
                    const std::uint64_t clo = std::uint64_t(nd.cell[k]) << shift;
                    const std::uint64_t chi = clo + (std::uint64_t(1) << shift) - 1;
                    const std::uint64_t l = std::max<std::uint64_t>(clo, boxq_[id].lo[k]);
                    const std::uint64_t h = std::min<std::uint64_t>(chi, boxq_[id].hi[k]);
                    cells = cells > (std::uint64_t(1) << 62) / (h - l + 1) ? (std::uint64_t(1) << 62) : cells * (h - l + 1);
                }
                if (f != flags_[i]) return "box " + std::to_string(id) + ": wrong start bits";
                if (!nd.leaf && touched_children(nd, id) <= params_.resident_children)
                    return "box " + std::to_string(id) + ": resident but small";
                ++count[id];
                volume[id] = std::min<std::uint64_t>(volume[id] + cells, std::uint64_t(1) << 62);
            }
        }
        for (std::size_t i = 0; i < n_; ++i) {
            if (count[i] == 0) return "box " + std::to_string(i) + " missing";
            std::uint64_t full = 1;
            for (int k = 0; k < D; ++k) {
                const std::uint64_t e = std::uint64_t(boxq_[i].hi[k]) - boxq_[i].lo[k] + 1;
                full = full > (std::uint64_t(1) << 62) / e ? (std::uint64_t(1) << 62) : full * e;
            }
            // Disjoint instance cells covering the box: their parts sum to the box.
            if (full < (std::uint64_t(1) << 62) && volume[i] != full)
                return "box " + std::to_string(i) + ": instance cells do not tile it";
        }
        return "";
    }

private:
    using View = SoaView<T, D>;
    static constexpr ChildRangeMasks<D> masks_{};

    View store_view() const {
        View v;
        for (int k = 0; k < D; ++k) {
            v.lo[k] = lo_[k].data();
            v.hi[k] = hi_[k].data();
        }
        v.n = store_size_;
        return v;
    }

    static bool finite(T x) { return x - x == T(0); }

    /// The bits of x (30 / D of them) spread D apart: one axis of a Morton key.
    static std::uint32_t spread_bits(std::uint32_t x) {
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

    /// Origin and scale of the quantisation: the data's bounds, cut down to
    /// 2^10 times the bulk's spread when far outliers would stretch them
    /// (outliers then clamp into the edge cells; answers stay exact).
    void set_frame(const View& v) {
        // Finite bounds, parts of the boxes on separate threads (min and max
        // are exact: the same result for any split).
        const unsigned threads = threads_for_boxes(v.n);
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

    /// The monotone map: clamp((x - origin) * scale, 0, 2^30 - 64), truncated.
    std::uint32_t quantize(T x, int k) const {
        const T lim = T(1073741760);  // 2^30 - 64: exact in float
        return clamped_cell<std::uint32_t>(x, origin_[k], scale_, T(0), lim);
    }

    void quantize_all(const View& v) {
        resize_buffer(boxq_, v.n);
        run_parts(threads_for_boxes(v.n), v.n, [&](std::size_t, std::size_t first, std::size_t last) {
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

    /// Threads for a pass over n boxes: all of them only when each gets enough.
    unsigned threads_for_boxes(std::size_t n) const { return n >= 16384 ? threads_ : 1u; }

    /// True when the boxes of instances [begin, end) share a quantised point.
    bool share_point(std::size_t begin, std::size_t end) const {
        for (int k = 0; k < D; ++k) {
            std::uint32_t mx = 0, mn = ~0u;
            for (std::size_t i = begin; i < end; ++i) {
                mx = std::max(mx, boxq_[ids_[i]].lo[k]);
                mn = std::min(mn, boxq_[ids_[i]].hi[k]);
            }
            if (mx > mn) return false;
        }
        return true;
    }

    /// Cells one level below nd that box id touches, anywhere (not only in
    /// nd): a box's size decides where it stops, so all its instances at a
    /// level agree.
    std::uint32_t touched_children(const Node& nd, std::uint32_t id) const {
        return touched_cells(boxq_[id], bits - 2 * (nd.level + 1));
    }
    static std::uint32_t touched_cells(const Rec& r, int shift) {
        std::uint32_t n = 1;
        for (int k = 0; k < D; ++k) n *= std::min<std::uint32_t>((r.hi[k] >> shift) - (r.lo[k] >> shift) + 1, 1024);
        return n;
    }

    /// Start bits of a box in a cell at `shift` (bits - 2 * level).
    static std::uint32_t start_flags(const Rec& r, const std::uint32_t* cell, int shift) {
        std::uint32_t f = 0;
        for (int k = 0; k < D; ++k)
            if ((r.lo[k] >> shift) == cell[k]) f |= 1u << k;
        return f;
    }

    /// After a build: room for a frame a quarter larger in every buffer
    /// that grows by push_back, and the same room in both buffers of each
    /// pair that swaps roles every level (an odd number of levels swaps
    /// them for the next frame). Allocates only while warming up.
    void keep_headroom() {
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

    /// Makes room for `extra` more instances (and the SIMD padding),
    /// growing geometrically so that it rarely has to.
    void grow_store(std::size_t extra) {
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

    /// Writes the instance of box r at store position `at`.
    void write_instance(std::size_t at, const View& v, const Rec& r, const std::uint32_t* cell, int shift) {
        const std::uint32_t id = r.id;
        ids_[at] = id;
        flags_[at] = static_cast<std::uint8_t>(start_flags(r, cell, shift));
        for (int k = 0; k < D; ++k) {
            lo_[k][at] = v.lo[k][id];
            hi_[k][at] = v.hi[k][id];
        }
    }

    // ---- building one level ---------------------------------------------------
    //
    // Each node of a level becomes a leaf (its boxes stored as instances) or
    // keeps its residents and passes its other boxes to its children, which
    // form the next level. Two passes, each over tasks that run in parallel:
    // first every box is classified (its children's digit range, or
    // resident) and counted; then, once prefix sums over the level's nodes
    // have placed every node's instances, children and boxes, each task
    // writes its part. Tasks are runs of whole nodes, or slices of one big
    // node (the root holds every box), of about slice_boxes boxes each; a
    // big node's slices keep their boxes in order by taking their offsets
    // from the slices before them. So the layout is the serial one, for any
    // number of threads.

    static constexpr std::uint32_t slice_boxes = 8192;

    /// What a pass over some boxes of one node counted.
    struct Tally {
        std::uint32_t count[64];  ///< boxes per child; then (slices) where the slice's boxes start
        std::uint32_t residents;  ///< boxes that stay; then (slices) where the slice's residents start
        std::uint32_t max_lo[D], min_hi[D];  ///< for "all boxes share a point"
        void clear() {
            std::fill(count, count + 64, 0u);
            residents = 0;
            for (int k = 0; k < D; ++k) max_lo[k] = 0, min_hi[k] = ~0u;
        }
        void add(const Tally& t) {
            for (int c = 0; c < 64; ++c) count[c] += t.count[c];
            residents += t.residents;
            for (int k = 0; k < D; ++k) max_lo[k] = std::max(max_lo[k], t.max_lo[k]), min_hi[k] = std::min(min_hi[k], t.min_hi[k]);
        }
        bool share_point() const {
            for (int k = 0; k < D; ++k)
                if (max_lo[k] > min_hi[k]) return false;
            return true;
        }
    };

    /// A task of a level: nodes [first, last) whole, or (slice) boxes
    /// [begin, end) of node `first` alone.
    struct LevelTask {
        std::uint32_t first, last, begin, end;
        bool slice;
        Tally tally;  // slices only
    };

    /// What a node of the level becomes, and where its parts go.
    struct LevelNode {
        std::uint64_t mask;       ///< children present
        std::uint32_t instances;  ///< store entries: every box of a leaf, the residents of an inner node
        std::uint32_t below;      ///< boxes passed to children
        std::uint32_t store_at, child_at, next_at;  ///< after the prefix sums
        bool leaf;
    };

    /// Classifies recs [b, e) of node nd: ranges_[r] = the children's digit
    /// range on each axis (2 bits per bound), or ~0u for a resident.
    void classify(const Node& nd, const Rec* recs, std::uint32_t b, std::uint32_t e, Tally& t) {
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

    /// The children of a classified box (from its ranges_ entry).
    static std::uint64_t children_of(std::uint32_t packed) {
        std::uint64_t cm = ~std::uint64_t(0);
        for (int k = 0; k < D; ++k) {
            const std::uint32_t r = packed >> (4 * k);
            cm &= masks_.m[k][r & 3][(r >> 2) & 3];
        }
        return cm;
    }

    /// Whether node nd with m boxes may split at all.
    bool may_split(const Node& nd, std::uint32_t m) const {
        return m > params_.leaf_capacity && nd.level < max_level;
    }

    /// Decides what a node with m boxes becomes (t: the tally of all of
    /// them, when it may split).
    static LevelNode decide(std::uint32_t m, bool splits, const Tally& t) {
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

    /// The end of the run of slices of one node starting at task ti (ti if
    /// task ti is not a slice).
    std::size_t slice_run_end(std::size_t ti) const {
        if (!level_tasks_[ti].slice) return ti;
        const std::uint32_t node = level_tasks_[ti].first;
        std::size_t tj = ti + 1;
        while (tj < level_tasks_.size() && level_tasks_[tj].slice && level_tasks_[tj].first == node) ++tj;
        return tj;
    }

    /// Calls f(ti, tj, node) for each run [ti, tj) of tasks that are slices of one node.
    template <class F>
    void for_each_slice_run(F&& f) const {
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

    /// Boxes of child c over slices [ti, tj) (before their offsets are set).
    std::uint32_t total_count(std::size_t ti, std::size_t tj, int c) const {
        std::uint32_t n = 0;
        for (std::size_t t = ti; t < tj; ++t) n += level_tasks_[t].tally.count[c];
        return n;
    }

    /// Cuts the level's nodes [0, nl) into tasks (see above).
    void plan_level(std::size_t lb, std::size_t nl) {
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

    /// Splits the level of nodes [lb, le), whose boxes are recs[cur_start_[i - lb]..],
    /// appending the next level's nodes, their boxes (next_, next_start_) and the store.
    /// False, without exceptions, when the store or the next level's boxes
    /// or nodes would pass 32-bit indices (flagged by require_indices);
    /// with exceptions that throws TooManyIndices.
    bool split_level(const View& v, const Rec* recs, std::size_t lb, std::size_t le) {
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

    /// Fills in the children of an inner node: ends[c] = where child c's
    /// boxes end, relative to the node's first box in next_.
    void make_children(const Node& nd, const LevelNode& ln, const std::uint32_t* ends, std::size_t le) {
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

    /// Boxes recs[b, e) of an inner node: residents to the store from
    /// `store_at` on, the others to their children's runs in next_.
    void write_split(const View& v, const Node& nd, const Rec* recs, std::uint32_t b, std::uint32_t e,
                     std::size_t store_at, std::uint32_t* offset) {
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

    /// True when the quantised box lies inside nd's cell.
    static bool inside(const Node& nd, const std::uint32_t* lo, const std::uint32_t* hi) {
        const int shift = bits - 2 * nd.level;
        for (int k = 0; k < D; ++k)
            if ((lo[k] >> shift) != nd.cell[k] || (hi[k] >> shift) != nd.cell[k]) return false;
        return true;
    }

    /// Tests nd's own instances against box b (quantised min corner lo):
    /// emit(id) for each overlapping one whose pair with b is owned at nd.
    template <class Emit>
    void scan_node(const Node& nd, const std::uint32_t* lo, const BasicBox<T, D>& b, Emit& emit) const {
        if (nd.begin != nd.end) scan_node(nd, lo, b, emit, store_view(), flags_.data(), ids_.data());
    }
    template <class Emit>
    static void scan_node(const Node& nd, const std::uint32_t* lo, const BasicBox<T, D>& b, Emit& emit, const View& v,
                          const std::uint8_t* flags, const std::uint32_t* ids) {
        const int shift = bits - 2 * nd.level;
        std::uint32_t f = 0;
        for (int k = 0; k < D; ++k)
            if ((lo[k] >> shift) == nd.cell[k]) f |= 1u << k;
        scan_overlaps_padded(v, nd.begin, nd.end, b, [&](std::size_t j) {
            if (owns_pair(f, flags[j], all_flags)) emit(ids[j]);
        });
    }

    /// Walks the subtree of node `start` (its own instances included or
    /// not) along the children the box (quantised lo/hi) touches, testing
    /// the instances of each node on the way: emit(id) for each one whose
    /// pair with the box is owned there. Iterative; single children are
    /// followed without touching the stack.
    template <class Emit>
    void walk(std::uint32_t start, bool with_start, const std::uint32_t* lo, const std::uint32_t* hi,
              const BasicBox<T, D>& b, Emit& emit) const {
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

    Params params_;
    std::size_t n_ = 0;
    T origin_[D] = {};
    T scale_ = T(1);
    std::vector<Rec> boxq_;  // quantised boxes, by index
    std::vector<Node> nodes_;
    TaskPairs task_pairs_;  // per-task pair buffers of self_pairs
    // The store: instances of boxes, node by node, padded for SIMD reads.
    std::vector<T> lo_[D], hi_[D];
    std::vector<std::uint32_t> ids_;
    std::vector<std::uint8_t> flags_;
    std::size_t store_size_ = 0;
    // Build scratch, kept for reuse.
    std::vector<Rec> cur_, next_;
    std::vector<std::uint32_t> cur_start_, next_start_, ranges_;
    std::vector<LevelTask> level_tasks_;
    std::vector<LevelNode> level_nodes_;
    std::vector<std::vector<std::uint32_t>> task_counts_;  // per task of a level: its inner nodes' children's counts
    unsigned threads_ = 1;
    std::vector<double> sample_;
    std::vector<double> part_bounds_;  // per part of the boxes: finite min and max per axis
};

}  // namespace detail
}  // namespace broadphase
