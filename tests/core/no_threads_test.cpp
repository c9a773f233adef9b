// The single header without threads: a user who copies
// single_include/broadphase.hpp and compiles without BROADPHASE_THREADS gets
// the same answers on one thread, whatever Options::threads says. This file
// is compiled so (see CMakeLists.txt: it does not link broadphase::broadphase,
// which defines BROADPHASE_THREADS).
#if defined(BROADPHASE_THREADS)
#error "this test must be compiled without threads"
#endif

#include <gtest/gtest.h>

#include <vector>

#include <cmath>
#include <cstdint>

#include "broadphase.hpp"  // the single header: the library, plan_threads included


namespace {

// A small generator of its own: the fixtures include the public headers,
// which would define the library a second time beside the single header.
struct Random {
    std::uint64_t s;
    explicit Random(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    double unit() {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        return double(s >> 11) * (1.0 / 9007199254740992.0);
    }
    double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
};

// n boxes of mixed sizes in [0,900)^3: edges log-uniform over 0.25..64.
broadphase::Boxes mixed(std::size_t n) {
    broadphase::Boxes out;
    Random r(6);
    for (std::size_t i = 0; i < n; ++i) {
        broadphase::Box b;
        for (int k = 0; k < 3; ++k) {
            const double c = r.uniform(0, 900), e = std::exp(r.uniform(std::log(0.25), std::log(64.0)));
            b.min[k] = float(c - e / 2);
            b.max[k] = float(c + e / 2);
        }
        out.push_back(b);
    }
    return out;
}

TEST(NoThreads, OneThreadWhateverIsAsked) {
    EXPECT_FALSE(broadphase::threads_enabled());
    EXPECT_EQ(broadphase::default_threads(), 1u);
    EXPECT_EQ(broadphase::plan_threads(8, 1000000, broadphase::Work::box, 1), 1u);
}

TEST(NoThreads, SamePairsAsBruteForce) {
    const broadphase::Boxes boxes = mixed(5000);
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
    Random rng(5);
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
