// examples/pointclouds: the narrow phases (lattice, pruned) against the brute
// narrow phase (all 125 x 125 point pairs) on many cloud pairs and edge cases, the whole pipeline
// (broad phase + narrow phase) against an O(n^2) brute force, and the
// pointclouds10k scene.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <broadphase/broadphase.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "narrow_phase.hpp"

namespace {

namespace bs = broadphase_fixtures;
using broadphase::Box;
using broadphase::Pair;
using pointclouds::Narrow;
constexpr Narrow all_narrow[] = {Narrow::lattice, Narrow::pruned, Narrow::brute};

struct Cloud {
    double cx = 0, cy = 0, cz = 0, spacing = 1;
    std::vector<float> points = std::vector<float>(3 * bs::cloud_points);
    Box box;

    Cloud(double x, double y, double z, double s) : cx(x), cy(y), cz(z), spacing(s) {
        bs::make_point_cloud(x, y, z, s, points.data());
        box = bs::point_cloud_box(x, y, z, s);
    }
    const float* data() const { return points.data(); }
};

/// The adaptive-grid article's rule, written out independently: some point pair with
/// sqrt(d2) < 1, no early exit.
bool collide_by_definition(const Cloud& a, const Cloud& b) {
    bool hit = false;
    for (int i = 0; i < bs::cloud_points; ++i)
        for (int j = 0; j < bs::cloud_points; ++j) {
            const float dx = a.points[3 * i] - b.points[3 * j];
            const float dy = a.points[3 * i + 1] - b.points[3 * j + 1];
            const float dz = a.points[3 * i + 2] - b.points[3 * j + 2];
            hit = hit || std::sqrt(dx * dx + dy * dy + dz * dz) < 1.0f;
        }
    return hit;
}

/// Every narrow phase, both orders, against the brute one; returns brute's answer.
bool expect_all_agree(const Cloud& a, const Cloud& b) {
    const bool want = pointclouds::collide_brute(a.data(), b.data());
    EXPECT_EQ(pointclouds::collide_brute(b.data(), a.data()), want);
    EXPECT_EQ(pointclouds::collide_lattice(a.data(), b.data()), want);
    EXPECT_EQ(pointclouds::collide_lattice(b.data(), a.data()), want);
    EXPECT_EQ(pointclouds::collide_pruned(a.data(), a.box, b.data(), b.box), want);
    // Any bounding boxes will do for the pruned phase, the grown ones too.
    const Box ga = bs::grown_box(a.box, 0.5), gb = bs::grown_box(b.box, 0.5);
    EXPECT_EQ(pointclouds::collide_pruned(a.data(), ga, b.data(), gb), want);
    // Colliding clouds always have overlapping broad-phase boxes.
    EXPECT_TRUE(!want || broadphase::overlaps(ga, gb));
    EXPECT_EQ(pointclouds::collide_pruned(b.data(), b.box, a.data(), a.box), want);
    for (Narrow k : all_narrow)
        EXPECT_EQ(pointclouds::collide(k, a.data(), a.box, b.data(), b.box), want) << pointclouds::to_string(k);
    return want;
}

TEST(PointCloudNarrowPhase, CloudsAreLatticesWithExactBoxes) {
    for (const Cloud& c : {Cloud(0, 0, 0, 1), Cloud(-3.3, 1e3, 7.77, 0.613), Cloud(123.456, 0.001, -1e4, 1.49)}) {
        EXPECT_TRUE(pointclouds::is_lattice(c.data()));
        const Box b = pointclouds::bounds_of(c.data());
        EXPECT_EQ(b.min, c.box.min);
        EXPECT_EQ(b.max, c.box.max);
    }
    // The adaptive-grid article's cloud, spacing 1: offsets -2.5 .. 1.5.
    const Cloud seed(10, 20, 30, 1);
    EXPECT_EQ(seed.box.min, (std::array<float, 3>{7.5f, 17.5f, 27.5f}));
    EXPECT_EQ(seed.box.max, (std::array<float, 3>{11.5f, 21.5f, 31.5f}));
    EXPECT_EQ(seed.points[3 * 1], 8.5f);        // point 1: x index 1
    EXPECT_EQ(seed.points[3 * 5 + 1], 18.5f);   // point 5: y index 1
    EXPECT_EQ(seed.points[3 * 25 + 2], 28.5f);  // point 25: z index 1
    std::vector<float> broken = seed.points;
    broken[3 * 7] += 0.25f;
    EXPECT_FALSE(pointclouds::is_lattice(broken.data()));
}

TEST(PointCloudNarrowPhase, DistanceExactlyOneDoesNotCollide) {
    // Spacing 1, centres 5 apart on x: the nearest points are x = 11.5 and
    // 12.5 with equal y and z, distance exactly 1.
    const Cloud a(10, 20, 30, 1);
    EXPECT_FALSE(expect_all_agree(a, Cloud(15, 20, 30, 1)));
    EXPECT_FALSE(expect_all_agree(a, Cloud(5, 20, 30, 1)));
    EXPECT_FALSE(expect_all_agree(a, Cloud(10, 25, 30, 1)));
    EXPECT_FALSE(expect_all_agree(a, Cloud(10, 20, 35, 1)));
    EXPECT_FALSE(collide_by_definition(a, Cloud(15, 20, 30, 1)));
}

TEST(PointCloudNarrowPhase, DistanceJustUnderOneCollides) {
    const Cloud a(10, 20, 30, 1);
    const double eps = std::ldexp(1.0, -20);  // one float step at 12.5
    EXPECT_TRUE(expect_all_agree(a, Cloud(15 - eps, 20, 30, 1)));
    EXPECT_TRUE(expect_all_agree(a, Cloud(10, 20, 25 + 2 * eps, 1)));  // one float step at 26.5
    EXPECT_TRUE(collide_by_definition(a, Cloud(15 - eps, 20, 30, 1)));
    EXPECT_FALSE(expect_all_agree(a, Cloud(15 + eps, 20, 30, 1)));
    // Corner to corner, 0.7 apart on x and on y: 0.98 (collides); 0.71 and 0.71: 1.0082 (does not).
    EXPECT_TRUE(expect_all_agree(a, Cloud(14.7, 24.7, 30, 1)));
    EXPECT_FALSE(expect_all_agree(a, Cloud(14.71, 24.71, 30, 1)));
}

TEST(PointCloudNarrowPhase, CollideWithoutOverlappingAabbs) {
    // 0.5, 0.001 and 0.6 apart: the AABBs do not overlap, the clouds collide, the
    // broad-phase boxes (AABBs grown by 0.5) overlap.
    const Cloud a(10, 20, 30, 1);
    for (const Cloud& b : {Cloud(14.5, 20, 30, 1), Cloud(14.001, 23.3, 31, 1), Cloud(10, 20, 33.35, 0.5)}) {
        EXPECT_FALSE(broadphase::overlaps(a.box, b.box));
        EXPECT_TRUE(expect_all_agree(a, b));
        EXPECT_TRUE(broadphase::overlaps(bs::grown_box(a.box, bs::cloud_contact_margin),
                                         bs::grown_box(b.box, bs::cloud_contact_margin)));
    }
}

TEST(PointCloudNarrowPhase, IdenticalAndInterleavedClouds) {
    const Cloud a(1, 2, 3, 0.8);
    EXPECT_TRUE(expect_all_agree(a, a));
    // Boxes overlap almost fully, yet every point pair differs by 0.75 on every
    // axis: distance 1.299, no collision. Shifted on one axis only: 0.75, collides.
    EXPECT_FALSE(expect_all_agree(Cloud(0, 0, 0, 1.5), Cloud(0.75, 0.75, 0.75, 1.5)));
    EXPECT_TRUE(expect_all_agree(Cloud(0, 0, 0, 1.5), Cloud(0.75, 0, 0, 1.5)));
    EXPECT_FALSE(collide_by_definition(Cloud(0, 0, 0, 1.5), Cloud(0.75, 0.75, 0.75, 1.5)));
}

TEST(PointCloudNarrowPhase, VeryDifferentSpacingsAndFarApart) {
    const Cloud small(0, 0, 0, 0.05), big(0, 0, 0, 3.0);
    expect_all_agree(small, big);  // the small cloud sits between the big one's points
    expect_all_agree(Cloud(0.9, 0.9, 0.9, 0.05), big);
    expect_all_agree(Cloud(1.5, 1.5, 1.5, 0.1), Cloud(0, 0, 0, 3.0));
    EXPECT_FALSE(expect_all_agree(Cloud(0, 0, 0, 1), Cloud(100, 0, 0, 1)));
    EXPECT_FALSE(expect_all_agree(Cloud(0, 0, 0, 1), Cloud(-1e6, 1e6, 3, 1)));
}

TEST(PointCloudNarrowPhase, RandomPairsAgreeWithBruteForce) {
    bs::Random r(2024);
    int hits = 0, misses = 0;
    const int n = 3000;
    for (int t = 0; t < n; ++t) {
        // Centres near each other (a few units), spacings 0.2 .. 2, sometimes
        // far from the origin (coarser floats), sometimes equal spacings.
        const double offset = (t % 3 == 0) ? 1000.37 : (t % 3 == 1) ? -7.1 : 0.0;
        const double s1 = r.uniform(0.2, 2.0);
        const double s2 = (t % 5 == 0) ? s1 : r.uniform(0.2, 2.0);
        const double reach = 2.5 * (s1 + s2) + 1.5;
        const double ax = offset + r.uniform(-1, 1), ay = offset + r.uniform(-1, 1), az = offset + r.uniform(-1, 1);
        const double bx = ax + r.uniform(-reach, reach), by = ay + r.uniform(-reach, reach),
                     bz = az + r.uniform(-reach, reach);
        const Cloud a(ax, ay, az, s1), b(bx, by, bz, s2);
        const bool got = expect_all_agree(a, b);
        (got ? hits : misses)++;
        if (t % 10 == 0) {
            EXPECT_EQ(collide_by_definition(a, b), got);
        }
        if (::testing::Test::HasFailure()) {
            ADD_FAILURE() << "pair " << t << ": a (" << a.cx << ", " << a.cy << ", " << a.cz << ") spacing " << s1
                          << ", b (" << b.cx << ", " << b.cy << ", " << b.cz << ") spacing " << s2;
            return;
        }
    }
    // Both answers must be well represented for the comparison to mean anything.
    EXPECT_GT(hits, n / 10);
    EXPECT_GT(misses, n / 10);
}

TEST(PointCloudNarrowPhase, ColliderLoopKeepsCandidateOrder) {
    const bs::PointClouds clouds = bs::point_clouds(40, 12, 5);
    std::vector<Pair> candidates;
    for (std::uint32_t i = 0; i < 40; ++i)
        for (std::uint32_t j = 39; j > i; --j) candidates.push_back(Pair{i, j});
    std::vector<Pair> want, got;
    pointclouds::colliding_pairs(pointclouds::Narrow::brute, clouds, candidates, want);
    ASSERT_FALSE(want.empty());
    for (pointclouds::Narrow k : {pointclouds::Narrow::lattice, pointclouds::Narrow::pruned}) {
        got.assign(3, Pair{7, 7});  // replaced, not appended to
        pointclouds::colliding_pairs(k, clouds, candidates, got);
        EXPECT_EQ(got, want) << pointclouds::to_string(k);
    }
}

/// The whole pipeline, as the program runs it, against every pair through
/// the brute narrow phase with no broad phase and no pruning at all.
void check_pipeline_against_brute(std::size_t n, double side, std::uint64_t seed) {
    const bs::PointClouds clouds = bs::point_clouds(n, side, seed);
    std::vector<Pair> want;
    pointclouds::reference_colliding_pairs(clouds, /*skip_far=*/false, want);
    std::vector<Pair> skipping;
    pointclouds::reference_colliding_pairs(clouds, /*skip_far=*/true, skipping);
    EXPECT_EQ(skipping, want);
    ASSERT_GT(want.size(), n / 4) << "the instance should be dense";

    broadphase::PairFinder finder;
    std::vector<Pair> candidates, got;
    for (int frame = 0; frame < 2; ++frame) {  // the finder is reused across frames
        ASSERT_TRUE(finder.find_pairs(clouds.boxes, candidates).ok());
        for (Narrow k : all_narrow) {
            pointclouds::colliding_pairs(k, clouds, candidates, got);
            std::sort(got.begin(), got.end());
            EXPECT_EQ(got, want) << pointclouds::to_string(k) << ", frame " << frame;
        }
    }
}

TEST(PointCloudPipeline, MatchesAllPairsBruteForceDense) { check_pipeline_against_brute(90, 16, 11); }
TEST(PointCloudPipeline, MatchesAllPairsBruteForceSparse) { check_pipeline_against_brute(120, 30, 12); }
TEST(PointCloudPipeline, MatchesSkippingReferenceManyClouds) {
    // Enough clouds for the front door to use a grid; the reference skips pairs
    // whose bounds are 1 or more apart (equal to no skipping, as checked above).
    const bs::PointClouds clouds = bs::point_clouds(4500, 150, 13);
    std::vector<Pair> want, candidates, got;
    pointclouds::reference_colliding_pairs(clouds, /*skip_far=*/true, want);
    broadphase::PairFinder finder;
    ASSERT_TRUE(finder.find_pairs(clouds.boxes, candidates).ok());
    EXPECT_NE(finder.last_algorithm(), broadphase::Algorithm::brute_force);
    pointclouds::colliding_pairs(pointclouds::Narrow::lattice, clouds, candidates, got);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want);
    EXPECT_GT(want.size(), 500u);
}

TEST(PointCloudScene, Pointclouds10kIsABuiltInScene) {
    const auto names = bs::scene_names();
    EXPECT_NE(std::find(names.begin(), names.end(), "pointclouds10k"), names.end());
    EXPECT_FALSE(bs::describe("pointclouds10k").empty());
    broadphase::Boxes boxes;
    ASSERT_TRUE(bs::make_scene("pointclouds10k", boxes));
    ASSERT_EQ(boxes.size(), 10000u);
    const bs::PointClouds clouds = bs::pointclouds10k_clouds();
    ASSERT_EQ(clouds.size(), 10000u);
    ASSERT_EQ(clouds.points.size(), 10000u * 3 * bs::cloud_points);
    std::size_t bad = 0;
    for (std::size_t c = 0; c < clouds.size(); ++c) {
        const Box b = boxes[c], g = clouds.boxes[c], s = clouds.bounds[c], p = pointclouds::bounds_of(clouds.cloud(c));
        if (b.min != g.min || b.max != g.max || p.min != s.min || p.max != s.max) ++bad;
        if (!pointclouds::is_lattice(clouds.cloud(c))) ++bad;
        for (int k = 0; k < 3; ++k) {
            const float width = s.max[k] - s.min[k];  // 4 * spacing, spacing in [0.5, 1.5)
            if (!(s.min[k] >= -3.75f && s.max[k] < 452.25f && width >= 1.99f && width < 6.01f)) ++bad;
            // Grown by 0.5 (and at most a float step more) on each side.
            if (!(double(g.min[k]) <= double(s.min[k]) - 0.5 && double(g.min[k]) > double(s.min[k]) - 0.5001)) ++bad;
            if (!(double(g.max[k]) >= double(s.max[k]) + 0.5 && double(g.max[k]) < double(s.max[k]) + 0.5001)) ++bad;
        }
    }
    EXPECT_EQ(bad, 0u);
}

}  // namespace
