// DynamicTree::ray_cast_clipped / box_cast_clipped and the Scene's forms
// against brute force over every box (float 3-D, fixed seeds).
//
// For each cast the callback is driven three ways and each result compared
// with a scan of all tight boxes (the same predicates, geometry.hpp):
//   - continue on every hit: the (id, t) set must equal the scan's, filter
//     applied, clip unchanged;
//   - clip to each box hit (nearest box): the kept t must be the scan's
//     smallest t, its id one of the boxes at that t;
//   - a narrow phase: each box holds a sphere, the callback computes the
//     exact ray-sphere hit and clips to it: the nearest sphere hit must be
//     the scan's, and the clipped cast must do less work than the unclipped.
// Then hand-made cases: rays along faces and edges, zero-length and
// axis-parallel rays, touching boxes, origins inside, a filtered-out nearest
// box, stopping at once, ignore/NaN answers, the work saved by clipping.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <broadphase/dynamic_tree.hpp>
#include <broadphase/scene.hpp>

namespace {

using broadphase::Box;
using broadphase::DynamicTree;
using V = std::array<float, 3>;
using Id = std::uint32_t;
constexpr float kInf = std::numeric_limits<float>::infinity();

/// The sphere inside box b (narrow-phase shape of the tests): centre, radius.
struct Sphere {
    V c;
    float r;
};
Sphere sphere_in(const Box& b) {
    Sphere s{};
    float h = kInf;
    for (int k = 0; k < 3; ++k) {
        s.c[k] = 0.5f * (b.min[k] + b.max[k]);
        h = std::min(h, 0.5f * (b.max[k] - b.min[k]));
    }
    s.r = 0.9f * h;  // strictly inside: its hit is never before the box's
    return s;
}
/// First t in [0, max_t] where origin + t * d is in the closed sphere; -1 if none.
float ray_sphere(const V& o, const V& d, float max_t, const Sphere& s) {
    float a = 0, b = 0, c = -s.r * s.r;
    for (int k = 0; k < 3; ++k) {
        const float m = o[k] - s.c[k];
        a += d[k] * d[k];
        b += m * d[k];
        c += m * m;
    }
    if (c <= 0) return 0;
    if (a == 0 || b > 0) return -1;
    const float disc = b * b - a * c;
    if (disc < 0) return -1;
    const float t = std::max(0.0f, (-b - std::sqrt(disc)) / a);
    return t <= max_t ? t : -1;
}

/// A tree over `boxes` (user value = index) and the brute-force checks.
struct Fixture {
    std::vector<Box> boxes;
    std::vector<Id> ids;  // the proxy of each box
    DynamicTree tree;
    std::size_t clipped_calls = 0, unclipped_calls = 0, clipped_nodes = 0, unclipped_nodes = 0;

    void build(bool rebuild) {
        tree.clear();
        ids.clear();
        for (std::size_t i = 0; i < boxes.size(); ++i) ids.push_back(tree.insert(boxes[i], i));
        if (rebuild) tree.rebuild();
    }
    /// Drops every fifth box (by index).
    bool filter(Id id) const { return tree.user_value(id) % 5 != 2; }
    const Box& box_of(Id id) const { return boxes[tree.user_value(id)]; }

    // The cast under test, as one function of (f, filter) -> CastResult, and
    // its per-box test, so that rays and box casts share the checks.
    template <class Cast, class Exact, class Narrow>
    void check(Cast&& cast, Exact&& exact, float max_t, Narrow&& narrow) {
        // Brute force: every filtered box hit, the nearest box t, the nearest narrow-phase t.
        std::set<std::pair<Id, float>> all;
        float best_box = kInf, best_narrow = kInf;
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            float t = 0;
            if (!filter(ids[i]) || !exact(boxes[i], t)) continue;
            all.insert({ids[i], t});
            best_box = std::min(best_box, t);
            const float s = narrow(ids[i], max_t);
            if (s >= 0) best_narrow = std::min(best_narrow, s);
        }
        // 1. Continue on every hit.
        std::set<std::pair<Id, float>> got;
        auto r = cast([&](Id id, float t) {
            EXPECT_TRUE(got.insert({id, t}).second) << "reported twice: " << id;
            return DynamicTree::cast_continue;
        });
        EXPECT_EQ(got, all);
        EXPECT_EQ(r.clip, max_t);
        EXPECT_FALSE(r.stopped);
        // 2. Clip to every box hit: the nearest box.
        Id best_id = DynamicTree::null;
        float best_t = kInf;
        r = cast([&](Id id, float t) {
            EXPECT_LE(t, best_t);  // never beyond the clip
            if (t < best_t) best_t = t, best_id = id;
            return t > 0 ? t : DynamicTree::cast_stop;
        });
        if (all.empty()) {
            EXPECT_EQ(best_id, DynamicTree::null);
        } else {
            EXPECT_EQ(best_t, best_box);
            EXPECT_EQ(all.count({best_id, best_t}), 1u);
            EXPECT_EQ(r.stopped, best_box == 0);
            if (best_box > 0) {
                EXPECT_EQ(r.clip, best_box);
            }
        }
        // 3. Narrow phase: clip to each sphere hit, ignore misses.
        float found = kInf;
        std::size_t calls = 0;
        r = cast([&](Id id, float t) {
            ++calls;
            EXPECT_LE(t, found);
            const float s = narrow(id, std::min(found, max_t));
            if (s < 0) return DynamicTree::cast_ignore;
            found = std::min(found, s);
            return s;  // 0 (origin inside) stops: nothing is nearer
        });
        EXPECT_EQ(found, best_narrow);
        clipped_calls += calls;
        clipped_nodes += r.nodes;
        // The same narrow phase without clipping: the work to compare with.
        calls = 0;
        r = cast([&](Id, float) { ++calls; });
        unclipped_calls += calls;
        unclipped_nodes += r.nodes;
        EXPECT_EQ(calls, all.size());
    }

    void ray(const V& o, const V& d, float max_t) {
        SCOPED_TRACE(::testing::Message() << "ray o=(" << o[0] << "," << o[1] << "," << o[2] << ") d=(" << d[0] << ","
                                          << d[1] << "," << d[2] << ") max_t=" << max_t);
        check([&](auto f) { return tree.ray_cast_clipped(o, d, max_t, f, [&](Id id) { return filter(id); }); },
              [&](const Box& b, float& t) { return broadphase::ray_hits_box(o, d, max_t, b, t); }, max_t,
              [&](Id id, float m) { return ray_sphere(o, d, m, sphere_in(box_of(id))); });
    }

    void box_cast(const Box& m, const V& d) {
        SCOPED_TRACE(::testing::Message() << "box cast d=(" << d[0] << "," << d[1] << "," << d[2] << ")");
        // Narrow phase of a box cast: the swept box's centre against the sphere.
        V c;
        for (int k = 0; k < 3; ++k) c[k] = 0.5f * (m.min[k] + m.max[k]);
        check([&](auto f) { return tree.box_cast_clipped(m, d, f, [&](Id id) { return filter(id); }); },
              [&](const Box& b, float& t) { return broadphase::box_cast_hits_box(m, d, b, t); }, 1.0f,
              [&](Id id, float lim) { return ray_sphere(c, d, lim, sphere_in(box_of(id))); });
    }
};

float uniform(std::mt19937& g, float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(g); }

V random_point(std::mt19937& g, float lo, float hi) { return {uniform(g, lo, hi), uniform(g, lo, hi), uniform(g, lo, hi)}; }

TEST(CastClipped, RandomAgainstBruteForce) {
    for (unsigned seed : {1u, 2u, 3u}) {
        std::mt19937 g(seed);
        Fixture fx;
        for (int i = 0; i < 2000; ++i) {
            const V lo = random_point(g, 0, 50);
            Box b;
            for (int k = 0; k < 3; ++k) b.min[k] = lo[k], b.max[k] = lo[k] + uniform(g, 0.5f, 4);
            if (i > 0 && i % 50 == 0) b = fx.boxes[i / 2];  // duplicates: ties
            fx.boxes.push_back(b);
        }
        fx.build(seed == 3);
        for (int q = 0; q < 150; ++q) {
            const V o = random_point(g, -10, 60);
            V d = random_point(g, -10, 60);
            for (int k = 0; k < 3; ++k) d[k] -= o[k];
            if (q % 4 == 1) d = {0, 0, 0}, d[q % 3] = q % 8 < 4 ? 1.0f : -1.0f;  // axis-parallel
            const float max_t = q % 3 == 0 ? kInf : q % 3 == 1 ? 1.0f : uniform(g, 0, 2);
            fx.ray(o, d, q % 4 == 1 ? 30.0f : max_t);
            Box m;
            for (int k = 0; k < 3; ++k) m.min[k] = o[k], m.max[k] = o[k] + uniform(g, 0, 3);
            fx.box_cast(m, d);
        }
        // Clipping saves work: fewer narrow-phase calls, fewer nodes visited
        // (seed 1: 918 calls and 10,873 nodes clipped against 1,182 and 13,533;
        // these rays cross few boxes: StopIgnoreAndWork has a long row).
        EXPECT_LT(fx.clipped_calls, fx.unclipped_calls);
        EXPECT_LT(fx.clipped_nodes, fx.unclipped_nodes);
        std::printf("seed %u: clipped %zu calls %zu nodes, unclipped %zu calls %zu nodes\n", seed, fx.clipped_calls,
                    fx.clipped_nodes, fx.unclipped_calls, fx.unclipped_nodes);
    }
}

TEST(CastClipped, Adversarial) {
    Fixture fx;
    // A 10 x 3 x 1 slab of touching unit boxes, and a coincident pair at its end.
    for (int x = 0; x < 10; ++x)
        for (int y = 0; y < 3; ++y) fx.boxes.push_back({{float(x), float(y), 0}, {float(x + 1), float(y + 1), 1}});
    fx.boxes.push_back({{10, 0, 0}, {11, 1, 1}});
    fx.boxes.push_back({{10, 0, 0}, {11, 1, 1}});
    fx.build(false);
    const std::vector<std::pair<V, V>> rays = {
        {{-1, 0.5f, 0.5f}, {1, 0, 0}},   // along the row, through touching faces
        {{-1, 0, 0.5f}, {1, 0, 0}},      // along the face y = 0
        {{-1, 1, 0.5f}, {1, 0, 0}},      // along the face shared by two rows
        {{-1, 1, 1}, {1, 0, 0}},         // along an edge
        {{0.5f, 0.5f, 0.5f}, {1, 0, 0}}, // origin inside
        {{1, 1, 0}, {1, 1, 0}},          // origin on a corner, diagonal in a face
        {{2.5f, 5, 0.5f}, {0, -1, 0}},   // axis-parallel, from outside
        {{12, 0.5f, 0.5f}, {-1, 0, 0}},  // from the far side: the coincident pair first
        {{3.5f, 1.5f, 0.5f}, {0, 0, 0}}, // zero direction: point test
        {{3, 1, 1}, {0, 0, 0}},          // zero direction on a corner
        {{-1, 0.5f, 0.5f}, {1, 1e-39f, 0}},  // 1/d overflows: the exact test prunes
    };
    for (const auto& od : rays)
        for (float max_t : {kInf, 0.0f, 1.0f, 2.5f}) fx.ray(od.first, od.second, max_t);
    fx.box_cast({{-2, 0, 0}, {-1, 1, 1}}, {12, 0, 0});      // touching the row's faces all along
    fx.box_cast({{-2, 3, 0}, {-1, 4, 1}}, {12, 0, 0});      // sliding along y = 3
    fx.box_cast({{0.2f, 0.2f, 0.2f}, {0.4f, 0.4f, 0.4f}}, {0, 0, 0});  // inside, not moving

    // The nearest box filtered out: box 0 is first along the row; without
    // it, box 3 (column 1) at t = 2. The last call clipped to the nearest.
    Id first = DynamicTree::null;
    auto r = fx.tree.ray_cast_clipped({-1, 0.5f, 0.5f}, {1, 0, 0}, kInf,
                                      [&](Id id, float t) { return first = id, t; },
                                      [&](Id id) { return fx.tree.user_value(id) != 0; });
    ASSERT_NE(first, DynamicTree::null);
    EXPECT_EQ(fx.tree.user_value(first), 3u);
    EXPECT_EQ(r.clip, 2.0f);
}

TEST(CastClipped, StopIgnoreAndWork) {
    // A row of 1000 boxes along x: the ray down the row meets all of them.
    DynamicTree tree;
    for (int i = 0; i < 1000; ++i) tree.insert({{float(2 * i), 0, 0}, {float(2 * i + 1), 1, 1}});
    const V o{-1, 0.5f, 0.5f}, d{1, 0, 0};
    int calls = 0;
    // Stop at once: one call, whether by 0 or by false.
    auto r = tree.ray_cast_clipped(o, d, kInf, [&](Id, float) { return ++calls, DynamicTree::cast_stop; });
    EXPECT_EQ(calls, 1);
    EXPECT_TRUE(r.stopped);
    calls = 0;
    r = tree.box_cast_clipped({{-3, 0, 0}, {-2, 1, 1}}, {3000, 0, 0}, [&](Id, float) { return ++calls, false; });
    EXPECT_EQ(calls, 1);
    EXPECT_TRUE(r.stopped);
    // Ignore (negative or NaN) and continue: every box, the clip unchanged.
    for (float answer : {DynamicTree::cast_ignore, std::numeric_limits<float>::quiet_NaN(), DynamicTree::cast_continue}) {
        calls = 0;
        r = tree.ray_cast_clipped(o, d, 5000, [&](Id, float) { return ++calls, answer; });
        EXPECT_EQ(calls, 1000);
        EXPECT_EQ(r.clip, 5000);
        EXPECT_FALSE(r.stopped);
    }
    const std::size_t all_nodes = r.nodes;
    // Clip to the first hit: a handful of calls and a fraction of the nodes.
    calls = 0;
    r = tree.ray_cast_clipped(o, d, kInf, [&](Id, float t) { return ++calls, t; });
    EXPECT_EQ(r.clip, 1.0f);
    EXPECT_LE(calls, 5);
    EXPECT_LT(r.nodes * 10, all_nodes);
    EXPECT_EQ(tree.ray_cast(o, d, kInf).proxy, 0u);
    // Invalid input: nothing.
    calls = 0;
    tree.ray_cast_clipped({kInf, 0, 0}, d, 1, [&](Id, float) { ++calls; });
    tree.ray_cast_clipped(o, d, -1, [&](Id, float) { ++calls; });
    tree.box_cast_clipped({{1, 0, 0}, {0, 1, 1}}, d, [&](Id, float) { ++calls; });
    EXPECT_EQ(calls, 0);
}

TEST(CastClipped, Scene) {
    // Objects in categories 1, 2, 4 (by id % 3) along a row; the query's
    // Filter, or a predicate, picks what the cast sees.
    broadphase::Scene scene;
    for (int i = 0; i < 30; ++i) {
        broadphase::Filter f;
        f.category = std::uint64_t(1) << (i % 3);
        scene.add({{float(i), 0, 0}, {float(i) + 0.5f, 1, 1}}, broadphase::ObjectType::dynamic_object, 100 + i, f);
    }
    scene.update();
    const V o{-1, 0.5f, 0.5f}, d{1, 0, 0};
    broadphase::Filter q;
    q.mask = 4;  // only category 4: ids 2, 5, 8, ...
    std::vector<Id> seen;
    auto r = scene.ray_cast_clipped(o, d, kInf, [&](Id id, float t) { return seen.push_back(id), t + 2; }, q);
    // Object i is entered at t = i + 1: clipped to 3 + 2 by object 2, in
    // whatever order the hits came; only category 4 seen.
    EXPECT_EQ(r.clip, 5.0f);
    EXPECT_NE(std::find(seen.begin(), seen.end(), 2u), seen.end());
    for (Id id : seen) EXPECT_EQ(id % 3, 2u);
    // A predicate instead: ids below 10 filtered out.
    seen.clear();
    scene.ray_cast_clipped(o, d, kInf, [&](Id id, float) { seen.push_back(id); }, [](Id id) { return id >= 10; });
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(seen.size(), 20u);
    EXPECT_EQ(seen.front(), 10u);
    Id first = broadphase::Scene::null;
    scene.box_cast_clipped({{-2, 0, 0}, {-1, 1, 1}}, {40, 0, 0},
                           [&](Id id, float t) { return first = id, t; },
                           [&](Id id) { return scene.user_value(id) >= 110; });
    EXPECT_EQ(first, 10u);
}

}  // namespace
