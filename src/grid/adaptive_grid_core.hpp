// The adaptive grid's core: a sparse linear adaptive grid (the structure
// of the article "Simple Fast Adaptive Grid to Accelerate Collision
// Detection between AABB of Particles", CodeProject, 2022): a root cell
// over the data's bounds, split into 4x4x4 children (4^D in D dimensions) only
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
//
// This file holds the class: its types, its members' contracts and its
// state. The bodies are in two siblings, included at the end (each of them
// includes this file, so either may be included alone):
// adaptive_grid_core_build.hpp (the frame, the quantisation and the
// level-by-level build) and adaptive_grid_core_queries.hpp (queries, all pairs
// and the walk they share). validate() is at the end of this file.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/adaptive_grid_params.hpp>
#include <broadphase/boxes.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/box_rules.hpp>
#include <broadphase/detail/parallel.hpp>
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"

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
class AdaptiveGridCore {
    static_assert(D >= 1 && D <= 3, "4^D children must fit a 64-bit mask");

public:
    static constexpr int bits = 30;       ///< quantised coordinate bits
    static constexpr int max_level = 15;  ///< bits / 2: cells of one quantum
    static constexpr std::uint32_t all_flags = (1u << D) - 1;

    using Params = AdaptiveGridParams;

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
    /// on up to `threads` threads (its passes planned with
    /// `min_boxes_per_thread`, threads.hpp). The tree, down to the order of
    /// its nodes and instances, is the same for every thread count.
    void build(const SoaView<T, D>& v, const Params& params, unsigned threads = 1,
               std::size_t min_boxes_per_thread = default_min_boxes_per_thread);

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
    void query(const BasicBox<T, D>& q, Emit&& emit) const;

    /// Every (query index, built index) pair of a batch, to sink. The
    /// queries run in Morton order of their quantised min corners, so that
    /// consecutive ones walk the same nodes while they are in cache: faster
    /// per box than single queries in arbitrary order. O(n) to sort. With
    /// threads, runs of that order are tasks (same pairs, same order).
    template <class Sink>
    void query_batch(const SoaView<T, D>& queries, Sink& sink, unsigned threads = 1,
                     TaskPairs* buffers = nullptr) const;

    /// The queries order[first..last) of a batch, in that order.
    template <class Sink>
    void query_run(const SoaView<T, D>& queries, const std::uint32_t* order, std::size_t first, std::size_t last,
                   Sink& sink) const;

    /// Every overlapping pair once: emit(a, b) with a < b. With threads,
    /// runs of nodes are tasks (same pairs, same order).
    template <class Sink>
    void self_pairs(Sink& sink, unsigned threads = 1);

    /// The pairs found at nodes [first, last): each node's instances among
    /// themselves, then each of its residents against the subtree below.
    template <class Sink>
    void node_pairs(std::size_t first, std::size_t last, Sink& sink) const;

    /// Checks the structure; returns "" or the first broken invariant:
    /// masks equal the children present, children one level down inside
    /// their parent, no leaf over capacity unless its boxes share a point,
    /// residents touch more children than the threshold, start bits right,
    /// and every box reachable (an instance, or a resident on the way) from
    /// every leaf cell it touches, with its instances' cells disjoint.
    std::string validate() const;

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
    static std::uint32_t spread_bits(std::uint32_t x);

    /// Origin and scale of the quantisation: the data's bounds, cut down to
    /// 2^10 times the bulk's spread when far outliers would stretch them
    /// (outliers then clamp into the edge cells; answers stay exact).
    void set_frame(const View& v);

    /// The monotone map: clamp((x - origin) * scale, 0, 2^30 - 64), truncated.
    std::uint32_t quantize(T x, int k) const {
        const T lim = T(1073741760);  // 2^30 - 64: exact in float
        return clamped_cell<std::uint32_t>(x, origin_[k], scale_, T(0), lim);
    }

    void quantize_all(const View& v);

    /// Threads for a pass over n boxes costing `cost` each (threads.hpp).
    unsigned threads_for_boxes(std::size_t n, Work cost) const { return plan_threads(threads_, n, cost, min_boxes_); }

    /// True when the boxes of instances [begin, end) share a quantised point.
    bool share_point(std::size_t begin, std::size_t end) const;

    /// Cells one level below nd that box id touches, anywhere (not only in
    /// nd): a box's size decides where it stops, so all its instances at a
    /// level agree.
    std::uint32_t touched_children(const Node& nd, std::uint32_t id) const;
    static std::uint32_t touched_cells(const Rec& r, int shift);

    /// Start bits of a box in a cell at `shift` (bits - 2 * level).
    static std::uint32_t start_flags(const Rec& r, const std::uint32_t* cell, int shift);

    /// After a build: room for a frame a quarter larger in every buffer
    /// that grows by push_back, and the same room in both buffers of each
    /// pair that swaps roles every level (an odd number of levels swaps
    /// them for the next frame). Allocates only while warming up.
    void keep_headroom();

    /// Makes room for `extra` more instances (and the SIMD padding),
    /// growing geometrically so that it rarely has to.
    void grow_store(std::size_t extra);

    /// Writes the instance of box r at store position `at`.
    void write_instance(std::size_t at, const View& v, const Rec& r, const std::uint32_t* cell, int shift);

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
    void classify(const Node& nd, const Rec* recs, std::uint32_t b, std::uint32_t e, Tally& t);

    /// The children of a classified box (from its ranges_ entry).
    static std::uint64_t children_of(std::uint32_t packed);

    /// Whether node nd with m boxes may split at all.
    bool may_split(const Node& nd, std::uint32_t m) const {
        return m > params_.leaf_capacity && nd.level < max_level;
    }

    /// Decides what a node with m boxes becomes (t: the tally of all of
    /// them, when it may split).
    static LevelNode decide(std::uint32_t m, bool splits, const Tally& t);

    /// The end of the run of slices of one node starting at task ti (ti if
    /// task ti is not a slice).
    std::size_t slice_run_end(std::size_t ti) const;

    /// Calls f(ti, tj, node) for each run [ti, tj) of tasks that are slices of one node.
    template <class F>
    void for_each_slice_run(F&& f) const;

    /// Boxes of child c over slices [ti, tj) (before their offsets are set).
    std::uint32_t total_count(std::size_t ti, std::size_t tj, int c) const;

    /// Cuts the level's nodes [0, nl) into tasks (see above).
    void plan_level(std::size_t lb, std::size_t nl);

    /// Splits the level of nodes [lb, le), whose boxes are recs[cur_start_[i - lb]..],
    /// appending the next level's nodes, their boxes (next_, next_start_) and the store.
    /// False, without exceptions, when the store or the next level's boxes
    /// or nodes would pass 32-bit indices (flagged by require_indices);
    /// with exceptions that throws TooManyIndices.
    bool split_level(const View& v, const Rec* recs, std::size_t lb, std::size_t le);

    /// Fills in the children of an inner node: ends[c] = where child c's
    /// boxes end, relative to the node's first box in next_.
    void make_children(const Node& nd, const LevelNode& ln, const std::uint32_t* ends, std::size_t le);

    /// Boxes recs[b, e) of an inner node: residents to the store from
    /// `store_at` on, the others to their children's runs in next_.
    void write_split(const View& v, const Node& nd, const Rec* recs, std::uint32_t b, std::uint32_t e,
                     std::size_t store_at, std::uint32_t* offset);

    /// True when the quantised box lies inside nd's cell.
    static bool inside(const Node& nd, const std::uint32_t* lo, const std::uint32_t* hi);

    /// Tests nd's own instances against box b (quantised min corner lo):
    /// emit(id) for each overlapping one whose pair with b is owned at nd.
    template <class Emit>
    void scan_node(const Node& nd, const std::uint32_t* lo, const BasicBox<T, D>& b, Emit& emit) const;
    template <class Emit>
    static void scan_node(const Node& nd, const std::uint32_t* lo, const BasicBox<T, D>& b, Emit& emit, const View& v,
                          const std::uint8_t* flags, const std::uint32_t* ids);

    /// Walks the subtree of node `start` (its own instances included or
    /// not) along the children the box (quantised lo/hi) touches, testing
    /// the instances of each node on the way: emit(id) for each one whose
    /// pair with the box is owned there. Iterative; single children are
    /// followed without touching the stack.
    template <class Emit>
    void walk(std::uint32_t start, bool with_start, const std::uint32_t* lo, const std::uint32_t* hi,
              const BasicBox<T, D>& b, Emit& emit) const;

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
    std::size_t min_boxes_ = default_min_boxes_per_thread;  // this build's (threads.hpp)
    std::vector<double> sample_;
    std::vector<double> part_bounds_;  // per part of the boxes: finite min and max per axis
};

// ---- inspection -------------------------------------------------------------

template <class T, int D>
inline std::string AdaptiveGridCore<T, D>::validate() const {
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

template <class T, int D>
inline bool AdaptiveGridCore<T, D>::share_point(std::size_t begin, std::size_t end) const {
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

template <class T, int D>
inline std::uint32_t AdaptiveGridCore<T, D>::touched_children(const Node& nd, std::uint32_t id) const {
    return touched_cells(boxq_[id], bits - 2 * (nd.level + 1));
}

template <class T, int D>
inline std::uint32_t AdaptiveGridCore<T, D>::touched_cells(const Rec& r, int shift) {
    std::uint32_t n = 1;
    for (int k = 0; k < D; ++k) n *= std::min<std::uint32_t>((r.hi[k] >> shift) - (r.lo[k] >> shift) + 1, 1024);
    return n;
}

}  // namespace detail
}  // namespace broadphase

// The build and the queries, after the class they define the members of.
