// Part of <broadphase/dynamic_tree.hpp>, which includes it at its end.
// BasicDynamicTree's queries (declared, with their contracts, in
// ../dynamic_tree.hpp) and the walk they share: box, point, sphere, ray and
// box-cast queries, all pairs. See dynamic_tree_impl.hpp for the rest.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "prefetch.hpp"

namespace broadphase {

// -- queries -------------------------------------------------------------

template <class T, int D>
template <class F>
inline bool BasicDynamicTree<T, D>::for_each_overlap(const box_type& q, F&& f) const {
    if (!q.valid()) return true;
    return walk_all([&](const box_type& b) { return overlaps(b, q); },
                    [&](std::uint32_t i) { return !overlaps(tight_[i], q) || detail::call_go_on(f, i); });
}

template <class T, int D>
inline std::size_t BasicDynamicTree<T, D>::query(const box_type& q, std::vector<std::uint32_t>& out) const {
    out.clear();
    for_each_overlap(q, [&](std::uint32_t id) { out.push_back(id); });
    return out.size();
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
inline std::size_t BasicDynamicTree<T, D>::pairs(std::vector<Pair>& out) const {
    out.clear();
    for_each_pair([&](std::uint32_t a, std::uint32_t b) { out.push_back(Pair{a, b}); });
    return out.size();
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

}  // namespace broadphase
