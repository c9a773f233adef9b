// Differential tests: every way of finding pairs (the four algorithm
// classes, find_pairs with automatic and each algorithm, a reused PairFinder)
// and every way of querying (the classes, Index with automatic and each
// algorithm) against the scalar reference and the library's BruteForce,
// over random scenes of many seeds and sizes and over adversarial scenes.
#include <cmath>
#include <limits>
#include <thread>

#include <broadphase/scenes.hpp>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

namespace bs = broadphase::scenes;

class PairsTest : public ::testing::TestWithParam<PairSubjectInfo> {
protected:
    void SetUp() override { subject_ = GetParam().make(); }
    PairSubject& subject() { return *subject_; }
    std::unique_ptr<PairSubject> subject_;
};

class IndexTest : public ::testing::TestWithParam<IndexSubjectInfo> {
protected:
    void SetUp() override { subject_ = GetParam().make(); }
    IndexSubject& subject() { return *subject_; }
    std::unique_ptr<IndexSubject> subject_;
};

const std::size_t kSizes[] = {0, 1, 2, 3, 17, 100, 1000};

/// Seeds per size: many for small sets, one per scene kind at 1,000.
std::uint64_t seeds_for(std::size_t n) { return n >= 1000 ? 4 : 16; }

/// A random scene; every third seed has invalid boxes mixed in.
Boxes random_case(std::size_t n, std::uint64_t seed) {
    Boxes b = random_scene<float, 3>(n, seed);
    if (seed % 3 == 0) spoil(b, seed % 5, 5 + seed % 4);
    return b;
}

std::string case_name(std::size_t n, std::uint64_t seed) {
    return "random scene: n=" + std::to_string(n) + " seed=" + std::to_string(seed) + " kind=" +
           kind_name(static_cast<RandomKind>(seed % static_cast<std::uint64_t>(RandomKind::count))) +
           (seed % 3 == 0 ? " with invalid boxes" : "");
}

// ---------------------------------------------------------------------------
// Random scenes

TEST_P(PairsTest, SelfPairsRandom) {
    for (std::size_t n : kSizes) {
        for (std::uint64_t seed = 1; seed <= seeds_for(n); ++seed) {
            SCOPED_TRACE(case_name(n, seed));
            check_self(subject(), random_case(n, seed));
            if (HasFailure()) return;
        }
    }
}

TEST_P(PairsTest, TwoSetPairsRandom) {
    const std::pair<std::size_t, std::size_t> sizes[] = {{0, 0},    {0, 3},     {3, 0},     {1, 1},   {1, 17},
                                                        {17, 1},   {2, 3},     {17, 100},  {100, 17}, {100, 100},
                                                        {100, 1000}, {1000, 100}, {1000, 1000}};
    for (const auto& [na, nb] : sizes) {
        const std::uint64_t seeds = (na >= 1000 || nb >= 1000) ? 4 : 12;
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            SCOPED_TRACE("a: " + case_name(na, seed) + "; b: n=" + std::to_string(nb) + " seed=" +
                         std::to_string(seed + 4000) + (seed % 2 == 0 ? " with invalid boxes" : ""));
            // The same kind for both sets so that they overlap.
            const Boxes a = random_case(na, seed);
            Boxes b = random_scene<float, 3>(nb, seed + 1000 * 4);  // same seed % 4: same kind
            if (seed % 2 == 0) spoil(b, 1, 6);
            check_cross(subject(), a, b);
            if (HasFailure()) return;
        }
    }
}

TEST_P(PairsTest, TwoSetSameContents) {
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        SCOPED_TRACE(case_name(300, seed));
        const Boxes a = random_case(300, seed);
        const Boxes copy = a;
        check_cross(subject(), a, a);     // the same object twice
        check_cross(subject(), a, copy);  // equal contents
        if (HasFailure()) return;
    }
}

TEST_P(PairsTest, SelfPairsLarge) {
    // 10,000 boxes against the scalar reference (50 million box tests).
    check_self(subject(), random_scene<float, 3>(10000, 4, RandomKind::dense));
}

TEST_P(PairsTest, TwoSetPairsLarge) {
    Boxes a = random_scene<float, 3>(10000, 5, RandomKind::sparse);
    spoil(a, 3, 97);
    const Boxes b = random_scene<float, 3>(4000, 9, RandomKind::sparse);
    check_cross(subject(), a, b);
}

TEST_P(IndexTest, QueryRandom) {
    for (std::size_t n : kSizes) {
        for (std::uint64_t seed = 1; seed <= seeds_for(n); ++seed) {
            SCOPED_TRACE("built: " + case_name(n, seed));
            const Boxes built = random_case(n, seed);
            Boxes queries = random_scene<float, 3>(n < 50 ? 50 : n / 2, seed + 4000);
            spoil(queries, 2, 11);
            check_index(subject(), built, queries);
            if (HasFailure()) return;
        }
    }
}

TEST_P(IndexTest, QueryLarge) {
    Boxes built = random_scene<float, 3>(10000, 6, RandomKind::mixed);
    spoil(built, 0, 101);
    const Boxes queries = random_scene<float, 3>(2500, 10, RandomKind::mixed);
    check_index(subject(), built, queries, Oracle::brute_force, 200);
}

// ---------------------------------------------------------------------------
// Adversarial scenes: each checks self pairs of both sets, pairs between them
// both ways and a set with itself (PairsTest), or indexes over either set
// queried by the other and by itself (IndexTest).

#define BPTEST_ADVERSARIAL(Name, make_scene)  \
    TEST_P(PairsTest, Name) {                 \
        const ScenePair s = make_scene();     \
        check_pairs(subject(), s.a, s.b);     \
    }                                         \
    TEST_P(IndexTest, Name) {                 \
        const ScenePair s = make_scene();     \
        check_indexes(subject(), s.a, s.b);   \
    }

BPTEST_ADVERSARIAL(PointsAndCoincidentPoints, points_scene)
BPTEST_ADVERSARIAL(TouchingLattice, touching_lattice_scene)
BPTEST_ADVERSARIAL(TinyAndHugeBoxes, tiny_and_huge_scene)
BPTEST_ADVERSARIAL(FarOutliers, far_outliers_scene)
BPTEST_ADVERSARIAL(NegativeCoordinatesAndSignedZeros, negative_coordinates_scene)
BPTEST_ADVERSARIAL(Offset1e7, offset_1e7_scene)
BPTEST_ADVERSARIAL(InfiniteSlabs, infinite_slabs_scene)
BPTEST_ADVERSARIAL(InvalidBoxesMixedIn, invalid_mixed_scene)
BPTEST_ADVERSARIAL(AllBoxesInvalid, all_invalid_scene)
BPTEST_ADVERSARIAL(AllOnOnePlane, planar_scene)
BPTEST_ADVERSARIAL(LongThinBoxCrossingEverything, long_thin_box_scene)
BPTEST_ADVERSARIAL(MixedSizes, mixed_sizes_scene)
BPTEST_ADVERSARIAL(NestedBoxes, nested_scene)
BPTEST_ADVERSARIAL(Clusters, clustered_scene)
BPTEST_ADVERSARIAL(ExtremeFloatValues, extreme_values_scene)
BPTEST_ADVERSARIAL(HugeCoordinateClusters, huge_coordinates_scene)

TEST(Reference, Identical2000HasAllPairs) { EXPECT_EQ(ref_self(identical_scene().a).size(), 1999000u); }

TEST_P(PairsTest, Identical2000) {
    const ScenePair s = identical_scene();
    check_self(subject(), s.a);  // 1,999,000 pairs
    check_self(subject(), s.b);
    const Boxes part = bs::identical(400);
    check_cross(subject(), part, s.b);
    check_cross(subject(), s.b, s.b);
}

TEST_P(IndexTest, Identical2000) {
    const ScenePair s = identical_scene();
    Boxes few;  // 40 copies and the boxes touching and missing them
    for (std::size_t i = s.b.size() - 46; i < s.b.size(); ++i) few.push_back(s.b[i]);
    check_index(subject(), s.a, few, Oracle::scalar, 46);
    check_index(subject(), few, s.a, Oracle::scalar, 40);
    check_index(subject(), s.b, s.b, Oracle::scalar, 40);
}

TEST_P(PairsTest, TouchingLatticeCount) {
    // Unit cubes of a 10^3 lattice touch every neighbour within one step on
    // each axis: ((3*10 - 2)^3 - 10^3) / 2 pairs.
    const Boxes lattice = bs::lattice(10);
    std::vector<Pair> out;
    const Report r = subject().self(lattice, out, Options{});
    EXPECT_EQ(r.status, Status::ok);
    EXPECT_EQ(out.size(), (28u * 28u * 28u - 1000u) / 2u);
}

TEST_P(PairsTest, EmptyAndOneBoxSets) {
    const auto sets = tiny_sets();
    for (const auto& [name_a, a] : sets) {
        SCOPED_TRACE("a: " + name_a);
        check_self(subject(), a);
        for (const auto& [name_b, b] : sets) {
            SCOPED_TRACE("b: " + name_b);
            check_cross(subject(), a, b);
        }
    }
}

TEST_P(IndexTest, EmptyAndOneBoxSets) {
    const auto sets = tiny_sets();
    for (const auto& [name_a, a] : sets) {
        SCOPED_TRACE("built: " + name_a);
        for (const auto& [name_b, b] : sets) {
            SCOPED_TRACE("queries: " + name_b);
            check_index(subject(), a, b);
        }
    }
}

// ---------------------------------------------------------------------------
// Exact cases written by hand: the expected pairs are not computed.

struct HandCase {
    const char* name;
    std::vector<Box> boxes;
    std::vector<Pair> pairs;              ///< sorted
    std::vector<std::uint32_t> invalid;   ///< increasing
};

std::vector<HandCase> hand_cases() {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float above_one = std::nextafter(1.0f, 2.0f);
    return {
        {"faces touch", {box3(0, 0, 0, 1, 1, 1), box3(1, 0, 0, 2, 1, 1)}, {{0, 1}}, {}},
        {"edges touch", {box3(0, 0, 0, 1, 1, 1), box3(1, 1, 0, 2, 2, 1)}, {{0, 1}}, {}},
        {"corners touch", {box3(0, 0, 0, 1, 1, 1), box3(1, 1, 1, 2, 2, 2)}, {{0, 1}}, {}},
        {"one ulp apart", {box3(0, 0, 0, 1, 1, 1), box3(above_one, 0, 0, 2, 1, 1)}, {}, {}},
        {"apart on one axis only", {box3(0, 0, 0, 1, 1, 1), box3(0, 0, 1.5f, 1, 1, 2)}, {}, {}},
        {"point on a corner, point inside, point outside",
         {box3(0, 0, 0, 1, 1, 1), box3(1, 1, 1, 1, 1, 1), box3(0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f),
          box3(1, 1, above_one, 1, 1, above_one)},
         {{0, 1}, {0, 2}},
         {}},
        {"coincident points", {box3(2, 2, 2, 2, 2, 2), box3(2, 2, 2, 2, 2, 2), box3(2, 2, 2, 2, 2, 2)},
         {{0, 1}, {0, 2}, {1, 2}},
         {}},
        {"contained box", {box3(0, 0, 0, 10, 10, 10), box3(4, 4, 4, 5, 5, 5)}, {{0, 1}}, {}},
        {"signed zeros touch", {box3(-1, -1, -1, -0.0f, -0.0f, -0.0f), box3(0, 0, 0, 1, 1, 1)}, {{0, 1}}, {}},
        {"invalid boxes take no part",
         {box3(0, 0, 0, 1, 1, 1), box3(0, 0, 0, nan, 1, 1), box3(0, 0, 0, 1, 1, 1), box3(0.5f, 0, 0, 0.4f, 1, 1),
          box3(nan, nan, nan, nan, nan, nan), box3(0, 0, 0, 1, 1, 1)},
         {{0, 2}, {0, 5}, {2, 5}},
         {1, 3, 4}},
        {"reversed infinities are invalid", {box3(inf, 0, 0, -inf, 1, 1), box3(0, 0, 0, 1, 1, 1)}, {}, {0}},
        {"infinite slab meets a far box on its plane",
         {box3(-inf, -inf, 0, inf, inf, 0), box3(1e30f, -1e30f, 0, 1e30f, -1e30f, 0), box3(5, 5, 1e-30f, 6, 6, 1)},
         {{0, 1}},
         {}},
        {"whole space meets everything",
         {box3(-inf, -inf, -inf, inf, inf, inf), box3(inf, inf, inf, inf, inf, inf),
          box3(-inf, -inf, -inf, -inf, -inf, -inf), box3(3, 3, 3, 4, 4, 4)},
         {{0, 1}, {0, 2}, {0, 3}},
         {}},
    };
}

Boxes boxes_of(const std::vector<Box>& v) {
    Boxes b;
    for (const Box& x : v) b.push_back(x);
    return b;
}

TEST(Reference, AgreesWithHandWrittenCases) {
    for (const HandCase& c : hand_cases()) {
        SCOPED_TRACE(c.name);
        const Boxes b = boxes_of(c.boxes);
        EXPECT_TRUE(identical_pairs(ref_self(b), c.pairs));
        EXPECT_EQ(ref_invalid(b), c.invalid);
    }
}

TEST_P(PairsTest, HandWrittenCases) {
    for (const HandCase& c : hand_cases()) {
        SCOPED_TRACE(c.name);
        const Boxes b = boxes_of(c.boxes);
        Options sorted;
        sorted.sorted = true;
        std::vector<Pair> out;
        const Report r = subject().self(b, out, sorted);
        EXPECT_EQ(r.status, Status::ok);
        EXPECT_TRUE(identical_pairs(out, c.pairs));
        EXPECT_EQ(r.invalid_a, c.invalid);
        // Each box against the set, as two sets: (i, j) for every overlapping
        // pair, both ways, and (i, i) for every valid box.
        std::vector<Pair> want;
        for (const Pair& p : c.pairs) want.push_back(p), want.push_back(Pair{p.b, p.a});
        for (std::uint32_t i = 0; i < b.size(); ++i)
            if (std::find(c.invalid.begin(), c.invalid.end(), i) == c.invalid.end()) want.push_back(Pair{i, i});
        std::sort(want.begin(), want.end());
        const Report rc = subject().cross(b, b, out, sorted);
        EXPECT_EQ(rc.status, Status::ok);
        EXPECT_TRUE(identical_pairs(out, want));
        EXPECT_EQ(rc.invalid_a, c.invalid);
        EXPECT_EQ(rc.invalid_b, c.invalid);
    }
}

TEST_P(IndexTest, HandWrittenCases) {
    for (const HandCase& c : hand_cases()) {
        SCOPED_TRACE(c.name);
        const Boxes b = boxes_of(c.boxes);
        const Report r = subject().build(b);
        EXPECT_EQ(r.invalid_a, c.invalid);
        for (std::uint32_t i = 0; i < b.size(); ++i) {
            std::vector<std::uint32_t> want;
            const bool valid = std::find(c.invalid.begin(), c.invalid.end(), i) == c.invalid.end();
            if (valid) want.push_back(i);
            for (const Pair& p : c.pairs) {
                if (p.a == i) want.push_back(p.b);
                if (p.b == i) want.push_back(p.a);
            }
            std::sort(want.begin(), want.end());
            std::vector<std::uint32_t> got;
            subject().query(b[i], got);
            EXPECT_TRUE(same_index_set(got, want)) << "query with box " << i;
        }
    }
}

// ---------------------------------------------------------------------------
// Options and streaming

/// n boxes in [0, 48)^3 with a few hundred pairs, some invalid ones mixed in.
Boxes budget_scene(int n = 300, std::uint64_t seed = 2) {
    Boxes b;
    Rng r(seed);
    for (int i = 0; i < n; ++i) {
        const float x = float(r.uniform(0, 40)), y = float(r.uniform(0, 40)), z = float(r.uniform(0, 40));
        const float e = float(r.uniform(0, 8));
        b.push_back(box3(x, y, z, x + e, y + e, z + e));
    }
    spoil(b, 0, 9);
    return b;
}

template <class Run>
void check_budgets(const std::vector<Pair>& all, Run&& run) {
    const std::uint64_t k = all.size();
    ASSERT_GT(k, 20u);
    for (const std::uint64_t budget : {std::uint64_t(0), std::uint64_t(1), k / 2, k - 1, k, k + 1, broadphase::no_budget}) {
        for (const bool sorted : {false, true}) {
            SCOPED_TRACE("max_pairs=" + std::to_string(budget) + (sorted ? " sorted" : ""));
            Options o;
            o.max_pairs = budget;
            o.sorted = sorted;
            std::vector<Pair> out{junk_pair()};
            const Report r = run(out, o);
            EXPECT_EQ(r.pairs, out.size());
            if (budget < k) {
                EXPECT_EQ(r.status, Status::pair_budget_exceeded) << status_string(r.status);
                EXPECT_LE(out.size(), budget);
                EXPECT_TRUE(subset_of_pairs(out, all));
            } else {
                EXPECT_EQ(r.status, Status::ok) << status_string(r.status);
                EXPECT_TRUE(same_pair_set(out, all));
            }
            if (sorted) {
                EXPECT_TRUE(sorted_pairs(out));
            }
        }
    }
}

TEST_P(PairsTest, PairBudget) {
    const Boxes b = budget_scene();
    const Boxes other = budget_scene(200, 6);
    {
        SCOPED_TRACE("self pairs");
        check_budgets(ref_self(b), [&](std::vector<Pair>& out, const Options& o) { return subject().self(b, out, o); });
    }
    {
        SCOPED_TRACE("two sets");
        check_budgets(ref_cross(b, other),
                      [&](std::vector<Pair>& out, const Options& o) { return subject().cross(b, other, out, o); });
    }
    {
        // A budget far below the pair count stops early on 2M pairs.
        SCOPED_TRACE("2,000 identical boxes, max_pairs=1000");
        const Boxes same = bs::identical(2000);
        Options o;
        o.max_pairs = 1000;
        std::vector<Pair> out;
        const Report r = subject().self(same, out, o);
        EXPECT_EQ(r.status, Status::pair_budget_exceeded);
        EXPECT_LE(out.size(), 1000u);
        EXPECT_EQ(r.pairs, out.size());
        EXPECT_TRUE(well_formed_self(out, same.size()));
    }
}

TEST_P(IndexTest, PairBudget) {
    const Boxes built = budget_scene();
    Boxes queries = budget_scene(200, 6);
    spoil(queries, 3, 10);
    subject().build(built);
    check_budgets(ref_cross(queries, built), [&](std::vector<Pair>& out, const Options& o) {
        const Report r = subject().query_batch(queries, out, o);
        EXPECT_EQ(r.invalid_a, ref_invalid(queries));
        return r;
    });
}

/// Stops after `stop_at` pairs: f must not be called again, the status says why.
template <class Stream>
void check_stops(const std::vector<Pair>& all, Stream&& stream) {
    const std::uint64_t k = all.size();
    ASSERT_GT(k, 20u);
    for (const std::uint64_t stop_at : {std::uint64_t(1), std::uint64_t(2), k / 3, k - 1, k, k + 5}) {
        SCOPED_TRACE("callback returns false at pair " + std::to_string(stop_at));
        std::vector<Pair> seen;
        std::uint64_t calls_after_false = 0;
        bool said_stop = false;
        const Report r = stream([&](std::uint32_t a, std::uint32_t b) {
            if (said_stop) {
                ++calls_after_false;
                return false;
            }
            seen.push_back(Pair{a, b});
            if (seen.size() >= stop_at) said_stop = true;
            return !said_stop;
        });
        EXPECT_EQ(calls_after_false, 0u) << "the callback was called after it returned false";
        EXPECT_TRUE(subset_of_pairs(seen, all));
        if (stop_at <= k) {
            EXPECT_EQ(r.status, Status::stopped_by_callback) << status_string(r.status);
            EXPECT_EQ(seen.size(), stop_at);
        } else {
            EXPECT_EQ(r.status, Status::ok) << status_string(r.status);
            EXPECT_TRUE(same_pair_set(seen, all));
        }
        EXPECT_EQ(r.pairs, seen.size());
    }
}

TEST_P(PairsTest, CallbackStops) {
    const Boxes b = budget_scene();
    const Boxes other = budget_scene(200, 6);
    {
        SCOPED_TRACE("self pairs");
        check_stops(ref_self(b), [&](const PairCallback& f) { return subject().self_stream(b, f); });
    }
    {
        SCOPED_TRACE("two sets");
        check_stops(ref_cross(b, other), [&](const PairCallback& f) { return subject().cross_stream(b, other, f); });
    }
    {
        SCOPED_TRACE("2,000 identical boxes, stop at the first pair");
        const Boxes same = bs::identical(2000);
        std::uint64_t calls = 0;
        const Report r = subject().self_stream(same, [&](std::uint32_t, std::uint32_t) {
            ++calls;
            return false;
        });
        EXPECT_EQ(r.status, Status::stopped_by_callback);
        EXPECT_EQ(calls, 1u);
    }
}

TEST_P(IndexTest, CallbackStops) {
    if (!subject().native_batch_stream()) GTEST_SKIP() << "BasicIndex has no for_each_batch_hit (see IndexApi)";
    const Boxes built = budget_scene();
    const Boxes queries = budget_scene(200, 6);
    subject().build(built);
    check_stops(ref_cross(queries, built), [&](const PairCallback& f) { return subject().batch_stream(queries, f); });
}

// ---------------------------------------------------------------------------
// Determinism: the same input gives the same pairs in the same order, on a
// reused object after other work and on a fresh one.

std::vector<Boxes> determinism_scenes() {
    std::vector<Boxes> out;
    out.push_back(random_scene<float, 3>(3000, 11, RandomKind::dense));
    out.push_back(invalid_mixed_scene().a);
    out.push_back(infinite_slabs_scene().a);
    out.push_back(bs::mixed(2000, 3));
    out.push_back(bs::lattice(8));
    return out;
}

TEST_P(PairsTest, Deterministic) {
    const std::vector<Boxes> scenes = determinism_scenes();
    std::unique_ptr<PairSubject> fresh = GetParam().make();
    std::vector<std::vector<Pair>> first(scenes.size()), cross_first(scenes.size());
    for (std::size_t i = 0; i < scenes.size(); ++i) {
        subject().self(scenes[i], first[i], Options{});
        subject().cross(scenes[i], scenes[(i + 1) % scenes.size()], cross_first[i], Options{});
    }
    for (int round = 0; round < 2; ++round) {
        for (std::size_t i = scenes.size(); i-- > 0;) {
            SCOPED_TRACE("scene " + std::to_string(i) + ", round " + std::to_string(round));
            std::vector<Pair> again, other, cross_again, cross_other;
            PairSubject& s = round == 0 ? subject() : *fresh;
            s.self(scenes[i], again, Options{});
            EXPECT_TRUE(identical_pairs(first[i], again)) << (round == 0 ? "reused object" : "fresh object");
            s.cross(scenes[i], scenes[(i + 1) % scenes.size()], cross_again, Options{});
            EXPECT_TRUE(identical_pairs(cross_first[i], cross_again)) << "two sets";
            std::vector<Pair> streamed;
            s.self_stream(scenes[i], [&](std::uint32_t a, std::uint32_t b) {
                streamed.push_back(Pair{a, b});
                return true;
            });
            std::vector<Pair> streamed_again;
            s.self_stream(scenes[i], [&](std::uint32_t a, std::uint32_t b) {
                streamed_again.push_back(Pair{a, b});
                return true;
            });
            EXPECT_TRUE(identical_pairs(streamed, streamed_again)) << "for_each_pair";
        }
    }
}

TEST_P(IndexTest, Deterministic) {
    const std::vector<Boxes> scenes = determinism_scenes();
    std::unique_ptr<IndexSubject> fresh = GetParam().make();
    const Boxes queries = random_scene<float, 3>(1500, 12, RandomKind::dense);
    for (std::size_t i = 0; i < scenes.size(); ++i) {
        SCOPED_TRACE("scene " + std::to_string(i));
        subject().build(scenes[i]);
        fresh->build(scenes[i]);
        std::vector<Pair> a, b, c;
        subject().query_batch(queries, a, Options{});
        subject().query_batch(queries, b, Options{});
        fresh->query_batch(queries, c, Options{});
        EXPECT_TRUE(identical_pairs(a, b));
        EXPECT_TRUE(identical_pairs(a, c)) << "fresh index";
        for (std::size_t q = 0; q < queries.size(); q += 37) {
            std::vector<std::uint32_t> x, y;
            subject().query(queries[q], x);
            fresh->query(queries[q], y);
            EXPECT_EQ(x, y) << "query " << q;
        }
    }
}

// ---------------------------------------------------------------------------
// Index life cycle

TEST_P(IndexTest, QueryBeforeBuildFindsNothing) {
    const Boxes queries = random_scene<float, 3>(50, 3, RandomKind::dense);
    std::vector<std::uint32_t> hits{7};
    EXPECT_EQ(subject().query(queries[0], hits), 0u);
    EXPECT_TRUE(hits.empty());
    std::vector<Pair> out{junk_pair()};
    const Report r = subject().query_batch(queries, out, Options{});
    EXPECT_EQ(r.status, Status::ok);
    EXPECT_TRUE(out.empty());
}

TEST_P(IndexTest, RebuildReplacesContents) {
    const Boxes big = random_scene<float, 3>(2000, 13, RandomKind::dense);
    const Boxes small = random_scene<float, 3>(40, 14, RandomKind::dense);
    const Boxes queries = random_scene<float, 3>(500, 15, RandomKind::dense);
    check_index(subject(), big, queries);
    check_index(subject(), small, queries);
    check_index(subject(), Boxes{}, queries);
    check_index(subject(), big, queries);
}

TEST_P(IndexTest, BuildCopiesItsInput) {
    const Boxes queries = random_scene<float, 3>(400, 16, RandomKind::dense);
    Boxes kept = random_scene<float, 3>(1000, 17, RandomKind::dense);
    spoil(kept, 5, 50);
    {
        auto scratch = std::make_unique<Boxes>(kept);
        subject().build(*scratch);
        // Overwrite, then free, the boxes the index was built from.
        for (std::size_t i = 0; i < scratch->size(); ++i) scratch->set(i, box3(1e9f, 1e9f, 1e9f, 1e9f, 1e9f, 1e9f));
        scratch.reset();
    }
    std::vector<Pair> out;
    subject().query_batch(queries, out, Options{});
    EXPECT_TRUE(same_pair_set(out, ref_cross(queries, kept)));
    const auto ref = ref_boxes(kept);
    for (std::size_t q = 0; q < queries.size(); q += 7) {
        std::vector<std::uint32_t> hits;
        subject().query(queries[q], hits);
        EXPECT_TRUE(same_index_set(hits, ref_query(ref, queries[q]))) << "query " << q;
    }
}

TEST_P(IndexTest, ConcurrentConstQueries) {
    Boxes built = random_scene<float, 3>(3000, 18, RandomKind::mixed);
    spoil(built, 1, 77);
    const Boxes queries = random_scene<float, 3>(1000, 19, RandomKind::mixed);
    subject().build(built);
    const IndexSubject& index = subject();
    const std::vector<Pair> want = ref_cross(queries, built);
    std::vector<std::vector<std::uint32_t>> want_hits(queries.size());
    for (const Pair& p : want) want_hits[p.a].push_back(p.b);
    constexpr int threads = 4;
    std::vector<int> bad_queries(threads, 0), bad_batches(threads, 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            std::vector<std::uint32_t> hits;
            for (std::size_t q = static_cast<std::size_t>(t); q < queries.size(); q += threads) {
                index.query(queries[q], hits);
                std::sort(hits.begin(), hits.end());
                if (hits != want_hits[q]) ++bad_queries[t];
            }
            std::vector<Pair> out;
            for (int rep = 0; rep < 2; ++rep) {
                index.query_batch(queries, out, Options{});
                if (!same_pair_set(out, want)) ++bad_batches[t];
            }
        });
    }
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) {
        EXPECT_EQ(bad_queries[t], 0) << "thread " << t;
        EXPECT_EQ(bad_batches[t], 0) << "thread " << t;
    }
}

// ---------------------------------------------------------------------------

std::string pair_subject_name(const ::testing::TestParamInfo<PairSubjectInfo>& info) { return info.param.name; }
std::string index_subject_name(const ::testing::TestParamInfo<IndexSubjectInfo>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Differential, PairsTest, ::testing::ValuesIn(pair_subjects()), pair_subject_name);
INSTANTIATE_TEST_SUITE_P(Differential, IndexTest, ::testing::ValuesIn(index_subjects()), index_subject_name);

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

INSTANTIATE_TEST_SUITE_P(Differential, FinderTest,
                         ::testing::Values(Algorithm::automatic, Algorithm::brute_force, Algorithm::sweep_and_prune,
                                           Algorithm::uniform_grid, Algorithm::hybrid_grid),
                         [](const ::testing::TestParamInfo<Algorithm>& info) {
                             return std::string(broadphase::to_string(info.param));
                         });

// ---------------------------------------------------------------------------
// API shape

TEST(IndexApi, HasStreamingBatchQuery) {
    // Every algorithm class streams a batch through for_each_batch_hit(queries, f);
    // the Index, which wraps them, should too.
    EXPECT_TRUE((has_for_each_batch_hit<broadphase::BruteForce, Boxes>::value));
    EXPECT_TRUE((has_for_each_batch_hit<broadphase::Index, Boxes>::value))
        << "broadphase::BasicIndex has no for_each_batch_hit(queries, f): a batch can only be collected into "
           "a vector (query_batch) or streamed one box at a time (for_each_hit)";
}

}  // namespace
}  // namespace bptest
