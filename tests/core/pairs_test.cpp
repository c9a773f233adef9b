// Differential tests of every way of finding pairs: the four algorithm
// classes and find_pairs with automatic and each algorithm (pair_subjects()),
// against the scalar reference and the library's BruteForce, over random
// scenes of many seeds and sizes, adversarial and hand-written scenes,
// budgets, early stops and determinism. Index queries: index_test.cpp; a
// reused PairFinder and the reference itself: finder_test.cpp.
#include <algorithm>
#include <memory>

#include <broadphase_fixtures/scenes.hpp>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

namespace bs = broadphase_fixtures;

class PairsTest : public ::testing::TestWithParam<PairSubjectInfo> {
protected:
    void SetUp() override { subject_ = GetParam().make(); }
    PairSubject& subject() { return *subject_; }
    std::unique_ptr<PairSubject> subject_;
};

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

// ---------------------------------------------------------------------------
// Adversarial scenes (test_scenes.hpp): self pairs of both sets, pairs
// between them both ways and a set with itself.

#define BPTEST_PAIRS_TEST(Name, make_scene) \
    TEST_P(PairsTest, Name) {               \
        const ScenePair s = make_scene();   \
        check_pairs(subject(), s.a, s.b);   \
    }
BPTEST_ADVERSARIAL_SCENES(BPTEST_PAIRS_TEST)
BPTEST_REAL_SCENES(BPTEST_PAIRS_TEST)  // the real-data scenes, small
#undef BPTEST_PAIRS_TEST

TEST_P(PairsTest, Identical2000) {
    const ScenePair s = identical_scene();
    check_self(subject(), s.a);  // 1,999,000 pairs
    check_self(subject(), s.b);
    const Boxes part = bs::identical(400);
    check_cross(subject(), part, s.b);
    check_cross(subject(), s.b, s.b);
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

// ---------------------------------------------------------------------------
// Exact cases written by hand (test_scenes.cpp): the expected pairs are not computed.

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

// ---------------------------------------------------------------------------
// Options and streaming

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

// ---------------------------------------------------------------------------
// Determinism: the same input gives the same pairs in the same order, on a
// reused object after other work and on a fresh one.

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

INSTANTIATE_TEST_SUITE_P(Differential, PairsTest, ::testing::ValuesIn(pair_subjects()), ParamName());

}  // namespace
}  // namespace bptest

// sort_pairs against std::sort on each of its three paths: under 256
// pairs (std::sort), fewer than n / 8 (radix on packed keys: ids up to
// 2^32 - 1, and b past n, as the one-argument form allows), and the
// counting sort by a; duplicates kept, scratch reused across calls.
TEST(SortPairs, MatchesStdSortOnEveryPath) {
    std::uint64_t state = 99;
    auto next = [&]() {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint32_t>(state >> 32);
    };
    broadphase::PairSortScratch scratch;
    struct Case {
        std::size_t k;
        std::uint64_t n;  // ids below n
        std::size_t sort_n;
    };
    const Case cases[] = {{100, 1000, 1000},         {5000, 100000, 100000},  {5000, 1000, 1000},
                          {3000, 1ull << 32, 100000}, {9000, 100000, 100000}, {2000, 70000, 1000000}};
    for (const Case& c : cases) {
        std::vector<broadphase::Pair> v;
        for (std::size_t i = 0; i < c.k; ++i) {
            std::uint32_t a = static_cast<std::uint32_t>(next() % c.n), b = static_cast<std::uint32_t>(next() % c.n);
            if (a > b) std::swap(a, b);
            v.push_back({a, b});
            if (i % 7 == 0) v.push_back({a, b});  // a duplicate
        }
        std::vector<broadphase::Pair> want = v;
        std::sort(want.begin(), want.end());
        std::vector<broadphase::Pair> got = v;
        broadphase::sort_pairs(got, c.sort_n, scratch);
        EXPECT_EQ(got, want) << c.k << " pairs, ids below " << c.n;
        got = v;
        broadphase::sort_pairs(got);
        EXPECT_EQ(got, want) << c.k << " pairs, ids below " << c.n << " (one-argument form)";
    }
}
