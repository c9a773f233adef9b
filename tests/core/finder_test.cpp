// The scalar reference against hand-written cases, a PairFinder kept across
// frames of every size (self and two-set) with each algorithm, and the shape
// of the API the harness relies on.
#include "differential.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

// ---------------------------------------------------------------------------
// The reference itself

TEST(Reference, Identical2000HasAllPairs) { EXPECT_EQ(ref_self(identical_scene().a).size(), 1999000u); }

TEST(Reference, AgreesWithHandWrittenCases) {
    for (const HandCase& c : hand_cases()) {
        SCOPED_TRACE(c.name);
        const Boxes b = boxes_of(c.boxes);
        EXPECT_TRUE(identical_pairs(ref_self(b), c.pairs));
        EXPECT_EQ(ref_invalid(b), c.invalid);
    }
}

// ---------------------------------------------------------------------------
// A PairFinder kept across frames of every size, self and two-set.

class FinderTest : public ::testing::TestWithParam<Algorithm> {};

TEST_P(FinderTest, ReusedAcrossScenes) {
    FinderOps<float, 3> ops;
    ops.algorithm = GetParam();
    const ScenePair sequence[] = {identical_scene(), invalid_mixed_scene(), touching_lattice_scene(),
                                  infinite_slabs_scene(), all_invalid_scene()};
    const Boxes large = random_scene<float, 3>(6000, 20, RandomKind::sparse);
    check_self(ops, large, Oracle::brute_force);
    for (const ScenePair& s : sequence) {
        check_self(ops, s.b);
        check_cross(ops, s.b, s.a, Oracle::brute_force);
        check_self(ops, Boxes{});
        check_self(ops, random_scene<float, 3>(20, 21));
    }
    check_self(ops, large, Oracle::brute_force);
    check_cross(ops, large, sequence[1].a, Oracle::brute_force);
}

TEST_P(FinderTest, LastAlgorithm) {
    broadphase::PairFinder finder;
    Options o;
    o.algorithm = GetParam();
    std::vector<Pair> out;
    for (std::size_t n : {std::size_t(10), std::size_t(5000)}) {
        const Boxes b = random_scene<float, 3>(n, 22, RandomKind::sparse);
        finder.find_pairs(b, out, o);
        if (GetParam() == Algorithm::automatic) EXPECT_NE(finder.last_algorithm(), Algorithm::automatic);
        else EXPECT_EQ(finder.last_algorithm(), GetParam());
        finder.find_pairs(b, b, out, o);
        if (GetParam() == Algorithm::automatic) EXPECT_NE(finder.last_algorithm(), Algorithm::automatic);
        else EXPECT_EQ(finder.last_algorithm(), GetParam());
    }
}

// Streaming hands the callback blocks of 256 pairs (PairSink):
// a stop or a budget at, just before and just after a block's end gives
// exactly the first k pairs of the stored search (one thread, same order),
// k counted, and the right status.
TEST_P(FinderTest, StreamStopsAndBudgetsAtBlockEdges) {
    const Boxes b = random_scene<float, 3>(3000, 23);
    broadphase::PairFinder finder;
    Options o;
    o.algorithm = GetParam();
    o.threads = 1;
    std::vector<Pair> all;
    ASSERT_TRUE(finder.find_pairs(b, all, o).ok());
    ASSERT_GT(all.size(), 800u);
    EXPECT_TRUE(same_pair_set(all, ref_self(b)));
    for (std::uint64_t k : {1u, 255u, 256u, 257u, 512u, 600u}) {
        SCOPED_TRACE(::testing::Message() << "k " << k);
        std::vector<Pair> got;
        Report r = finder.for_each_pair(b, [&](std::uint32_t x, std::uint32_t y) {
            got.push_back(Pair{x, y});
            return got.size() < k;
        }, o);
        EXPECT_EQ(r.status, Status::stopped_by_callback);
        EXPECT_EQ(r.pairs, k);
        ASSERT_EQ(got.size(), k);
        EXPECT_TRUE(std::equal(got.begin(), got.end(), all.begin()));

        got.clear();
        Options budget = o;
        budget.max_pairs = k;
        r = finder.for_each_pair(b, [&](std::uint32_t x, std::uint32_t y) { got.push_back(Pair{x, y}); }, budget);
        EXPECT_EQ(r.status, Status::pair_budget_exceeded);
        EXPECT_EQ(r.pairs, k);
        ASSERT_EQ(got.size(), k);
        EXPECT_TRUE(std::equal(got.begin(), got.end(), all.begin()));
    }
    // Exactly as many as there are: not exceeded.
    Options exact = o;
    exact.max_pairs = all.size();
    std::uint64_t calls = 0;
    const Report r = finder.for_each_pair(b, [&](std::uint32_t, std::uint32_t) { ++calls; }, exact);
    EXPECT_EQ(r.status, Status::ok);
    EXPECT_EQ(r.pairs, all.size());
    EXPECT_EQ(calls, all.size());
}

INSTANTIATE_TEST_SUITE_P(Differential, FinderTest,
                         ::testing::Values(Algorithm::automatic, Algorithm::brute_force, Algorithm::sweep_and_prune,
                                           Algorithm::uniform_grid, Algorithm::hybrid_grid,
                                           Algorithm::adaptive_grid, Algorithm::cluster_pairs),
                         ParamName());

// ---------------------------------------------------------------------------
// API shape

TEST(IndexApi, HasStreamingBatchQuery) {
    // Every algorithm class streams a batch through for_each_overlap_batch(queries, f);
    // the Index, which wraps them, should too.
    EXPECT_TRUE((has_for_each_overlap_batch<broadphase::BruteForce, Boxes>::value));
    EXPECT_TRUE((has_for_each_overlap_batch<broadphase::Index, Boxes>::value))
        << "broadphase::BasicIndex has no for_each_overlap_batch(queries, f): a batch can only be collected into "
           "a vector (query_batch) or streamed one box at a time (for_each_overlap)";
}

}  // namespace
}  // namespace bptest
