// Differential tests of every way of querying: the four algorithm classes
// build/query/for_each_overlap/query_batch/for_each_overlap_batch and Index with
// automatic and each algorithm (index_subjects()), against the scalar
// reference and the library's BruteForce, over random, adversarial and
// hand-written scenes, budgets, early stops, determinism and the Index life
// cycle (rebuilds, copies of the input, concurrent const queries).
#include <algorithm>
#include <memory>
#include <thread>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

class IndexTest : public ::testing::TestWithParam<IndexSubjectInfo> {
protected:
    void SetUp() override { subject_ = GetParam().make(); }
    IndexSubject& subject() { return *subject_; }
    std::unique_ptr<IndexSubject> subject_;
};

// ---------------------------------------------------------------------------
// Random scenes

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
// Adversarial scenes (test_scenes.hpp): indexes over either set queried by
// the other and by itself.

#define BPTEST_INDEX_TEST(Name, make_scene)  \
    TEST_P(IndexTest, Name) {                \
        const ScenePair s = make_scene();    \
        check_indexes(subject(), s.a, s.b);  \
    }
BPTEST_ADVERSARIAL_SCENES(BPTEST_INDEX_TEST)
BPTEST_REAL_SCENES(BPTEST_INDEX_TEST)  // the real-data scenes, small
#undef BPTEST_INDEX_TEST

TEST_P(IndexTest, Identical2000) {
    const ScenePair s = identical_scene();
    Boxes few;  // 40 copies and the boxes touching and missing them
    for (std::size_t i = s.b.size() - 46; i < s.b.size(); ++i) few.push_back(s.b[i]);
    check_index(subject(), s.a, few, Oracle::scalar, 46);
    check_index(subject(), few, s.a, Oracle::scalar, 40);
    check_index(subject(), s.b, s.b, Oracle::scalar, 40);
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
// Exact cases written by hand (test_scenes.cpp): the expected hits are not computed.

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

TEST_P(IndexTest, CallbackStops) {
    const Boxes built = budget_scene();
    const Boxes queries = budget_scene(200, 6);
    subject().build(built);
    check_stops(ref_cross(queries, built), [&](const PairCallback& f) { return subject().batch_stream(queries, f); });
}

// ---------------------------------------------------------------------------
// Determinism: the same input gives the same pairs in the same order, on a
// reused object after other work and on a fresh one.

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

INSTANTIATE_TEST_SUITE_P(Differential, IndexTest, ::testing::ValuesIn(index_subjects()), ParamName());

}  // namespace
}  // namespace bptest
