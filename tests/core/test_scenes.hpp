// Scenes for the core tests: random ones over seeds and sizes (any scalar
// type, any dimension), adversarial ones and hand-written cases (float 3-D).
// Deterministic: the built-in scenes' splitmix64 (broadphase_fixtures::Random), not
// the standard distributions.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase_fixtures/scenes.hpp>

namespace bptest {

/// The built-in scenes' splitmix64 generator (broadphase_fixtures/random.hpp):
/// the same numbers on every platform, unlike the standard distributions.
using broadphase_fixtures::Random;

/// The kinds of random scene; the seed picks one when `kind` is omitted.
enum class RandomKind {
    sparse,    ///< about 0.2 overlaps per box (3-D)
    dense,     ///< about 3 overlaps per box (3-D)
    snapped,   ///< integer coordinates: many exactly touching faces, zero sizes; about 3 per box
    mixed,     ///< sizes log-uniform over five decades: about 15 per box at n = 1,000
    count
};

inline const char* kind_name(RandomKind k) {
    switch (k) {
        case RandomKind::sparse: return "sparse";
        case RandomKind::dense: return "dense";
        case RandomKind::snapped: return "snapped";
        case RandomKind::mixed: return "mixed";
        default: return "?";
    }
}

/// n random boxes. The region grows with n so that the overlaps per box stay
/// about the same at every size.
template <class T, int D>
broadphase::BasicBoxes<T, D> random_scene(std::size_t n, std::uint64_t seed, RandomKind kind) {
    broadphase::BasicBoxes<T, D> out;
    Random r(seed);
    const double scale = std::pow(static_cast<double>(n) + 1.0, 1.0 / D);
    for (std::size_t i = 0; i < n; ++i) {
        broadphase::BasicBox<T, D> b;
        for (int k = 0; k < D; ++k) {
            double lo = 0, hi = 0;
            switch (kind) {
                case RandomKind::sparse: {
                    const double c = r.uniform(0, 7 * scale);
                    const double e = r.uniform(0, 4);
                    lo = c - e / 2, hi = c + e / 2;
                    break;
                }
                case RandomKind::dense: {
                    const double c = r.uniform(-2 * scale, 2 * scale);
                    const double e = r.uniform(0, 6);
                    lo = c - e / 2, hi = c + e / 2;
                    break;
                }
                case RandomKind::snapped: {
                    lo = static_cast<double>(r.below(static_cast<std::uint64_t>(2 * scale) + 2));
                    hi = lo + static_cast<double>(r.below(3));
                    break;
                }
                case RandomKind::mixed:
                default: {
                    const double c = r.uniform(0, 30 * scale);
                    const double e = std::exp(r.uniform(std::log(0.01), std::log(1000.0)));
                    lo = c - e / 2, hi = c + e / 2;
                    break;
                }
            }
            b.min[k] = static_cast<T>(lo);
            b.max[k] = static_cast<T>(hi);
        }
        out.push_back(b);
    }
    return out;
}

template <class T, int D>
broadphase::BasicBoxes<T, D> random_scene(std::size_t n, std::uint64_t seed) {
    return random_scene<T, D>(n, seed, static_cast<RandomKind>(seed % static_cast<std::uint64_t>(RandomKind::count)));
}

/// Replaces every `every`-th box (from `first`) by an invalid one, cycling
/// through NaN in each coordinate and min > max on each axis.
template <class T, int D>
void spoil(broadphase::BasicBoxes<T, D>& boxes, std::size_t first, std::size_t every) {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    std::size_t variant = 0;
    for (std::size_t i = first; i < boxes.size(); i += every, ++variant) {
        broadphase::BasicBox<T, D> b = boxes[i];
        const int k = static_cast<int>(variant % D);
        switch ((variant / D) % 3) {
            case 0: b.min[k] = nan; break;
            case 1: b.max[k] = nan; break;
            default: b.min[k] = b.max[k] + T(1); break;
        }
        boxes.set(i, b);
    }
}

/// Two sets to test together (self pairs of each, pairs between them, an
/// index over either).
struct ScenePair {
    broadphase::Boxes a, b;
};

/// Adversarial float 3-D scenes, by name. Each is a few thousand boxes at most.
ScenePair identical_scene();
ScenePair points_scene();
ScenePair touching_lattice_scene();
ScenePair tiny_and_huge_scene();
ScenePair far_outliers_scene();
ScenePair negative_coordinates_scene();
ScenePair offset_1e7_scene();
ScenePair infinite_slabs_scene();
ScenePair invalid_mixed_scene();
ScenePair all_invalid_scene();
ScenePair planar_scene();
ScenePair long_thin_box_scene();
ScenePair mixed_sizes_scene();
ScenePair different_scales_scene();
ScenePair nested_scene();
ScenePair clustered_scene();
ScenePair extreme_values_scene();
ScenePair huge_coordinates_scene();

/// The adversarial scenes above as X(TestName, scene_function), for the
/// suites that run each one (pairs_test.cpp, index_test.cpp).
#define BPTEST_ADVERSARIAL_SCENES(X)                                 \
    X(PointsAndCoincidentPoints, points_scene)                       \
    X(TouchingLattice, touching_lattice_scene)                       \
    X(TinyAndHugeBoxes, tiny_and_huge_scene)                         \
    X(FarOutliers, far_outliers_scene)                               \
    X(NegativeCoordinatesAndSignedZeros, negative_coordinates_scene) \
    X(Offset1e7, offset_1e7_scene)                                   \
    X(InfiniteSlabs, infinite_slabs_scene)                           \
    X(InvalidBoxesMixedIn, invalid_mixed_scene)                      \
    X(AllBoxesInvalid, all_invalid_scene)                            \
    X(AllOnOnePlane, planar_scene)                                   \
    X(LongThinBoxCrossingEverything, long_thin_box_scene)            \
    X(MixedSizes, mixed_sizes_scene)                                 \
    X(DifferentScales, different_scales_scene)                       \
    X(NestedBoxes, nested_scene)                                     \
    X(Clusters, clustered_scene)                                     \
    X(ExtremeFloatValues, extreme_values_scene)                      \
    X(HugeCoordinateClusters, huge_coordinates_scene)

/// The real-data scenes (real_scenes.hpp), small: a is KIND:1200 and b
/// KIND:400, the same kind over the same region from the origin (a coarser
/// mesh of the same surface, a smaller scan, tank or block), so that a and b
/// have many pairs between them too; voxels share cubes exactly.
ScenePair real_scene_pair(const std::string& kind);
inline ScenePair sphere_mesh_scene() { return real_scene_pair("sphere-mesh"); }
inline ScenePair torus_mesh_scene() { return real_scene_pair("torus-mesh"); }
inline ScenePair terrain_scene() { return real_scene_pair("terrain"); }
inline ScenePair soup_scene() { return real_scene_pair("soup"); }
inline ScenePair scan_scene() { return real_scene_pair("scan"); }
inline ScenePair pile_scene() { return real_scene_pair("pile"); }
inline ScenePair voxels_scene() { return real_scene_pair("voxels"); }
inline ScenePair hair_scene() { return real_scene_pair("hair"); }
inline ScenePair refined_mesh_scene() { return real_scene_pair("refined-mesh"); }
inline ScenePair spread_clusters_scene() { return real_scene_pair("spread-clusters"); }

/// The real-data scenes as X(TestName, scene_function), for the
/// differential suites (pairs_test.cpp, index_test.cpp, parallel_test.cpp).
#define BPTEST_REAL_SCENES(X)           \
    X(RealSphereMesh, sphere_mesh_scene) \
    X(RealTorusMesh, torus_mesh_scene)   \
    X(RealTerrain, terrain_scene)        \
    X(RealSoup, soup_scene)              \
    X(RealScan, scan_scene)              \
    X(RealPile, pile_scene)              \
    X(RealVoxels, voxels_scene)          \
    X(RealHair, hair_scene)              \
    X(RealRefinedMesh, refined_mesh_scene) \
    X(RealSpreadClusters, spread_clusters_scene)

/// Tiny sets for the empty / one-box / two-box corner cases.
std::vector<std::pair<std::string, broadphase::Boxes>> tiny_sets();

/// Box from corner coordinates.
inline broadphase::Box box3(float x0, float y0, float z0, float x1, float y1, float z1) {
    broadphase::Box b;
    b.min = {x0, y0, z0};
    b.max = {x1, y1, z1};
    return b;
}

// ---------------------------------------------------------------------------
// Float 3-D cases shared by the differential suites (pairs_test.cpp,
// index_test.cpp, finder_test.cpp)

/// Set sizes of the random-scene tests.
inline constexpr std::size_t kSizes[] = {0, 1, 2, 3, 17, 100, 1000};

/// Seeds per size: many for small sets, one per scene kind at 1,000.
inline std::uint64_t seeds_for(std::size_t n) { return n >= 1000 ? 4 : 16; }

/// A random scene; every third seed has invalid boxes mixed in.
broadphase::Boxes random_case(std::size_t n, std::uint64_t seed);
/// What random_case(n, seed) is, for SCOPED_TRACE.
std::string case_name(std::size_t n, std::uint64_t seed);

/// A case written by hand: the expected pairs are not computed.
struct HandCase {
    const char* name;
    std::vector<broadphase::Box> boxes;
    std::vector<broadphase::Pair> pairs;  ///< sorted
    std::vector<std::uint32_t> invalid;   ///< increasing
};
std::vector<HandCase> hand_cases();
broadphase::Boxes boxes_of(const std::vector<broadphase::Box>& v);

/// n boxes in [0, 48)^3 with a few hundred pairs, some invalid ones mixed in.
broadphase::Boxes budget_scene(int n = 300, std::uint64_t seed = 2);

/// Scenes run twice (and on a fresh object) to check determinism.
std::vector<broadphase::Boxes> determinism_scenes();

}  // namespace bptest
