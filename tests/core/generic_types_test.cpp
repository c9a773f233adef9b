// Double precision and 2-D: the algorithm classes, and the front door and
// Index where every algorithm compiles for the type, against the scalar
// reference. Whether each grid compiles for double 3-D, float 2-D and
// double 2-D is probed at build time (probe/); a grid that does not is left
// out of the typed suites and GridInstantiation says so by failing.
#include <cmath>
#include <limits>
#include <ostream>

#include "differential.hpp"
#include "grid_probe.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

template <class T, int D>
using Boxes_ = broadphase::BasicBoxes<T, D>;

template <class T, int D>
broadphase::BasicBox<T, D> cube_box(const std::array<double, D>& lo, double size) {
    broadphase::BasicBox<T, D> b;
    for (int k = 0; k < D; ++k) {
        b.min[k] = static_cast<T>(lo[k]);
        b.max[k] = static_cast<T>(lo[k] + size);
    }
    return b;
}

/// side^D unit cubes touching face to face.
template <class T, int D>
Boxes_<T, D> lattice(int side) {
    Boxes_<T, D> out;
    int count = 1;
    for (int k = 0; k < D; ++k) count *= side;
    for (int i = 0; i < count; ++i) {
        std::array<double, D> lo{};
        int rest = i;
        for (int k = 0; k < D; ++k) lo[k] = rest % side, rest /= side;
        out.push_back(cube_box<T, D>(lo, 1.0));
    }
    return out;
}

/// Infinite slabs, points and far boxes in D dimensions.
template <class T, int D>
Boxes_<T, D> slabs(std::uint64_t seed) {
    const T inf = std::numeric_limits<T>::infinity();
    Boxes_<T, D> out = random_scene<T, D>(300, seed, RandomKind::snapped);
    for (int k = 0; k < D; ++k) {
        broadphase::BasicBox<T, D> b;
        for (int j = 0; j < D; ++j) b.min[j] = T(2), b.max[j] = T(3);
        b.min[k] = -inf, b.max[k] = inf;
        out.push_back(b);
    }
    broadphase::BasicBox<T, D> all, far, point;
    for (int j = 0; j < D; ++j) {
        all.min[j] = -inf, all.max[j] = inf;
        far.min[j] = T(1e6), far.max[j] = T(1e6 + 1);
        point.min[j] = point.max[j] = T(1);
    }
    out.push_back(all);
    out.push_back(far);
    out.push_back(point);
    out.push_back(point);
    return out;
}

template <class T, int D>
std::string type_suffix() {
    return std::string(std::is_same_v<T, double> ? "double" : "float") + std::to_string(D) + "d";
}

// Test bodies, one template per test, instantiated for every algorithm type.

template <class Algo>
struct Generic {
    using boxes_type = typename Algo::boxes_type;
    using T = typename boxes_type::scalar;
    static constexpr int D = boxes_type::dims;

    static void random_scenes() {
        DirectOps<Algo> ops;
        for (std::size_t n : {0, 1, 2, 3, 17, 100, 1000}) {
            for (std::uint64_t seed = 1; seed <= (n >= 1000 ? 4u : 8u); ++seed) {
                SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + std::to_string(seed));
                Boxes_<T, D> a = random_scene<T, D>(n, seed);
                if (seed % 3 == 0) spoil(a, seed % 4, 5);
                const Boxes_<T, D> b = random_scene<T, D>(n / 2 + 3, seed + 4000);
                check_self(ops, a);
                check_cross(ops, a, b);
                check_index(ops, a, b);
                if (::testing::Test::HasFailure()) return;
            }
        }
    }

    static void large() {
        DirectOps<Algo> ops;
        const Boxes_<T, D> a = random_scene<T, D>(5000, 3, RandomKind::dense);
        check_self(ops, a);
        check_index(ops, a, random_scene<T, D>(1500, 7, RandomKind::dense), Oracle::brute_force, 150);
    }

    static void adversarial() {
        DirectOps<Algo> ops;
        const Boxes_<T, D> lat = lattice<T, D>(D == 2 ? 30 : 9);
        std::vector<Pair> out;
        ops.self(lat, out, Options{});
        // Each cube touches the neighbours within one step on every axis.
        const std::size_t side = D == 2 ? 30 : 9;
        std::size_t cubes = 1, box = 1;
        for (int k = 0; k < D; ++k) cubes *= side, box *= 3 * side - 2;
        EXPECT_EQ(out.size(), (box - cubes) / 2) << "touching lattice";
        check_pairs(ops, lat, slabs<T, D>(5));
        check_indexes(ops, lat, slabs<T, D>(6));
        Boxes_<T, D> bad = slabs<T, D>(7);
        spoil(bad, 0, 3);
        check_pairs(ops, bad, lat);
        check_indexes(ops, bad, lat);
        check_pairs(ops, Boxes_<T, D>{}, lat);
        check_indexes(ops, Boxes_<T, D>{}, lat);
    }

    static void void_callback() {
        Algo algo;
        const Boxes_<T, D> a = random_scene<T, D>(500, 2, RandomKind::dense);
        std::vector<Pair> got;
        const Report r = algo.for_each_pair(a, [&](std::uint32_t x, std::uint32_t y) { got.push_back(Pair{x, y}); });
        EXPECT_EQ(r.status, Status::ok);
        EXPECT_EQ(r.pairs, got.size());
        EXPECT_TRUE(same_pair_set(got, ref_self(a)));
    }

    static void budget_and_stop() {
        DirectOps<Algo> ops;
        const Boxes_<T, D> a = random_scene<T, D>(300, 2, RandomKind::dense);
        const std::vector<Pair> all = ref_self(a);
        ASSERT_GT(all.size(), 10u);
        Options o;
        o.max_pairs = all.size() / 2;
        std::vector<Pair> out;
        Report r = ops.self(a, out, o);
        EXPECT_EQ(r.status, Status::pair_budget_exceeded);
        EXPECT_LE(out.size(), all.size() / 2);
        EXPECT_TRUE(subset_of_pairs(out, all));
        std::uint64_t calls = 0;
        r = ops.self_stream(a, [&](std::uint32_t, std::uint32_t) { return ++calls < 5; });
        EXPECT_EQ(r.status, Status::stopped_by_callback);
        EXPECT_EQ(calls, 5u);
    }
};

struct GenericCase {
    std::string name;
    void (*random_scenes)();
    void (*large)();
    void (*adversarial)();
    void (*void_callback)();
    void (*budget_and_stop)();
};
void PrintTo(const GenericCase& c, std::ostream* os) { *os << c.name; }

template <class Algo>
GenericCase generic_case(const char* algorithm) {
    using G = Generic<Algo>;
    return {std::string(algorithm) + "_" + type_suffix<typename G::T, G::D>(), &G::random_scenes, &G::large,
            &G::adversarial, &G::void_callback, &G::budget_and_stop};
}

std::vector<GenericCase> generic_cases() {
    using namespace broadphase;
    return {
        generic_case<BasicBruteForce<double, 3>>("brute_force"),
        generic_case<BasicSweepAndPrune<double, 3>>("sweep_and_prune"),
        generic_case<BasicBruteForce<float, 2>>("brute_force"),
        generic_case<BasicSweepAndPrune<float, 2>>("sweep_and_prune"),
        generic_case<BasicBruteForce<double, 2>>("brute_force"),
        generic_case<BasicSweepAndPrune<double, 2>>("sweep_and_prune"),
#if BPTEST_UNIFORM_GRID_DOUBLE3
        generic_case<BasicUniformGrid<double, 3>>("uniform_grid"),
#endif
#if BPTEST_UNIFORM_GRID_FLOAT2
        generic_case<BasicUniformGrid<float, 2>>("uniform_grid"),
#endif
#if BPTEST_UNIFORM_GRID_DOUBLE2
        generic_case<BasicUniformGrid<double, 2>>("uniform_grid"),
#endif
#if BPTEST_HYBRID_GRID_DOUBLE3
        generic_case<BasicHybridGrid<double, 3>>("hybrid_grid"),
#endif
#if BPTEST_HYBRID_GRID_FLOAT2
        generic_case<BasicHybridGrid<float, 2>>("hybrid_grid"),
#endif
#if BPTEST_HYBRID_GRID_DOUBLE2
        generic_case<BasicHybridGrid<double, 2>>("hybrid_grid"),
#endif
    };
}

class GenericAlgorithmTest : public ::testing::TestWithParam<GenericCase> {};

TEST_P(GenericAlgorithmTest, RandomScenes) { GetParam().random_scenes(); }
TEST_P(GenericAlgorithmTest, Large) { GetParam().large(); }
TEST_P(GenericAlgorithmTest, Adversarial) { GetParam().adversarial(); }
TEST_P(GenericAlgorithmTest, VoidCallbackStreamsEverything) { GetParam().void_callback(); }
TEST_P(GenericAlgorithmTest, BudgetAndStop) { GetParam().budget_and_stop(); }

INSTANTIATE_TEST_SUITE_P(GenericTypes, GenericAlgorithmTest, ::testing::ValuesIn(generic_cases()),
                         [](const ::testing::TestParamInfo<GenericCase>& info) { return info.param.name; });

TEST(GenericPrecision, DoubleKeepsGapsFloatWouldClose) {
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
    broadphase::BasicBruteForce<double, 3> brute;
    brute.find_pairs(d, out, sorted);
    EXPECT_TRUE(identical_pairs(out, want)) << "brute force";
    broadphase::BasicSweepAndPrune<double, 3> sweep;
    sweep.find_pairs(d, out, sorted);
    EXPECT_TRUE(identical_pairs(out, want)) << "sweep and prune";
}

// The front door and Index for a type, where all four algorithms compile for it.
template <class T, int D>
void front_door_every_algorithm() {
    Boxes_<T, D> a = random_scene<T, D>(800, 3);
    spoil(a, 2, 31);
    const Boxes_<T, D> b = slabs<T, D>(4);
    for (Algorithm algo : {Algorithm::automatic, Algorithm::brute_force, Algorithm::sweep_and_prune,
                           Algorithm::uniform_grid, Algorithm::hybrid_grid}) {
        SCOPED_TRACE(broadphase::to_string(algo));
        FrontDoorOps<T, D> front;
        front.algorithm = algo;
        check_pairs(front, a, b);
        FinderOps<T, D> finder;
        finder.algorithm = algo;
        check_pairs(finder, a, b);
        IndexOps<T, D> index;
        index.algorithm = algo;
        check_indexes(index, a, b);
    }
}

struct FrontDoorCase {
    std::string name;
    void (*run)();
};
void PrintTo(const FrontDoorCase& c, std::ostream* os) { *os << c.name; }

std::vector<FrontDoorCase> front_door_cases() {
    return {
        {"float3d", &front_door_every_algorithm<float, 3>},
#if BPTEST_UNIFORM_GRID_DOUBLE3 && BPTEST_HYBRID_GRID_DOUBLE3
        {"double3d", &front_door_every_algorithm<double, 3>},
#endif
#if BPTEST_UNIFORM_GRID_FLOAT2 && BPTEST_HYBRID_GRID_FLOAT2
        {"float2d", &front_door_every_algorithm<float, 2>},
#endif
#if BPTEST_UNIFORM_GRID_DOUBLE2 && BPTEST_HYBRID_GRID_DOUBLE2
        {"double2d", &front_door_every_algorithm<double, 2>},
#endif
    };
}

class GenericFrontDoorTest : public ::testing::TestWithParam<FrontDoorCase> {};

TEST_P(GenericFrontDoorTest, EveryAlgorithm) { GetParam().run(); }

INSTANTIATE_TEST_SUITE_P(GenericTypes, GenericFrontDoorTest, ::testing::ValuesIn(front_door_cases()),
                         [](const ::testing::TestParamInfo<FrontDoorCase>& info) { return info.param.name; });

// One test per grid and type: fails when the grid does not compile for it.
#define BPTEST_GRID_COMPILES(Name, flag, what)                                                        \
    TEST(GridInstantiation, Name) {                                                                   \
        EXPECT_TRUE(flag) << what << " does not compile (every public method instantiated; see "     \
                                     "tests/core/probe/grid_probe.cpp), so it is left out of the typed " \
                                     "double / 2-D tests";                                          \
    }
BPTEST_GRID_COMPILES(UniformGridDouble3D, BPTEST_UNIFORM_GRID_DOUBLE3, "BasicUniformGrid<double, 3>")
BPTEST_GRID_COMPILES(UniformGridFloat2D, BPTEST_UNIFORM_GRID_FLOAT2, "BasicUniformGrid<float, 2>")
BPTEST_GRID_COMPILES(UniformGridDouble2D, BPTEST_UNIFORM_GRID_DOUBLE2, "BasicUniformGrid<double, 2>")
BPTEST_GRID_COMPILES(HybridGridDouble3D, BPTEST_HYBRID_GRID_DOUBLE3, "BasicHybridGrid<double, 3>")
BPTEST_GRID_COMPILES(HybridGridFloat2D, BPTEST_HYBRID_GRID_FLOAT2, "BasicHybridGrid<float, 2>")
BPTEST_GRID_COMPILES(HybridGridDouble2D, BPTEST_HYBRID_GRID_DOUBLE2, "BasicHybridGrid<double, 2>")

}  // namespace
}  // namespace bptest
