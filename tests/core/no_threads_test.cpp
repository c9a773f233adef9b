// The headers without threads: a user who copies include/broadphase/ and
// compiles without BROADPHASE_THREADS gets the same answers on
// one thread, whatever Options::threads says. This file is compiled so (see
// CMakeLists.txt: it does not link broadphase::broadphase, which defines
// BROADPHASE_THREADS).
#if defined(BROADPHASE_THREADS)
#error "this test must be compiled without threads"
#endif

#include <gtest/gtest.h>

#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/detail/parallel.hpp>  // plan_threads
#include <broadphase_fixtures/scenes.hpp>
#include <broadphase/spheres.hpp>

namespace {

TEST(NoThreads, OneThreadWhateverIsAsked) {
    EXPECT_FALSE(broadphase::detail::threads_enabled());
    EXPECT_EQ(broadphase::detail::default_threads(), 1u);
    EXPECT_EQ(broadphase::detail::plan_threads(8, 1000000, 1), 1u);
}

TEST(NoThreads, SamePairsAsBruteForce) {
    const broadphase::Boxes boxes = broadphase_fixtures::mixed(5000);
    broadphase::Options o;
    o.sorted = true;
    o.algorithm = broadphase::Algorithm::brute_force;
    std::vector<broadphase::Pair> want, got;
    broadphase::PairFinder finder;
    ASSERT_TRUE(finder.find_pairs(boxes, want, o).ok());
    ASSERT_FALSE(want.empty());
    for (broadphase::Algorithm a : broadphase::concrete_algorithms) {
        o.algorithm = a;
        o.threads = 4;
        o.min_boxes_per_thread = 1;
        ASSERT_TRUE(finder.find_pairs(boxes, got, o).ok()) << broadphase::to_string(a);
        EXPECT_EQ(got.size(), want.size()) << broadphase::to_string(a);
        EXPECT_TRUE(got == want) << broadphase::to_string(a);
    }
}

TEST(NoThreads, SpherePairsOnOneThread) {
    // The sphere grid and its box path: the same pairs whatever is asked.
    broadphase_fixtures::Random rng(5);
    std::vector<double> xyz(3 * 20000);
    for (double& v : xyz) v = rng.uniform(0, 40);
    broadphase::Options o;
    o.sorted = true;
    std::vector<broadphase::Pair> grid, boxes;
    broadphase::SpherePairFinder finder;
    ASSERT_TRUE(finder.find_pairs(broadphase::sphere_rows(xyz.data(), 0.5, 20000), grid, o).ok());
    EXPECT_EQ(finder.last_method(), broadphase::SphereMethod::grid);
    ASSERT_FALSE(grid.empty());
    o.threads = 4;
    o.min_boxes_per_thread = 1;
    o.algorithm = broadphase::Algorithm::brute_force;
    ASSERT_TRUE(finder.find_pairs(broadphase::sphere_rows(xyz.data(), 0.5, 20000), boxes, o).ok());
    EXPECT_TRUE(grid == boxes);
}

}  // namespace
