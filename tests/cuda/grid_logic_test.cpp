// The CUDA backend's per-box and per-entry logic, run on the CPU through
// host_pipeline.hpp, against the scalar brute-force reference (and the
// library's BruteForce for the larger built-in scenes): random scenes of
// every kind, the adversarial scenes, hand-written cases, tiny sets, forced
// tiny and huge cells (many levels, clamping), the pair budget, and the
// grid's own invariants. No GPU needed.
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <broadphase/boxes.hpp>
#include <broadphase/brute_force.hpp>
#include <broadphase/detail/box_rules.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "differential.hpp"
#include "host_pipeline.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

using broadphase::Boxes;

::testing::AssertionResult invariants(const gd::GridParams& p) {
    if (p.levels == 0) return ::testing::AssertionSuccess();  // no boxes: no grid
    if (p.levels < 1 || p.levels > gd::max_levels) return ::testing::AssertionFailure() << "levels " << p.levels;
    for (int k = 0; k < 3; ++k) {
        if (p.dims[p.levels - 1][k] > 2) return ::testing::AssertionFailure() << "top level has more than 2 cells";
        if (!std::isfinite(p.origin[k])) return ::testing::AssertionFailure() << "origin not finite";
    }
    for (int l = 0; l < p.levels; ++l)
        if (!(p.inv_h[l] > 0) || !std::isfinite(p.inv_h[l]))
            return ::testing::AssertionFailure() << "inv_h[" << l << "] = " << p.inv_h[l];
    if (p.key_bits < 1 || p.key_bits > 32) return ::testing::AssertionFailure() << "key_bits " << p.key_bits;
    return ::testing::AssertionSuccess();
}

/// Self pairs of `boxes` (and the invalid list) against the scalar reference.
void check_self(const Boxes& boxes, double force_h = 0) {
    const HostRun run = host_pipeline(boxes, nullptr, force_h);
    EXPECT_TRUE(invariants(run.params));
    EXPECT_EQ(run.total, run.pairs.size());
    EXPECT_TRUE(well_formed_self(run.pairs, boxes.size()));
    EXPECT_TRUE(same_pair_set(run.pairs, ref_self(boxes))) << "levels " << run.params.levels << ", h " << run.params.h;
    EXPECT_EQ(run.invalid_a, ref_invalid(boxes));
    EXPECT_TRUE(run.invalid_b.empty());
}

void check_cross(const Boxes& a, const Boxes& b, double force_h = 0) {
    const HostRun run = host_pipeline(a, &b, force_h);
    EXPECT_TRUE(invariants(run.params));
    EXPECT_TRUE(well_formed_cross(run.pairs, a.size(), b.size()));
    EXPECT_TRUE(same_pair_set(run.pairs, ref_cross(a, b)));
    EXPECT_EQ(run.invalid_a, ref_invalid(a));
    EXPECT_EQ(run.invalid_b, ref_invalid(b));
}

TEST(GridLogic, CellCoordinatesAreMonotoneAndClamped) {
    const float inf = std::numeric_limits<float>::infinity();
    const float xs[] = {-inf, -3e38f, -1e7f, -1.5f, -0.0f, 0.0f, 1e-30f, 0.5f, 1.0f, 2.0f, 7.99f, 8.0f, 1e7f, 3e38f, inf};
    int last = -1;
    for (float x : xs) {
        const int c = gd::cell_coord(x, -1.0f, 0.5f, 6);
        EXPECT_GE(c, 0);
        EXPECT_LE(c, 5);
        EXPECT_GE(c, last) << x;
        last = c;
    }
    EXPECT_EQ(gd::cell_coord(-inf, 0, 1, 4), 0);
    EXPECT_EQ(gd::cell_coord(inf, 0, 1, 4), 3);
    EXPECT_EQ(gd::cell_coord(5, 0, 1, 1), 0);
}

// The rules the backend shares with the CPU grids (detail/box_rules.hpp)
// agree with the library's own definitions.
TEST(GridLogic, SharedRulesAgreeWithTheLibrary) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const float vs[] = {-inf, -1.0f, -0.0f, 0.0f, 1.0f, 2.0f, inf, nan};
    for (float a : vs)
        for (float b : vs) {
            broadphase::Box box;
            box.min = {a, 0, 0};
            box.max = {b, 1, 1};
            const gd::Half lo{a, 0, 0, 0}, hi{b, 1, 1, 0};
            EXPECT_EQ(gd::box_valid(lo, hi), box.valid()) << a << " " << b;
            broadphase::Box other;
            other.min = {0.5f, 0, 0};
            other.max = {1.5f, 1, 1};
            gd::Rec r{lo, hi}, s{{0.5f, 0, 0, 0}, {1.5f, 1, 1, 0}};
            if (box.valid()) {
                EXPECT_EQ(gd::overlap(r, s), broadphase::overlaps(box, other)) << a << " " << b;
            }
        }
    // The CPU grids' clamped coordinates are the same function.
    const float xs[] = {-inf, -3e38f, -1.5f, -0.0f, 0.0f, 0.5f, 7.99f, 8.0f, 3e38f, inf, nan};
    for (float x : xs)
        EXPECT_EQ(gd::cell_coord(x, -1.0f, 0.5f, 6), broadphase::detail::clamped_cell<int>(x, -1.0f, 0.5f, 0.0f, 5.0f));
    EXPECT_EQ(gd::cell_coord(nan, 0, 1, 4), 0);
    // Ownership: on every axis one of the two starts in the cell.
    EXPECT_TRUE(broadphase::detail::owns_pair(gd::start_flags(true, false, true),
                                              broadphase::detail::start_flags(false, true, false), 7u));
    EXPECT_FALSE(broadphase::detail::owns_pair(broadphase::detail::start_flags(true, false, false),
                                               broadphase::detail::start_flags(false, true, false), 7u));
    EXPECT_TRUE(broadphase::detail::owns_pair(broadphase::detail::start_flags(true, false, false),
                                              broadphase::detail::start_flags(false, true, false), 3u));
}

TEST(GridLogic, EntriesCarryStartFlagsAndDistinctCells) {
    Boxes boxes;
    boxes.push_back(box3(0, 0, 0, 1, 1, 1));
    const HostRun probe = host_pipeline(boxes, nullptr, 0.75);
    gd::GridParams p = probe.params;
    const gd::Half lo{0.1f, 0.1f, 0.1f, 0}, hi{1.0f, 0.2f, 1.4f, 0};
    const int level = gd::box_slot(lo, hi, p);
    const std::uint32_t mask = 1u << level;
    std::uint32_t residents[gd::max_slots] = {};
    residents[level] = 1;
    gd::finish_key_layout(p, residents);
    const std::uint32_t n = gd::count_entries(lo, hi, level, p, mask);
    ASSERT_GE(n, 1u);
    ASSERT_LE(n, 8u);
    std::vector<std::uint32_t> keys(n), values(n);
    gd::write_entries(lo, hi, 5, level, p, keys.data(), values.data());
    int home = 0;
    for (std::uint32_t e = 0; e < n; ++e) {
        EXPECT_EQ(values[e] >> gd::flag_bits, 5u);
        home += (values[e] & 7u) == 7u;
        for (std::uint32_t f = e + 1; f < n; ++f) EXPECT_NE(keys[e], keys[f]);
    }
    EXPECT_EQ(home, 1) << "exactly one cell holds the box's min corner";
}

TEST(GridLogic, RandomScenesSelfAndCross) {
    for (std::size_t n : kSizes) {
        for (std::uint64_t seed = 0; seed < seeds_for(n); ++seed) {
            SCOPED_TRACE(case_name(n, seed));
            const Boxes boxes = random_case(n, seed);
            check_self(boxes);
            const Boxes other = random_case(n / 2 + 1, seed + 1000);
            check_cross(boxes, other);
        }
    }
}

TEST(GridLogic, ForcedCellSizesGiveTheSamePairs) {
    // Tiny cells: many levels, most boxes above level 0, query entries, and
    // clamping at the grid's edges. Huge cells: one cell for everything.
    for (std::uint64_t seed = 0; seed < 8; ++seed) {
        SCOPED_TRACE(case_name(400, seed));
        const Boxes boxes = random_case(400, seed);
        for (double h : {1e-3, 0.05, 0.7, 3.0, 50.0, 1e6}) {
            SCOPED_TRACE("h = " + std::to_string(h));
            check_self(boxes, h);
            check_cross(boxes, random_case(150, seed + 77), h);
        }
    }
}

#define BPTEST_GPU_LOGIC_SCENE(Name, scene)                      \
    TEST(GridLogicAdversarial, Name) {                           \
        const ScenePair s = scene();                             \
        {                                                        \
            SCOPED_TRACE("a");                                   \
            check_self(s.a);                                     \
        }                                                        \
        {                                                        \
            SCOPED_TRACE("b");                                   \
            check_self(s.b);                                     \
        }                                                        \
        {                                                        \
            SCOPED_TRACE("a x b");                               \
            check_cross(s.a, s.b);                               \
        }                                                        \
        {                                                        \
            SCOPED_TRACE("b x a, small cells");                  \
            check_cross(s.b, s.a, 0.3);                          \
        }                                                        \
    }
BPTEST_ADVERSARIAL_SCENES(BPTEST_GPU_LOGIC_SCENE)
BPTEST_GPU_LOGIC_SCENE(IdenticalBoxes, identical_scene)
#undef BPTEST_GPU_LOGIC_SCENE

TEST(GridLogic, HandCases) {
    for (const HandCase& c : hand_cases()) {
        SCOPED_TRACE(c.name);
        const Boxes boxes = boxes_of(c.boxes);
        const HostRun run = host_pipeline(boxes, nullptr);
        EXPECT_TRUE(same_pair_set(run.pairs, c.pairs));
        EXPECT_EQ(run.invalid_a, c.invalid);
    }
}

TEST(GridLogic, TinySets) {
    for (const auto& [name, boxes] : tiny_sets()) {
        SCOPED_TRACE(name);
        check_self(boxes);
        for (const auto& [name2, other] : tiny_sets()) {
            SCOPED_TRACE(name2);
            check_cross(boxes, other);
        }
    }
}

TEST(GridLogic, BudgetKeepsTheFirstPairsAndCountsAll) {
    const Boxes boxes = budget_scene();
    const HostRun all = host_pipeline(boxes, nullptr);
    ASSERT_GT(all.total, 10u);
    const HostRun some = host_pipeline(boxes, nullptr, 0, 10);
    EXPECT_EQ(some.total, all.total);
    ASSERT_EQ(some.pairs.size(), 10u);
    for (std::size_t t = 0; t < 10; ++t) EXPECT_EQ(some.pairs[t], all.pairs[t]);
}

TEST(GridLogic, BuiltinScenesMatchBruteForce) {
    namespace bs = broadphase_fixtures;
    for (const char* name : {"dense20k", "mixed20k", "clusters40k", "identical:1500"}) {
        SCOPED_TRACE(name);
        Boxes boxes;
        ASSERT_TRUE(bs::make_scene(name, boxes));
        std::vector<Pair> want;
        broadphase::BruteForce brute;
        ASSERT_TRUE(brute.find_pairs(boxes, want).ok());
        const HostRun run = host_pipeline(boxes, nullptr);
        EXPECT_TRUE(invariants(run.params));
        EXPECT_TRUE(same_pair_set(run.pairs, want));
        // Entries per box stay small: big boxes go up a level instead of
        // making every cell big.
        EXPECT_LT(double(run.entries), 10.0 * double(boxes.size())) << run.entries << " entries";
    }
}

}  // namespace
}  // namespace bptest
