// Narrow phases for the point-cloud challenge (examples/pointclouds/README.md):
// do two point clouds collide?
//
// Two clouds collide when some point of one lies at distance strictly below 1
// from some point of the other: |p - q| < 1. Clouds are the lattice clouds of
// broadphase_fixtures (125 points, x y z each, point i + 5j + 25k at offset
// 3 * (i + 5j + 25k)), with their exact AABBs (`bounds`) and broad-phase boxes
// (`boxes`, the AABBs grown by 0.5: clouds can collide without their AABBs
// overlapping, up to 1 apart).
//
// Three narrow phases, all giving the same answer on every pair, bit for bit:
//
// - brute:   the adaptive-grid article's reference (see scenes.hpp). Every
//            point of one cloud against every point of the other (125 x 125),
//            sqrt of the squared distance, stop at the first hit. Up to 15,625
//            distances per pair.
// - pruned:  any point clouds with bounding boxes. Keeps only the points of each
//            cloud that lie within the other's box grown by 1 (the only ones that
//            can be that close), then tests the kept points pairwise on squared
//            distances, a SIMD-friendly inner loop with an exit after each row.
// - lattice: uses the lattice structure. A cloud is the Cartesian product of
//            three sets of 5 coordinates, so the squared distance of the closest
//            point pair is the sum, over the axes, of the smallest squared
//            difference between the two clouds' 5 coordinates on that axis:
//            3 x 25 differences per pair, with an exit after each axis.
//
// Why they agree exactly (not just up to rounding): every narrow phase computes
// a point pair's squared distance as (dx*dx + dy*dy) + dz*dz with dx = px - qx in
// float, and rounded float addition, multiplication and sqrt never decrease when
// an argument grows. Hence
// - sqrt(d2) < 1 exactly when d2 < 1 (sqrt is correctly rounded and sqrt(1) = 1);
// - the smallest (dx*dx + dy*dy) + dz*dz over all point pairs of two lattice
//   clouds is (min dx*dx + min dy*dy) + min dz*dz, the x, y and z differences
//   being chosen independently;
// - if (box_b.min.x - p.x) >= 1 in float, every q of b has (q.x - p.x) >= 1 in
//   float, so p is farther than 1 from all of b (same for the other sides).
// This needs plain IEEE float arithmetic: no -ffast-math, and no contraction of
// a*b + c into a fused multiply-add that one loop would do and another not, so
// the targets using this header are built with -ffp-contract=off.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase_fixtures/scenes.hpp>

namespace pointclouds {

using broadphase::Box;
using broadphase::Pair;
using broadphase_fixtures::cloud_points;
using broadphase_fixtures::cloud_side;

enum class Narrow { lattice, pruned, brute };

inline const char* to_string(Narrow n) {
    switch (n) {
        case Narrow::lattice: return "lattice";
        case Narrow::pruned: return "pruned";
        case Narrow::brute: return "brute";
    }
    return "?";
}

inline bool parse_narrow(const std::string& name, Narrow& out) {
    for (Narrow n : {Narrow::lattice, Narrow::pruned, Narrow::brute})
        if (name == to_string(n)) {
            out = n;
            return true;
        }
    return false;
}

/// The adaptive-grid article's reference: all 125 x 125 point pairs, a sqrt distance each,
/// stop at the first pair closer than 1. O(125^2) when apart, less on a hit.
inline bool collide_brute(const float* a, const float* b) {
    for (int i = 0; i < cloud_points; ++i) {
        const float px = a[3 * i], py = a[3 * i + 1], pz = a[3 * i + 2];
        for (int j = 0; j < cloud_points; ++j) {
            const float dx = px - b[3 * j], dy = py - b[3 * j + 1], dz = pz - b[3 * j + 2];
            if (std::sqrt(dx * dx + dy * dy + dz * dz) < 1.0f) return true;
        }
    }
    return false;
}

namespace detail {

/// Copies the points of `cloud` within `box` grown by 1 (those that can be
/// closer than 1 to a point inside `box`) to x, y, z; returns how many.
inline int points_near_box(const float* cloud, const Box& box, float* x, float* y, float* z) {
    int n = 0;
    for (int i = 0; i < cloud_points; ++i) {
        const float px = cloud[3 * i], py = cloud[3 * i + 1], pz = cloud[3 * i + 2];
        const bool near = (box.min[0] - px) < 1.0f && (px - box.max[0]) < 1.0f &&  //
                          (box.min[1] - py) < 1.0f && (py - box.max[1]) < 1.0f &&  //
                          (box.min[2] - pz) < 1.0f && (pz - box.max[2]) < 1.0f;
        // Branch-free compaction: always write, advance only when kept.
        x[n] = px;
        y[n] = py;
        z[n] = pz;
        n += near ? 1 : 0;
    }
    return n;
}

}  // namespace detail

/// Any two point clouds (125 points each) with boxes bounding them: only the
/// points of each within the other's box grown by 1, then squared distances
/// between those, a row at a time. O(125) to filter, then O(kept_a x kept_b).
inline bool collide_pruned(const float* a, const Box& box_a, const float* b, const Box& box_b) {
    alignas(64) float ax[cloud_points], ay[cloud_points], az[cloud_points];
    alignas(64) float bx[cloud_points], by[cloud_points], bz[cloud_points];
    const int na = detail::points_near_box(a, box_b, ax, ay, az);
    if (na == 0) return false;
    const int nb = detail::points_near_box(b, box_a, bx, by, bz);
    if (nb == 0) return false;
    for (int i = 0; i < na; ++i) {
        const float px = ax[i], py = ay[i], pz = az[i];
        int hits = 0;  // an integer sum, which compilers vectorise without -ffast-math
        for (int j = 0; j < nb; ++j) {
            const float dx = px - bx[j], dy = py - by[j], dz = pz - bz[j];
            hits += (dx * dx + dy * dy + dz * dz) < 1.0f ? 1 : 0;
        }
        if (hits != 0) return true;
    }
    return false;
}

namespace detail {

/// The smallest (a_i - b_j)^2 over the 5 x 5 coordinates of two lattice clouds
/// on one axis; `stride` is the distance in floats between consecutive
/// lattice coordinates on that axis (3 for x, 15 for y, 75 for z).
inline float min_square_difference(const float* a, const float* b, int stride) {
    float av[cloud_side], bv[cloud_side];
    for (int i = 0; i < cloud_side; ++i) {
        av[i] = a[i * stride];
        bv[i] = b[i * stride];
    }
    float m[cloud_side];
    for (int i = 0; i < cloud_side; ++i) {
        const float d0 = av[i] - bv[0], d1 = av[i] - bv[1], d2 = av[i] - bv[2], d3 = av[i] - bv[3],
                    d4 = av[i] - bv[4];
        m[i] = std::min(std::min(std::min(d0 * d0, d1 * d1), std::min(d2 * d2, d3 * d3)), d4 * d4);
    }
    return std::min(std::min(std::min(m[0], m[1]), std::min(m[2], m[3])), m[4]);
}

}  // namespace detail

/// Two lattice clouds (see broadphase_fixtures::make_point_cloud): the closest
/// pair's squared distance is the sum over the axes of the smallest squared
/// coordinate difference. 75 differences at most, stops at the first axis
/// where the clouds are 1 or more apart. O(1).
inline bool collide_lattice(const float* a, const float* b) {
    const float mx = detail::min_square_difference(a + 0, b + 0, 3);
    if (!(mx < 1.0f)) return false;
    const float my = detail::min_square_difference(a + 1, b + 1, 3 * cloud_side);
    if (!(mx + my < 1.0f)) return false;
    const float mz = detail::min_square_difference(a + 2, b + 2, 3 * cloud_side * cloud_side);
    return (mx + my) + mz < 1.0f;
}

/// True when `cloud` is a lattice cloud as collide_lattice needs: point
/// i + 5j + 25k has x of point i, y of point 5j and z of point 25k. O(125).
inline bool is_lattice(const float* cloud) {
    for (int k = 0; k < cloud_side; ++k)
        for (int j = 0; j < cloud_side; ++j)
            for (int i = 0; i < cloud_side; ++i) {
                const float* p = cloud + 3 * (i + cloud_side * j + cloud_side * cloud_side * k);
                if (p[0] != cloud[3 * i] || p[1] != cloud[3 * cloud_side * j + 1] ||
                    p[2] != cloud[3 * cloud_side * cloud_side * k + 2])
                    return false;
            }
    return true;
}

/// The box of a cloud's points, from the points themselves. O(125).
inline Box bounds_of(const float* cloud) {
    Box b;
    for (int k = 0; k < 3; ++k) b.min[k] = b.max[k] = cloud[k];
    for (int i = 1; i < cloud_points; ++i)
        for (int k = 0; k < 3; ++k) {
            b.min[k] = std::min(b.min[k], cloud[3 * i + k]);
            b.max[k] = std::max(b.max[k], cloud[3 * i + k]);
        }
    return b;
}

/// One pair through the chosen narrow phase (the boxes are used by `pruned`).
inline bool collide(Narrow kind, const float* a, const Box& box_a, const float* b, const Box& box_b) {
    switch (kind) {
        case Narrow::lattice: return collide_lattice(a, b);
        case Narrow::pruned: return collide_pruned(a, box_a, b, box_b);
        case Narrow::brute: return collide_brute(a, b);
    }
    return false;
}

/// The narrow phase of a frame: the candidate pairs (from the broad phase)
/// whose clouds collide, in candidate order, into `out` (replaced; its memory
/// is reused). O(candidates) times the narrow phase's cost.
inline void colliding_pairs(Narrow kind, const broadphase_fixtures::PointClouds& clouds,
                            const std::vector<Pair>& candidates, std::vector<Pair>& out) {
    out.clear();
    const broadphase::Boxes& bounds = clouds.bounds;
    switch (kind) {  // one loop per kind, so the call inlines into it
        case Narrow::lattice:
            for (const Pair& p : candidates)
                if (collide_lattice(clouds.cloud(p.a), clouds.cloud(p.b))) out.push_back(p);
            return;
        case Narrow::pruned:
            for (const Pair& p : candidates)
                if (collide_pruned(clouds.cloud(p.a), bounds[p.a], clouds.cloud(p.b), bounds[p.b])) out.push_back(p);
            return;
        case Narrow::brute:
            for (const Pair& p : candidates)
                if (collide_brute(clouds.cloud(p.a), clouds.cloud(p.b))) out.push_back(p);
            return;
    }
}

/// The reference answer without any broad phase: every pair a < b of the
/// clouds through the brute narrow phase, in (a, b) order. O(n^2 x 125^2).
/// With `skip_far`, a pair is first skipped when, on some axis, the gap
/// between the two clouds' point bounds (computed here from the points) is 1
/// or more in float: such clouds cannot collide (see the top of this file), and
/// the brute narrow phase on them costs the full 125^2. That keeps the O(n^2)
/// reference affordable for thousands of clouds.
inline void reference_colliding_pairs(const broadphase_fixtures::PointClouds& clouds, bool skip_far,
                                      std::vector<Pair>& out) {
    out.clear();
    const std::size_t n = clouds.size();
    std::vector<Box> bounds(n);
    for (std::size_t i = 0; i < n; ++i) bounds[i] = bounds_of(clouds.cloud(i));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            if (skip_far) {
                const Box& p = bounds[i];
                const Box& q = bounds[j];
                bool far = false;
                for (int k = 0; k < 3; ++k) far = far || (q.min[k] - p.max[k]) >= 1.0f || (p.min[k] - q.max[k]) >= 1.0f;
                if (far) continue;
            }
            if (collide_brute(clouds.cloud(i), clouds.cloud(j)))
                out.push_back(Pair{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
        }
}

}  // namespace pointclouds
