// Hard limits: more than 2^32 pairs streamed; Options::max_pairs
// at 0, 1 and around the chunk sizes inside the library, for every
// algorithm, one and two sets, one and several threads; an address-space
// limit (setrlimit, in a child process) giving Status::out_of_memory and
// objects that still answer right afterwards; scene ids reused millions of
// times; coordinates at +-FLT_MAX, infinities and past float's integer
// spacing; the 2^32 - 2 box ceiling checked by computation, not allocation.
//
// Times (Release, -Og tests, the CI's 2-core machine): the 2^32-pair stream
// takes about 29 s; everything else a few seconds together. Under the
// sanitizers the 2^32 streams are skipped (compile-time check, a smaller
// stream runs instead) and the id churn is shorter. The full version, every
// algorithm at 100,000 identical boxes (4,999,950,000 pairs, about 37 s), is
// LimitsLong.*: skipped unless BROADPHASE_LIMITS_LONG=1 (scripts/limits_long.sh).
#include <gtest/gtest.h>

#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/detail/buffers.hpp>
#include "core/stats.hpp"
#include <broadphase/hybrid_grid.hpp>
#include "grid/grid_algorithm_impl.hpp"  // a grid of its own policy (HugeSpanPolicy)
#include <broadphase/scene.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "differential.hpp"
#include "reference.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define BPTEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define BPTEST_SANITIZED 1
#endif
#endif
#ifndef BPTEST_SANITIZED
#define BPTEST_SANITIZED 0
#endif

namespace bptest {
namespace {

using broadphase::Box;
using broadphase::Boxes;
using broadphase::ObjectType;
using broadphase::Scene;
using broadphase::UpdateMode;
using broadphase_fixtures::Random;

constexpr bool kSanitized = BPTEST_SANITIZED != 0;
constexpr std::uint64_t k2To32 = std::uint64_t(1) << 32;

const std::vector<Algorithm> kAlgorithms = {Algorithm::automatic,    Algorithm::brute_force,
                                            Algorithm::sweep_and_prune, Algorithm::uniform_grid,
                                            Algorithm::hybrid_grid,  Algorithm::adaptive_grid,
                                            Algorithm::cluster_pairs};
constexpr UpdateMode kModes[] = {UpdateMode::automatic, UpdateMode::rebuild,
                                 UpdateMode::multi_box_pruning, UpdateMode::grid, UpdateMode::enlarged};

Boxes identical_boxes(std::size_t n) {
    Boxes b;
    b.reserve(n);
    for (std::size_t i = 0; i < n; ++i) b.push_back(Box{{0, 0, 0}, {1, 1, 1}});
    return b;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---------------------------------------------------------------------------
// 1. More than 2^32 pairs through for_each_pair

/// The checksum of a stream of pairs: the sum of (a << 32) + b, mod 2^64.
/// Over every pair a < b < n, each once: a appears n - 1 - a times, b
/// appears b times. (Kept in locals of the callback: a struct's members
/// cost three times as much a pair, 3 ns against 1.1.)
std::uint64_t expected_checksum(std::uint64_t n) {
    std::uint64_t sum_a = 0, sum_b = 0;
    for (std::uint64_t i = 0; i < n; ++i) sum_a += i * (n - 1 - i), sum_b += i * i;
    return (sum_a << 32) + sum_b;
}

/// Streams every pair of n identical boxes with one algorithm; checks the
/// count (64-bit, past 2^32), the sums and the report. Returns the seconds.
double stream_all_pairs(std::size_t n, Algorithm a) {
    const Boxes boxes = identical_boxes(n);
    broadphase::PairFinder finder;
    Options o;
    o.algorithm = a;
    std::uint64_t count = 0, sum = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    const Report r = finder.for_each_pair(
        boxes, [&](std::uint32_t x, std::uint32_t y) { ++count, sum += (std::uint64_t(x) << 32) + y; }, o);
    const double secs = seconds_since(t0), cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    const std::uint64_t want = std::uint64_t(n) * (n - 1) / 2;
    EXPECT_EQ(r.status, Status::ok) << status_string(r.status);
    EXPECT_EQ(count, want);
    EXPECT_EQ(r.pairs, want) << "Report::pairs";
    EXPECT_EQ(sum, expected_checksum(n)) << "some pair missing, repeated or out of order (a >= b)";
    std::printf("[ stream   ] %s: %zu identical boxes, %llu pairs in %.2f s wall, %.2f s CPU (%.2f ns a pair)\n",
                broadphase::to_string(a), n, static_cast<unsigned long long>(count), secs, cpu,
                1e9 * cpu / double(std::max<std::uint64_t>(want, 1)));
    return cpu;
}

// The smallest n with n (n - 1) / 2 > 2^32.
constexpr std::uint64_t kPast2To32 = 92683;
static_assert(kPast2To32 * (kPast2To32 - 1) / 2 > k2To32, "past 2^32 pairs");
static_assert((kPast2To32 - 1) * (kPast2To32 - 2) / 2 <= k2To32, "the smallest such n");

// One stream past 2^32 pairs checks the 64-bit count, the 64-bit budget
// and an exact stop: brute force over the smallest n with more than 2^32
// pairs, with a budget of all of them but one. Brute force goes row by
// row, so the pair left out is the last, (n - 2, n - 1), and the one
// before it (n - 3, n - 1) is the last delivered. (One stream, not one
// with no budget and one with a budget: each takes 29 s of CI's machine.)
TEST(Limits, StreamsAndBudgetsPast2To32Pairs) {
    if constexpr (kSanitized) {
        // 4.3e9 callbacks through the sanitizers' instrumentation take
        // minutes: every algorithm streams 8 million pairs here instead.
        for (Algorithm a : kAlgorithms) stream_all_pairs(4000, a);
        GTEST_SKIP() << "2^32-pair stream skipped under sanitizers (a smaller stream ran)";
    }
    const std::uint64_t n = kPast2To32, total = n * (n - 1) / 2;
    const Boxes boxes = identical_boxes(n);
    broadphase::PairFinder finder;
    Options o;
    o.algorithm = Algorithm::brute_force;
    o.max_pairs = total - 1;
    std::uint64_t count = 0, sum = 0, last = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const Report r = finder.for_each_pair(boxes, [&](std::uint32_t x, std::uint32_t y) {
        last = (std::uint64_t(x) << 32) + y;
        ++count, sum += last;
    }, o);
    EXPECT_EQ(r.status, Status::pair_budget_exceeded) << status_string(r.status);
    EXPECT_GT(count, k2To32);
    EXPECT_EQ(count, total - 1);
    EXPECT_EQ(r.pairs, total - 1) << "Report::pairs";
    const std::uint64_t left_out = ((n - 2) << 32) + (n - 1);
    EXPECT_EQ(sum, expected_checksum(n) - left_out) << "some pair missing, repeated or out of order (a >= b)";
    EXPECT_EQ(last, ((n - 3) << 32) + (n - 1)) << "the last pair delivered";
    std::printf("[ stream   ] brute_force: %llu identical boxes, %llu pairs in %.2f s\n",
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(count), seconds_since(t0));
}

/// Every algorithm at 100,000 identical boxes (4,999,950,000 pairs), and
/// two sets of 65,537 identical boxes (4,295,098,369 pairs): about a minute
/// in Release. Run by scripts/limits_long.sh.
bool long_runs_wanted() {
    const char* e = std::getenv("BROADPHASE_LIMITS_LONG");
    return e && *e && std::string(e) != "0";
}

TEST(LimitsLong, EveryAlgorithmStreams5e9Pairs) {
    if (!long_runs_wanted()) GTEST_SKIP() << "set BROADPHASE_LIMITS_LONG=1 (scripts/limits_long.sh)";
    double total = 0;
    for (Algorithm a : broadphase::concrete_algorithms) total += stream_all_pairs(100000, a);
    std::printf("[ stream   ] all five: %.1f s CPU\n", total);
}

TEST(LimitsLong, TwoSetsStreamPast2To32Pairs) {
    if (!long_runs_wanted()) GTEST_SKIP() << "set BROADPHASE_LIMITS_LONG=1 (scripts/limits_long.sh)";
    const std::size_t n = 65537;
    const Boxes a = identical_boxes(n), b = identical_boxes(n);
    for (Algorithm alg : {Algorithm::brute_force, Algorithm::sweep_and_prune, Algorithm::uniform_grid}) {
        broadphase::PairFinder finder;
        Options o;
        o.algorithm = alg;
        std::uint64_t count = 0, sum_a = 0, sum_b = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const std::clock_t c0 = std::clock();
        auto f = [&](std::uint32_t x, std::uint32_t y) { ++count, sum_a += x, sum_b += y; };
        const Report r = finder.for_each_pair(a, b, f, o);
        const double secs = seconds_since(t0), cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        const std::uint64_t want = std::uint64_t(n) * n, sums = std::uint64_t(n) * (std::uint64_t(n) * (n - 1) / 2);
        EXPECT_EQ(r.status, Status::ok);
        EXPECT_EQ(count, want) << broadphase::to_string(alg);
        EXPECT_EQ(r.pairs, want);
        EXPECT_EQ(sum_a, sums);
        EXPECT_EQ(sum_b, sums);
        std::printf("[ stream   ] two sets, %s: %llu pairs in %.2f s wall, %.2f s CPU\n", broadphase::to_string(alg),
                    static_cast<unsigned long long>(count), secs, cpu);
    }
}

// ---------------------------------------------------------------------------
// 2. Options::max_pairs at 0, 1 and around the library's chunk sizes

/// Budgets to try against a true count `total`: 0, 1, 2, either side of
/// PairSink's chunk bounds (chunks of 256 doubling to 65,536: 256, 768,
/// 1,792, ... written), the sweep's 2,048-box slices and the grids' 1,024-box
/// binning chunks, 65,536 and twice it, and the true count itself.
std::vector<std::uint64_t> budgets_for(std::uint64_t total) {
    std::vector<std::uint64_t> b = {0, 1, 2};
    for (std::uint64_t c : {256ull, 768ull, 1024ull, 1792ull, 2048ull, 3840ull, 4096ull, 7936ull, 16128ull,
                            32512ull, 65280ull, 65536ull, 130816ull, 131072ull})
        for (std::uint64_t d : {c - 1, c, c + 1}) b.push_back(d);
    for (std::uint64_t d : {total - 1, total, total + 1}) b.push_back(d);
    b.push_back(broadphase::no_budget);
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    return b;
}

/// A dense scene of n boxes: about 60 overlaps a box.
Boxes dense_scene(std::size_t n, std::uint64_t seed) {
    Random r(seed);
    Boxes out;
    const double side = std::cbrt(double(n)) * 0.9;
    for (std::size_t i = 0; i < n; ++i) {
        Box b;
        for (int k = 0; k < 3; ++k) {
            const double c = r.uniform(0, side), e = r.uniform(1.0, 3.0);
            b.min[k] = float(c), b.max[k] = float(c + e);
        }
        out.push_back(b);
    }
    return out;
}

/// One budgeted call's result against the unbudgeted one (`full`, in the
/// library's order for the same call, equal to `truth` as a set): status
/// exactly when the true count exceeds the budget, the first
/// min(budget, total) pairs of `full`.
void check_budgeted(const std::vector<Pair>& got, const Report& r, const std::vector<Pair>& full,
                    const std::vector<Pair>& truth, std::uint64_t budget, const std::string& what) {
    SCOPED_TRACE(what + ", budget " + std::to_string(budget) + " of " + std::to_string(truth.size()));
    const std::uint64_t total = truth.size();
    const bool over = total > budget;
    ASSERT_EQ(r.status, over ? Status::pair_budget_exceeded : Status::ok) << status_string(r.status);
    ASSERT_EQ(got.size(), std::min(total, budget));
    ASSERT_EQ(r.pairs, got.size()) << "Report::pairs";
    // The documented budget rule: the output holds the first max_pairs pairs (those of the
    // unbudgeted call, which the caller checked equal to the truth as a set:
    // so these are true pairs, each once).
    ASSERT_TRUE(std::equal(got.begin(), got.end(), full.begin())) << "not the first pairs of the unbudgeted call";
}

class BudgetTest : public ::testing::TestWithParam<Algorithm> {};

TEST_P(BudgetTest, OneSet) {
    const Boxes boxes = dense_scene(kSanitized ? 4000 : 5000, 7);
    const std::vector<Pair> truth = ref_self(boxes);
    ASSERT_GT(truth.size(), 131073u);  // every chunk budget is exceeded
    broadphase::PairFinder finder;
    for (unsigned threads : {1u, 2u}) {
        Options o;
        o.algorithm = GetParam();
        o.threads = threads;
        o.min_boxes_per_thread = 1;
        std::vector<Pair> full, got;
        ASSERT_TRUE(finder.find_pairs(boxes, full, o).ok());
        ASSERT_TRUE(same_pair_set(full, truth));
        for (std::uint64_t budget : budgets_for(truth.size())) {
            o.max_pairs = budget;
            const Report r = finder.find_pairs(boxes, got, o);
            check_budgeted(got, r, full, truth, budget, "find_pairs, threads " + std::to_string(threads));
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
    // Streamed (one thread: for_each_pair never starts threads), and sorted.
    std::vector<Pair> full;
    Options o;
    o.algorithm = GetParam();
    ASSERT_TRUE(finder.for_each_pair(boxes, [&](std::uint32_t a, std::uint32_t b) { full.push_back({a, b}); }, o).ok());
    ASSERT_TRUE(same_pair_set(full, truth)) << "streamed";
    for (std::uint64_t budget : budgets_for(truth.size())) {
        o.max_pairs = budget;
        std::vector<Pair> got;
        auto keep = [&](std::uint32_t a, std::uint32_t b) { got.push_back({a, b}); };
        const Report r = finder.for_each_pair(boxes, keep, o);
        check_budgeted(got, r, full, truth, budget, "for_each_pair");
        if (::testing::Test::HasFatalFailure()) return;
    }
    for (std::uint64_t budget : std::vector<std::uint64_t>{0, 1, 65537, truth.size()}) {
        o.max_pairs = budget;
        o.sorted = true;
        std::vector<Pair> got;
        const Report r = finder.find_pairs(boxes, got, o);
        EXPECT_EQ(r.status, truth.size() > budget ? Status::pair_budget_exceeded : Status::ok);
        EXPECT_EQ(got.size(), std::min<std::uint64_t>(budget, truth.size()));
        EXPECT_TRUE(sorted_pairs(got));
        EXPECT_TRUE(subset_of_pairs(got, truth));
    }
}

TEST_P(BudgetTest, TwoSets) {
    const std::size_t n = kSanitized ? 4000 : 5000;
    const Boxes all = dense_scene(2 * n, 8);
    Boxes a, b;
    for (std::size_t i = 0; i < all.size(); ++i) (i % 2 ? b : a).push_back(all[i]);
    const std::vector<Pair> truth = ref_cross(a, b);
    ASSERT_GT(truth.size(), 131073u);
    broadphase::PairFinder finder;
    for (unsigned threads : {1u, 2u}) {
        Options o;
        o.algorithm = GetParam();
        o.threads = threads;
        o.min_boxes_per_thread = 1;
        std::vector<Pair> full, got;
        ASSERT_TRUE(finder.find_pairs(a, b, full, o).ok());
        ASSERT_TRUE(same_pair_set(full, truth));
        for (std::uint64_t budget : budgets_for(truth.size())) {
            o.max_pairs = budget;
            const Report r = finder.find_pairs(a, b, got, o);
            check_budgeted(got, r, full, truth, budget, "two-set find_pairs, threads " + std::to_string(threads));
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
    std::vector<Pair> full;
    Options o;
    o.algorithm = GetParam();
    ASSERT_TRUE(finder.for_each_pair(a, b, [&](std::uint32_t x, std::uint32_t y) { full.push_back({x, y}); }, o).ok());
    ASSERT_TRUE(same_pair_set(full, truth)) << "streamed";
    for (std::uint64_t budget : budgets_for(truth.size())) {
        o.max_pairs = budget;
        std::vector<Pair> got;
        auto keep = [&](std::uint32_t x, std::uint32_t y) { got.push_back({x, y}); };
        const Report r = finder.for_each_pair(a, b, keep, o);
        check_budgeted(got, r, full, truth, budget, "two-set for_each_pair");
        if (::testing::Test::HasFatalFailure()) return;
    }
}

// An Index's batch query under a budget (query index, built index).
TEST_P(BudgetTest, IndexBatch) {
    const std::size_t n = kSanitized ? 4000 : 5000;
    const Boxes all = dense_scene(2 * n, 9);
    Boxes built, queries;
    for (std::size_t i = 0; i < all.size(); ++i) (i % 2 ? queries : built).push_back(all[i]);
    const std::vector<Pair> truth = ref_cross(queries, built);
    broadphase::Index index;
    ASSERT_TRUE(index.build(built, GetParam()).ok());
    for (unsigned threads : {1u, 2u}) {
        Options o;
        o.threads = threads;
        o.min_boxes_per_thread = 1;
        std::vector<Pair> full, got;
        ASSERT_TRUE(index.query_batch(queries, full, o).ok());
        ASSERT_TRUE(same_pair_set(full, truth));
        for (std::uint64_t budget : budgets_for(truth.size())) {
            o.max_pairs = budget;
            const Report r = index.query_batch(queries, got, o);
            check_budgeted(got, r, full, truth, budget, "Index::query_batch, threads " + std::to_string(threads));
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Limits, BudgetTest, ::testing::ValuesIn(kAlgorithms), ParamName());

// ---------------------------------------------------------------------------
// 3. An address-space limit: out_of_memory, then the same objects answer right

/// The process's address space now, in bytes (/proc/self/statm).
std::uint64_t address_space_bytes() {
    std::ifstream f("/proc/self/statm");
    std::uint64_t pages = 0;
    f >> pages;
    return pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

/// Caps the address space at what it is now plus `headroom` bytes.
bool cap_address_space(std::uint64_t headroom) {
    rlimit lim{};
    if (getrlimit(RLIMIT_AS, &lim) != 0) return false;
    lim.rlim_cur = static_cast<rlim_t>(address_space_bytes() + headroom);
    return setrlimit(RLIMIT_AS, &lim) == 0;
}

/// What the child process is doing, printed when a check fails.
std::string g_child_context;

#define CHILD_CHECK(cond)                                                                                      \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            std::fprintf(stderr, "child check failed at line %d (%s): %s\n", __LINE__, g_child_context.c_str(), \
                         #cond);                                                                               \
            std::_Exit(1);                                                                                     \
        }                                                                                                      \
    } while (0)

/// Sorts `got` in place (no allocation) and compares it with `want` (sorted).
bool sorted_equal(std::vector<Pair>& got, const std::vector<Pair>& want) {
    std::sort(got.begin(), got.end());
    return got == want;
}

/// In a child process under a 320 MB address-space cap: 12,000 identical
/// boxes have 71,994,000 pairs (576 MB as pairs): find_pairs,
/// Index::query_batch and Scene::update fail with out_of_memory, and each
/// object then answers a smaller question right (the failed call's buffers
/// must have been let go); for_each_pair streams all the pairs.
void out_of_memory_child(unsigned threads) {
    const std::size_t n = 12000;
    const std::uint64_t all = std::uint64_t(n) * (n - 1) / 2;
    const Boxes big = identical_boxes(n);
    const Boxes small = dense_scene(3000, 11);
    const std::vector<Pair> small_truth = ref_self(small);  // sorted
    const Boxes few = identical_boxes(200);  // 2.4e6 pairs with the big ones
    std::vector<Pair> out;
    out.reserve(4 * small_truth.size());  // the small answers' room, before the cap
#if defined(__GLIBC__)
    // One malloc arena for every thread: glibc gives a thread that finds the
    // main arena locked an arena of its own, which reserves 64 MB of address
    // space; whether that happens depends on timing, so under the cap the
    // same calls could succeed in one run and run out in the next.
    mallopt(M_ARENA_MAX, 1);
#endif
    CHILD_CHECK(cap_address_space(std::uint64_t(320) << 20));
    Options o;
    o.threads = threads;
    o.min_boxes_per_thread = 1;
    for (Algorithm a : kAlgorithms) {
        g_child_context = std::string("PairFinder, ") + broadphase::to_string(a) + ", threads " +
                          std::to_string(threads);
        o.algorithm = a;
        broadphase::PairFinder finder;
        std::vector<Pair> huge;
        Report r = finder.find_pairs(big, huge, o);
        CHILD_CHECK(r.status == Status::out_of_memory);
        CHILD_CHECK(huge.size() < all);
        for (const Pair& p : huge) CHILD_CHECK(p.a < p.b && p.b < big.size());
        std::vector<Pair>().swap(huge);
        // The same finder: right answers, a budget, a stream of everything.
        r = finder.find_pairs(small, out, o);
        CHILD_CHECK(r.ok() && sorted_equal(out, small_truth));
        o.max_pairs = 100000;
        r = finder.find_pairs(big, out, o);
        CHILD_CHECK(r.status == Status::pair_budget_exceeded && out.size() == 100000u);
        o.max_pairs = broadphase::no_budget;
        if (a == Algorithm::automatic) {
            std::uint64_t streamed = 0;
            r = finder.for_each_pair(big, [&](std::uint32_t, std::uint32_t) { ++streamed; }, o);
            CHILD_CHECK(r.ok() && streamed == all);
        }
        r = finder.find_pairs(small, out, o);
        CHILD_CHECK(r.ok() && sorted_equal(out, small_truth));
    }
    for (Algorithm a : kAlgorithms) {
        g_child_context = std::string("Index, ") + broadphase::to_string(a) + ", threads " + std::to_string(threads);
        o.algorithm = a;
        broadphase::Index index;
        CHILD_CHECK(index.build(big, o).ok());
        std::vector<Pair> huge;
        Report r = index.query_batch(big, huge, o);  // 1.44e8 pairs
        CHILD_CHECK(r.status == Status::out_of_memory);
        std::vector<Pair>().swap(huge);
        r = index.query_batch(few, huge, o);
        CHILD_CHECK(r.ok() && huge.size() == few.size() * n);
        std::vector<Pair>().swap(huge);
        CHILD_CHECK(index.build(small, o).ok());
        r = index.query_batch(small, out, o);
        CHILD_CHECK(r.ok() && out.size() == 2 * small_truth.size() + small.size());
    }
    for (UpdateMode mode : kModes) {
        g_child_context = std::string("Scene, ") + broadphase::to_string(mode) + ", threads " + std::to_string(threads);
        Scene scene;
        scene.set_options(o);
        scene.set_update_mode(mode);
        std::vector<Scene::Id> ids;
        for (std::size_t i = 0; i < 1000; ++i) ids.push_back(scene.add(Box{{0, 0, 0}, {1, 1, 1}}));
        CHILD_CHECK(scene.update().ok() && scene.pairs().size() == 499500u);
        for (std::size_t i = 1000; i < n; ++i) ids.push_back(scene.add(Box{{0, 0, 0}, {1, 1, 1}}));
        const Report r = scene.update();  // 7.2e7 pairs
        CHILD_CHECK(r.status == Status::out_of_memory);
        CHILD_CHECK(scene.begun().empty() && scene.ended().empty());
        CHILD_CHECK(scene.pairs().size() == 499500u);  // the previous set, kept
        // All but 1,500 go (ids 0..999 stay, and 500 of the new ones): the
        // events are against the previous set, the 1,000 boxes' pairs.
        for (std::size_t i = 1500; i < ids.size(); ++i) CHILD_CHECK(scene.remove(ids[i]));
        CHILD_CHECK(scene.update().ok());
        CHILD_CHECK(scene.pairs().size() == 1124250u);  // 1500 * 1499 / 2
        CHILD_CHECK(scene.begun().size() == 1124250u - 499500u);
        CHILD_CHECK(scene.ended().empty());
        CHILD_CHECK(scene.tree().validate().empty());
    }
    std::_Exit(0);
}

TEST(Limits, AddressSpaceCapGivesOutOfMemoryThenRightAnswers) {
    if constexpr (kSanitized) GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow memory: no RLIMIT_AS";
    GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: no helper threads, a small heap
    EXPECT_EXIT(out_of_memory_child(1), ::testing::ExitedWithCode(0), "") << "one thread";
    EXPECT_EXIT(out_of_memory_child(2), ::testing::ExitedWithCode(0), "") << "two threads";
}

/// With the address space nearly used up, no helper thread can be started
/// (each needs a stack): the call runs on the calling thread and answers.
void no_thread_child() {
    const Boxes boxes = dense_scene(3000, 12);
    const std::vector<Pair> truth = ref_self(boxes);
    std::vector<Pair> out;
    out.reserve(truth.size() + 4096);
    CHILD_CHECK(cap_address_space(std::uint64_t(4) << 20));
    broadphase::PairFinder finder;
    Options o;
    o.threads = 4;
    o.min_boxes_per_thread = 1;
    for (Algorithm a : kAlgorithms) {
        g_child_context = broadphase::to_string(a);
        o.algorithm = a;
        const Report r = finder.find_pairs(boxes, out, o);
        CHILD_CHECK(r.status == Status::ok || r.status == Status::out_of_memory);
        if (r.ok()) CHILD_CHECK(sorted_equal(out, truth));
    }
    std::_Exit(0);
}

TEST(Limits, NoRoomForThreadStacks) {
    if constexpr (kSanitized) GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow memory: no RLIMIT_AS";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(no_thread_child(), ::testing::ExitedWithCode(0), "");
}

// ---------------------------------------------------------------------------
// 4. Scene ids reused millions of times

/// The scene's pairs by brute force over the live objects (as scene_test.cpp).
std::vector<Pair> scene_oracle(const Scene& s, const std::vector<Scene::Id>& live) {
    std::vector<Pair> out;
    for (std::size_t i = 0; i < live.size(); ++i)
        for (std::size_t j = i + 1; j < live.size(); ++j) {
            const auto a = std::min(live[i], live[j]), b = std::max(live[i], live[j]);
            if (s.type(a) == ObjectType::static_object && s.type(b) == ObjectType::static_object) continue;
            const Box& x = s.pair_box(a);
            const Box& y = s.pair_box(b);
            if (!x.valid() || !y.valid()) continue;
            if (!broadphase::Filter::may_meet(s.filter(a), s.filter(b))) continue;
            if (broadphase::overlaps(x, y)) out.push_back({a, b});
        }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Pair> minus(const std::vector<Pair>& x, const std::vector<Pair>& y) {
    std::vector<Pair> out;
    std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
    return out;
}

// One slot added and removed millions of times (an update between each, so
// that the id may be reused): the same id every time, its pair begun and
// ended each cycle, no other id ever handed out, the tree and the answers
// right at the end. In every update mode.
TEST(Limits, SceneIdReusedMillionsOfTimes) {
    const std::uint64_t cycles_per_mode = kSanitized ? 40000 : 400000;  // 6 modes: 2.4M cycles (4.8M updates)
    std::uint64_t total = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (UpdateMode mode : kModes) {
        SCOPED_TRACE(broadphase::to_string(mode));
        Scene scene;
        scene.set_update_mode(mode);
        const Scene::Id ground = scene.add(Box{{-10, -1, -10}, {10, 0, 10}}, ObjectType::static_object);
        const Scene::Id other = scene.add(Box{{5, 5, 5}, {6, 6, 6}});
        ASSERT_TRUE(scene.update().ok());
        Scene::Id slot = Scene::null;
        for (std::uint64_t c = 0; c < cycles_per_mode; ++c) {
            const float x = float(c % 7);  // where it lands changes; it always touches the ground
            const Scene::Id id = scene.add(Box{{x, -0.5f, 0}, {x + 1, 0.5f, 1}}, ObjectType::dynamic_object, c);
            if (c == 0) slot = id;
            if (id != slot) FAIL() << "cycle " << c << ": id " << id << ", the slot was " << slot;
            if (!scene.update().ok() || scene.begun().size() != 1 || !(scene.begun()[0] == Pair{ground, slot}) ||
                !scene.ended().empty())
                FAIL() << "cycle " << c << ": the add's events are wrong";
            if (!scene.remove(id) || scene.remove(id) || scene.contains(id)) FAIL() << "cycle " << c << ": remove";
            if (!scene.update().ok() || scene.ended().size() != 1 || !(scene.ended()[0] == Pair{ground, slot}) ||
                !scene.begun().empty())
                FAIL() << "cycle " << c << ": the remove's events are wrong";
            ++total;
        }
        EXPECT_NE(slot, ground);
        EXPECT_NE(slot, other);
        EXPECT_EQ(scene.size(), 2u);
        // The slot once more, a move onto the other object, and every id checked.
        const Scene::Id id = scene.add(Box{{0, 0, 0}, {1, 1, 1}});
        EXPECT_EQ(id, slot);
        ASSERT_TRUE(scene.update().ok());
        ASSERT_TRUE(scene.move(id, Box{{5.5f, 5.5f, 5.5f}, {7, 7, 7}}));
        ASSERT_TRUE(scene.update().ok());
        const std::vector<Scene::Id> live = {ground, other, id};
        EXPECT_TRUE(scene.pairs() == scene_oracle(scene, live));
        EXPECT_EQ(scene.pairs().size(), 1u);
        EXPECT_EQ(scene.tree().validate(), "");
        std::size_t hits = 0;
        scene.for_each_overlap(Box{{-100, -100, -100}, {100, 100, 100}}, [&](Scene::Id) { ++hits; });
        EXPECT_EQ(hits, 3u);
        for (Scene::Id i = 0; i < 4; ++i) EXPECT_EQ(scene.contains(i), i == ground || i == other || i == id) << i;
    }
    std::printf("[ ids      ] %llu add/remove cycles of one slot (%llu updates) over %zu modes in %.2f s\n",
                static_cast<unsigned long long>(total), static_cast<unsigned long long>(2 * total),
                std::size(kModes), seconds_since(t0));
}

// Many objects churned: ids are reused only after their end events, the
// set of ids handed out stays within the most objects alive at once, and
// the answers match brute force after every update.
TEST(Limits, SceneChurnKeepsIdsDense) {
    const int updates = kSanitized ? 2000 : 20000;
    for (UpdateMode mode : kModes) {
        SCOPED_TRACE(broadphase::to_string(mode));
        Random r(41);
        Scene scene;
        scene.set_update_mode(mode);
        std::vector<Scene::Id> live;
        std::vector<Pair> before;
        std::size_t most_alive = 0;
        Scene::Id highest = 0;
        std::uint64_t adds = 0;
        for (int u = 0; u < updates; ++u) {
            std::vector<Scene::Id> retired;
            const int ops = 1 + int(r.below(8));
            for (int op = 0; op < ops; ++op) {
                if (live.size() < 40 && (live.size() < 10 || r.below(2))) {
                    Box b;
                    for (int k = 0; k < 3; ++k) {
                        const float c = float(r.uniform(0, 10));
                        b.min[k] = c, b.max[k] = c + float(r.uniform(0.5, 2));
                    }
                    const auto type = r.below(4) ? ObjectType::dynamic_object : ObjectType::static_object;
                    const Scene::Id id = scene.add(b, type);
                    ASSERT_EQ(std::count(retired.begin(), retired.end(), id), 0) << "reused before its end events";
                    live.push_back(id);
                    highest = std::max(highest, id);
                    ++adds;
                } else {
                    const std::size_t i = r.below(live.size());
                    ASSERT_TRUE(scene.remove(live[i]));
                    retired.push_back(live[i]);
                    live.erase(live.begin() + std::ptrdiff_t(i));
                }
                most_alive = std::max(most_alive, live.size() + retired.size());
            }
            ASSERT_TRUE(scene.update().ok());
            if (u % 16 == 0 || u + 1 == updates) {
                const std::vector<Pair> now = scene_oracle(scene, live);
                ASSERT_TRUE(scene.pairs() == now) << "update " << u;
                before = now;
            } else {
                before = scene.pairs();
            }
        }
        EXPECT_LT(std::size_t(highest), most_alive) << "ids beyond the most objects held at once";
        EXPECT_GT(adds, std::uint64_t(updates));
        EXPECT_EQ(scene.tree().validate(), "");
    }
}

// ---------------------------------------------------------------------------
// 5. +-FLT_MAX, infinities, and float's integer spacing

/// Boxes at the ends of float's range and past its integer spacing:
/// - corners at +-FLT_MAX, +-inf, +-1e38, denormals, zero;
/// - slabs from -inf to +inf on one or more axes;
/// - 1e-3 boxes at 1e7 offsets (spacing 1: each collapses to a point or a
///   unit box) and around 2^24 (spacing 1 below, 2 above), so many boxes
///   are equal after rounding;
/// - a few invalid ones (NaN, min > max).
Boxes extreme_boxes(std::size_t n, std::uint64_t seed) {
    Random r(seed);
    const float inf = std::numeric_limits<float>::infinity(), big = FLT_MAX;
    const float tiny = std::numeric_limits<float>::denorm_min();
    const float specials[] = {-inf, -big, -1e38f, -1e7f, -1.0f,       -FLT_MIN, 0.0f,
                              tiny, 1.0f, 1e7f,   16777216.0f, 1e38f, big,      inf};
    constexpr std::size_t ns = sizeof(specials) / sizeof(specials[0]);
    Boxes out;
    for (std::size_t i = 0; i < n; ++i) {
        Box b;
        const int kind = int(r.below(10));
        for (int k = 0; k < 3; ++k) {
            float lo = 0, hi = 0;
            switch (kind) {
                case 0: {  // two specials, ordered
                    lo = specials[r.below(ns)], hi = specials[r.below(ns)];
                    if (hi < lo) std::swap(lo, hi);
                    break;
                }
                case 1:  // a slab across everything on this axis, or a small box near an end
                    if (r.below(2)) lo = -inf, hi = inf;
                    else lo = r.below(2) ? big : -big, hi = lo;
                    break;
                case 2: case 3: case 4: {  // 1e-3 boxes at 1e7 offsets
                    const double c = 1e7 + double(r.below(24)) + r.uniform(0, 1);
                    lo = float(c), hi = float(c + 1e-3);
                    break;
                }
                case 5: case 6: {  // across 2^24: spacing 1 below, 2 above
                    const double c = 16777216.0 + double(int(r.below(16)) - 8) + r.uniform(0, 1);
                    lo = float(c), hi = float(c + r.uniform(0, 2));
                    break;
                }
                case 7: {  // the top of the range
                    const double c = 3.0e38 + r.uniform(0, 4e37);
                    lo = float(c), hi = std::min(big, float(c + r.uniform(0, 5e37)));
                    break;
                }
                case 8: {  // huge boxes reaching to +-FLT_MAX from the middle
                    lo = r.below(2) ? -big : float(r.uniform(-10, 10));
                    hi = r.below(2) ? big : float(r.uniform(10, 20));
                    break;
                }
                default: {  // ordinary boxes around the origin
                    const double c = r.uniform(-20, 20);
                    lo = float(c), hi = float(c + r.uniform(0, 4));
                    break;
                }
            }
            b.min[k] = lo, b.max[k] = hi;
        }
        if (r.below(40) == 0) b.min[r.below(3)] = std::numeric_limits<float>::quiet_NaN();
        if (r.below(40) == 0) std::swap(b.min[0], b.max[0]), b.max[0] = std::nextafter(b.min[0], -inf);
        out.push_back(b);
    }
    return out;
}

TEST(Limits, ExtremeCoordinatesEveryAlgorithm) {
    for (std::uint64_t seed : {1, 2, 3}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Boxes a = extreme_boxes(seed == 1 ? 2500 : 900, seed), b = extreme_boxes(700, seed + 100);
        const std::vector<Pair> self = ref_self(a), cross = ref_cross(a, b);
        ASSERT_GT(self.size(), 1000u);
        for (Algorithm alg : kAlgorithms) {
            SCOPED_TRACE(broadphase::to_string(alg));
            broadphase::PairFinder finder;
            for (unsigned threads : {1u, 2u}) {
                Options o;
                o.algorithm = alg;
                o.threads = threads;
                o.min_boxes_per_thread = 1;
                std::vector<Pair> out;
                Report r = finder.find_pairs(a, out, o);
                ASSERT_TRUE(r.ok());
                EXPECT_TRUE(same_pair_set(out, self)) << "one set, threads " << threads;
                EXPECT_EQ(r.invalid_a, ref_invalid(a));
                r = finder.find_pairs(a, b, out, o);
                ASSERT_TRUE(r.ok());
                EXPECT_TRUE(same_pair_set(out, cross)) << "two sets, threads " << threads;
            }
            std::vector<Pair> streamed;
            Options o;
            o.algorithm = alg;
            auto keep = [&](std::uint32_t x, std::uint32_t y) { streamed.push_back({x, y}); };
            ASSERT_TRUE(finder.for_each_pair(a, keep, o).ok());
            EXPECT_TRUE(same_pair_set(streamed, self)) << "streamed";
            // As an index: single queries and a batch.
            broadphase::Index index;
            ASSERT_TRUE(index.build(b, alg).ok());
            std::vector<Pair> batch;
            ASSERT_TRUE(index.query_batch(a, batch).ok());
            std::vector<Pair> want_batch = ref_cross(a, b);  // (query in a, built in b)
            EXPECT_TRUE(same_pair_set(batch, want_batch)) << "Index::query_batch";
            const auto built = ref_boxes(b);
            std::vector<std::uint32_t> hits;
            for (std::size_t q = 0; q < a.size(); q += 7) {
                index.query(a[q], hits);
                ASSERT_TRUE(same_index_set(hits, ref_query(built, a[q]))) << "Index::query " << q;
            }
        }
    }
}

// The same boxes in a Scene, every update mode, exact and fat pairs: added,
// then moved among the extremes, checked against brute force each update.
TEST(Limits, ExtremeCoordinatesScene) {
    const Boxes boxes = extreme_boxes(600, 5), moves = extreme_boxes(600, 6);
    for (UpdateMode mode : kModes)
        for (bool fat : {false, true}) {
            SCOPED_TRACE(std::string(broadphase::to_string(mode)) + (fat ? ", fat pairs" : ""));
            Scene scene;
            scene.set_update_mode(mode);
            scene.set_fat_pairs(fat);
            std::vector<Scene::Id> live;
            for (std::size_t i = 0; i < boxes.size(); ++i)
                live.push_back(scene.add(boxes[i], i % 5 ? ObjectType::dynamic_object : ObjectType::static_object));
            std::vector<Pair> before;
            Random r(77);
            for (int step = 0; step < 12; ++step) {
                ASSERT_TRUE(scene.update().ok()) << "step " << step;
                const std::vector<Pair> now = scene_oracle(scene, live);
                ASSERT_TRUE(scene.pairs() == now) << "step " << step << ": " << scene.pairs().size() << " pairs, want "
                                                  << now.size();
                ASSERT_TRUE(scene.begun() == minus(now, before)) << "step " << step;
                ASSERT_TRUE(scene.ended() == minus(before, now)) << "step " << step;
                ASSERT_EQ(scene.tree().validate(), "");
                before = now;
                for (int m = 0; m < 60; ++m) {
                    const Scene::Id id = live[r.below(live.size())];
                    if (scene.type(id) == ObjectType::dynamic_object) scene.move(id, moves[r.below(moves.size())]);
                }
            }
        }
}

// Two clusters of 35,000 identical boxes: more than 65,536 cell entries in a
// 16-bucket table, which the grids sort in two steps (partitions, then
// buckets). The second step hashed the entries' start flags with their cell
// (the top bits of the hash, which a 16-bucket table takes whole), so
// entries went to other buckets than their cell's: queries found nothing
// (found by LimitsLong.TwoSetsStreamPast2To32Pairs: 0 pairs of 4.3e9).
TEST(Limits, CoincidentBoxesPastTheGridsOnePassSort) {
    const std::size_t n = 70000;
    Boxes built, queries;
    for (std::size_t i = 0; i < n; ++i) {
        const float x = i % 2 ? 10.0f : 0.0f;
        built.push_back(Box{{x, 0, 0}, {x + 1, 1, 1}});
    }
    queries.push_back(Box{{0, 0, 0}, {1, 1, 1}});
    queries.push_back(Box{{10.5f, 0.5f, 0.5f}, {12, 2, 2}});
    queries.push_back(Box{{5, 0, 0}, {6, 1, 1}});
    const std::vector<Pair> truth = ref_cross(built, queries);
    ASSERT_EQ(truth.size(), n);
    for (Algorithm a : kAlgorithms) {
        SCOPED_TRACE(broadphase::to_string(a));
        for (unsigned threads : {1u, 2u}) {
            Options o;
            o.algorithm = a;
            o.threads = threads;
            o.min_boxes_per_thread = 1;
            broadphase::PairFinder finder;
            std::vector<Pair> out;
            ASSERT_TRUE(finder.find_pairs(built, queries, out, o).ok());
            EXPECT_TRUE(same_pair_set(out, truth)) << "two sets, threads " << threads;
            broadphase::Index index;
            ASSERT_TRUE(index.build(built, o).ok());
            std::vector<std::uint32_t> hits;
            index.query(queries[0], hits);
            EXPECT_EQ(hits.size(), n / 2) << "Index::query, threads " << threads;
        }
    }
}

// ---------------------------------------------------------------------------
// 6. The 2^32 - 2 box ceiling, by computation

TEST(Limits, CeilingIs2To32Minus2) {
    static_assert(broadphase::max_boxes == 4294967294ull, "docs/guarantees.md: 2^32 - 2 boxes");
    static_assert(broadphase::fits_indices(0) && broadphase::fits_indices(broadphase::max_boxes), "");
    static_assert(!broadphase::fits_indices(broadphase::max_boxes + 1), "2^32 - 1: the sentinel");
    static_assert(!broadphase::fits_indices(k2To32) && !broadphase::fits_indices(~std::uint64_t(0)), "");
    EXPECT_NO_THROW(broadphase::detail::require_indices(broadphase::max_boxes));
    EXPECT_THROW(broadphase::detail::require_indices(broadphase::max_boxes + 1), broadphase::detail::TooManyIndices);
    EXPECT_THROW(broadphase::detail::require_indices(std::uint64_t(27) * broadphase::max_boxes),
                 broadphase::detail::TooManyIndices);
    // The scene's ids: the sentinel is past the last id a scene hands out.
    EXPECT_EQ(Scene::null, 0xFFFFFFFFu);
    EXPECT_FALSE(broadphase::fits_indices(std::uint64_t(Scene::null) + 0));
}

/// A grid whose boxes all go into the table, however many cells they touch
/// (the library's grids send boxes of more than 9 or 27 cells apart), with
/// small cells: a few thousand boxes then make billions of cell entries,
/// counted before anything is allocated for them.
struct HugeSpanPolicy {
    static constexpr bool home_cells = false;
    template <class T, int D>
    static typename broadphase::detail::HybridGridCore<T, D>::Params params(const broadphase::detail::SoaView<T, D>&,
                                                                      broadphase::detail::StatsScratch&) {
        return broadphase::detail::grid_params<T, D>(-1, /*boxes_per_cell=*/0.001, /*min_cell_extents=*/1,
                                                      /*max_cells=*/std::uint64_t(1) << 62);
    }
};
using HugeSpanGrid = broadphase::GridFront<float, 3, HugeSpanPolicy>;

/// 6,000 boxes 0.01 wide (the median: cells 0.01 wide) and `spanning`
/// boxes over the whole 100^3 region: about 1e12 cells each.
Boxes entry_overflow_scene(std::size_t spanning) {
    Random r(3);
    Boxes out;
    for (int i = 0; i < 6000; ++i) {
        Box b;
        for (int k = 0; k < 3; ++k) b.min[k] = float(r.uniform(0, 100)), b.max[k] = b.min[k] + 0.01f;
        out.push_back(b);
    }
    for (std::size_t i = 0; i < spanning; ++i) out.push_back(Box{{0, 0, 0}, {100, 100, 100}});
    return out;
}

// Cell entries past 32-bit indices (fewer than 2^32 boxes, each in many
// cells) are refused with too_many_boxes before anything is allocated for
// them (they overflowed the 32-bit counts before); the same object then
// answers a normal question right.
TEST(Limits, GridEntriesPast32BitsAreRefused) {
    const Boxes over = entry_overflow_scene(1);  // about 1e12 entries
    Boxes under = entry_overflow_scene(0);  // and three boxes of about 10^5 cells each
    for (int i = 0; i < 3; ++i) under.push_back(Box{{0, 0, 0}, {0.5f, 0.5f, 0.5f}});
    const Boxes normal = dense_scene(2000, 13);
    HugeSpanGrid grid;
    std::vector<Pair> out;
    Report r = grid.find_pairs(over, out);
    EXPECT_EQ(r.status, Status::too_many_boxes) << status_string(r.status);
    EXPECT_TRUE(out.empty());
    r = grid.find_pairs(normal, out);
    ASSERT_TRUE(r.ok()) << status_string(r.status);
    EXPECT_TRUE(same_pair_set(out, ref_self(normal)));
    Boxes points;  // narrower than `over`'s boxes: a two-set search bins `over`
    Random rp(5);
    for (int i = 0; i < 500; ++i) {
        const float x = float(rp.uniform(0, 100)), y = float(rp.uniform(0, 100)), z = float(rp.uniform(0, 100));
        points.push_back(Box{{x, y, z}, {x, y, z}});
    }
    r = grid.find_pairs(over, points, out);
    EXPECT_EQ(r.status, Status::too_many_boxes) << status_string(r.status);
    r = grid.build(over);
    EXPECT_EQ(r.status, Status::too_many_boxes) << status_string(r.status);
    EXPECT_FALSE(grid.built());
    r = grid.build(normal);
    ASSERT_TRUE(r.ok());
    std::vector<std::uint32_t> hits;
    grid.query(normal[0], hits);
    EXPECT_TRUE(same_index_set(hits, ref_query(ref_boxes(normal), normal[0])));
    // Below the limit the same grid takes boxes of thousands of cells.
    r = grid.find_pairs(under, out);
    ASSERT_TRUE(r.ok()) << status_string(r.status);
    EXPECT_TRUE(same_pair_set(out, ref_self(under)));
}

}  // namespace
}  // namespace bptest
