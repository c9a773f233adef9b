// Part of <broadphase/dynamic_tree.hpp>, which includes it at its end.
// What BasicDynamicTree's queries need in the caller's file (declared, with
// their contracts, in ../dynamic_tree.hpp, which includes this file and
// dynamic_tree_queries.hpp at its end, this one first): the small helpers
// only the tree uses (call-stack stacks, the conservative ray test that
// prunes ray casts, the argument checks), and the queries with their walk
// (dynamic_tree_queries.hpp), templates on the caller's callback, kept
// inline because they are the hot path. The settings, mutation and
// inspection (src/dynamic_tree/dynamic_tree_impl.hpp) and the node storage,
// insertion, removal and rotations (dynamic_tree_structure.hpp) are
// compiled in the library (src/dynamic_tree/dynamic_tree.cpp); header-only,
// dynamic_tree.hpp includes them too.
//
// Member functions here are defined `inline` as they were when written in
// the class body: compilers weigh that hint when inlining the query walks.
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

}  // namespace detail

// -- helpers the query walks call (the rest: src/dynamic_tree/dynamic_tree_impl.hpp) --

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


}  // namespace broadphase
