// The built-in scenes of scenes.hpp (20,000 to 40,000 boxes) through every
// algorithm, the front door and the Index, against the library's BruteForce.
// One test per scene computes the oracle once and checks every algorithm,
// naming the algorithm in each failure.
#include <cmath>

#include <broadphase_fixtures/scenes.hpp>

#include "differential.hpp"

namespace bptest {
namespace {

namespace bs = broadphase_fixtures;
using broadphase::sort_pairs;

class BuiltinSceneTest : public ::testing::TestWithParam<std::string> {
protected:
    Boxes scene() const {
        Boxes b;
        EXPECT_TRUE(bs::make_scene(GetParam(), b)) << GetParam();
        return b;
    }
};

/// Runs a fresh Ops on every pair-finding way: plain, again, streamed; its
/// failures are named `name`.
template <class Ops>
void check_self_against(const char* name, const Boxes& boxes, const std::vector<Pair>& want) {
    SCOPED_TRACE(name);
    Ops ops;
    std::vector<Pair> out{junk_pair()};
    const Report r = ops.self(boxes, out, Options{});
    EXPECT_EQ(r.status, Status::ok) << status_string(r.status);
    EXPECT_EQ(r.pairs, out.size());
    EXPECT_TRUE(r.invalid_a.empty());
    EXPECT_TRUE(well_formed_self(out, boxes.size()));
    EXPECT_TRUE(same_pair_set(out, want));
    std::vector<Pair> again;
    ops.self(boxes, again, Options{});
    EXPECT_TRUE(identical_pairs(out, again));
    std::uint64_t streamed = 0;
    const Report rs = ops.self_stream(boxes, [&](std::uint32_t, std::uint32_t) {
        ++streamed;
        return true;
    });
    EXPECT_EQ(rs.status, Status::ok);
    EXPECT_EQ(streamed, want.size()) << "for_each_pair";
}

TEST_P(BuiltinSceneTest, SelfPairsMatchBruteForce) {
    const Boxes boxes = scene();
    std::vector<Pair> want;
    broadphase::BruteForce brute;
    ASSERT_EQ(brute.find_pairs(boxes, want).status, Status::ok);
    check_self_against<DirectOps<broadphase::SweepAndPrune>>("sweep_and_prune", boxes, want);
    check_self_against<DirectOps<broadphase::UniformGrid>>("uniform_grid", boxes, want);
    check_self_against<DirectOps<broadphase::HybridGrid>>("hybrid_grid", boxes, want);
    check_self_against<DirectOps<broadphase::AdaptiveGrid>>("adaptive_grid", boxes, want);
    check_self_against<DirectOps<broadphase::ClusterPairs>>("cluster_pairs", boxes, want);
    check_self_against<FinderOps<float, 3>>("PairFinder with Algorithm::automatic", boxes, want);
}

TEST_P(BuiltinSceneTest, TwoSetsAndIndexMatchBruteForce) {
    // The scene split in two by index parity: a (even) and b (odd).
    const Boxes boxes = scene();
    Boxes a, b;
    for (std::size_t i = 0; i < boxes.size(); ++i) (i % 2 ? b : a).push_back(boxes[i]);
    std::vector<Pair> want;  // (index in a, index in b)
    broadphase::BruteForce brute;
    Options sorted;
    sorted.sorted = true;
    ASSERT_EQ(brute.find_pairs(a, b, want, sorted).status, Status::ok);
    std::vector<Pair> want_ba;  // (index in b, index in a)
    for (const Pair& p : want) want_ba.push_back(Pair{p.b, p.a});
    sort_pairs(want_ba);

    std::vector<Algorithm> algorithms = all_algorithms();
    algorithms.erase(algorithms.begin());  // brute force is the oracle
    algorithms.push_back(Algorithm::automatic);
    for (Algorithm algo : algorithms) {
        SCOPED_TRACE(broadphase::to_string(algo));
        broadphase::PairFinder finder;
        Options o;
        o.algorithm = algo;
        std::vector<Pair> out;
        Report r = finder.find_pairs(a, b, out, o);
        EXPECT_EQ(r.status, Status::ok);
        EXPECT_TRUE(well_formed_cross(out, a.size(), b.size()));
        EXPECT_TRUE(same_pair_set(out, want)) << "find_pairs(a, b)";
        r = finder.find_pairs(b, a, out, o);
        EXPECT_TRUE(same_pair_set(out, want_ba)) << "find_pairs(b, a)";

        broadphase::Index index;
        r = index.build(a, algo);
        EXPECT_EQ(r.status, Status::ok);
        r = index.query_batch(b, out);
        EXPECT_EQ(r.status, Status::ok);
        EXPECT_TRUE(same_pair_set(out, want_ba)) << "Index over a, query_batch(b)";
        // A sample of single queries.
        for (std::size_t q = 0; q < b.size(); q += 97) {
            std::vector<std::uint32_t> hits, expected;
            index.query(b[q], hits);
            auto lo = std::lower_bound(want_ba.begin(), want_ba.end(), Pair{std::uint32_t(q), 0});
            for (; lo != want_ba.end() && lo->a == q; ++lo) expected.push_back(lo->b);
            EXPECT_TRUE(same_index_set(hits, expected)) << "Index over a, query(b[" << q << "])";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(BuiltinScenes, BuiltinSceneTest,
                         ::testing::Values("sparse20k", "dense20k", "clusters40k", "stretched40k", "mixed20k",
                                           "sphere-mesh:20000", "torus-mesh:20000", "terrain:20000", "soup:20000"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;  // gtest names: letters, digits, '_'
                             for (char& c : name)
                                 if (c == ':' || c == '-') c = '_';
                             return name;
                         });

/// The real-data scenes: deterministic, the size asked (exactly for the
/// point, sphere, voxel and hair scenes; about for the meshes, whose grids
/// round it), every box valid and finite, neighbours touching (so pairs
/// exist: at least one per box).
TEST(RealScenes, DeterministicValidAndConnected) {
    struct Expect {
        const char* name;
        bool exact;
        double min_pairs_per_box;
    };
    const Expect scenes[] = {{"sphere-mesh:5000", false, 5}, {"torus-mesh:5000", false, 5}, {"terrain:5000", false, 5},
                             {"soup:5000", false, 5},        {"scan:5000", true, 3},        {"pile:5000", true, 3},
                             {"voxels:5000", true, 8},       {"hair:5000", true, 2},
                             {"refined-mesh:5000", false, 5}, {"spread-clusters:5000", true, 1.5}};
    for (const Expect& e : scenes) {
        SCOPED_TRACE(e.name);
        Boxes a, b;
        ASSERT_TRUE(bs::make_scene(e.name, a));
        ASSERT_TRUE(bs::make_scene(e.name, b));
        ASSERT_EQ(a.size(), b.size());
        if (e.exact) {
            EXPECT_EQ(a.size(), 5000u);
        } else {
            EXPECT_GT(a.size(), 3500u);
            EXPECT_LT(a.size(), 6500u);
        }
        bool same = true, valid = true;
        for (std::size_t i = 0; i < a.size(); ++i) {
            const broadphase::Box x = a[i], y = b[i];
            for (int k = 0; k < 3; ++k) {
                same = same && x.min[k] == y.min[k] && x.max[k] == y.max[k];
                valid = valid && std::isfinite(x.min[k]) && std::isfinite(x.max[k]) && x.min[k] <= x.max[k];
            }
        }
        EXPECT_TRUE(same);
        EXPECT_TRUE(valid);
        std::vector<Pair> pairs;
        broadphase::find_pairs(a, pairs);
        EXPECT_GT(static_cast<double>(pairs.size()), e.min_pairs_per_box * static_cast<double>(a.size()));
    }
}

/// The exact-size scenes at the edges: 0, 1 and 2 boxes.
TEST(RealScenes, TinySizes) {
    for (const char* kind : {"scan", "pile", "voxels", "hair", "spread-clusters"})
        for (std::size_t n : {0, 1, 2}) {
            Boxes b;
            ASSERT_TRUE(bs::make_scene(std::string(kind) + ":" + std::to_string(n), b)) << kind;
            EXPECT_EQ(b.size(), n) << kind;
        }
}

/// A bare name is the scene at 100,000; malformed counts are refused.
TEST(RealScenes, NamesAndDefaultSize) {
    Boxes bare, sized;
    ASSERT_TRUE(bs::make_scene("hair", bare));
    ASSERT_TRUE(bs::make_scene("hair:100000", sized));
    EXPECT_EQ(bare.size(), 100000u);
    ASSERT_EQ(bare.size(), sized.size());
    EXPECT_EQ(bare[99999].min, sized[99999].min);
    for (const char* bad : {"scan:", "scan:1x", "voxels:-3", "hair:1000000000000000", "piles:10", "sphere_mesh:10"}) {
        Boxes b;
        EXPECT_FALSE(bs::make_scene(bad, b)) << bad;
    }
    for (const std::string& name : bs::scene_names()) EXPECT_FALSE(bs::describe(name).empty()) << name;
}

}  // namespace
}  // namespace bptest
