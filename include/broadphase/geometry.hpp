// Geometry tests against one axis-aligned box: box overlap and containment,
// point, sphere, ray (or segment) and moving box. Every part of the library
// that asks one of these questions calls the function here; there is no
// second copy.
//
// All boxes are closed: a box holds its faces, edges and corners, so touching
// counts as overlapping (two boxes sharing a face overlap, a point on a face
// is contained, a ray grazing an edge hits).
//
// Each test is O(D) (D the number of axes), allocates nothing, and is safe to
// call from any number of threads.
//
// NaN: the tests are written for valid boxes (min <= max on every axis, see
// BasicBox::valid(); infinite coordinates are fine) and NaN-free queries. What
// a NaN does is documented per function, but callers that may see NaN should
// check first, as the dynamic tree and the scenes do: they reject an invalid
// box or a NaN query before any of these runs.
//
// Monotone in the box: if box A contains box B, whatever a test finds in B it
// also finds in A, with an entry parameter t no greater (the same operations
// run on both boxes and IEEE rounding is monotone). This is what lets a tree
// prune with the very same function it decides with.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

// BasicBox. boxes.hpp includes this header, so `#include
// <broadphase/boxes.hpp>` alone also gives every test here.
#include "box.hpp"
#include "detail/box_rules.hpp"

namespace broadphase {

/// X in a non-deduced context (C++20's std::type_identity): in the calls
/// below the scalar type comes from the box argument alone, so a double
/// literal works as a float radius or max_t.
template <class X>
struct nondeduced {
    using type = X;
};
template <class X>
using nondeduced_t = typename nondeduced<X>::type;
/// A point or a vector, std::array<T, D>, in a non-deduced context
/// (std::array's size is a size_t, the library's D an int): a braced list
/// works as a point.
template <class T, int D>
using vec_of = nondeduced_t<std::array<T, static_cast<std::size_t>(D)>>;

namespace detail {

/// One axis of a slab test: narrows [t0, t1] to the times t with
/// lo <= t*d <= hi and returns false when nothing is left. A zero d keeps
/// [t0, t1] when lo <= 0 <= hi and empties it otherwise. A NaN in lo, hi or
/// d constrains nothing (every comparison with it is false). The ray and the
/// box cast below are this test on each axis, with their own lo and hi.
template <class T>
inline bool clip_slab(T lo, T hi, T d, T& t0, T& t1) {
    if (d == T(0)) return !(lo > T(0) || hi < T(0));
    T a = lo / d;
    T c = hi / d;
    if (d < T(0)) std::swap(a, c);
    if (a > t0) t0 = a;
    if (c < t1) t1 = c;
    return !(t0 > t1);
}
}  // namespace detail

// ---------------------------------------------------------------------------
// Box against box
// ---------------------------------------------------------------------------

/// True when the closed boxes a and b overlap: on every axis their intervals
/// share at least one point (touching faces, edges and corners count). O(D),
/// at most 2*D comparisons, stops at the first separating axis.
/// NaN: an axis where a comparison involves NaN is not a separating axis, so
/// a box with NaN on every axis overlaps everything; check valid() first.
template <class T, int D>
inline bool overlaps(const BasicBox<T, D>& a, const BasicBox<T, D>& b) {
    for (int k = 0; k < D; ++k)
        if (!detail::intervals_overlap(a.min[k], a.max[k], b.min[k], b.max[k])) return false;
    return true;
}

/// True when `inner` lies inside the closed box `outer` (shared faces
/// count: a box contains itself). O(D), stops at the first axis that fails.
/// NaN: false when either box has a NaN.
template <class T, int D>
inline bool contains(const BasicBox<T, D>& outer, const BasicBox<T, D>& inner) {
    for (int k = 0; k < D; ++k)
        if (!(outer.min[k] <= inner.min[k] && inner.max[k] <= outer.max[k])) return false;
    return true;
}

// ---------------------------------------------------------------------------
// Point, sphere, ray and moving box against a box
// ---------------------------------------------------------------------------

/// True when point p lies in the closed box b (on a face counts). O(D), at
/// most 2*D comparisons. NaN: false when p or b has a NaN.
template <class T, int D>
inline bool box_contains_point(const BasicBox<T, D>& b, const vec_of<T, D>& p) {
    for (int k = 0; k < D; ++k)
        if (!(b.min[k] <= p[k] && p[k] <= b.max[k])) return false;
    return true;
}

/// True when the closed sphere (centre c, radius r) touches the closed box
/// b: the squared distance from c to the box, summed axis by axis in T, is
/// at most r*r (touching counts; r = 0 is a point test). O(D): per axis two
/// comparisons, a subtraction, a multiply-add. Expects r >= 0 (+inf touches
/// every box).
/// NaN: a NaN r gives false; a NaN centre coordinate counts as inside the
/// box's slab on that axis (the test does not reject it: check first).
template <class T, int D>
inline bool sphere_overlaps_box(const vec_of<T, D>& c, nondeduced_t<T> r, const BasicBox<T, D>& b) {
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

/// The ray origin + t * direction, t in [0, max_t], against the closed box b
/// (the slab test; with a finite max_t it is a segment test). On a hit,
/// t_out is the smallest such t at which the ray is in the box (0 when the
/// origin is inside); on a miss t_out is not written. O(D): per axis two
/// divisions and four comparisons, stops at the first axis that empties the
/// interval. The direction need not be unit length (with a unit direction t
/// is the distance).
///
/// Robust by construction: an axis with a zero direction component is a
/// containment test of the origin on that axis (no 1/0, no 0*inf); the slab
/// distances are divisions (b.min - o) / d, never multiplications by a
/// precomputed inverse, so a tiny d gives +-inf, never NaN. A zero direction
/// or max_t == 0 makes it a point test at the origin (t = 0). Expects a
/// finite origin and direction, max_t >= 0 (+inf allowed) and a valid box
/// (infinite coordinates allowed).
/// NaN: a NaN in the origin or direction puts no constraint on that axis,
/// and a NaN max_t none on the far end: check first.
template <class T, int D>
inline bool ray_hits_box(const vec_of<T, D>& origin, const vec_of<T, D>& direction,
                         nondeduced_t<T> max_t, const BasicBox<T, D>& b, T& t_out) {
    T t0 = T(0), t1 = max_t;
    for (int k = 0; k < D; ++k)
        if (!detail::clip_slab(T(b.min[k] - origin[k]), T(b.max[k] - origin[k]), direction[k], t0, t1)) return false;
    t_out = t0;
    return true;
}

/// The box `moving` swept along displacement v (at time t it is
/// moving + t*v, t in [0, 1]) against the closed box b: on a hit, t_out is
/// the first t at which they touch (0 when they overlap at the start,
/// consistent with overlaps()); on a miss t_out is not written. Per axis the
/// touching times are those with b.min - moving.max <= t*v <= b.max -
/// moving.min. O(D): per axis two subtractions, two divisions, four
/// comparisons. A zero v is overlaps(moving, b) at t = 0. Expects v finite
/// and both boxes valid (infinite coordinates allowed; inf - inf is read as
/// 0: two equal infinite faces touch).
/// NaN: a NaN component of v puts no constraint on that axis: check first.
template <class T, int D>
inline bool box_cast_hits_box(const BasicBox<T, D>& moving, const vec_of<T, D>& v, const BasicBox<T, D>& b,
                              T& t_out) {
    T t0 = T(0), t1 = T(1);
    for (int k = 0; k < D; ++k) {
        T lo = b.min[k] - moving.max[k];
        T hi = b.max[k] - moving.min[k];
        if (lo != lo) lo = T(0);
        if (hi != hi) hi = T(0);
        if (!detail::clip_slab(lo, hi, v[k], t0, t1)) return false;
    }
    t_out = t0;
    return true;
}

}  // namespace broadphase
