// A dynamic AABB tree for incremental scenes (physics engines): proxies are
// inserted, moved and removed one at a time, and queries (boxes, points,
// spheres, rays, moving boxes, all pairs) run against the current state.
//
// The ideas are the well-known ones of Box2D's and Bullet's dynamic trees,
// written anew here:
//   - nodes live in one flat array of plain structs with a free list and
//     32-bit indices; nothing is allocated per node;
//   - a proxy id is the index of its leaf node; leaves never move, so ids are
//     stable until remove();
//   - each leaf stores a FAT box (the tight box grown by a margin, and along
//     the displacement hint of move()); a move whose tight box stays inside
//     the fat box leaves the tree alone;
//   - each leaf also stores the TIGHT box: every query is exact against the
//     tight boxes, fat and internal boxes only prune;
//   - insertion picks a sibling by the surface-area heuristic (greedy descent:
//     stop where a new parent costs less than going down), then refits the
//     ancestors and applies at each one the tree rotation (a child swapped
//     with a grandchild) that most reduces the surface area of a child, as
//     Box2D v3 does; an ancestor whose subtrees' heights differ by more than
//     a slack (12 by default) is rebalanced AVL-style instead, which bounds
//     the height where area-only rotations let it grow (mixed sizes);
//   - rebuild() rebuilds every internal node top-down (binned surface-area
//     heuristic over the leaves' centres) when the tree has degraded.
//
// Bad input: an invalid box (any NaN, or min > max on an axis) never enters
// the tree. insert() returns `null`, move() returns false and keeps the old
// boxes, queries with an invalid query box, a NaN point, a NaN or negative
// radius, a non-finite ray origin or direction, or a NaN or negative max_t
// report nothing. Infinite box coordinates are valid (a ground slab spanning
// -inf..+inf is found by every query that touches it).
//
// Threads: every const member function may run from many threads at once on
// one tree (no mutable scratch: traversals use a small stack array on the
// call stack, spilling to a local std::vector only when the tree is more than
// 64 levels deep). Mutations need exclusive access.
//
// Costs below: n live proxies, h the tree height (about log2 n after
// insertion with rotations or after rebuild()), k the number of results.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "boxes.hpp"

namespace broadphase {

namespace detail_dtree {
template <class X>
struct identity {
    using type = X;
};
/// std::array<T, D> in a non-deduced context: T and D come from the box
/// (std::array's size is a size_t, the library's D an int).
template <class T, int D>
using vec_of = typename identity<std::array<T, static_cast<std::size_t>(D)>>::type;
template <class T>
using same = typename identity<T>::type;
}  // namespace detail_dtree

// ---------------------------------------------------------------------------
// Exact per-box predicates. The tree applies the very same functions to its
// internal and fat boxes (to prune) and to the leaves' tight boxes (to
// decide). Each one is monotone in the box: if box A contains box B, then
// whatever hits B hits A, with an entry t no greater. That holds in floating
// point too (IEEE rounding is monotone and the same operations run on both
// boxes), so pruning never loses a result and a tree query returns exactly
// what a scan of all tight boxes with these functions returns.
// ---------------------------------------------------------------------------

/// True when point p lies in the closed box b. O(D).
template <class T, int D>
inline bool box_contains_point(const BasicBox<T, D>& b, const detail_dtree::vec_of<T, D>& p) {
    for (int k = 0; k < D; ++k)
        if (!(b.min[k] <= p[k] && p[k] <= b.max[k])) return false;
    return true;
}

/// True when the closed sphere (center c, radius r) touches the closed box b:
/// the squared distance from c to the box, summed axis by axis in T, is at
/// most r*r. O(D). Touching counts. Expects r >= 0 and no NaN.
template <class T, int D>
inline bool sphere_overlaps_box(const detail_dtree::vec_of<T, D>& c, detail_dtree::same<T> r,
                                const BasicBox<T, D>& b) {
    T d2 = T(0);
    for (int k = 0; k < D; ++k) {
        T g = T(0);
        if (c[k] < b.min[k])
            g = b.min[k] - c[k];
        else if (c[k] > b.max[k])
            g = c[k] - b.max[k];
        d2 += g * g;
    }
    return d2 <= r * r;
}

/// Ray origin + t * direction, t in [0, max_t], against the closed box b
/// (slab test). On a hit, t_out is the smallest such t at which the ray is in
/// the box (0 when the origin is inside). O(D).
///
/// Robust by construction: an axis with a zero direction component is a
/// containment test of the origin on that axis (no 1/0, no 0*inf); the slab
/// distances are divisions (b.min - o) / d, never multiplications by a
/// precomputed inverse, so a tiny d gives +-inf, never NaN. Expects a finite
/// origin and direction, max_t >= 0 (+inf allowed), a valid box (infinite
/// coordinates allowed). A zero direction or max_t == 0 makes it a point test
/// at the origin (t = 0).
template <class T, int D>
inline bool ray_hits_box(const detail_dtree::vec_of<T, D>& origin, const detail_dtree::vec_of<T, D>& direction,
                         detail_dtree::same<T> max_t, const BasicBox<T, D>& b, T& t_out) {
    T t0 = T(0), t1 = max_t;
    for (int k = 0; k < D; ++k) {
        const T d = direction[k];
        if (d == T(0)) {
            if (origin[k] < b.min[k] || b.max[k] < origin[k]) return false;
            continue;
        }
        T a = (b.min[k] - origin[k]) / d;
        T c = (b.max[k] - origin[k]) / d;
        if (d < T(0)) std::swap(a, c);
        if (a > t0) t0 = a;
        if (c < t1) t1 = c;
        if (t0 > t1) return false;
    }
    t_out = t0;
    return true;
}

/// The box `moving` swept along displacement v (at time t it is moving + t*v,
/// t in [0, 1]) against the closed box b: on a hit, t_out is the first t at
/// which they touch (0 when they overlap at the start; consistent with
/// overlaps()). Per axis the touching times are those with
/// b.min - moving.max <= t*v <= b.max - moving.min. O(D). Expects v finite and
/// both boxes valid (infinite coordinates allowed; inf - inf is read as 0:
/// two equal infinite faces touch).
template <class T, int D>
inline bool box_cast_hits_box(const BasicBox<T, D>& moving, const detail_dtree::vec_of<T, D>& v,
                              const BasicBox<T, D>& b, T& t_out) {
    T t0 = T(0), t1 = T(1);
    for (int k = 0; k < D; ++k) {
        T lo = b.min[k] - moving.max[k];
        T hi = b.max[k] - moving.min[k];
        if (lo != lo) lo = T(0);
        if (hi != hi) hi = T(0);
        const T d = v[k];
        if (d == T(0)) {
            if (lo > T(0) || hi < T(0)) return false;
            continue;
        }
        T a = lo / d;
        T c = hi / d;
        if (d < T(0)) std::swap(a, c);
        if (a > t0) t0 = a;
        if (c < t1) t1 = c;
        if (t0 > t1) return false;
    }
    t_out = t0;
    return true;
}

namespace detail_dtree {

/// A LIFO stack of small values: the first N on the call stack, the rest
/// (only for trees deeper than about N) in a local vector.
template <class V, std::size_t N = 64>
class SmallStack {
public:
    void push(const V& v) {
        if (size_ < N)
            inline_[size_] = v;
        else
            heap_.push_back(v);
        ++size_;
    }
    V pop() {
        --size_;
        if (size_ < N) return inline_[size_];
        V v = heap_.back();
        heap_.pop_back();
        return v;
    }
    bool empty() const { return size_ == 0; }

private:
    V inline_[N];
    std::size_t size_ = 0;
    std::vector<V> heap_;
};

/// A LIFO stack of at most N values, all on the call stack: for trees
/// whose height guarantees that N is never exceeded.
template <class V, std::size_t N>
class FixedStack {
public:
    void push(const V& v) { items_[size_++] = v; }
    V pop() { return items_[--size_]; }
    bool empty() const { return size_ == 0; }

private:
    V items_[N];
    std::size_t size_ = 0;
};

/// The ray slab test for pruning: the same slabs as ray_hits_box(), with
/// multiplications by the precomputed inverse direction instead of
/// divisions, and an answer widened so that it is conservative: for any box
/// B and any box b inside it, if ray_hits_box() hits b with entry t, then
/// hit(B) is true with an entry no greater than t. Pruning with it therefore
/// never loses a result; the exact answer still comes from ray_hits_box() on
/// the tight boxes.
///
/// Why it is conservative: per axis, (bound - o) is computed exactly as in
/// ray_hits_box() and is monotone in the bound; x * fl(1/d) differs from
/// fl(x / d) by at most about 3 units in the last place (relative), plus an
/// underflow error far below the smallest normal number; the entry is
/// lowered by 32 machine epsilons (relative) and the smallest normal number
/// (absolute), the exit raised by as much. A zero direction component has an
/// infinite inverse: (bound - o) * inf is -inf/+inf (no constraint) or NaN
/// when the origin lies on the bound (ignored by the comparisons: also no
/// constraint), so a box whose slab holds the origin is never cut on that
/// axis. An entry that overflows is clamped below the largest finite value.
/// A non-zero component whose inverse overflows (|d| < 2^-128 in float) is
/// not handled: init() returns false and the caller uses ray_hits_box().
template <class T, int D>
struct FastRay {
    std::array<T, D> o;
    std::array<T, D> inv;
    std::array<bool, D> neg;  // direction's sign bit: the slab is entered at max
    T max_t;

    static constexpr T eps = T(32) * std::numeric_limits<T>::epsilon();
    static constexpr T down = T(1) - eps;
    static constexpr T up = T(1) + eps;
    static constexpr T tiny = std::numeric_limits<T>::min();
    static constexpr T big = std::numeric_limits<T>::max() * down;

    bool init(const std::array<T, D>& origin, const std::array<T, D>& direction, T limit) {
        o = origin;
        max_t = limit;
        for (int k = 0; k < D; ++k) {
            const T d = direction[k];
            neg[k] = std::signbit(d);
            inv[k] = T(1) / d;
            if (d != T(0) && std::isinf(inv[k])) return false;
        }
        return true;
    }
    /// True when the ray may hit b; t_enter is then a lower bound of the
    /// entry of every box inside b that the ray hits.
    bool hit(const BasicBox<T, D>& b, T& t_enter) const {
        T t0 = T(0), t1 = max_t;
        for (int k = 0; k < D; ++k) {
            const T lo = ((neg[k] ? b.max[k] : b.min[k]) - o[k]) * inv[k];
            const T hi = ((neg[k] ? b.min[k] : b.max[k]) - o[k]) * inv[k];
            t0 = lo > t0 ? lo : t0;  // NaN (0 * inf) leaves t0
            t1 = hi < t1 ? hi : t1;
        }
        const T enter = std::min(t0 * down - tiny, big);
        t_enter = enter;
        return enter <= t1 * up + tiny;
    }
    /// hit() on two boxes given axis by axis: lo[k][j], hi[k][j] for box j.
    void hit2(const T (&lo)[D][2], const T (&hi)[D][2], T (&t_enter)[2], bool (&h)[2]) const {
        T t0[2] = {T(0), T(0)}, t1[2] = {max_t, max_t};
        for (int k = 0; k < D; ++k) {
            const T* near = neg[k] ? hi[k] : lo[k];
            const T* far = neg[k] ? lo[k] : hi[k];
            for (int j = 0; j < 2; ++j) {
                const T a = (near[j] - o[k]) * inv[k];
                const T c = (far[j] - o[k]) * inv[k];
                t0[j] = a > t0[j] ? a : t0[j];
                t1[j] = c < t1[j] ? c : t1[j];
            }
        }
        for (int j = 0; j < 2; ++j) {
            const T enter = std::min(t0[j] * down - tiny, big);
            t_enter[j] = enter;
            h[j] = enter <= t1[j] * up + tiny;
        }
    }
};

/// Calls f(args...); a callback returning void means "go on".
template <class F, class... A>
inline bool call_go_on(F& f, A&&... a) {
    if constexpr (std::is_void_v<std::invoke_result_t<F&, A...>>) {
        f(std::forward<A>(a)...);
        return true;
    } else {
        return static_cast<bool>(f(std::forward<A>(a)...));
    }
}

template <class T>
inline bool finite(T x) {
    return std::isfinite(x);
}

}  // namespace detail_dtree

/// A dynamic bounding-volume tree over proxies (boxes with a user value).
template <class T, int D>
class BasicDynamicTree {
    static_assert(std::is_floating_point_v<T>, "T must be a floating-point type");
    static_assert(D >= 1, "at least one axis");

public:
    using scalar = T;
    static constexpr int dims = D;
    using box_type = BasicBox<T, D>;
    using vec_type = std::array<T, D>;

    /// The id that is no proxy: what insert() returns for an invalid box (or
    /// when 32-bit node indices are exhausted), and Hit::proxy for no hit.
    static constexpr std::uint32_t null = 0xFFFFFFFFu;

    /// Default margin: 0.1 in the user's length unit, grown on every side of
    /// every tight box (Box2D's choice for scenes in metres with objects of
    /// about 0.1 to 10 units). Scale it with your scene: about a tenth of a
    /// typical object size, or the distance a typical object moves in a few
    /// frames.
    static constexpr T default_margin = T(0.1);
    /// Default displacement factor: move() grows the fat box by this many
    /// times the displacement hint, on the side it points to.
    static constexpr T default_displacement_factor = T(4);
    /// Default balance slack (see set_balance_slack()).
    static constexpr int default_balance_slack = 12;

    /// A ray or box-cast result: proxy == null when nothing was hit.
    struct Hit {
        std::uint32_t proxy = null;
        T t = T(0);
        explicit operator bool() const { return proxy != null; }
    };

    /// How good the tree is: area_ratio = sum of the surface areas (perimeters
    /// in 2-D) of all internal nodes / that of the root (1 is the least
    /// possible; lower is better; inf or NaN with infinite boxes); height =
    /// the longest root-to-leaf path in edges (0 for an empty or one-leaf tree).
    struct Quality {
        double area_ratio = 0;
        int height = 0;
        std::size_t leaves = 0;
        std::size_t nodes = 0;
    };

    BasicDynamicTree() = default;
    /// A tree with the given margin (see set_margin()).
    explicit BasicDynamicTree(T margin) { set_margin(margin); }

    // -- settings ----------------------------------------------------------

    /// The margin every fat box gets on every side, applied from the next
    /// insert() or re-inserting move(). Must be finite and >= 0 (0 means fat =
    /// tight: every move that changes a box rebuilds its path); otherwise
    /// nothing changes and it returns false. O(1).
    bool set_margin(T margin) {
        if (!(margin >= T(0)) || !detail_dtree::finite(margin)) return false;
        margin_ = margin;
        return true;
    }
    T margin() const { return margin_; }

    /// How far ahead move() grows a fat box along its displacement hint
    /// (finite, >= 0; else false and unchanged). O(1).
    bool set_displacement_factor(T factor) {
        if (!(factor >= T(0)) || !detail_dtree::finite(factor)) return false;
        factor_ = factor;
        return true;
    }
    T displacement_factor() const { return factor_; }

    /// Balance: after an insertion or removal, an ancestor whose two
    /// subtrees' heights differ by more than this is rebalanced AVL-style
    /// (the taller child takes its place), whatever the surface areas say.
    /// Small values keep the tree shallow but blind to space: with slack 1
    /// (a plain AVL rule) the area ratio of 100,000 uniform boxes was 7,900
    /// against 186 at the default 12 and 184 with rotations only, and queries
    /// 100x slower (docs/dynamic_tree.md). A huge value leaves only the
    /// area-driven rotations (as Box2D v3), whose height is unbounded in
    /// mixed-size scenes (105 levels for 4,000 boxes in the tests' mixed
    /// scene; 30 with the default). Must be >= 1; else false and unchanged.
    bool set_balance_slack(int slack) {
        if (slack < 1) return false;
        slack_ = slack;
        return true;
    }
    int balance_slack() const { return slack_; }

    // -- mutation ----------------------------------------------------------

    /// Adds a proxy with tight box `box` and a user value; returns its id
    /// (stable until remove()), or `null` when the box is invalid (NaN or
    /// min > max: the tree is not touched) or 2^32 - 1 nodes would be needed.
    /// O(h) box tests and rotations; amortised O(1) allocation (the node
    /// array doubles when full; std::bad_alloc leaves the tree unchanged).
    std::uint32_t insert(const box_type& box, std::uint64_t user_data = 0) {
        if (!box.valid()) return null;
        if (!ensure_free(root_ == null ? 1 : 2)) return null;
        const std::uint32_t leaf = allocate_node();
        Node& n = nodes_[leaf];
        n.box = fatten(box, vec_type{});
        n.child1 = n.child2 = null;
        n.height = 0;
        tight_[leaf] = box;
        user_[leaf] = user_data;
        ++leaf_count_;
        insert_leaf(leaf);
        return leaf;
    }

    /// Removes proxy `id`; false (and nothing done) when id is no live proxy.
    /// O(h). Never allocates; the nodes go to the free list.
    bool remove(std::uint32_t id) {
        if (!contains(id)) return false;
        remove_leaf(id);
        free_node(id);
        --leaf_count_;
        return true;
    }

    /// Gives proxy `id` a new tight box. `displacement` (optional, e.g. the
    /// velocity times the step) is a hint: a re-inserted fat box is grown by
    /// displacement_factor() times it on the side it points to, so the next
    /// moves stay inside. Returns true when the tree's structure changed (the
    /// leaf was re-inserted: the new tight box left the fat box, or the fat
    /// box had become much larger than needed); false when only the stored
    /// tight box changed, and also (nothing changed) when id is no live proxy
    /// or the box is invalid (NaN, min > max: the old boxes stay). A
    /// non-finite displacement is ignored (treated as zero). O(D) when the
    /// box stays inside its fat box, else O(h) like remove() + insert().
    /// Never allocates (the re-insertion reuses the freed node).
    bool move(std::uint32_t id, const box_type& box, const vec_type& displacement = vec_type{}) {
        if (!contains(id) || !box.valid()) return false;
        vec_type disp = displacement;
        for (int k = 0; k < D; ++k)
            if (!detail_dtree::finite(disp[k])) disp = vec_type{};
        Node& n = nodes_[id];
        tight_[id] = box;
        if (broadphase::contains(n.box, box)) {
            // Keep the fat box unless it is far too large: larger than the
            // new fat box grown by four margins.
            box_type loose = fatten(box, disp);
            const T extra = T(4) * margin_;
            for (int k = 0; k < D; ++k) {
                loose.min[k] -= extra;
                loose.max[k] += extra;
            }
            if (broadphase::contains(loose, n.box)) return false;
        }
        remove_leaf(id);
        nodes_[id].box = fatten(box, disp);
        insert_leaf(id);
        return true;
    }

    /// Replaces the user value of proxy id (a live proxy). O(1).
    void set_user_data(std::uint32_t id, std::uint64_t value) { user_[id] = value; }

    /// Rebuilds every internal node top-down from the leaves (binned surface
    /// area heuristic over the fat boxes' centres, 16 bins per axis; a
    /// median split where the bins cannot separate the centres). Ids, fat and
    /// tight boxes stay. O(n log n) time; allocates only scratch that it keeps
    /// for the next call.
    void rebuild() {
        scratch_.clear();
        for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(nodes_.size()); ++i)
            if (nodes_[i].height == 0) scratch_.push_back(i);
        // Freed from the top down, so that build() takes them back in
        // ascending order: parents before children (pre-order), a subtree's
        // nodes close together in memory, for the queries' sake.
        for (std::uint32_t i = static_cast<std::uint32_t>(nodes_.size()); i-- > 0;)
            if (nodes_[i].height > 0) free_node(i);
        root_ = null;
        if (scratch_.empty()) return;
        root_ = build(scratch_.data(), scratch_.data() + scratch_.size(), 0);
        nodes_[root_].parent = null;
    }

    /// Removes every proxy; keeps the memory. O(capacity).
    void clear() {
        const std::size_t cap = nodes_.size();
        root_ = null;
        free_ = null;
        used_ = 0;
        leaf_count_ = 0;
        for (std::size_t i = cap; i-- > 0;) {
            nodes_[i].height = -1;
            nodes_[i].parent = free_;
            free_ = static_cast<std::uint32_t>(i);
        }
    }

    /// Makes room for `proxies` proxies (2 * proxies - 1 nodes) so that
    /// inserting them allocates nothing. O(capacity).
    void reserve(std::size_t proxies) {
        const std::size_t want = proxies == 0 ? 0 : 2 * proxies - 1;
        if (want > nodes_.size()) grow_to(std::min<std::size_t>(want, max_nodes));
    }

    // -- inspection --------------------------------------------------------

    /// True when id is a live proxy. O(1).
    bool contains(std::uint32_t id) const { return id < nodes_.size() && nodes_[id].height == 0; }
    /// The tight box, fat box and user value of a live proxy. O(1).
    const box_type& tight_box(std::uint32_t id) const { return tight_[id]; }
    const box_type& fat_box(std::uint32_t id) const { return nodes_[id].box; }
    std::uint64_t user_data(std::uint32_t id) const { return user_[id]; }

    /// Live proxies. O(1).
    std::size_t size() const { return leaf_count_; }
    bool empty() const { return leaf_count_ == 0; }
    /// Nodes in use (leaves + internal) and allocated. O(1).
    std::size_t node_count() const { return used_; }
    std::size_t node_capacity() const { return nodes_.size(); }
    /// The root node's index (null when empty): for diagnostics.
    std::uint32_t root() const { return root_; }
    /// Height of the tree in edges (0 when empty or one proxy). O(1).
    int height() const { return root_ == null ? 0 : nodes_[root_].height; }

    /// Quality figures (see Quality). O(capacity).
    Quality quality() const {
        Quality q;
        q.leaves = leaf_count_;
        q.nodes = used_;
        q.height = height();
        if (root_ == null || nodes_[root_].height == 0) return q;
        double sum = 0;
        for (const Node& n : nodes_)
            if (n.height > 0) sum += static_cast<double>(half_area(n.box));
        const double root_area = static_cast<double>(half_area(nodes_[root_].box));
        q.area_ratio = root_area > 0 ? sum / root_area : 1.0;  // all boxes one point: 1
        return q;
    }

    /// Checks every invariant; "" when all hold, else a description of the
    /// first broken one: parent/child links, internal boxes containing their
    /// children's, fat boxes containing tight ones, valid boxes, heights, the
    /// free list, node and leaf counts, no cycles. O(capacity).
    std::string validate() const {
        const std::size_t cap = nodes_.size();
        if (used_ > cap) return "more nodes in use than allocated";
        // Free list.
        std::size_t free_count = 0;
        for (std::uint32_t i = free_; i != null; i = nodes_[i].parent) {
            if (i >= cap) return "free list index out of range";
            if (nodes_[i].height != -1) return "node " + std::to_string(i) + " on the free list is not free";
            if (++free_count > cap) return "free list has a cycle";
        }
        if (free_count + used_ != cap)
            return "free list holds " + std::to_string(free_count) + " nodes, expected " +
                   std::to_string(cap - used_);
        std::size_t marked_free = 0;
        for (const Node& n : nodes_)
            if (n.height < 0) ++marked_free;
        if (marked_free != free_count) return "free nodes not all on the free list";
        // Tree.
        if (root_ == null) {
            if (used_ != 0 || leaf_count_ != 0) return "empty tree with nodes in use";
            return "";
        }
        if (root_ >= cap) return "root out of range";
        if (nodes_[root_].parent != null) return "root has a parent";
        std::size_t reached = 0, leaves = 0;
        detail_dtree::SmallStack<std::uint32_t> stack;
        stack.push(root_);
        while (!stack.empty()) {
            const std::uint32_t i = stack.pop();
            if (i >= cap) return "child index out of range";
            if (++reached > used_) return "more nodes reachable than in use (cycle?)";
            const Node& n = nodes_[i];
            const std::string at = "node " + std::to_string(i) + ": ";
            if (n.height < 0) return at + "reachable but free";
            if (!n.box.valid()) return at + "invalid box";
            if (n.height == 0) {
                ++leaves;
                if (n.child1 != null || n.child2 != null) return at + "leaf with children";
                if (!tight_[i].valid()) return at + "invalid tight box";
                if (!broadphase::contains(n.box, tight_[i])) return at + "fat box does not contain the tight box";
                continue;
            }
            if (n.child1 >= cap || n.child2 >= cap) return at + "child out of range";
            if (n.child1 == n.child2) return at + "both children the same";
            const Node& a = nodes_[n.child1];
            const Node& b = nodes_[n.child2];
            if (a.parent != i || b.parent != i) return at + "child's parent link is wrong";
            if (a.height < 0 || b.height < 0) return at + "free child";
            if (n.height != 1 + std::max(a.height, b.height)) return at + "wrong height";
            if (!broadphase::contains(n.box, a.box) || !broadphase::contains(n.box, b.box))
                return at + "box does not contain a child's box";
            {
                const Kids& kk = kids_[i];
                const std::uint32_t c[2] = {n.child1, n.child2};
                for (int j = 0; j < 2; ++j) {
                    const Node& cn = nodes_[c[j]];
                    bool same = kk.child[j] == c[j] && kk.leaf[j] == (cn.height == 0);
                    for (int k = 0; k < D; ++k)
                        same = same && kk.lo[k][j] == cn.box.min[k] && kk.hi[k][j] == cn.box.max[k];
                    if (!same) return at + "stale copy of a child's box (kids)";
                }
            }
            stack.push(n.child1);
            stack.push(n.child2);
        }
        if (reached != used_)
            return "reachable nodes " + std::to_string(reached) + " != nodes in use " + std::to_string(used_);
        if (leaves != leaf_count_)
            return "reachable leaves " + std::to_string(leaves) + " != proxies " + std::to_string(leaf_count_);
        if (leaves != 0 && used_ != 2 * leaves - 1) return "nodes in use != 2 * leaves - 1";
        return "";
    }

    // -- queries (const; many threads at once) -------------------------------
    // Callbacks return bool (false stops the query) or void. Each for_each_*
    // returns false when a callback stopped it, else true. Results come in no
    // particular order. Typical cost O(log n + k) node visits; worst case
    // O(n) when the fat boxes overlap heavily.

    /// f(id) for every proxy whose tight box overlaps the closed box q
    /// (touching counts). Nothing for an invalid q.
    template <class F>
    bool for_each_overlap(const box_type& q, F&& f) const {
        if (!q.valid()) return true;
        return descend([&](const box_type& b) { return overlaps(b, q); },
                       [&](std::uint32_t i) { return !overlaps(tight_[i], q) || detail_dtree::call_go_on(f, i); });
    }

    /// Appends to `out` the ids for_each_overlap(q) reports. Same cost.
    void query(const box_type& q, std::vector<std::uint32_t>& out) const {
        for_each_overlap(q, [&](std::uint32_t id) { out.push_back(id); });
    }

    /// f(id) for every proxy whose tight box contains point p (boundary
    /// included). Nothing for a point with a NaN coordinate.
    template <class F>
    bool for_each_containing(const vec_type& p, F&& f) const {
        for (int k = 0; k < D; ++k)
            if (p[k] != p[k]) return true;
        return descend([&](const box_type& b) { return box_contains_point(b, p); },
                       [&](std::uint32_t i) {
                           return !box_contains_point(tight_[i], p) || detail_dtree::call_go_on(f, i);
                       });
    }

    /// f(id) for every proxy whose tight box touches the closed sphere
    /// (sphere_overlaps_box). Nothing for a NaN centre or radius, or r < 0.
    template <class F>
    bool for_each_overlapping_sphere(const vec_type& center, T radius, F&& f) const {
        if (!(radius >= T(0))) return true;
        for (int k = 0; k < D; ++k)
            if (center[k] != center[k]) return true;
        return descend([&](const box_type& b) { return sphere_overlaps_box(center, radius, b); },
                       [&](std::uint32_t i) {
                           return !sphere_overlaps_box(center, radius, tight_[i]) || detail_dtree::call_go_on(f, i);
                       });
    }

    /// The first proxy hit by the ray origin + t * direction, t in
    /// [0, max_t] (direction need not be unit length; with a unit direction t
    /// is the distance), against tight boxes (ray_hits_box): the smallest t,
    /// ties to the smallest id; t = 0 when the origin is inside. max_t may be
    /// +inf; a zero direction or max_t = 0 is a point test at the origin.
    /// Nothing for a non-finite origin or direction or a NaN/negative max_t.
    /// Nearer child first, subtrees entered after the best t pruned:
    /// typically O(log n) node visits.
    Hit ray_cast(const vec_type& origin, const vec_type& direction, T max_t) const {
        Hit best;
        if (!ray_ok(origin, direction, max_t) || root_ == null) return best;
        detail_dtree::FastRay<T, D> fast;
        if (!fast.init(origin, direction, max_t)) {
            // A direction component so small that its inverse overflows:
            // prune with the exact (slower) test itself.
            auto test = [&](const box_type& b, T& t) { return ray_hits_box(origin, direction, max_t, b, t); };
            closest(test, best);
            return best;
        }
        if (height() < 60) {
            RayStack<60> stack;
            ray_closest(fast, origin, direction, max_t, best, stack);
        } else {
            detail_dtree::SmallStack<RayEntry> stack;
            ray_closest(fast, origin, direction, max_t, best, stack);
        }
        return best;
    }

    /// f(id, t) for every proxy hit by the ray (as ray_cast), t its entry
    /// parameter. Cost O(log n + k) typical.
    template <class F>
    bool for_each_ray_hit(const vec_type& origin, const vec_type& direction, T max_t, F&& f) const {
        if (!ray_ok(origin, direction, max_t)) return true;
        auto leaf = [&](std::uint32_t i) {
            T t = T(0);
            return !ray_hits_box(origin, direction, max_t, tight_[i], t) || detail_dtree::call_go_on(f, i, t);
        };
        detail_dtree::FastRay<T, D> fast;
        if (!fast.init(origin, direction, max_t))
            return descend([&](const box_type& b) { T t; return ray_hits_box(origin, direction, max_t, b, t); },
                           leaf);
        return descend([&](const box_type& b) { T t; return fast.hit(b, t); }, leaf);
    }

    /// The first proxy touched by box `moving` swept along `displacement`
    /// (at time t it is moving + t * displacement, t in [0, 1];
    /// box_cast_hits_box): the smallest t, ties to the smallest id; t = 0 for
    /// proxies it overlaps at the start. Nothing for an invalid moving box or
    /// a non-finite displacement. Typically O(log n) node visits.
    Hit box_cast(const box_type& moving, const vec_type& displacement) const {
        Hit best;
        if (!cast_ok(moving, displacement)) return best;
        auto test = [&](const box_type& b, T& t) { return box_cast_hits_box(moving, displacement, b, t); };
        closest(test, best);
        return best;
    }

    /// f(id, t) for every proxy the swept box touches, t the first time.
    template <class F>
    bool for_each_box_cast_hit(const box_type& moving, const vec_type& displacement, F&& f) const {
        if (!cast_ok(moving, displacement)) return true;
        return descend([&](const box_type& b) { T t; return box_cast_hits_box(moving, displacement, b, t); },
                       [&](std::uint32_t i) {
                           T t = T(0);
                           return !box_cast_hits_box(moving, displacement, tight_[i], t) ||
                                  detail_dtree::call_go_on(f, i, t);
                       });
    }

    /// f(a, b), a < b, once for every unordered pair of proxies whose tight
    /// boxes overlap (touching counts): a self-traversal of the tree, each
    /// internal node's two subtrees tested against each other. O(n + pairs of
    /// overlapping fat/internal boxes visited); nothing allocated unless the
    /// tree is deeper than 32 levels.
    template <class F>
    bool for_each_pair(F&& f) const {
        if (root_ == null) return true;
        struct Two {
            std::uint32_t a, b;
        };
        detail_dtree::SmallStack<std::uint32_t> nodes;
        detail_dtree::SmallStack<Two, 128> cross;
        nodes.push(root_);
        while (!nodes.empty()) {
            const Node& n = nodes_[nodes.pop()];
            if (n.height == 0) continue;
            nodes.push(n.child1);
            nodes.push(n.child2);
            cross.push({n.child1, n.child2});
            while (!cross.empty()) {
                const Two p = cross.pop();
                const Node& a = nodes_[p.a];
                const Node& b = nodes_[p.b];
                if (!overlaps(a.box, b.box)) continue;
                if (a.height == 0 && b.height == 0) {
                    if (overlaps(tight_[p.a], tight_[p.b])) {
                        const std::uint32_t x = std::min(p.a, p.b), y = std::max(p.a, p.b);
                        if (!detail_dtree::call_go_on(f, x, y)) return false;
                    }
                } else if (b.height == 0 || (a.height != 0 && half_area(a.box) >= half_area(b.box))) {
                    cross.push({a.child1, p.b});
                    cross.push({a.child2, p.b});
                } else {
                    cross.push({p.a, b.child1});
                    cross.push({p.a, b.child2});
                }
            }
        }
        return true;
    }

    /// Appends every overlapping pair (a < b) to `out`. Same cost.
    void pairs(std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) const {
        for_each_pair([&](std::uint32_t a, std::uint32_t b) { out.emplace_back(a, b); });
    }

private:
    struct Node {
        box_type box;    // fat box (leaf) or union of the children's boxes
        std::uint32_t parent = null;  // free nodes: next free node
        std::uint32_t child1 = null;
        std::uint32_t child2 = null;
        std::int32_t height = -1;  // -1 free, 0 leaf, > 0 internal
    };

    static constexpr std::size_t max_nodes = 0xFFFFFFFFu;  // indices 0 .. 2^32 - 2

    /// What ray_cast() reads at an internal node: its two children's boxes
    /// (copies of their nodes' boxes, axis by axis, child 0 then child 1),
    /// their indices, and which of them are leaves: one 64-byte line for
    /// float 3-D, so a step down the tree costs one cache miss, not two or
    /// three (two 40-byte nodes at unrelated places). Kept equal to the nodes
    /// by sync() wherever a box or a link of an internal node changes;
    /// validate() checks it.
    struct alignas(64) Kids {
        T lo[D][2];
        T hi[D][2];
        std::uint32_t child[2];
        bool leaf[2];
    };

    /// Copies internal node i's children into kids_[i].
    void sync(std::uint32_t i) {
        const Node& n = nodes_[i];
        Kids& k = kids_[i];
        const std::uint32_t c[2] = {n.child1, n.child2};
        for (int j = 0; j < 2; ++j) {
            const Node& cn = nodes_[c[j]];
            for (int a = 0; a < D; ++a) {
                k.lo[a][j] = cn.box.min[a];
                k.hi[a][j] = cn.box.max[a];
            }
            k.child[j] = c[j];
            k.leaf[j] = cn.height == 0;
        }
    }


    static box_type unite(const box_type& a, const box_type& b) {
        box_type u;
        for (int k = 0; k < D; ++k) {
            u.min[k] = std::min(a.min[k], b.min[k]);
            u.max[k] = std::max(a.max[k], b.max[k]);
        }
        return u;
    }
    /// Half the surface area (3-D and up: sum of the pairwise products of the
    /// extents), or the half perimeter (2-D), or the length (1-D).
    static T half_area(const box_type& b) {
        if constexpr (D <= 2) {
            T s = T(0);
            for (int k = 0; k < D; ++k) s += b.max[k] - b.min[k];
            return s;
        } else {
            T s = T(0);
            for (int i = 0; i < D; ++i)
                for (int j = i + 1; j < D; ++j) s += (b.max[i] - b.min[i]) * (b.max[j] - b.min[j]);
            return s;
        }
    }

    box_type fatten(const box_type& b, const vec_type& disp) const {
        box_type f;
        for (int k = 0; k < D; ++k) {
            T lo = b.min[k] - margin_;
            T hi = b.max[k] + margin_;
            const T ahead = factor_ * disp[k];
            if (ahead < T(0))
                lo += ahead;
            else
                hi += ahead;
            // Rounding never shrinks below the tight box, but keep it
            // explicit; an infinite side plus an infinite hint the other way
            // (inf - inf = NaN) keeps the tight side.
            f.min[k] = lo <= b.min[k] ? lo : b.min[k];
            f.max[k] = hi >= b.max[k] ? hi : b.max[k];
        }
        return f;
    }

    static bool ray_ok(const vec_type& o, const vec_type& d, T max_t) {
        if (!(max_t >= T(0))) return false;
        for (int k = 0; k < D; ++k)
            if (!detail_dtree::finite(o[k]) || !detail_dtree::finite(d[k])) return false;
        return true;
    }
    static bool cast_ok(const box_type& m, const vec_type& d) {
        if (!m.valid()) return false;
        for (int k = 0; k < D; ++k)
            if (!detail_dtree::finite(d[k])) return false;
        return true;
    }

    template <class Test>
    void closest(Test& test, Hit& best) const {
        if (root_ == null) return;
        struct Entry {
            std::uint32_t node;
            T t;
        };
        T t = T(0);
        if (!test(nodes_[root_].box, t)) return;
        detail_dtree::SmallStack<Entry> stack;
        stack.push({root_, t});
        while (!stack.empty()) {
            const Entry e = stack.pop();
            if (best && e.t > best.t) continue;
            const Node& n = nodes_[e.node];
            if (n.height == 0) {
                T tl = T(0);
                if (test(tight_[e.node], tl) && (!best || tl < best.t || (tl == best.t && e.node < best.proxy))) {
                    best.proxy = e.node;
                    best.t = tl;
                }
                continue;
            }
            T t1 = T(0), t2 = T(0);
            const bool h1 = test(nodes_[n.child1].box, t1);
            const bool h2 = test(nodes_[n.child2].box, t2);
            if (h1 && h2) {
                // The nearer child is popped first.
                if (t1 <= t2) {
                    stack.push({n.child2, t2});
                    stack.push({n.child1, t1});
                } else {
                    stack.push({n.child1, t1});
                    stack.push({n.child2, t2});
                }
            } else if (h1) {
                stack.push({n.child1, t1});
            } else if (h2) {
                stack.push({n.child2, t2});
            }
        }
    }

    /// The one depth-first traversal behind the box, point, sphere, ray and
    /// box-cast "all" queries: node_hit(box) prunes (it sees internal and fat
    /// boxes), leaf(id) decides on a leaf whose fat box passed (it tests the
    /// tight box and calls the user's callback) and returns false to stop.
    template <class NodeHit, class Leaf>
    bool descend(NodeHit&& node_hit, Leaf&& leaf) const {
        if (root_ == null) return true;
        if (height() < 62) {
            detail_dtree::FixedStack<std::uint32_t, 64> stack;
            return descend_with(node_hit, leaf, stack);
        }
        detail_dtree::SmallStack<std::uint32_t> stack;
        return descend_with(node_hit, leaf, stack);
    }
    template <class NodeHit, class Leaf, class Stack>
    bool descend_with(NodeHit& node_hit, Leaf& leaf, Stack& stack) const {
        stack.push(root_);
        while (!stack.empty()) {
            const std::uint32_t i = stack.pop();
            const Node& n = nodes_[i];
            if (!node_hit(n.box)) continue;
            if (n.height == 0) {
                if (!leaf(i)) return false;
            } else {
                stack.push(n.child1);
                stack.push(n.child2);
            }
        }
        return true;
    }

    /// Hints the cache to fetch what a visit of child j of k reads first:
    /// an internal child's kids_ record, a leaf's tight box.
    void prefetch(const Kids& k, int j) const {
#if defined(__GNUC__) || defined(__clang__)
        if (k.leaf[j])
            __builtin_prefetch(&tight_[k.child[j]]);
        else
            __builtin_prefetch(&kids_[k.child[j]]);
#else
        (void)k, (void)j;
#endif
    }

    struct RayEntry {
        std::uint32_t node;
        T t;
    };
    template <std::size_t N>
    using RayStack = detail_dtree::FixedStack<RayEntry, N>;

    /// Closest ray hit, depth first, nearer child first. At each internal
    /// node both children's boxes get the conservative test; a child whose
    /// entry is beyond the best hit so far is dropped, a leaf child is
    /// decided at once on its tight box (exact test), the nearer internal
    /// child is entered and the farther one stacked with its entry, which is
    /// checked again when it is popped. The stack never holds more entries
    /// than the tree is high.
    template <class Stack>
    void ray_closest(const detail_dtree::FastRay<T, D>& fast, const vec_type& origin, const vec_type& direction,
                     T max_t, Hit& best, Stack& stack) const {
        T best_t = std::numeric_limits<T>::infinity();
        auto try_leaf = [&](std::uint32_t i) {
            T t = T(0);
            if (!ray_hits_box(origin, direction, max_t, tight_[i], t)) return;
            if (t < best_t || (t == best_t && (best.proxy == null || i < best.proxy))) {
                best.proxy = i;
                best.t = t;
                best_t = t;
            }
        };
        {
            T t = T(0);
            if (!fast.hit(nodes_[root_].box, t)) return;
            if (nodes_[root_].height == 0) return try_leaf(root_);
        }
        std::uint32_t i = root_;
        for (;;) {
            const Kids& k = kids_[i];
            // Both children fetched while this node's test runs: the walk
            // is bound by these dependent loads more than by the tests.
            prefetch(k, 0);
            prefetch(k, 1);
            T t[2];
            bool h[2];
            fast.hit2(k.lo, k.hi, t, h);
            h[0] = h[0] && t[0] <= best_t;
            h[1] = h[1] && t[1] <= best_t;
            if (h[0] && k.leaf[0]) try_leaf(k.child[0]), h[0] = false;
            if (h[1] && k.leaf[1]) try_leaf(k.child[1]), h[1] = false;
            if (h[0] && h[1]) {
                const int near = t[1] < t[0] ? 1 : 0;
                stack.push({k.child[1 - near], t[1 - near]});
                i = k.child[near];
                continue;
            }
            if (h[0] && t[0] <= best_t) {
                i = k.child[0];
                continue;
            }
            if (h[1] && t[1] <= best_t) {
                i = k.child[1];
                continue;
            }
            for (;;) {
                if (stack.empty()) return;
                const RayEntry e = stack.pop();
                if (e.t <= best_t) {
                    i = e.node;
                    break;
                }
            }
        }
    }

    // -- node storage --------------------------------------------------------

    bool grow_to(std::size_t cap) {
        const std::size_t old = nodes_.size();
        if (cap <= old) return true;
        // Reserve all three first: a bad_alloc there changes nothing; the
        // resizes after it cannot throw.
        nodes_.reserve(cap);
        tight_.reserve(cap);
        user_.reserve(cap);
        kids_.reserve(cap);
        nodes_.resize(cap);
        tight_.resize(cap);
        user_.resize(cap);
        kids_.resize(cap);
        for (std::size_t i = cap; i-- > old;) {
            nodes_[i].height = -1;
            nodes_[i].parent = free_;
            free_ = static_cast<std::uint32_t>(i);
        }
        return true;
    }
    /// At least `k` free nodes; false when 32-bit indices are exhausted.
    bool ensure_free(std::size_t k) {
        const std::size_t free_count = nodes_.size() - used_;
        if (free_count >= k) return true;
        const std::size_t need = nodes_.size() + (k - free_count);
        if (need > max_nodes) return false;
        const std::size_t cap = std::min(max_nodes, std::max({need, nodes_.size() * 2, std::size_t(16)}));
        return grow_to(cap);
    }
    /// Takes a node from the free list (which must not be empty).
    std::uint32_t allocate_node() {
        const std::uint32_t i = free_;
        Node& n = nodes_[i];
        free_ = n.parent;
        n.parent = n.child1 = n.child2 = null;
        n.height = 0;
        ++used_;
        return i;
    }
    void free_node(std::uint32_t i) {
        Node& n = nodes_[i];
        n.height = -1;
        n.child1 = n.child2 = null;
        n.parent = free_;
        free_ = i;
        --used_;
    }

    // -- structure -------------------------------------------------------------

    /// The sibling for a new leaf with box b: greedy descent by the surface
    /// area heuristic. Putting the leaf beside node i costs the area of the
    /// new parent; going below i costs i's area growth, which every deeper
    /// choice also pays, plus the growth of the child gone into.
    std::uint32_t find_sibling(const box_type& b) const {
        std::uint32_t i = root_;
        while (nodes_[i].height > 0) {
            const Node& n = nodes_[i];
            const T area = half_area(n.box);
            const T combined = half_area(unite(n.box, b));
            const T here = T(2) * combined;
            const T inherited = T(2) * (combined - area);
            auto descend_cost = [&](std::uint32_t c) {
                const Node& cn = nodes_[c];
                const T grown = half_area(unite(cn.box, b));
                if (cn.height == 0) return grown + inherited;
                return grown - half_area(cn.box) + inherited;
            };
            const T c1 = descend_cost(n.child1);
            const T c2 = descend_cost(n.child2);
            if (here < c1 && here < c2) break;
            i = (c1 <= c2) ? n.child1 : n.child2;
        }
        return i;
    }

    void insert_leaf(std::uint32_t leaf) {
        if (root_ == null) {
            root_ = leaf;
            nodes_[leaf].parent = null;
            return;
        }
        const box_type b = nodes_[leaf].box;
        const std::uint32_t sibling = find_sibling(b);
        const std::uint32_t old_parent = nodes_[sibling].parent;
        const std::uint32_t p = allocate_node();  // a free node exists (ensure_free or a freed parent)
        Node& pn = nodes_[p];
        pn.parent = old_parent;
        pn.child1 = sibling;
        pn.child2 = leaf;
        pn.box = unite(b, nodes_[sibling].box);
        pn.height = nodes_[sibling].height + 1;
        replace_child(old_parent, sibling, p);
        nodes_[sibling].parent = p;
        nodes_[leaf].parent = p;
        refit_up(p);
    }

    /// In parent (or at the root when parent is null), child `from` becomes `to`.
    void replace_child(std::uint32_t parent, std::uint32_t from, std::uint32_t to) {
        if (parent == null) {
            root_ = to;
            return;
        }
        Node& pn = nodes_[parent];
        if (pn.child1 == from)
            pn.child1 = to;
        else
            pn.child2 = to;
    }

    void remove_leaf(std::uint32_t leaf) {
        if (leaf == root_) {
            root_ = null;
            return;
        }
        const std::uint32_t p = nodes_[leaf].parent;
        const std::uint32_t g = nodes_[p].parent;
        const std::uint32_t s = nodes_[p].child1 == leaf ? nodes_[p].child2 : nodes_[p].child1;
        nodes_[s].parent = g;
        replace_child(g, p, s);
        free_node(p);
        nodes_[leaf].parent = null;
        refit_up(g);
    }

    /// From node i to the root: recompute box and height, then rotate.
    void refit_up(std::uint32_t i) {
        while (i != null) {
            Node& n = nodes_[i];
            const Node& a = nodes_[n.child1];
            const Node& b = nodes_[n.child2];
            n.box = unite(a.box, b.box);
            n.height = 1 + std::max(a.height, b.height);
            sync(i);
            const std::uint32_t top = balance(i);
            if (top == i) rotate(i);
            i = nodes_[top].parent;
        }
    }

    /// AVL-style: when one child of a is more than one level taller than the
    /// other, that child takes a's place; a goes below it with the shorter
    /// child and the shorter of the tall child's two children. Returns the
    /// node now at a's place.
    std::uint32_t balance(std::uint32_t a) {
        const std::uint32_t b = nodes_[a].child1, c = nodes_[a].child2;
        const std::int32_t hb = nodes_[b].height, hc = nodes_[c].height;
        if (hc > hb + slack_) return promote(a, c, b);
        if (hb > hc + slack_) return promote(a, b, c);
        return a;
    }
    std::uint32_t promote(std::uint32_t a, std::uint32_t tall, std::uint32_t other) {
        Node& an = nodes_[a];
        Node& tn = nodes_[tall];
        const std::uint32_t f = tn.child1, g = tn.child2;
        const bool f_taller = nodes_[f].height >= nodes_[g].height;
        const std::uint32_t keep = f_taller ? f : g, give = f_taller ? g : f;
        const std::uint32_t up = an.parent;
        tn.parent = up;
        replace_child(up, a, tall);
        an.parent = tall;
        an.child1 = other;
        an.child2 = give;
        nodes_[give].parent = a;
        an.box = unite(nodes_[other].box, nodes_[give].box);
        an.height = 1 + std::max(nodes_[other].height, nodes_[give].height);
        tn.child1 = a;
        tn.child2 = keep;
        tn.box = unite(an.box, nodes_[keep].box);
        tn.height = 1 + std::max(an.height, nodes_[keep].height);
        sync(a);
        sync(tall);
        if (up != null) sync(up);
        return tall;
    }

    /// At internal node a with children b and c: of the four swaps of one
    /// child with a grandchild under the other child, apply the one that
    /// most reduces the area of the child whose contents change (if any
    /// does). a's own box is unchanged.
    void rotate(std::uint32_t a) {
        const std::uint32_t b = nodes_[a].child1, c = nodes_[a].child2;
        const Node& bn = nodes_[b];
        const Node& cn = nodes_[c];
        if (bn.height == 0 && cn.height == 0) return;
        T best = T(0);
        int which = -1;
        if (cn.height > 0) {  // swap b with a child of c
            const T area_c = half_area(cn.box);
            const T g1 = half_area(unite(bn.box, nodes_[cn.child2].box)) - area_c;  // b <-> c.child1
            const T g2 = half_area(unite(bn.box, nodes_[cn.child1].box)) - area_c;  // b <-> c.child2
            if (g1 < best) best = g1, which = 0;
            if (g2 < best) best = g2, which = 1;
        }
        if (bn.height > 0) {  // swap c with a child of b
            const T area_b = half_area(bn.box);
            const T g3 = half_area(unite(cn.box, nodes_[bn.child2].box)) - area_b;  // c <-> b.child1
            const T g4 = half_area(unite(cn.box, nodes_[bn.child1].box)) - area_b;  // c <-> b.child2
            if (g3 < best) best = g3, which = 2;
            if (g4 < best) best = g4, which = 3;
        }
        switch (which) {
            case 0: swap_down(a, b, c, true); break;
            case 1: swap_down(a, b, c, false); break;
            case 2: swap_down(a, c, b, true); break;
            case 3: swap_down(a, c, b, false); break;
            default: break;
        }
    }

    /// Child x of a trades places with child1 (first) or child2 of y, the
    /// other child of a. y's box and height are recomputed, then a's height.
    void swap_down(std::uint32_t a, std::uint32_t x, std::uint32_t y, bool first) {
        Node& an = nodes_[a];
        Node& yn = nodes_[y];
        const std::uint32_t g = first ? yn.child1 : yn.child2;
        if (first)
            yn.child1 = x;
        else
            yn.child2 = x;
        nodes_[x].parent = y;
        if (an.child1 == x)
            an.child1 = g;
        else
            an.child2 = g;
        nodes_[g].parent = a;
        yn.box = unite(nodes_[yn.child1].box, nodes_[yn.child2].box);
        yn.height = 1 + std::max(nodes_[yn.child1].height, nodes_[yn.child2].height);
        an.height = 1 + std::max(nodes_[an.child1].height, nodes_[an.child2].height);
        sync(y);
        sync(a);
    }

    /// Centre of box i on axis k, doubled (min + max); NaN (-inf + inf) reads 0.
    T centre2(std::uint32_t i, int k) const {
        const T c = nodes_[i].box.min[k] + nodes_[i].box.max[k];
        return c == c ? c : T(0);
    }

    /// Builds a subtree over leaves [first, last) and returns its root.
    std::uint32_t build(std::uint32_t* first, std::uint32_t* last, int depth) {
        const std::size_t n = static_cast<std::size_t>(last - first);
        if (n == 1) return *first;
        std::uint32_t* mid = first + n / 2;
        if (n > 2) mid = split(first, last, depth);
        const std::uint32_t p = allocate_node();  // before its children: pre-order
        const std::uint32_t l = build(first, mid, depth + 1);
        const std::uint32_t r = build(mid, last, depth + 1);
        Node& pn = nodes_[p];
        pn.child1 = l;
        pn.child2 = r;
        pn.box = unite(nodes_[l].box, nodes_[r].box);
        pn.height = 1 + std::max(nodes_[l].height, nodes_[r].height);
        nodes_[l].parent = p;
        nodes_[r].parent = p;
        sync(p);
        return p;
    }

    /// Partitions [first, last) (n >= 3) and returns the split point, never
    /// first or last. Binned SAH over the centres on every axis; the median
    /// on the widest axis when no binned split is possible or the recursion
    /// is deep (which bounds the depth by about 48 + log2 n).
    std::uint32_t* split(std::uint32_t* first, std::uint32_t* last, int depth) {
        constexpr int bins = 16;
        const std::size_t n = static_cast<std::size_t>(last - first);
        std::array<T, D> lo, hi;
        for (int k = 0; k < D; ++k) {
            lo[k] = std::numeric_limits<T>::infinity();
            hi[k] = -std::numeric_limits<T>::infinity();
        }
        for (std::uint32_t* p = first; p != last; ++p)
            for (int k = 0; k < D; ++k) {
                const T c = centre2(*p, k);
                lo[k] = std::min(lo[k], c);
                hi[k] = std::max(hi[k], c);
            }
        int widest = 0;
        double widest_ext = -1;
        for (int k = 0; k < D; ++k) {
            const double e = static_cast<double>(hi[k]) - static_cast<double>(lo[k]);
            if (e > widest_ext || e != e) widest = k, widest_ext = (e == e ? e : std::numeric_limits<double>::infinity());
        }
        auto median = [&]() {
            std::uint32_t* mid = first + n / 2;
            const int k = widest;
            std::nth_element(first, mid, last,
                             [&](std::uint32_t x, std::uint32_t y) { return centre2(x, k) < centre2(y, k); });
            return mid;
        };
        if (depth > 48) return median();

        // Binned SAH: cost of a split = count_left * area_left + count_right * area_right.
        double best_cost = std::numeric_limits<double>::infinity();
        int best_axis = -1, best_bin = 0;
        for (int k = 0; k < D; ++k) {
            const double l = static_cast<double>(lo[k]), h = static_cast<double>(hi[k]);
            const double ext = h - l;
            if (!(ext > 0) || !std::isfinite(ext)) continue;
            const double scale = bins / ext;
            std::array<std::size_t, bins> count{};
            std::array<box_type, bins> bbox;
            std::array<bool, bins> used{};
            for (std::uint32_t* p = first; p != last; ++p) {
                const int bin = bin_of(static_cast<double>(centre2(*p, k)), l, scale, bins);
                const box_type& b = nodes_[*p].box;
                bbox[bin] = used[bin] ? unite(bbox[bin], b) : b;
                used[bin] = true;
                ++count[bin];
            }
            // Right-to-left sweep of areas, then left to right.
            std::array<double, bins> right_area{};
            std::array<std::size_t, bins> right_count{};
            box_type acc{};
            bool have = false;
            std::size_t cnt = 0;
            for (int i = bins - 1; i > 0; --i) {
                if (used[i]) acc = have ? unite(acc, bbox[i]) : bbox[i], have = true;
                cnt += count[i];
                right_area[i] = have ? static_cast<double>(half_area(acc)) : 0.0;
                right_count[i] = cnt;
            }
            have = false;
            cnt = 0;
            for (int i = 0; i < bins - 1; ++i) {
                if (used[i]) acc = have ? unite(acc, bbox[i]) : bbox[i], have = true;
                cnt += count[i];
                if (cnt == 0 || right_count[i + 1] == 0) continue;
                const double cost = static_cast<double>(cnt) * static_cast<double>(half_area(acc)) +
                                    static_cast<double>(right_count[i + 1]) * right_area[i + 1];
                if (cost < best_cost) best_cost = cost, best_axis = k, best_bin = i;
            }
        }
        if (best_axis < 0) return median();
        const int k = best_axis;
        const double l = static_cast<double>(lo[k]);
        const double scale = bins / (static_cast<double>(hi[k]) - l);
        std::uint32_t* mid = std::partition(first, last, [&](std::uint32_t x) {
            return bin_of(static_cast<double>(centre2(x, k)), l, scale, bins) <= best_bin;
        });
        if (mid == first || mid == last) return median();
        return mid;
    }

    static int bin_of(double c, double lo, double scale, int bins) {
        const double f = (c - lo) * scale;
        if (!(f >= 0)) return 0;
        if (f >= bins - 1) return bins - 1;
        return static_cast<int>(f);
    }

    std::vector<Node> nodes_;          // the tree: what traversals read
    std::vector<box_type> tight_;      // per node index: leaves' tight boxes (what queries decide on)
    std::vector<std::uint64_t> user_;  // per node index: leaves' user values
    std::vector<Kids> kids_;           // per internal node: copies of its children's boxes (ray casts)
    std::vector<std::uint32_t> scratch_;
    std::uint32_t root_ = null;
    std::uint32_t free_ = null;
    std::size_t used_ = 0;
    std::size_t leaf_count_ = 0;
    T margin_ = default_margin;
    T factor_ = default_displacement_factor;
    std::int32_t slack_ = default_balance_slack;
};

using DynamicTree = BasicDynamicTree<float, 3>;

}  // namespace broadphase
