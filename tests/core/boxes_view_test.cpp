// BasicBoxesView: boxes kept in the caller's own arrays, struct of arrays
// (zero copy) or strided (gathered per call). Every algorithm, the
// PairFinder, the free find_pairs and the Index, given a view over
// user-owned arrays, must give exactly what they give for the same boxes as
// a BasicBoxes, and the pairs of brute force: random scenes with fixed
// seeds, invalid boxes mixed in, empty and one-box sets. Float 3-D only.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

using broadphase::Box;
using broadphase::Boxes;
using broadphase::BoxesView;
using broadphase::Pair;

/// An engine's own storage: six arrays, and an array of bodies whose boxes
/// sit between other fields (a stride that is not 6 floats).
struct Body {
    int id;
    float min[3];
    float max[3];
    double mass;
};

struct EngineArrays {
    std::vector<float> lo[3], hi[3];
    std::vector<Body> bodies;

    explicit EngineArrays(const Boxes& b) {
        for (int k = 0; k < 3; ++k) {
            lo[k].assign(b.min(k), b.min(k) + b.size());
            hi[k].assign(b.max(k), b.max(k) + b.size());
        }
        bodies.resize(b.size());
        for (std::size_t i = 0; i < b.size(); ++i) {
            bodies[i].id = static_cast<int>(i);
            bodies[i].mass = 1.0;
            for (int k = 0; k < 3; ++k) {
                bodies[i].min[k] = b.min(k)[i];
                bodies[i].max[k] = b.max(k)[i];
            }
        }
    }
    BoxesView soa() const {
        return BoxesView::soa({lo[0].data(), lo[1].data(), lo[2].data()}, {hi[0].data(), hi[1].data(), hi[2].data()},
                              lo[0].size());
    }
    BoxesView aos() const {
        if (bodies.empty()) return BoxesView();
        return BoxesView::aos(bodies[0].min, bodies[0].max, sizeof(Body), bodies.size());
    }
};

std::vector<Pair> sorted(std::vector<Pair> v) {
    broadphase::sort_pairs(v);
    return v;
}

/// The scenes: random (four kinds by seed), with invalid boxes, and the
/// small cases (empty, one box, one invalid box).
std::vector<std::pair<std::string, Boxes>> scenes() {
    std::vector<std::pair<std::string, Boxes>> s;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const std::size_t n = seed == 4 ? 6000 : 150 * seed * seed;
        s.emplace_back("random" + std::to_string(seed), random_scene<float, 3>(n, seed));
        Boxes spoiled = random_scene<float, 3>(n, seed + 10);
        spoil(spoiled, seed, 7);
        s.emplace_back("invalid" + std::to_string(seed), spoiled);
    }
    s.emplace_back("empty", Boxes());
    Boxes one;
    one.push_back(Box{{0, 0, 0}, {1, 1, 1}});
    s.emplace_back("one", one);
    Boxes bad = one;
    spoil(bad, 0, 1);
    s.emplace_back("one_invalid", bad);
    return s;
}

class BoxesViewTest : public ::testing::TestWithParam<Algorithm> {};

TEST(BoxesView, LayoutsReadTheSameBoxes) {
    const Boxes b = random_scene<float, 3>(100, 3);
    const EngineArrays e(b);
    std::vector<float> rows(6 * b.size());
    std::vector<Box> values(b.size());
    for (std::size_t i = 0; i < b.size(); ++i) {
        values[i] = b[i];
        for (int k = 0; k < 3; ++k) rows[6 * i + k] = b.min(k)[i], rows[6 * i + 3 + k] = b.max(k)[i];
    }
    const BoxesView views[] = {b, b.view(), e.soa(), e.aos(), BoxesView::rows(rows.data(), b.size()),
                               BoxesView::boxes(values.data(), values.size())};
    for (const BoxesView& v : views) {
        ASSERT_EQ(v.size(), b.size());
        for (std::size_t i = 0; i < b.size(); ++i)
            for (int k = 0; k < 3; ++k) ASSERT_TRUE(v.min(k, i) == b.min(k)[i] && v[i].max[k] == b.max(k)[i]);
    }
    EXPECT_TRUE(e.soa().contiguous());
    EXPECT_FALSE(e.aos().contiguous());
    EXPECT_EQ(e.soa().min(1), e.lo[1].data());  // the caller's array itself
    Boxes copy;
    copy.assign(e.aos());
    EXPECT_EQ(std::vector<float>(copy.max(2), copy.max(2) + copy.size()), e.hi[2]);
    EXPECT_TRUE(BoxesView().empty());
}

TEST_P(BoxesViewTest, SelfPairsMatchBoxesAndBruteForce) {
    Options o;
    o.algorithm = GetParam();
    o.sorted = true;
    broadphase::PairFinder finder;
    for (const auto& [name, boxes] : scenes()) {
        const EngineArrays e(boxes);
        std::vector<Pair> want, got;
        const Report rb = finder.find_pairs(boxes, want, o);
        ASSERT_EQ(rb.status, Status::ok) << name;
        EXPECT_EQ(want, expected_self(boxes, Oracle::scalar)) << name;
        for (const BoxesView& v : {e.soa(), e.aos()}) {
            const std::string what = name + (v.contiguous() ? " soa" : " aos");
            const Report r = finder.find_pairs(v, got, o);
            EXPECT_EQ(r.status, Status::ok) << what;
            EXPECT_EQ(got, want) << what;
            EXPECT_EQ(r.invalid_a, rb.invalid_a) << what;
            got.clear();
            finder.for_each_pair(v, [&](std::uint32_t a, std::uint32_t b) { got.push_back(Pair{a, b}); }, o);
            EXPECT_EQ(sorted(got), want) << what << " (for_each_pair)";
            broadphase::find_pairs(v, got, o);
            EXPECT_EQ(got, want) << what << " (free find_pairs)";
            o.threads = 2;
            finder.find_pairs(v, got, o);
            o.threads = 1;
            EXPECT_EQ(got, want) << what << " (2 threads)";
        }
    }
}

TEST_P(BoxesViewTest, TwoSetsAndIndexMatchBoxes) {
    Options o;
    o.algorithm = GetParam();
    o.sorted = true;
    const auto all = scenes();
    broadphase::PairFinder finder;
    broadphase::Index index;
    for (std::size_t s = 0; s + 1 < all.size(); s += 2) {
        const Boxes& a = all[s].second;
        const Boxes& b = all[(s + 3) % all.size()].second;
        const std::string name = all[s].first + " x " + all[(s + 3) % all.size()].first;
        const EngineArrays ea(a), eb(b);
        std::vector<Pair> want, got;
        finder.find_pairs(a, b, want, o);
        EXPECT_EQ(want, expected_cross(a, b, Oracle::scalar)) << name;
        std::vector<Pair> want_q;
        Options io = o;
        if (io.algorithm == Algorithm::automatic) io.algorithm = Algorithm::uniform_grid;
        index.build(a, io);
        index.query_batch(b, want_q, o);
        for (int layout = 0; layout < 2; ++layout) {
            const BoxesView va = layout ? ea.aos() : ea.soa(), vb = layout ? eb.aos() : eb.soa();
            const std::string what = name + (layout ? " aos" : " soa");
            finder.find_pairs(va, vb, got, o);
            EXPECT_EQ(got, want) << what;
            finder.find_pairs(va, b, got, o);  // a view and a BasicBoxes together
            EXPECT_EQ(got, want) << what << " (view, boxes)";
            const Report r = index.build(va, io);
            EXPECT_EQ(r.status, Status::ok) << what;
            index.query_batch(vb, got, o);
            EXPECT_EQ(got, want_q) << what << " (index)";
            std::vector<std::uint32_t> hits;
            for (std::size_t i = 0; i < b.size(); i += 97) {
                std::vector<std::uint32_t> want_hits;
                for (const Pair& p : want_q)
                    if (p.a == i) want_hits.push_back(p.b);
                index.query(b[i], hits);
                std::sort(hits.begin(), hits.end());
                EXPECT_EQ(hits, want_hits) << what << " query " << i;
            }
        }
    }
}

/// The algorithm classes themselves (not through the PairFinder).
TEST(BoxesView, AlgorithmClassesTakeViews) {
    Boxes boxes = random_scene<float, 3>(3000, 21);
    spoil(boxes, 5, 11);
    const EngineArrays e(boxes);
    const std::vector<Pair> want = expected_self(boxes, Oracle::scalar);
    Options o;
    o.sorted = true;
    std::vector<Pair> got;
    auto check = [&](auto&& algo, const char* name) {
        for (const BoxesView& v : {e.soa(), e.aos()}) {
            algo.find_pairs(v, got, o);
            EXPECT_EQ(got, want) << name;
            algo.build(v);
            algo.query_batch(v, got, o);
            std::vector<Pair> self;  // the batch has i-i hits and both orders
            for (const Pair& p : got)
                if (p.a < p.b) self.push_back(p);
            EXPECT_EQ(self, want) << name << " build + query_batch";
        }
    };
    check(broadphase::BruteForce(), "brute force");
    check(broadphase::SweepAndPrune(), "sweep and prune");
    check(broadphase::UniformGrid(), "uniform grid");
    check(broadphase::HybridGrid(), "hybrid grid");
    check(broadphase::AdaptiveGrid(), "adaptive grid");
}

INSTANTIATE_TEST_SUITE_P(Views, BoxesViewTest,
                         ::testing::Values(Algorithm::automatic, Algorithm::brute_force, Algorithm::sweep_and_prune,
                                           Algorithm::uniform_grid, Algorithm::hybrid_grid, Algorithm::adaptive_grid,
                                           Algorithm::cluster_pairs),
                         ParamName());

}  // namespace
}  // namespace bptest
