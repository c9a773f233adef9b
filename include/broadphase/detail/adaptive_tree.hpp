// The sparse linear adaptive grid (seed 001's structure): a root cell over
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
// i.e. on every axis one of the two boxes starts in the cell (see owns()).
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

    /// Builds over v (the store copies what queries need). O(n * levels).
    void build(const SoaView<T, D>& v, const Params& params) {
        params_ = params;
        if (params_.leaf_capacity < 1) params_.leaf_capacity = 1;
        params_.resident_children = std::min<std::uint32_t>(params_.resident_children, 1u << (2 * D));
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
            resize_buffer(next_, 0);
            resize_buffer(next_start_, 1);
            next_start_[0] = 0;
            for (std::size_t ni = level_begin; ni < level_end; ++ni)
                split(v, recs, ni, cur_start_[ni - level_begin], cur_start_[ni - level_begin + 1]);
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
        resize_buffer(ids_, padded);
        resize_buffer(flags_, padded);
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
        radix_sort(keys, order, scratch.radix);
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
                    if (((fi | flags_[j]) & all_flags) != all_flags) return;
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
        double lo[D], hi[D];
        for (int k = 0; k < D; ++k) {
            lo[k] = std::numeric_limits<double>::infinity();
            hi[k] = -lo[k];
            for (std::size_t i = 0; i < v.n; ++i) {
                const T a = v.lo[k][i], b = v.hi[k][i];
                if (finite(a)) lo[k] = std::min(lo[k], double(a)), hi[k] = std::max(hi[k], double(a));
                if (finite(b)) lo[k] = std::min(lo[k], double(b)), hi[k] = std::max(hi[k], double(b));
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
        T t = (x - origin_[k]) * scale_;
        const T lim = T(1073741760);  // 2^30 - 64: exact in float
        if (!(t > T(0))) t = T(0);
        if (t > lim) t = lim;
        return static_cast<std::uint32_t>(t);
    }

    void quantize_all(const View& v) {
        resize_buffer(boxq_, v.n);
        for (std::size_t i = 0; i < v.n; ++i) {
            Rec& r = boxq_[i];
            for (int k = 0; k < D; ++k) {
                r.lo[k] = quantize(v.lo[k][i], k);
                r.hi[k] = quantize(v.hi[k][i], k);
            }
            r.id = static_cast<std::uint32_t>(i);
        }
    }

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
        resize_buffer(ids_, n);
        resize_buffer(flags_, n);
    }

    void append_instance(const View& v, const Rec& r, const std::uint32_t* cell, int shift) {
        const std::size_t at = store_size_++;
        const std::uint32_t id = r.id;
        ids_[at] = id;
        flags_[at] = static_cast<std::uint8_t>(start_flags(r, cell, shift));
        for (int k = 0; k < D; ++k) {
            lo_[k][at] = v.lo[k][id];
            hi_[k][at] = v.hi[k][id];
        }
    }

    /// Processes node ni holding boxes recs[begin, end): makes it a leaf, or
    /// keeps its residents and bins the rest into its children (appended to
    /// nodes_, their boxes to next_).
    void split(const View& v, const Rec* recs, std::size_t ni, std::uint32_t begin, std::uint32_t end) {
        const std::uint32_t m = end - begin;
        const int level = nodes_[ni].level;
        const int shift = bits - 2 * level;
        std::uint32_t cell[D];
        for (int k = 0; k < D; ++k) cell[k] = nodes_[ni].cell[k];
        grow_store(m);
        nodes_[ni].begin = static_cast<std::uint32_t>(store_size_);
        auto make_leaf = [&] {
            nodes_[ni].leaf = true;
            for (std::uint32_t i = begin; i < end; ++i) append_instance(v, recs[i], cell, shift);
            nodes_[ni].end = static_cast<std::uint32_t>(store_size_);
        };
        if (m <= params_.leaf_capacity || level >= max_level) return make_leaf();

        // Pass 1: each box's child range (2 bits per bound) or "resident",
        // the children's counts, and whether all boxes share a point.
        const int cshift = shift - 2;
        std::uint32_t counts[64] = {};
        std::uint32_t max_lo[D], min_hi[D];
        for (int k = 0; k < D; ++k) max_lo[k] = 0, min_hi[k] = ~0u;
        resize_buffer(ranges_, m);
        for (std::uint32_t e = 0; e < m; ++e) {
            const Rec& r = recs[begin + e];
            std::uint32_t packed = 0, touched = 1;
            std::uint64_t cm = ~std::uint64_t(0);
            for (int k = 0; k < D; ++k) {
                max_lo[k] = std::max(max_lo[k], r.lo[k]);
                min_hi[k] = std::min(min_hi[k], r.hi[k]);
                const std::uint32_t base = cell[k] * 4;
                const std::uint32_t ca = r.lo[k] >> cshift, cb = r.hi[k] >> cshift;
                const std::uint32_t a = std::max(ca, base) - base;
                const std::uint32_t b = std::min(cb, base + 3) - base;
                packed |= (a | (b << 2)) << (4 * k);
                touched *= std::min<std::uint32_t>(cb - ca + 1, 1024);
                cm &= masks_.m[k][a][b];
            }
            if (touched > params_.resident_children) {
                ranges_[e] = ~0u;
                continue;
            }
            ranges_[e] = packed;
            for (; cm; cm &= cm - 1) ++counts[count_trailing_zeros(cm)];
        }
        bool share = true;
        for (int k = 0; k < D; ++k) share = share && max_lo[k] <= min_hi[k];
        if (share) return make_leaf();  // no cell can separate them

        for (std::uint32_t e = 0; e < m; ++e)
            if (ranges_[e] == ~0u) append_instance(v, recs[begin + e], cell, shift);
        nodes_[ni].end = static_cast<std::uint32_t>(store_size_);

        // Children in bit order, their boxes into next_.
        std::uint64_t mask = 0;
        std::uint32_t offset[64];
        std::uint32_t at = static_cast<std::uint32_t>(next_.size());
        const std::uint32_t first_child = static_cast<std::uint32_t>(nodes_.size());
        for (int c = 0; c < (1 << (2 * D)); ++c) {
            if (!counts[c]) continue;
            mask |= std::uint64_t(1) << c;
            offset[c] = at;
            at += counts[c];
            Node child;
            child.leaf = false;
            child.level = static_cast<std::uint8_t>(level + 1);
            for (int k = 0; k < D; ++k) child.cell[k] = cell[k] * 4 + ((c >> (2 * k)) & 3);
            nodes_.push_back(child);
            next_start_.push_back(at);
        }
        nodes_[ni].mask = mask;
        nodes_[ni].first_child = first_child;
        nodes_[ni].leaf = mask == 0;
        resize_buffer(next_, at);
        for (std::uint32_t e = 0; e < m; ++e) {
            const std::uint32_t packed = ranges_[e];
            if (packed == ~0u) continue;
            std::uint64_t cm = ~std::uint64_t(0);
            for (int k = 0; k < D; ++k) {
                const std::uint32_t r = packed >> (4 * k);
                cm &= masks_.m[k][r & 3][(r >> 2) & 3];
            }
            const Rec& r = recs[begin + e];
            for (; cm; cm &= cm - 1) next_[offset[count_trailing_zeros(cm)]++] = r;
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
            if (((f | flags[j]) & all_flags) == all_flags) emit(ids[j]);
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
    std::vector<double> sample_;
};

}  // namespace detail
}  // namespace broadphase
