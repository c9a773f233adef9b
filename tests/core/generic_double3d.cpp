// The generic-type cases for double 3-D (see generic_types.hpp): the four
// algorithm classes and the front door, instantiated in a file of their own;
// and GenericPrecision, which needs the same classes.
#include "generic_types.hpp"

namespace bptest {
namespace generic {

TypeCases double3d_cases() { return type_cases<double, 3>(); }

namespace {

template <class Algo>
void expect_double_gaps_kept(const char* what) {
    // 1 + 1e-12 rounds to 1 as a float: as floats these boxes would touch,
    // as doubles they do not.
    broadphase::BasicBoxes<double, 3> d;
    d.push_back(cube_box<double, 3>({0, 0, 0}, 1.0));
    d.push_back(cube_box<double, 3>({1 + 1e-12, 0, 0}, 1.0));
    d.push_back(cube_box<double, 3>({0, 1 + 1e-12, 0}, 1.0));
    d.push_back(cube_box<double, 3>({1, 1, 1}, 1.0));
    const std::vector<Pair> want = {{0, 3}, {1, 3}, {2, 3}};  // as floats (0, 1), (0, 2), (1, 2) too
    ASSERT_TRUE(identical_pairs(ref_self(d), want));
    Options sorted;
    sorted.sorted = true;
    std::vector<Pair> out;
    Algo algo;
    algo.find_pairs(d, out, sorted);
    EXPECT_TRUE(identical_pairs(out, want)) << what;
    // The same as two sets: each box with itself and the pairs both ways.
    const std::vector<Pair> both = {{0, 0}, {0, 3}, {1, 1}, {1, 3}, {2, 2}, {2, 3}, {3, 0}, {3, 1}, {3, 2}, {3, 3}};
    ASSERT_TRUE(identical_pairs(ref_cross(d, d), both));
    algo.find_pairs(d, d, out, sorted);
    EXPECT_TRUE(identical_pairs(out, both)) << what << ", two sets";
}

TEST(GenericPrecision, DoubleKeepsGapsFloatWouldClose) {
    expect_double_gaps_kept<broadphase::BasicBruteForce<double, 3>>("brute force");
    expect_double_gaps_kept<broadphase::BasicSweepAndPrune<double, 3>>("sweep and prune");
    expect_double_gaps_kept<broadphase::BasicUniformGrid<double, 3>>("uniform grid");
    expect_double_gaps_kept<broadphase::BasicHybridGrid<double, 3>>("hybrid grid");
    expect_double_gaps_kept<broadphase::BasicAdaptiveGrid<double, 3>>("adaptive grid");
}

}  // namespace

}  // namespace generic
}  // namespace bptest
