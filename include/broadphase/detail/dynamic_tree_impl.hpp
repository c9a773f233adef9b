// The bodies of BasicDynamicTree's members (declared, with their contracts,
// in ../dynamic_tree.hpp, which includes this file at its end) and the small
// helpers only the tree uses: call-stack stacks, the conservative ray test
// that prunes ray casts, the callback adapter.
//
// Member functions are defined `inline` as they were when written in the
// class body: compilers weigh that hint when inlining the query walks.
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

#include "../dynamic_tree.hpp"
#include "prefetch.hpp"

namespace broadphase {
namespace detail {

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

}  // namespace detail

// -- BasicDynamicTree: settings and mutation -----------------------------

template <class T, int D>
inline bool BasicDynamicTree<T, D>::set_margin(T margin) {
    if (!(margin >= T(0)) || !std::isfinite(margin)) return false;
    margin_ = margin;
    return true;
}

template <class T, int D>
inline bool BasicDynamicTree<T, D>::set_displacement_factor(T factor) {
    if (!(factor >= T(0)) || !std::isfinite(factor)) return false;
    factor_ = factor;
    return true;
}

template <class T, int D>
inline bool BasicDynamicTree<T, D>::set_balance_slack(int slack) {
    if (slack < 1) return false;
    slack_ = slack;
    return true;
}

template <class T, int D>
inline std::uint32_t BasicDynamicTree<T, D>::insert(const box_type& box, std::uint64_t user_value) {
    if (!box.valid()) return null;
    if (!ensure_free(root_ == null ? 1 : 2)) return null;
    const std::uint32_t leaf = allocate_node();
    Node& n = nodes_[leaf];
    n.box = fatten(box, vec_type{});
    n.child1 = n.child2 = null;
    n.height = 0;
    tight_[leaf] = box;
    user_[leaf] = user_value;
    ++leaf_count_;
    insert_leaf(leaf);
    return leaf;
}

template <class T, int D>
inline bool BasicDynamicTree<T, D>::remove(std::uint32_t id) {
    if (!contains(id)) return false;
    remove_leaf(id);
    free_node(id);
    --leaf_count_;
    return true;
}

template <class T, int D>
inline bool BasicDynamicTree<T, D>::move(std::uint32_t id, const box_type& box, const vec_type& displacement) {
    if (!contains(id) || !box.valid()) return false;
    vec_type disp = displacement;
    for (int k = 0; k < D; ++k)
        if (!std::isfinite(disp[k])) disp = vec_type{};
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::rebuild() {
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::clear() {
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::reserve(std::size_t proxies) {
    const std::size_t want = proxies == 0 ? 0 : 2 * proxies - 1;
    if (want > nodes_.size()) grow_to(std::min<std::size_t>(want, max_nodes));
}

// -- inspection ----------------------------------------------------------

template <class T, int D>
inline auto BasicDynamicTree<T, D>::quality() const -> Quality {
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

template <class T, int D>
inline std::string BasicDynamicTree<T, D>::validate() const {
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
    detail::SmallStack<std::uint32_t> stack;
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

// -- queries -------------------------------------------------------------

template <class T, int D>
template <class F>
inline bool BasicDynamicTree<T, D>::for_each_overlap(const box_type& q, F&& f) const {
    if (!q.valid()) return true;
    return walk_all([&](const box_type& b) { return overlaps(b, q); },
                    [&](std::uint32_t i) { return !overlaps(tight_[i], q) || detail::call_go_on(f, i); });
}

template <class T, int D>
inline void BasicDynamicTree<T, D>::query(const box_type& q, std::vector<std::uint32_t>& out) const {
    for_each_overlap(q, [&](std::uint32_t id) { out.push_back(id); });
}

template <class T, int D>
template <class F>
inline bool BasicDynamicTree<T, D>::for_each_containing(const vec_type& p, F&& f) const {
    for (int k = 0; k < D; ++k)
        if (p[k] != p[k]) return true;
    return walk_all([&](const box_type& b) { return box_contains_point(b, p); },
                    [&](std::uint32_t i) {
                        return !box_contains_point(tight_[i], p) || detail::call_go_on(f, i);
                    });
}

template <class T, int D>
template <class F>
inline bool BasicDynamicTree<T, D>::for_each_overlapping_sphere(const vec_type& center, T radius, F&& f) const {
    if (!(radius >= T(0))) return true;
    for (int k = 0; k < D; ++k)
        if (center[k] != center[k]) return true;
    return walk_all([&](const box_type& b) { return sphere_overlaps_box(center, radius, b); },
                    [&](std::uint32_t i) {
                        return !sphere_overlaps_box(center, radius, tight_[i]) || detail::call_go_on(f, i);
                    });
}

template <class T, int D>
inline auto BasicDynamicTree<T, D>::ray_cast(const vec_type& origin, const vec_type& direction, T max_t) const -> Hit {
    Hit best;
    if (!ray_ok(origin, direction, max_t)) return best;
    auto exact = [&](const box_type& b, T& t) { return ray_hits_box(origin, direction, max_t, b, t); };
    ray_walk(origin, direction, max_t, [] {}, nearest_leaf(exact, best));
    return best;
}

template <class T, int D>
template <class F>
inline bool BasicDynamicTree<T, D>::for_each_ray_hit(const vec_type& origin, const vec_type& direction, T max_t, F&& f) const {
    if (!ray_ok(origin, direction, max_t)) return true;
    return ray_walk(origin, direction, max_t, [] {}, [&](std::uint32_t i, T&) {
        T t = T(0);
        return !ray_hits_box(origin, direction, max_t, tight_[i], t) || detail::call_go_on(f, i, t);
    });
}

template <class T, int D>
inline auto BasicDynamicTree<T, D>::box_cast(const box_type& moving, const vec_type& displacement) const -> Hit {
    Hit best;
    if (!cast_ok(moving, displacement)) return best;
    auto exact = [&](const box_type& b, T& t) { return box_cast_hits_box(moving, displacement, b, t); };
    box_cast_walk(moving, displacement, [] {}, nearest_leaf(exact, best));
    return best;
}

template <class T, int D>
template <class F>
inline bool BasicDynamicTree<T, D>::for_each_box_cast_hit(const box_type& moving, const vec_type& displacement, F&& f) const {
    if (!cast_ok(moving, displacement)) return true;
    return box_cast_walk(moving, displacement, [] {}, [&](std::uint32_t i, T&) {
        T t = T(0);
        return !box_cast_hits_box(moving, displacement, tight_[i], t) || detail::call_go_on(f, i, t);
    });
}

template <class T, int D>
template <class F, class Filter>
inline auto BasicDynamicTree<T, D>::ray_cast_clipped(const vec_type& origin, const vec_type& direction, T max_t, F&& f,
                                                     Filter&& filter) const -> CastResult {
    CastResult r;
    r.clip = max_t;
    if (!ray_ok(origin, direction, max_t)) return r;
    // ray_hits_box() with the clip as its max_t: t0 does not depend on it,
    // so this is the brute-force hit with t <= clip.
    auto exact = [&](const box_type& b, T clip, T& t) { return ray_hits_box(origin, direction, clip, b, t); };
    ray_walk(origin, direction, max_t, [&] { ++r.nodes; },
             [&](std::uint32_t i, T& bound) { return clipped_leaf(i, bound, exact, f, filter, r); });
    return r;
}

template <class T, int D>
template <class F, class Filter>
inline auto BasicDynamicTree<T, D>::box_cast_clipped(const box_type& moving, const vec_type& displacement, F&& f,
                                                     Filter&& filter) const -> CastResult {
    CastResult r;
    r.clip = T(1);
    if (!cast_ok(moving, displacement)) return r;
    auto exact = [&](const box_type& b, T clip, T& t) {
        return box_cast_hits_box(moving, displacement, b, t) && t <= clip;
    };
    box_cast_walk(moving, displacement, [&] { ++r.nodes; },
                  [&](std::uint32_t i, T& bound) { return clipped_leaf(i, bound, exact, f, filter, r); });
    return r;
}

template <class T, int D>
template <class Exact, class F, class Filter>
inline bool BasicDynamicTree<T, D>::clipped_leaf(std::uint32_t i, T& bound, Exact& exact, F& f, Filter& filter,
                                                 CastResult& r) const {
    ++r.leaves;
    T t = T(0);
    if (!exact(tight_[i], r.clip, t) || !static_cast<bool>(filter(i))) return true;
    using R = std::invoke_result_t<F&, std::uint32_t, T>;
    if constexpr (std::is_void_v<R>) {
        f(i, t);
        return true;
    } else if constexpr (std::is_same_v<std::decay_t<R>, bool>) {
        if (f(i, t)) return true;
        r.stopped = true;
        return false;
    } else {
        const T a = static_cast<T>(f(i, t));
        if (a == T(0)) {
            r.stopped = true;
            return false;
        }
        if (a > T(0) && a < r.clip) r.clip = bound = a;  // NaN and negatives: ignored
        return true;
    }
}

template <class T, int D>
template <class Count, class Leaf>
inline bool BasicDynamicTree<T, D>::ray_walk(const vec_type& origin, const vec_type& direction, T max_t, Count&& count,
                                             Leaf&& leaf) const {
    detail::FastRay<T, D> fast;
    if (!fast.init(origin, direction, max_t)) {
        // A direction component so small that its inverse overflows:
        // prune with the exact (slower) test itself.
        auto exact = [&](const box_type& b, T& t) { return ray_hits_box(origin, direction, max_t, b, t); };
        auto exact_pair = [&](const Kids& k, T (&t)[2], bool (&h)[2]) {
            count();
            for (int j = 0; j < 2; ++j) h[j] = exact(kid_box(k, j), t[j]);
        };
        return walk(exact, exact_pair, leaf);
    }
    auto fast_root = [&](const box_type& b, T& t) { return fast.hit(b, t); };
    auto fast_pair = [&](const Kids& k, T (&t)[2], bool (&h)[2]) {
        count();
        fast.hit2(k.lo, k.hi, t, h);
    };
    return walk(fast_root, fast_pair, leaf);
}

template <class T, int D>
template <class Count, class Leaf>
inline bool BasicDynamicTree<T, D>::box_cast_walk(const box_type& moving, const vec_type& displacement, Count&& count,
                                                  Leaf&& leaf) const {
    auto test = [&](const box_type& b, T& t) { return box_cast_hits_box(moving, displacement, b, t); };
    auto pair = [&](const Kids& k, T (&t)[2], bool (&h)[2]) {
        count();
        for (int j = 0; j < 2; ++j) h[j] = test(kid_box(k, j), t[j]);
    };
    return walk(test, pair, leaf);
}

template <class T, int D>
template <class F>
inline bool BasicDynamicTree<T, D>::for_each_pair(F&& f) const {
    if (root_ == null) return true;
    struct Two {
        std::uint32_t a, b;
    };
    detail::SmallStack<std::uint32_t> nodes;
    detail::SmallStack<Two, 128> cross;
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
                    if (!detail::call_go_on(f, x, y)) return false;
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::pairs(std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) const {
    for_each_pair([&](std::uint32_t a, std::uint32_t b) { out.emplace_back(a, b); });
}

// -- private helpers -----------------------------------------------------

template <class T, int D>
inline void BasicDynamicTree<T, D>::sync(std::uint32_t i) {
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

template <class T, int D>
inline auto BasicDynamicTree<T, D>::unite(const box_type& a, const box_type& b) -> box_type {
    box_type u;
    for (int k = 0; k < D; ++k) {
        u.min[k] = std::min(a.min[k], b.min[k]);
        u.max[k] = std::max(a.max[k], b.max[k]);
    }
    return u;
}

template <class T, int D>
inline T BasicDynamicTree<T, D>::half_area(const box_type& b) {
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

template <class T, int D>
inline auto BasicDynamicTree<T, D>::fatten(const box_type& b, const vec_type& disp) const -> box_type {
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

template <class T, int D>
inline bool BasicDynamicTree<T, D>::ray_ok(const vec_type& o, const vec_type& d, T max_t) {
    if (!(max_t >= T(0))) return false;
    for (int k = 0; k < D; ++k)
        if (!std::isfinite(o[k]) || !std::isfinite(d[k])) return false;
    return true;
}

template <class T, int D>
inline bool BasicDynamicTree<T, D>::cast_ok(const box_type& m, const vec_type& d) {
    if (!m.valid()) return false;
    for (int k = 0; k < D; ++k)
        if (!std::isfinite(d[k])) return false;
    return true;
}


// -- the query walk ------------------------------------------------------

template <class T, int D>
template <class RootHit, class PairHit, class Leaf>
inline bool BasicDynamicTree<T, D>::walk(RootHit&& root_hit, PairHit&& pair_hit, Leaf&& leaf) const {
    if (root_ == null) return true;
    {
        T t = T(0);
        if (!root_hit(nodes_[root_].box, t)) return true;
    }
    if (nodes_[root_].height == 0) {
        T bound = std::numeric_limits<T>::infinity();
        return leaf(root_, bound);
    }
    if (height() < 60) {
        detail::FixedStack<Entry, 60> stack;
        return walk_with(pair_hit, leaf, stack);
    }
    detail::SmallStack<Entry> stack;
    return walk_with(pair_hit, leaf, stack);
}

template <class T, int D>
template <class PairHit, class Leaf, class Stack>
inline bool BasicDynamicTree<T, D>::walk_with(PairHit& pair_hit, Leaf& leaf, Stack& stack) const {
    // A local the leaves lower through a reference: it stays in a register
    // once the leaf is inlined.
    T bound = std::numeric_limits<T>::infinity();
    std::uint32_t i = root_;
    for (;;) {
        const Kids& k = kids_[i];
        // Both children fetched while this node's test runs: the walk
        // is bound by these dependent loads more than by the tests.
        prefetch(k, 0);
        prefetch(k, 1);
        T t[2] = {T(0), T(0)};
        bool h[2];
        pair_hit(k, t, h);
        h[0] = h[0] && t[0] <= bound;
        h[1] = h[1] && t[1] <= bound;
        if (h[0] && k.leaf[0]) {
            h[0] = false;
            if (!leaf(k.child[0], bound)) return false;
        }
        if (h[1] && k.leaf[1]) {
            h[1] = false;
            if (!leaf(k.child[1], bound)) return false;
        }
        // A leaf may have lowered the bound: the checks below see it.
        if (h[0] && h[1]) {
            const int near = t[1] < t[0] ? 1 : 0;
            stack.push({k.child[1 - near], t[1 - near]});
            i = k.child[near];
            continue;
        }
        if (h[0] && t[0] <= bound) {
            i = k.child[0];
            continue;
        }
        if (h[1] && t[1] <= bound) {
            i = k.child[1];
            continue;
        }
        for (;;) {
            if (stack.empty()) return true;
            const Entry e = stack.pop();
            if (e.t <= bound) {
                i = e.node;
                break;
            }
        }
    }
}

template <class T, int D>
template <class NodeHit, class Leaf>
inline bool BasicDynamicTree<T, D>::walk_all(NodeHit&& node_hit, Leaf&& leaf) const {
    auto root = [&](const box_type& b, T&) { return node_hit(b); };
    auto pair = [&](const Kids& k, T (&)[2], bool (&h)[2]) {
        h[0] = node_hit(kid_box(k, 0));
        h[1] = node_hit(kid_box(k, 1));
    };
    return walk(root, pair, [&](std::uint32_t i, T&) { return leaf(i); });
}

template <class T, int D>
template <class LeafHit>
inline auto BasicDynamicTree<T, D>::nearest_leaf(LeafHit& leaf_hit, Hit& best) const {
    return [this, &leaf_hit, &best](std::uint32_t i, T& bound) {
        T t = T(0);
        if (leaf_hit(tight_[i], t) && (t < bound || (t == bound && (best.proxy == null || i < best.proxy)))) {
            best.proxy = i;
            best.t = t;
            bound = t;
        }
        return true;
    };
}

template <class T, int D>
inline void BasicDynamicTree<T, D>::prefetch(const Kids& k, int j) const {
    if (k.leaf[j])
        detail::prefetch_read(&tight_[k.child[j]]);
    else
        detail::prefetch_read(&kids_[k.child[j]]);
}

template <class T, int D>
inline auto BasicDynamicTree<T, D>::kid_box(const Kids& k, int j) -> box_type {
    box_type b;
    for (int a = 0; a < D; ++a) {
        b.min[a] = k.lo[a][j];
        b.max[a] = k.hi[a][j];
    }
    return b;
}

// -- node storage --------------------------------------------------------

template <class T, int D>
inline bool BasicDynamicTree<T, D>::grow_to(std::size_t cap) {
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

template <class T, int D>
inline bool BasicDynamicTree<T, D>::ensure_free(std::size_t k) {
    const std::size_t free_count = nodes_.size() - used_;
    if (free_count >= k) return true;
    const std::size_t need = nodes_.size() + (k - free_count);
    if (need > max_nodes) return false;
    const std::size_t cap = std::min(max_nodes, std::max({need, nodes_.size() * 2, std::size_t(16)}));
    return grow_to(cap);
}

template <class T, int D>
inline std::uint32_t BasicDynamicTree<T, D>::allocate_node() {
    const std::uint32_t i = free_;
    Node& n = nodes_[i];
    free_ = n.parent;
    n.parent = n.child1 = n.child2 = null;
    n.height = 0;
    ++used_;
    return i;
}

template <class T, int D>
inline void BasicDynamicTree<T, D>::free_node(std::uint32_t i) {
    Node& n = nodes_[i];
    n.height = -1;
    n.child1 = n.child2 = null;
    n.parent = free_;
    free_ = i;
    --used_;
}

// -- structure -----------------------------------------------------------

template <class T, int D>
inline std::uint32_t BasicDynamicTree<T, D>::find_sibling(const box_type& b) const {
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::insert_leaf(std::uint32_t leaf) {
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::replace_child(std::uint32_t parent, std::uint32_t from, std::uint32_t to) {
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::remove_leaf(std::uint32_t leaf) {
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::refit_up(std::uint32_t i) {
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

template <class T, int D>
inline std::uint32_t BasicDynamicTree<T, D>::balance(std::uint32_t a) {
    const std::uint32_t b = nodes_[a].child1, c = nodes_[a].child2;
    const std::int32_t hb = nodes_[b].height, hc = nodes_[c].height;
    if (hc > hb + slack_) return promote(a, c, b);
    if (hb > hc + slack_) return promote(a, b, c);
    return a;
}

template <class T, int D>
inline std::uint32_t BasicDynamicTree<T, D>::promote(std::uint32_t a, std::uint32_t tall, std::uint32_t other) {
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::rotate(std::uint32_t a) {
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

template <class T, int D>
inline void BasicDynamicTree<T, D>::swap_down(std::uint32_t a, std::uint32_t x, std::uint32_t y, bool first) {
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

template <class T, int D>
inline T BasicDynamicTree<T, D>::centre2(std::uint32_t i, int k) const {
    const T c = nodes_[i].box.min[k] + nodes_[i].box.max[k];
    return c == c ? c : T(0);
}

template <class T, int D>
inline std::uint32_t BasicDynamicTree<T, D>::build(std::uint32_t* first, std::uint32_t* last, int depth) {
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

template <class T, int D>
inline std::uint32_t* BasicDynamicTree<T, D>::split(std::uint32_t* first, std::uint32_t* last, int depth) {
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

template <class T, int D>
inline int BasicDynamicTree<T, D>::bin_of(double c, double lo, double scale, int bins) {
    const double f = (c - lo) * scale;
    if (!(f >= 0)) return 0;
    if (f >= bins - 1) return bins - 1;
    return static_cast<int>(f);
}

}  // namespace broadphase
