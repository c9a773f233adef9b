// The CUDA backend's real kernels through the public API
// (broadphase/cuda/pair_finder.hpp), against the CPU: the scalar reference on random, adversarial,
// hand-written and tiny scenes; the CPU library (BruteForce up to 50,000
// boxes, else the automatic PairFinder, itself checked against brute force
// by the core tests) on every built-in scene. Every test skips when no CUDA
// device is present, so the suite passes on machines without a GPU.
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <broadphase/broadphase.hpp>
#include <broadphase_fixtures/scenes.hpp>
#include <broadphase/cuda/pair_finder.hpp>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

using broadphase::Boxes;
namespace bc = broadphase::cuda;

#define BPTEST_NEED_GPU()                                                    \
    do {                                                                     \
        if (!bc::available()) GTEST_SKIP() << "no CUDA device";              \
    } while (0)

Options sorted_options() {
    Options o;
    o.sorted = true;
    return o;
}

/// CPU pairs, sorted: brute force for small sets, else the automatic finder.
std::vector<Pair> cpu_self(const Boxes& boxes) {
    std::vector<Pair> out;
    if (boxes.size() <= 50000) {
        broadphase::BruteForce brute;
        EXPECT_TRUE(brute.find_pairs(boxes, out, sorted_options()).ok());
    } else {
        broadphase::PairFinder finder;
        EXPECT_TRUE(finder.find_pairs(boxes, out, sorted_options()).ok());
    }
    return out;
}

std::vector<Pair> cpu_cross(const Boxes& a, const Boxes& b) {
    std::vector<Pair> out;
    broadphase::PairFinder finder;
    EXPECT_TRUE(finder.find_pairs(a, b, out, sorted_options()).ok());
    return out;
}

/// Self pairs on the GPU, sorted and unsorted, twice (same order), against want.
void check_gpu_self(bc::PairFinder& finder, const Boxes& boxes, const std::vector<Pair>& want) {
    std::vector<Pair> sorted{junk_pair()};
    const Report r = finder.find_pairs(boxes, sorted, sorted_options());
    ASSERT_EQ(r.status, Status::ok) << status_string(r.status) << ": " << finder.last_error();
    EXPECT_EQ(r.pairs, sorted.size());
    EXPECT_EQ(r.invalid_a, ref_invalid(boxes));
    EXPECT_TRUE(r.invalid_b.empty());
    EXPECT_TRUE(identical_pairs(sorted, want)) << "sorted GPU pairs equal the CPU's, order included";
    std::vector<Pair> plain{junk_pair()}, again;
    EXPECT_TRUE(finder.find_pairs(boxes, plain).ok());
    EXPECT_TRUE(well_formed_self(plain, boxes.size()));
    EXPECT_TRUE(same_pair_set(plain, want));
    EXPECT_TRUE(finder.find_pairs(boxes, again).ok());
    EXPECT_TRUE(identical_pairs(plain, again)) << "unsorted order is the same on every run";
}

void check_gpu_cross(bc::PairFinder& finder, const Boxes& a, const Boxes& b, const std::vector<Pair>& want) {
    std::vector<Pair> sorted{junk_pair()};
    const Report r = finder.find_pairs(a, b, sorted, sorted_options());
    ASSERT_EQ(r.status, Status::ok) << status_string(r.status) << ": " << finder.last_error();
    EXPECT_EQ(r.invalid_a, ref_invalid(a));
    EXPECT_EQ(r.invalid_b, ref_invalid(b));
    EXPECT_TRUE(identical_pairs(sorted, want));
    std::vector<Pair> plain{junk_pair()};
    EXPECT_TRUE(finder.find_pairs(a, b, plain).ok());
    EXPECT_TRUE(well_formed_cross(plain, a.size(), b.size()));
    EXPECT_TRUE(same_pair_set(plain, want));
}

void check_gpu_index(const Boxes& built, const Boxes& queries, const std::vector<Pair>& want) {
    bc::Index index;
    const Report rb = index.build(built);
    EXPECT_TRUE(rb.ok());
    EXPECT_EQ(rb.invalid_a, ref_invalid(built));
    std::vector<Pair> got{junk_pair()};
    const Report r = index.query_batch(queries, got, sorted_options());
    ASSERT_TRUE(r.ok()) << index.finder().last_error();
    EXPECT_EQ(r.invalid_a, ref_invalid(queries));
    EXPECT_TRUE(r.invalid_b.empty());
    EXPECT_TRUE(identical_pairs(got, want));
}

TEST(Gpu, DeviceIsNamed) {
    BPTEST_NEED_GPU();
    EXPECT_FALSE(bc::device_name().empty());
    std::printf("device: %s\n", bc::device_name().c_str());
}

TEST(Gpu, RandomScenesSelfAndCross) {
    BPTEST_NEED_GPU();
    bc::PairFinder finder;
    for (std::size_t n : kSizes) {
        for (std::uint64_t seed = 0; seed < seeds_for(n); ++seed) {
            SCOPED_TRACE(case_name(n, seed));
            const Boxes boxes = random_case(n, seed);
            check_gpu_self(finder, boxes, ref_self(boxes));
            const Boxes other = random_case(n / 2 + 1, seed + 1000);
            check_gpu_cross(finder, boxes, other, ref_cross(boxes, other));
        }
    }
}

#define BPTEST_GPU_SCENE(Name, scene)                              \
    TEST(GpuAdversarial, Name) {                                   \
        BPTEST_NEED_GPU();                                         \
        const ScenePair s = scene();                               \
        bc::PairFinder finder;                                     \
        {                                                          \
            SCOPED_TRACE("a");                                     \
            check_gpu_self(finder, s.a, ref_self(s.a));            \
        }                                                          \
        {                                                          \
            SCOPED_TRACE("b");                                     \
            check_gpu_self(finder, s.b, ref_self(s.b));            \
        }                                                          \
        {                                                          \
            SCOPED_TRACE("a x b");                                 \
            check_gpu_cross(finder, s.a, s.b, ref_cross(s.a, s.b)); \
        }                                                          \
        {                                                          \
            SCOPED_TRACE("index over b, queries a");               \
            check_gpu_index(s.b, s.a, ref_cross(s.a, s.b));        \
        }                                                          \
    }
BPTEST_ADVERSARIAL_SCENES(BPTEST_GPU_SCENE)
BPTEST_GPU_SCENE(IdenticalBoxes, identical_scene)
#undef BPTEST_GPU_SCENE

TEST(Gpu, HandCasesAndTinySets) {
    BPTEST_NEED_GPU();
    bc::PairFinder finder;
    for (const HandCase& c : hand_cases()) {
        SCOPED_TRACE(c.name);
        const Boxes boxes = boxes_of(c.boxes);
        std::vector<Pair> got;
        const Report r = finder.find_pairs(boxes, got, sorted_options());
        EXPECT_TRUE(r.ok());
        EXPECT_TRUE(identical_pairs(got, c.pairs));
        EXPECT_EQ(r.invalid_a, c.invalid);
    }
    for (const auto& [name, boxes] : tiny_sets()) {
        SCOPED_TRACE(name);
        check_gpu_self(finder, boxes, ref_self(boxes));
        for (const auto& [name2, other] : tiny_sets()) {
            SCOPED_TRACE(name2);
            check_gpu_cross(finder, boxes, other, ref_cross(boxes, other));
        }
    }
}

class GpuBuiltinScene : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuBuiltinScene, SelfTwoSetsAndIndexMatchTheCpu) {
    BPTEST_NEED_GPU();
    Boxes boxes;
    ASSERT_TRUE(broadphase_fixtures::make_scene(GetParam(), boxes));
    bc::PairFinder finder;
    {
        SCOPED_TRACE("self");
        check_gpu_self(finder, boxes, cpu_self(boxes));
    }
    Boxes even, odd;
    for (std::size_t i = 0; i < boxes.size(); ++i) (i % 2 ? odd : even).push_back(boxes[i]);
    const std::vector<Pair> want = cpu_cross(even, odd);
    {
        SCOPED_TRACE("two sets");
        check_gpu_cross(finder, even, odd, want);
    }
    {
        SCOPED_TRACE("index");
        check_gpu_index(odd, even, want);
    }
}

INSTANTIATE_TEST_SUITE_P(Scenes, GpuBuiltinScene,
                         ::testing::Values("sparse20k", "dense20k", "stretched40k", "clusters40k", "mixed20k",
                                           "pointclouds10k", "uniform:80000", "identical:3000", "uniform:1000000"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string s = info.param;
                             for (char& c : s)
                                 if (c == ':') c = '_';
                             return s;
                         });

TEST(Gpu, DevicePointersGiveTheSamePairs) {
    BPTEST_NEED_GPU();
    Boxes boxes;
    ASSERT_TRUE(broadphase_fixtures::make_scene("mixed20k", boxes));
    bc::DeviceBoxSet set;
    set.upload(boxes);
    bc::PairFinder finder;
    std::vector<Pair> from_host, from_device;
    ASSERT_TRUE(finder.find_pairs(boxes, from_host).ok());
    ASSERT_TRUE(finder.find_pairs(set.view(), from_device).ok());
    EXPECT_TRUE(identical_pairs(from_host, from_device));
    const Report r = finder.find_pairs_on_device(set.view());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(finder.device_pair_count(), from_host.size());
    EXPECT_NE(finder.device_pairs(), nullptr);
    std::vector<Pair> copied;
    finder.copy_pairs(copied);
    EXPECT_TRUE(identical_pairs(copied, from_host));
}

TEST(Gpu, BudgetKeepsAPrefixAndReports) {
    BPTEST_NEED_GPU();
    const Boxes boxes = budget_scene();
    bc::PairFinder finder;
    std::vector<Pair> all, some;
    ASSERT_TRUE(finder.find_pairs(boxes, all).ok());
    ASSERT_GT(all.size(), 10u);
    Options o;
    o.max_pairs = 10;
    const Report r = finder.find_pairs(boxes, some, o);
    EXPECT_EQ(r.status, Status::pair_budget_exceeded);
    EXPECT_EQ(r.pairs, 10u);
    ASSERT_EQ(some.size(), 10u);
    for (std::size_t t = 0; t < 10; ++t) EXPECT_EQ(some[t], all[t]);
    EXPECT_EQ(finder.last_stats().pairs, all.size());
}

TEST(Gpu, MemoryCapGivesAClearError) {
    BPTEST_NEED_GPU();
    Boxes boxes;
    ASSERT_TRUE(broadphase_fixtures::make_scene("uniform:100000", boxes));
    bc::PairFinder finder;
    finder.set_memory_limit(1 << 20);
    std::vector<Pair> out;
    const Report r = finder.find_pairs(boxes, out);
    EXPECT_EQ(r.status, Status::out_of_memory);
    EXPECT_NE(finder.last_error().find("cap"), std::string::npos) << finder.last_error();
    EXPECT_LE(finder.last_stats().device_bytes, std::size_t(1) << 20);
    finder.set_memory_limit(0);
    const Report ok = finder.find_pairs(boxes, out);
    EXPECT_TRUE(ok.ok()) << finder.last_error();
    EXPECT_TRUE(same_pair_set(out, cpu_self(boxes)));
}

TEST(Gpu, NoAllocationAfterWarmUp) {
    BPTEST_NEED_GPU();
    Boxes boxes;
    ASSERT_TRUE(broadphase_fixtures::make_scene("dense20k", boxes));
    bc::PairFinder finder;
    std::vector<Pair> out;
    ASSERT_TRUE(finder.find_pairs(boxes, out).ok());
    const std::size_t held = finder.device_bytes();
    EXPECT_GT(held, 0u);
    for (int f = 0; f < 3; ++f) {
        ASSERT_TRUE(finder.find_pairs(boxes, out).ok());
        EXPECT_EQ(finder.device_bytes(), held);
    }
    finder.release();
    EXPECT_EQ(finder.device_bytes(), 0u);
}

}  // namespace
}  // namespace bptest
