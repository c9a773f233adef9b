// Each peer this build has (bench/peers/peers.hpp), called as broadphase-lab
// bench calls it, against the library's BruteForce: the same pairs, each
// once, a < b, indices of the boxes given (invalid boxes skipped, as ours
// skip them). Scenes: the core suites' random cases, tiny sets, hand cases
// and adversarial scenes. FCL cannot take infinite coordinates (its box
// needs a centre) and refuses them: checked too.
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <broadphase/broadphase.hpp>
#include <peers.hpp>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace {

using broadphase::Boxes;
using broadphase::Pair;

std::vector<Pair> brute_pairs(const Boxes& boxes) {
    std::vector<Pair> out;
    broadphase::BruteForce brute;
    EXPECT_TRUE(brute.find_pairs(boxes, out).ok());
    return out;
}

std::vector<Pair> peer_pairs(const std::string& name, const Boxes& boxes) {
    std::vector<Pair> out{bptest::junk_pair()};  // replaced, not appended to
    EXPECT_TRUE(broadphase_peers::run_peer(name, boxes, out));
    return out;
}

/// Whether a valid box (invalid ones are skipped before FCL sees them) has an infinite coordinate.
bool has_infinite_coordinate(const Boxes& boxes) {
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const broadphase::Box b = boxes[i];
        if (!b.valid()) continue;
        for (int k = 0; k < 3; ++k)
            if (std::isinf(b.min[k]) || std::isinf(b.max[k])) return true;
    }
    return false;
}

/// Every peer of this build on `boxes`, compared with brute force. FCL
/// refuses infinite coordinates (its box needs a centre): checked here.
void expect_peers_exact(const std::string& scene, const Boxes& boxes) {
    const std::vector<Pair> want = brute_pairs(boxes);
    for (const std::string& name : broadphase_peers::peer_names()) {
        SCOPED_TRACE(name + " on " + scene);
        if (name == "fcl" && has_infinite_coordinate(boxes)) {
            std::vector<Pair> out;
            EXPECT_THROW(broadphase_peers::run_peer(name, boxes, out), std::invalid_argument);
            continue;
        }
        const std::vector<Pair> got = peer_pairs(name, boxes);
        EXPECT_TRUE(bptest::well_formed_self(got, boxes.size()));
        EXPECT_TRUE(bptest::same_pair_set(got, want));
    }
}

TEST(Peers, NamesAreKnownAndMade) {
    for (const std::string& name : broadphase_peers::peer_names()) {
        EXPECT_TRUE(broadphase_peers::is_peer_name(name)) << name;
        EXPECT_NE(broadphase_peers::make_peer(name), nullptr) << name;
        EXPECT_FALSE(broadphase_peers::peer_version(name).empty()) << name;
    }
    EXPECT_EQ(broadphase_peers::make_peer("no-such-peer"), nullptr);
    std::vector<Pair> out;
    EXPECT_FALSE(broadphase_peers::run_peer("no-such-peer", Boxes(), out));
    if (broadphase_peers::peer_names().empty()) GTEST_SKIP() << "no peer library found at build time";
}

TEST(Peers, RandomCases) {
    for (std::size_t n : bptest::kSizes)
        for (std::uint64_t seed = 1; seed <= 3; ++seed)
            expect_peers_exact(bptest::case_name(n, seed), bptest::random_case(n, seed));
}

TEST(Peers, TinySetsAndHandCases) {
    for (const auto& [name, boxes] : bptest::tiny_sets()) expect_peers_exact(name, boxes);
    for (const bptest::HandCase& c : bptest::hand_cases()) expect_peers_exact(c.name, bptest::boxes_of(c.boxes));
}

// Both sets of each scene (the second, b, is what the pair tests take as
// the other side); IdenticalBoxes only b (300 copies and boxes touching
// them: a's 1,999,000 pairs take seconds to fill Bullet's pair cache).
#define BPTEST_PEERS_SCENE(Name, make)                    \
    TEST(Peers, Name) {                                   \
        const bptest::ScenePair s = bptest::make();       \
        expect_peers_exact(#Name ".a", s.a);              \
        expect_peers_exact(#Name ".b", s.b);              \
    }
TEST(Peers, IdenticalBoxes) { expect_peers_exact("IdenticalBoxes.b", bptest::identical_scene().b); }
BPTEST_PEERS_SCENE(PointsAndCoincidentPoints, points_scene)
BPTEST_PEERS_SCENE(TouchingLattice, touching_lattice_scene)
BPTEST_PEERS_SCENE(TinyAndHugeBoxes, tiny_and_huge_scene)
BPTEST_PEERS_SCENE(FarOutliers, far_outliers_scene)
BPTEST_PEERS_SCENE(NegativeCoordinatesAndSignedZeros, negative_coordinates_scene)
BPTEST_PEERS_SCENE(Offset1e7, offset_1e7_scene)
BPTEST_PEERS_SCENE(InvalidBoxesMixedIn, invalid_mixed_scene)
BPTEST_PEERS_SCENE(AllBoxesInvalid, all_invalid_scene)
BPTEST_PEERS_SCENE(AllOnOnePlane, planar_scene)
BPTEST_PEERS_SCENE(LongThinBoxCrossingEverything, long_thin_box_scene)
BPTEST_PEERS_SCENE(MixedSizes, mixed_sizes_scene)
BPTEST_PEERS_SCENE(NestedBoxes, nested_scene)
BPTEST_PEERS_SCENE(Clusters, clustered_scene)
BPTEST_PEERS_SCENE(ExtremeFloatValues, extreme_values_scene)
BPTEST_PEERS_SCENE(HugeCoordinateClusters, huge_coordinates_scene)
BPTEST_PEERS_SCENE(InfiniteSlabs, infinite_slabs_scene)
#undef BPTEST_PEERS_SCENE

/// Boxes whose ends differ hugely in magnitude: a centre -/+ half size in
/// double is not the float box (FCL computed its AABB so, and missed and
/// added pairs on torus-mesh:100000); touching at the tiny end must count.
TEST(Peers, BoxesSpanningZeroWithATinyEnd) {
    std::vector<broadphase::Box> v;
    v.push_back(bptest::box3(-1e-30f, 0, 0, 3, 1, 1));
    v.push_back(bptest::box3(-2, 0, 0, -1e-30f, 1, 1));         // touches box 0 at x = -1e-30
    v.push_back(bptest::box3(-2, 0, 0, -2e-30f, 1, 1));         // misses it by 1e-30
    v.push_back(bptest::box3(3, -1e-20f, 0, 4, 7e-21f, 1));     // touches box 0 at x = 3, y spans 0
    v.push_back(bptest::box3(3.5f, 7e-21f, 0, 5, 2e7f, 1));     // touches box 3 at y = 7e-21
    expect_peers_exact("spanning zero", bptest::boxes_of(v));
}

/// A peer kept between runs, as bench keeps it: load once, then runs with
/// clear() between them, and a run after another without clear().
TEST(Peers, RepeatedRunsGiveTheSamePairs) {
    const Boxes boxes = bptest::budget_scene();
    const std::vector<Pair> want = brute_pairs(boxes);
    for (const std::string& name : broadphase_peers::peer_names()) {
        SCOPED_TRACE(name);
        auto peer = broadphase_peers::make_peer(name);
        peer->load(boxes);
        std::vector<Pair> got;
        for (int k = 0; k < 3; ++k) {
            if (k != 2) peer->clear();
            peer->find_pairs(got);
            EXPECT_TRUE(bptest::same_pair_set(got, want));
        }
    }
}

}  // namespace
