// The adaptive grid's own tests, beside the differential suites it is
// plugged into (subjects.cpp): structural invariants of the built tree on
// random, adversarial and built-in scenes, the failure cases of the library
// in the article "Simple Fast Adaptive Grid to Accelerate Collision Detection
// between AABB of Particles" (coincident boxes, small grids queried right
// after building), and the tuning knobs at their extremes.
#include <algorithm>
#include <string>
#include <vector>

#include <broadphase/adaptive_grid.hpp>
#include "grid/adaptive_grid_impl.hpp"  // AdaptiveGridInspect: the trees
#include <broadphase/brute_force.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

using broadphase::AdaptiveGrid;
using broadphase::Boxes;

std::vector<Pair> brute_pairs(const Boxes& b) {
    broadphase::BruteForce brute;
    std::vector<Pair> out;
    Options o;
    o.sorted = true;
    brute.find_pairs(b, out, o);
    return out;
}

std::vector<Pair> adaptive_pairs(AdaptiveGrid& g, const Boxes& b) {
    std::vector<Pair> out;
    Options o;
    o.sorted = true;
    EXPECT_EQ(g.find_pairs(b, out, o).status, Status::ok);
    return out;
}

/// Builds an index over b, checks the tree, queries every box of b and of
/// `queries` against a scan.
void check_index(const Boxes& b, const Boxes& queries, const AdaptiveGrid::Params& p = {}) {
    AdaptiveGrid g;
    g.set_params(p);
    ASSERT_EQ(g.build(b).status, Status::ok);
    EXPECT_EQ(broadphase::detail::AdaptiveGridInspect::built_tree(g).validate(), "");
    std::vector<std::uint32_t> got;
    for (const Boxes* set : {&b, &queries}) {
        for (std::size_t i = 0; i < set->size(); ++i) {
            const broadphase::Box q = (*set)[i];
            g.query(q, got);
            std::sort(got.begin(), got.end());
            std::vector<std::uint32_t> want;
            if (q.valid())
                for (std::size_t j = 0; j < b.size(); ++j)
                    if (b[j].valid() && broadphase::overlaps(b[j], q)) want.push_back(static_cast<std::uint32_t>(j));
            ASSERT_EQ(got, want) << "query " << i << " of " << set->size();
        }
    }
}

TEST(AdaptiveGrid, InvariantsOnRandomScenes) {
    for (std::size_t n : {0, 1, 2, 3, 17, 100, 1000, 5000}) {
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            const Boxes b = random_case(n, seed);
            AdaptiveGrid g;
            const std::vector<Pair> got = adaptive_pairs(g, b);
            ASSERT_EQ(broadphase::detail::AdaptiveGridInspect::last_tree(g).validate(), "") << case_name(n, seed);
            ASSERT_EQ(got, brute_pairs(b)) << case_name(n, seed);
        }
    }
}

TEST(AdaptiveGrid, InvariantsOnAdversarialScenes) {
#define BPTEST_CHECK_SCENE(Name, fn)                                  \
    {                                                                 \
        SCOPED_TRACE(#Name);                                          \
        const ScenePair s = fn();                                     \
        for (const Boxes* b : {&s.a, &s.b}) {                         \
            AdaptiveGrid g;                                           \
            const std::vector<Pair> got = adaptive_pairs(g, *b);      \
            if (b->size() > 0 && got.size() < 3000000) {              \
                EXPECT_EQ(broadphase::detail::AdaptiveGridInspect::last_tree(g).validate(), "");              \
            }                                                         \
            EXPECT_EQ(got, brute_pairs(*b));                          \
        }                                                             \
    }
    BPTEST_ADVERSARIAL_SCENES(BPTEST_CHECK_SCENE)
#undef BPTEST_CHECK_SCENE
}

TEST(AdaptiveGrid, InvariantsOnBuiltinScenes) {
    for (const char* name : {"sparse20k", "dense20k", "stretched40k", "clusters40k", "mixed20k"}) {
        Boxes b;
        ASSERT_TRUE(broadphase_fixtures::make_scene(name, b));
        AdaptiveGrid g;
        ASSERT_EQ(g.build(b).status, Status::ok);
        EXPECT_EQ(broadphase::detail::AdaptiveGridInspect::built_tree(g).validate(), "") << name;
    }
}

// The article's library writes past a 32-slot array from 35 coincident boxes
// and splits forever from 129: here any number is one leaf and every pair.
TEST(AdaptiveGrid, CoincidentBoxesAnyNumber) {
    for (std::size_t n : {34, 35, 128, 129, 2000}) {
        Boxes b;
        for (std::size_t i = 0; i < n; ++i) b.push_back(box3(1, 2, 3, 4, 5, 6));
        AdaptiveGrid g;
        std::vector<Pair> out;
        ASSERT_EQ(g.find_pairs(b, out).status, Status::ok);
        EXPECT_EQ(out.size(), n * (n - 1) / 2) << n;
        EXPECT_EQ(broadphase::detail::AdaptiveGridInspect::last_tree(g).validate(), "");
        EXPECT_EQ(broadphase::detail::AdaptiveGridInspect::last_tree(g).nodes().size(), 1u) << "coincident boxes cannot be separated: one leaf";
        broadphase::sort_pairs(out);
        EXPECT_EQ(std::adjacent_find(out.begin(), out.end()), out.end()) << "a pair twice";
        for (const Pair& p : out) EXPECT_LT(p.a, p.b);
    }
    // Coincident points (zero size) plus a few apart.
    Boxes b;
    for (int i = 0; i < 300; ++i) b.push_back(box3(7, 7, 7, 7, 7, 7));
    for (int i = 0; i < 50; ++i) b.push_back(box3(float(i), 0, 0, float(i) + 0.5f, 1, 1));
    AdaptiveGrid g;
    EXPECT_EQ(adaptive_pairs(g, b), brute_pairs(b));
    EXPECT_EQ(broadphase::detail::AdaptiveGridInspect::last_tree(g).validate(), "");
}

// The article's library answers nothing on a freshly built grid of 128 boxes or
// fewer. Queries right after build(), at the sizes around its limits.
TEST(AdaptiveGrid, SmallGridsQueriedRightAfterBuild) {
    for (std::size_t n : {0, 1, 2, 128, 129, 130}) {
        for (std::uint64_t seed : {1, 2, 3}) {
            SCOPED_TRACE(case_name(n, seed));
            const Boxes b = random_case(n, seed);
            const Boxes q = random_case(n + 5, seed + 100);
            check_index(b, q);
        }
    }
}

TEST(AdaptiveGrid, IndexOnAdversarialScenes) {
#define BPTEST_CHECK_INDEX(Name, fn) \
    {                                \
        SCOPED_TRACE(#Name);         \
        const ScenePair s = fn();    \
        check_index(s.a, s.b);       \
    }
    BPTEST_ADVERSARIAL_SCENES(BPTEST_CHECK_INDEX)
#undef BPTEST_CHECK_INDEX
}

// Far outliers ("teapot in stadium") are kept, whatever the bulk's size.
TEST(AdaptiveGrid, FarOutliersNeverDropped) {
    Boxes b = broadphase_fixtures::uniform(3000, 9);
    b.push_back(box3(1e6f, 1e6f, 1e6f, 1e6f + 1, 1e6f + 1, 1e6f + 1));
    b.push_back(box3(1e6f + 0.5f, 1e6f, 1e6f, 1e6f + 2, 1e6f + 1, 1e6f + 1));
    b.push_back(box3(-3e38f, -3e38f, -3e38f, -3e38f, -3e38f, -3e38f));
    b.push_back(box3(-3e38f, -3e38f, -3e38f, -2e38f, -2e38f, -2e38f));
    AdaptiveGrid g;
    const std::vector<Pair> got = adaptive_pairs(g, b);
    EXPECT_EQ(got, brute_pairs(b));
    EXPECT_EQ(broadphase::detail::AdaptiveGridInspect::last_tree(g).validate(), "");
    check_index(b, b);
}

// Extreme tuning: leaves of one box (deep trees, many residents) and huge
// leaves (a flat scan), residents at once or never.
TEST(AdaptiveGrid, ExtremeParameters) {
    const Boxes b = random_case(1000, 7);
    const Boxes mixed = mixed_sizes_scene().a;
    for (std::uint32_t cap : {1u, 2u, 1000000u}) {
        for (std::uint32_t resident : {0u, 1u, 8u, 64u, 1000000u}) {
            SCOPED_TRACE("capacity " + std::to_string(cap) + ", resident_children " + std::to_string(resident));
            AdaptiveGrid::Params p;
            p.leaf_capacity = cap;
            p.resident_children = resident;
            for (const Boxes* s : {&b, &mixed}) {
                AdaptiveGrid g;
                g.set_params(p);
                EXPECT_EQ(adaptive_pairs(g, *s), brute_pairs(*s));
                EXPECT_EQ(broadphase::detail::AdaptiveGridInspect::last_tree(g).validate(), "");
                EXPECT_LE(broadphase::detail::AdaptiveGridInspect::last_tree(g).instances(), 64 * s->size()) << "a box is stored in at most 4^3 cells";
            }
            check_index(b, mixed, p);
        }
    }
}

// Moving boxes, frame after frame, on one kept grid: the same answers as
// fresh grids (no state leaks between builds).
TEST(AdaptiveGrid, RebuildEveryFrame) {
    Boxes b = random_case(2000, 11);
    AdaptiveGrid kept;
    Random r(5);
    for (int frame = 0; frame < 6; ++frame) {
        for (std::size_t i = 0; i < b.size(); ++i) {
            broadphase::Box x = b[i];
            if (!x.valid()) continue;
            const float d = static_cast<float>(r.uniform(-1, 1));
            for (int k = 0; k < 3; ++k) x.min[k] += d, x.max[k] += d;
            b.set(i, x);
        }
        EXPECT_EQ(adaptive_pairs(kept, b), brute_pairs(b)) << "frame " << frame;
        EXPECT_EQ(broadphase::detail::AdaptiveGridInspect::last_tree(kept).validate(), "");
    }
}

}  // namespace
}  // namespace bptest
