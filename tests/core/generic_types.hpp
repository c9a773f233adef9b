// Double precision and 2-D, shared by generic_types_test.cpp (the tests)
// and generic_<type>.cpp (one scalar type and dimension each, instantiated
// in its own translation unit so that the build compiles them in parallel).
//
// Test bodies are templates, one per test, instantiated for every algorithm
// class of a type; a GenericCase holds pointers to one class's bodies.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace generic {

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

    /// A copy keeps the built structure; a moved-from algorithm is empty
    /// and unbuilt, and works again on its next call (it holds its
    /// algorithm behind a pointer: algorithm_front.hpp).
    static void copy_and_move() {
        const Boxes_<T, D> a = random_scene<T, D>(400, 4, RandomKind::dense);
        const Boxes_<T, D> q = random_scene<T, D>(50, 5, RandomKind::dense);
        Algo algo;
        ASSERT_EQ(algo.build(a).status, Status::ok);
        std::vector<Pair> want, got;
        algo.query_batch(q, want);
        ASSERT_FALSE(want.empty());
        Algo copy = algo;
        EXPECT_TRUE(copy.built());
        copy.query_batch(q, got);
        EXPECT_TRUE(same_pair_set(got, want));
        Algo moved = std::move(algo);
        EXPECT_TRUE(moved.built());
        moved.query_batch(q, got);
        EXPECT_TRUE(same_pair_set(got, want));
        EXPECT_FALSE(algo.built());  // NOLINT(bugprone-use-after-move): the documented moved-from state
        std::vector<std::uint32_t> hits{7};
        EXPECT_EQ(algo.query(q[0], hits), 0u);
        EXPECT_TRUE(hits.empty());
        EXPECT_EQ(algo.query_batch(q, got).pairs, 0u);
        EXPECT_TRUE(got.empty());
        EXPECT_EQ(algo.find_pairs(a, got).status, Status::ok);
        EXPECT_TRUE(same_pair_set(got, ref_self(a)));
        copy = moved;  // assignment reuses the copy's memory
        copy.query_batch(q, got);
        EXPECT_TRUE(same_pair_set(got, want));
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
    std::string name;  ///< "<algorithm>_<type>": "hybrid_grid_double2d", ...
    void (*random_scenes)();
    void (*large)();
    void (*adversarial)();
    void (*void_callback)();
    void (*budget_and_stop)();
    void (*copy_and_move)();
};

template <class Algo>
GenericCase generic_case(const char* algorithm) {
    using G = Generic<Algo>;
    return {std::string(algorithm) + "_" + type_suffix<typename G::T, G::D>(), &G::random_scenes, &G::large,
            &G::adversarial, &G::void_callback, &G::budget_and_stop, &G::copy_and_move};
}

// The front door, a kept PairFinder and Index for a type, with every algorithm.
template <class T, int D>
void front_door_every_algorithm() {
    Boxes_<T, D> a = random_scene<T, D>(800, 3);
    spoil(a, 2, 31);
    const Boxes_<T, D> b = slabs<T, D>(4);
    for (Algorithm algo : {Algorithm::automatic, Algorithm::brute_force, Algorithm::sweep_and_prune,
                           Algorithm::uniform_grid, Algorithm::hybrid_grid, Algorithm::adaptive_grid,
                           Algorithm::cluster_pairs}) {
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
    std::string name;  ///< the type: "float3d", "double2d", ...
    void (*run)();
};

/// The cases of one scalar type and dimension.
struct TypeCases {
    std::vector<GenericCase> algorithms;  ///< the algorithm classes
    FrontDoorCase front_door;
};

template <class T, int D>
TypeCases type_cases(bool with_algorithms = true) {
    TypeCases out;
    if (with_algorithms) {
        out.algorithms = {
            generic_case<broadphase::BasicBruteForce<T, D>>("brute_force"),
            generic_case<broadphase::BasicSweepAndPrune<T, D>>("sweep_and_prune"),
            generic_case<broadphase::BasicUniformGrid<T, D>>("uniform_grid"),
            generic_case<broadphase::BasicHybridGrid<T, D>>("hybrid_grid"),
            generic_case<broadphase::BasicAdaptiveGrid<T, D>>("adaptive_grid"),
            generic_case<broadphase::BasicClusterPairs<T, D>>("cluster_pairs"),
        };
    }
    out.front_door = {type_suffix<T, D>(), &front_door_every_algorithm<T, D>};
    return out;
}

/// One per translation unit. float 3-D: the front door only (the Differential
/// suites test the float 3-D classes).
TypeCases float3d_cases();   // generic_types_test.cpp
TypeCases double3d_cases();  // generic_double3d.cpp
TypeCases float2d_cases();   // generic_float2d.cpp
TypeCases double2d_cases();  // generic_double2d.cpp

inline void PrintTo(const GenericCase& c, std::ostream* os) { *os << c.name; }
inline void PrintTo(const FrontDoorCase& c, std::ostream* os) { *os << c.name; }
inline std::string param_name(const GenericCase& c) { return c.name; }
inline std::string param_name(const FrontDoorCase& c) { return c.name; }

}  // namespace generic
}  // namespace bptest
