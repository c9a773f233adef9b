// Threads: every algorithm, the front door and the Index at 1, 2, 3 and 8
// threads, on random scenes (fixed seeds) and on the adversarial ones. The
// pairs must equal the oracle's and be identical, order included, for every
// thread count. Also: budgets under threads, concurrent const queries while
// other threads run threaded batches, and the thread planning itself.
//
// Options::min_boxes_per_thread = 1 makes every requested thread take part
// even on tiny inputs, so the parallel paths run on every case. This
// executable is also built with ThreadSanitizer (scripts/test.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/parallel_for.hpp>
#include "grid/adaptive_grid_core_build.hpp"
#include "grid/adaptive_grid_core_queries.hpp"
#include "core/radix_sort.hpp"
#include <broadphase_fixtures/scenes.hpp>

#include "differential.hpp"
#include "reference.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

using broadphase::Boxes;
using broadphase::Pair;

constexpr unsigned kThreadCounts[] = {1, 2, 3, 8};

Options threaded(Algorithm a, unsigned threads) {
    Options o;
    o.algorithm = a;
    o.threads = threads;
    o.min_boxes_per_thread = 1;
    return o;
}

/// A scene to run under threads: one set, or two for cross pairs and queries.
struct ThreadCase {
    std::string name;
    Boxes a, b;
};

std::vector<ThreadCase> thread_cases() {
    std::vector<ThreadCase> cases;
    for (std::size_t n : {0, 1, 2, 3, 17, 100, 1000, 3000})
        for (std::uint64_t seed = 1; seed <= (n >= 1000 ? 4u : 3u); ++seed)
            cases.push_back({case_name(n, seed), random_case(n, seed), random_case(n / 2 + 1, seed + 100)});
#define BPTEST_ADD_SCENE(Name, fn)      \
    {                                   \
        ScenePair s = fn();             \
        cases.push_back({#Name, s.a, s.b}); \
    }
    BPTEST_ADVERSARIAL_SCENES(BPTEST_ADD_SCENE)
    BPTEST_REAL_SCENES(BPTEST_ADD_SCENE)
#undef BPTEST_ADD_SCENE
    return cases;
}

const std::vector<ThreadCase>& all_cases() {
    static const std::vector<ThreadCase> cases = thread_cases();
    return cases;
}

std::vector<Algorithm> every_algorithm() {
    std::vector<Algorithm> v(std::begin(broadphase::concrete_algorithms), std::end(broadphase::concrete_algorithms));
    v.push_back(Algorithm::automatic);
    return v;
}

class Threads : public ::testing::TestWithParam<Algorithm> {};

TEST_P(Threads, SelfPairsEqualOracleAndIdenticalForEveryThreadCount) {
    const Algorithm algo = GetParam();
    broadphase::PairFinder finder;  // one finder across thread counts: its buffers are reused
    for (const ThreadCase& c : all_cases()) {
        SCOPED_TRACE(c.name);
        const std::vector<Pair> want = ref_self(c.a);
        std::vector<Pair> first;
        const Report r1 = finder.find_pairs(c.a, first, threaded(algo, 1));
        ASSERT_TRUE(r1.ok());
        ASSERT_TRUE(same_pair_set(first, want));
        for (unsigned t : kThreadCounts) {
            SCOPED_TRACE("threads " + std::to_string(t));
            std::vector<Pair> got{junk_pair()};
            const Report r = finder.find_pairs(c.a, got, threaded(algo, t));
            ASSERT_TRUE(r.ok()) << status_string(r.status);
            EXPECT_EQ(r.pairs, got.size());
            EXPECT_EQ(r.invalid_a, r1.invalid_a);
            ASSERT_TRUE(identical_pairs(got, first));
        }
    }
}

TEST_P(Threads, CrossPairsEqualOracleAndIdenticalForEveryThreadCount) {
    const Algorithm algo = GetParam();
    broadphase::PairFinder finder;
    for (const ThreadCase& c : all_cases()) {
        SCOPED_TRACE(c.name);
        const std::vector<Pair> want = ref_cross(c.a, c.b);
        std::vector<Pair> first;
        ASSERT_TRUE(finder.find_pairs(c.a, c.b, first, threaded(algo, 1)).ok());
        ASSERT_TRUE(same_pair_set(first, want));
        for (unsigned t : kThreadCounts) {
            SCOPED_TRACE("threads " + std::to_string(t));
            std::vector<Pair> got;
            const Report r = finder.find_pairs(c.a, c.b, got, threaded(algo, t));
            ASSERT_TRUE(r.ok()) << status_string(r.status);
            ASSERT_TRUE(identical_pairs(got, first));
        }
    }
}

TEST_P(Threads, IndexBuildAndBatchIdenticalForEveryThreadCount) {
    const Algorithm algo = GetParam();
    for (const ThreadCase& c : all_cases()) {
        SCOPED_TRACE(c.name);
        const std::vector<Pair> want = ref_cross(c.b, c.a);  // (query, built)
        broadphase::Index one;
        ASSERT_TRUE(one.build(c.a, threaded(algo, 1)).ok());
        std::vector<Pair> first;
        ASSERT_TRUE(one.query_batch(c.b, first, threaded(algo, 1)).ok());
        ASSERT_TRUE(same_pair_set(first, want));
        for (unsigned t : kThreadCounts) {
            SCOPED_TRACE("threads " + std::to_string(t));
            broadphase::Index index;
            ASSERT_TRUE(index.build(c.a, threaded(algo, t)).ok());
            std::vector<Pair> got;
            ASSERT_TRUE(index.query_batch(c.b, got, threaded(algo, t)).ok());
            ASSERT_TRUE(identical_pairs(got, first));
            // Single queries on an index built with threads.
            std::vector<std::uint32_t> hits;
            for (std::size_t q = 0; q < c.b.size() && q < 50; ++q) {
                index.query(c.b[q], hits);
                std::vector<std::uint32_t> expected;
                for (const Pair& p : want)
                    if (p.a == q) expected.push_back(p.b);
                ASSERT_TRUE(same_index_set(hits, expected)) << "query " << q;
            }
        }
    }
}

TEST_P(Threads, BudgetKeepsTheSameFirstPairs) {
    const Algorithm algo = GetParam();
    const Boxes boxes = random_case(3000, 2);
    broadphase::PairFinder finder;
    std::vector<Pair> all;
    ASSERT_TRUE(finder.find_pairs(boxes, all, threaded(algo, 1)).ok());
    ASSERT_GT(all.size(), 20u);
    for (std::uint64_t budget : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(all.size() / 3),
                                 std::uint64_t(all.size() - 1), std::uint64_t(all.size())}) {
        SCOPED_TRACE("budget " + std::to_string(budget));
        Options one = threaded(algo, 1);
        one.max_pairs = budget;
        std::vector<Pair> first;
        const Report r1 = finder.find_pairs(boxes, first, one);
        for (unsigned t : kThreadCounts) {
            Options o = threaded(algo, t);
            o.max_pairs = budget;
            std::vector<Pair> got;
            const Report r = finder.find_pairs(boxes, got, o);
            EXPECT_EQ(r.status, r1.status) << "threads " << t;
            EXPECT_EQ(r.pairs, got.size());
            ASSERT_TRUE(identical_pairs(got, first)) << "threads " << t;
        }
        EXPECT_EQ(r1.status, budget < all.size() ? Status::pair_budget_exceeded : Status::ok);
    }
}

TEST_P(Threads, SortedOutputUnderThreads) {
    const Algorithm algo = GetParam();
    const Boxes boxes = random_case(2000, 5);
    std::vector<Pair> want = ref_self(boxes);
    for (unsigned t : kThreadCounts) {
        Options o = threaded(algo, t);
        o.sorted = true;
        std::vector<Pair> got;
        ASSERT_TRUE(broadphase::find_pairs(boxes, got, o).ok());
        ASSERT_TRUE(sorted_pairs(got));
        ASSERT_TRUE(identical_pairs(got, want)) << "threads " << t;
    }
}

INSTANTIATE_TEST_SUITE_P(Every, Threads, ::testing::ValuesIn(every_algorithm()),
                         [](const ::testing::TestParamInfo<Algorithm>& info) {
                             return std::string(broadphase::to_string(info.param));
                         });

// Built-in scenes of the benchmarks, with the default threshold (threads
// start only where each gets 4,096 boxes), against one thread.
TEST(ThreadsBuiltinScenes, SameAsOneThread) {
    for (const char* name : {"clusters40k", "mixed20k", "pointclouds10k"}) {
        SCOPED_TRACE(name);
        Boxes boxes;
        ASSERT_TRUE(broadphase_fixtures::make_scene(name, boxes));
        broadphase::PairFinder finder;
        for (Algorithm a : {Algorithm::uniform_grid, Algorithm::hybrid_grid, Algorithm::sweep_and_prune,
                            Algorithm::adaptive_grid, Algorithm::cluster_pairs, Algorithm::automatic}) {
            SCOPED_TRACE(broadphase::to_string(a));
            Options o;
            o.algorithm = a;
            o.threads = 1;
            std::vector<Pair> first, got;
            ASSERT_TRUE(finder.find_pairs(boxes, first, o).ok());
            for (unsigned t : {2u, 3u}) {
                o.threads = t;
                ASSERT_TRUE(finder.find_pairs(boxes, got, o).ok());
                ASSERT_TRUE(identical_pairs(got, first)) << "threads " << t;
            }
        }
    }
}

// The adaptive grid builds its tree level by level in parallel (big nodes
// cut into slices of 8,192 boxes): the tree, node for node and instance for
// instance, must be the one a single thread builds, and valid.
TEST(ThreadsAdaptiveTree, SameTreeForEveryThreadCount) {
    using Tree = broadphase::detail::AdaptiveGridCore<float, 3>;
    std::vector<std::pair<std::string, Boxes>> scenes;
    for (const char* name : {"clusters40k", "mixed20k"}) {
        Boxes b;
        ASSERT_TRUE(broadphase_fixtures::make_scene(name, b));
        scenes.emplace_back(name, b);
    }
    scenes.emplace_back("identical9000", broadphase_fixtures::identical(9000));  // one leaf, from slices (tree only)
    scenes.emplace_back("uniform30000", broadphase_fixtures::uniform(30000));
    for (const auto& [name, boxes] : scenes) {
        SCOPED_TRACE(name);
        const auto view = broadphase::detail::SoaView<float, 3>::of(boxes);
        Tree one;
        one.build(view, Tree::Params{}, 1);
        ASSERT_EQ(one.validate(), "");
        for (unsigned t : {2u, 3u, 8u}) {
            SCOPED_TRACE(t);
            Tree many;
            many.build(view, Tree::Params{}, t, 1);  // every pass on t threads
            ASSERT_EQ(many.nodes().size(), one.nodes().size());
            ASSERT_EQ(many.instances(), one.instances());
            for (std::size_t i = 0; i < one.nodes().size(); ++i) {
                const auto &a = one.nodes()[i], &b = many.nodes()[i];
                ASSERT_TRUE(a.mask == b.mask && a.first_child == b.first_child && a.begin == b.begin &&
                            a.end == b.end && a.level == b.level && a.leaf == b.leaf &&
                            std::equal(a.cell, a.cell + 3, b.cell))
                    << "node " << i;
            }
            if (name == "identical9000") continue;  // (40 million pairs)
            std::vector<Pair> want, got;
            {
                broadphase::PairSink ws(want), gs(got);  // (complete when they go out of scope)
                one.self_pairs(ws, 1);
                many.self_pairs(gs, t);
            }
            ASSERT_TRUE(identical_pairs(got, want));
        }
    }
}

// The radix sort under threads (parts count and scatter on their own): the
// same stable order for every thread count, also for keys with many ties.
TEST(ThreadsRadixSort, SameStableOrderForEveryThreadCount) {
    for (std::uint32_t distinct : {1u, 7u, 1000u, 0xffffffffu}) {
        SCOPED_TRACE(distinct);
        broadphase_fixtures::Random rng(distinct);
        const std::size_t n = 200000;
        std::vector<std::uint32_t> keys0(n), values0(n);
        for (std::size_t i = 0; i < n; ++i) {
            keys0[i] = static_cast<std::uint32_t>(rng.next() % distinct) * 2654435761u;
            values0[i] = static_cast<std::uint32_t>(i);
        }
        std::vector<std::uint32_t> want_k, want_v;
        for (unsigned t : {1u, 2u, 3u, 8u}) {
            std::vector<std::uint32_t> k = keys0, v = values0;
            broadphase::detail::RadixScratch scratch;
            broadphase::detail::radix_sort(k, v, scratch, t);
            if (t == 1) {
                for (std::size_t i = 1; i < n; ++i)
                    ASSERT_TRUE(k[i - 1] < k[i] || (k[i - 1] == k[i] && v[i - 1] < v[i])) << i;
                want_k = k, want_v = v;
                continue;
            }
            ASSERT_EQ(k, want_k) << "threads " << t;
            ASSERT_EQ(v, want_v) << "threads " << t;
        }
    }
}

// Const queries from several threads on one structure, while some of those
// threads run batches that are themselves threaded.
TEST(ThreadsConcurrentQueries, OneIndexManyThreads) {
    const Boxes built = random_case(3000, 4);
    const Boxes queries = random_case(800, 7);
    for (Algorithm a : every_algorithm()) {
        SCOPED_TRACE(broadphase::to_string(a));
        broadphase::Index index;
        ASSERT_TRUE(index.build(built, threaded(a, 2)).ok());
        std::vector<Pair> want;
        ASSERT_TRUE(index.query_batch(queries, want, threaded(a, 1)).ok());
        std::atomic<int> failures{0};
        std::vector<std::thread> workers;
        for (int w = 0; w < 4; ++w) {
            workers.emplace_back([&, w] {
                std::vector<Pair> got;
                for (int rep = 0; rep < 3; ++rep) {
                    if (!index.query_batch(queries, got, threaded(a, w % 2 ? 2 : 1)).ok() || got.size() != want.size() ||
                        !std::equal(got.begin(), got.end(), want.begin()))
                        ++failures;
                    std::vector<std::uint32_t> hits;
                    std::size_t total = 0;
                    for (std::size_t q = 0; q < queries.size(); ++q) total += index.query(queries[q], hits);
                    if (total != want.size()) ++failures;
                }
            });
        }
        for (std::thread& t : workers) t.join();
        EXPECT_EQ(failures.load(), 0);
    }
}

// Several PairFinders, one per thread, each using threads itself.
TEST(ThreadsConcurrentQueries, OneFinderPerThread) {
    const Boxes boxes = random_case(3000, 8);
    const std::vector<Pair> want = ref_self(boxes);
    std::atomic<int> failures{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < 3; ++w) {
        workers.emplace_back([&, w] {
            broadphase::PairFinder finder;
            std::vector<Pair> got;
            for (Algorithm a : every_algorithm()) {
                Options o = threaded(a, static_cast<unsigned>(w + 1));
                o.sorted = true;
                if (!finder.find_pairs(boxes, got, o).ok() || got != want) ++failures;
            }
        });
    }
    for (std::thread& t : workers) t.join();
    EXPECT_EQ(failures.load(), 0);
}

TEST(ThreadPlanning, CountsAndThresholds) {
    using broadphase::plan_threads;
    using broadphase::Work;
    const unsigned all = broadphase::default_threads();
    EXPECT_GE(all, 1u);
    if (!broadphase::threads_enabled()) {
        EXPECT_EQ(plan_threads(8, 1u << 20, Work::box, 1), 1u);
        return;
    }
    EXPECT_EQ(plan_threads(0, 1u << 30, Work::box, 1), all);  // 0 = all
    EXPECT_EQ(plan_threads(1, 1u << 30, Work::box, 1), 1u);   // 1 = the calling thread
    EXPECT_EQ(plan_threads(8, 1u << 30, Work::box, 1), 8u);   // more than the cores: as asked
    EXPECT_EQ(plan_threads(8, 3, Work::box, 1), 3u);          // never more than items
    EXPECT_EQ(plan_threads(8, 10000, Work::box), 2u);         // the default minimum, 4,096 boxes, caps it
    EXPECT_EQ(plan_threads(8, 100, Work::box), 1u);
    EXPECT_EQ(plan_threads(8, 0, Work::box), 1u);
    EXPECT_EQ(plan_threads(8, 10000, Work::box, 0), 8u);      // 0 counts as 1
}

// The one rule: a thread gets at least min_boxes_per_thread boxes' worth
// of work, each item weighted by its cost (threads.hpp's table).
TEST(ThreadPlanning, OneRuleForEveryCost) {
    using broadphase::plan_threads;
    using broadphase::Work;
    if (!broadphase::threads_enabled()) return;
    const std::pair<Work, std::size_t> per_thread[] = {{Work::four_boxes, 1024}, {Work::box, 4096},
                                                      {Work::half, 8192},        {Work::quarter, 16384},
                                                      {Work::eighth, 32768}};
    for (const auto& [cost, items] : per_thread) {
        EXPECT_EQ(plan_threads(64, items - 1, cost), 1u);
        EXPECT_EQ(plan_threads(64, items, cost), 1u);
        EXPECT_EQ(plan_threads(64, 2 * items - 1, cost), 1u);
        EXPECT_EQ(plan_threads(64, 2 * items, cost), 2u);
        EXPECT_EQ(plan_threads(64, 5 * items + 3, cost), 5u);
        // The minimum scales every cost alike.
        EXPECT_EQ(plan_threads(64, items / 2, cost, 2048), 1u);
        EXPECT_EQ(plan_threads(64, items, cost, 2048), 2u);
    }
    // Huge minimums and counts do not overflow.
    EXPECT_EQ(plan_threads(8, std::size_t(1) << 40, Work::four_boxes, ~std::size_t(0)), 1u);
    EXPECT_EQ(plan_threads(8, ~std::size_t(0) / 64, Work::four_boxes), 8u);
}

TEST(ThreadPlanning, ParallelForCoversTheRangeOnce) {
    for (unsigned threads : {0u, 1u, 2u, 8u})
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(100000)}) {
            std::vector<int> hits(n, 0);
            broadphase::parallel_for(n, threads, broadphase::Work::eighth, [&](std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i) ++hits[i];
            });
            EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<std::ptrdiff_t>(n));
        }
}

TEST(ThreadPlanning, TaskExceptionsReachTheCaller) {
    for (unsigned threads : {1u, 2u, 8u}) {
        std::atomic<int> ran{0};
        EXPECT_THROW(broadphase::detail::run_tasks(threads, 64,
                                                   [&](std::size_t t, unsigned) {
                                                       ++ran;
                                                       if (t == 5) throw std::bad_alloc();
                                                   }),
                     std::bad_alloc);
        EXPECT_GE(ran.load(), 1);
    }
}

TEST(ThreadPlanning, EveryTaskRunsOnceOnAThreadInRange) {
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
        std::vector<std::atomic<int>> seen(257);
        std::atomic<bool> bad_thread{false};
        broadphase::detail::run_tasks(threads, seen.size(), [&](std::size_t t, unsigned thread) {
            seen[t]++;
            if (thread >= threads) bad_thread = true;
        });
        for (std::size_t t = 0; t < seen.size(); ++t) EXPECT_EQ(seen[t].load(), 1) << t;
        EXPECT_FALSE(bad_thread.load());
    }
}

}  // namespace
}  // namespace bptest
