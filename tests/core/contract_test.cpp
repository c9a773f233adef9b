// The query contract (docs/queries.md): Index, every algorithm class,
// DynamicTree and Scene answer a box query with the same names, the same
// output rules (outputs replaced, Pair for pairs, the count returned) and
// the same callback rule (bool or void; false stops; the call says whether
// it was stopped). The static_asserts check the signatures at compile time;
// the tests check the rules on three boxes.
#include <broadphase/adaptive_grid.hpp>
#include <broadphase/broadphase.hpp>
#include <broadphase/brute_force.hpp>
#include <broadphase/dynamic_tree.hpp>
#include <broadphase/hybrid_grid.hpp>
#include <broadphase/scene.hpp>
#include <broadphase/sweep_and_prune.hpp>
#include <broadphase/uniform_grid.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

namespace bp = broadphase;

struct Stop {
    bool operator()(std::uint32_t) const { return false; }
};
struct GoOn {
    void operator()(std::uint32_t) const {}
};

template <class S>
using query_result = decltype(std::declval<const S&>().query(std::declval<const bp::Box&>(),
                                                             std::declval<std::vector<std::uint32_t>&>()));
template <class S, class F>
using for_each_result =
    decltype(std::declval<const S&>().for_each_overlap(std::declval<const bp::Box&>(), std::declval<F>()));

template <class S>
constexpr bool answers_queries() {
    return std::is_same_v<query_result<S>, std::size_t> && std::is_same_v<for_each_result<S, Stop>, bool> &&
           std::is_same_v<for_each_result<S, GoOn>, bool>;
}

static_assert(answers_queries<bp::Index>(), "Index: query -> size_t, for_each_overlap -> bool");
static_assert(answers_queries<bp::BruteForce>(), "BruteForce: the same");
static_assert(answers_queries<bp::SweepAndPrune>(), "SweepAndPrune: the same");
static_assert(answers_queries<bp::UniformGrid>(), "UniformGrid: the same");
static_assert(answers_queries<bp::HybridGrid>(), "HybridGrid: the same");
static_assert(answers_queries<bp::AdaptiveGrid>(), "AdaptiveGrid: the same");
static_assert(answers_queries<bp::DynamicTree>(), "DynamicTree: the same");
static_assert(std::is_same_v<for_each_result<bp::Scene, Stop>, bool> && std::is_same_v<for_each_result<bp::Scene, GoOn>, bool>,
              "Scene: for_each_overlap -> bool");

// All pairs: Pair, out replaced; a Report where the call can fail, the count where it cannot.
static_assert(std::is_same_v<decltype(std::declval<bp::PairFinder&>().find_pairs(std::declval<const bp::Boxes&>(),
                                                                                   std::declval<std::vector<bp::Pair>&>())),
                             bp::Report>);
static_assert(std::is_same_v<decltype(std::declval<const bp::DynamicTree&>().pairs(std::declval<std::vector<bp::Pair>&>())),
                             std::size_t>);
static_assert(std::is_same_v<decltype(std::declval<const bp::Scene&>().pairs()), const std::vector<bp::Pair>&>);
static_assert(std::is_same_v<decltype(std::declval<bp::Scene&>().update()), bp::Report>);
static_assert(std::is_same_v<decltype(std::declval<const bp::Index&>().query_batch(
                                 std::declval<const bp::Boxes&>(), std::declval<std::vector<bp::Pair>&>())),
                             bp::Report>);

// Boxes 0 and 1 overlap the query and each other; box 2 is alone.
const bp::Box kBoxes[] = {{{0, 0, 0}, {1, 1, 1}}, {{0.5f, 0.5f, 0.5f}, {2, 2, 2}}, {{5, 5, 5}, {6, 6, 6}}};
const bp::Box kQuery{{0.8f, 0.8f, 0.8f}, {0.9f, 0.9f, 0.9f}};

// The rules, on any structure with query() and for_each_overlap().
template <class S>
void check_query_rules(const S& s) {
    std::vector<std::uint32_t> out{99, 98, 97};  // stale: query() replaces it
    EXPECT_EQ(s.query(kQuery, out), 2u);
    ASSERT_EQ(out.size(), 2u);
    int calls = 0;
    EXPECT_FALSE(s.for_each_overlap(kQuery, [&](std::uint32_t) {
        ++calls;
        return false;
    }));
    EXPECT_EQ(calls, 1) << "called again after returning false";
    calls = 0;
    EXPECT_TRUE(s.for_each_overlap(kQuery, [&](std::uint32_t) { ++calls; }));
    EXPECT_EQ(calls, 2);
}

TEST(QueryContract, Index) {
    bp::Boxes boxes;
    for (const bp::Box& b : kBoxes) boxes.push_back(b);
    for (bp::Algorithm a : {bp::Algorithm::brute_force, bp::Algorithm::sweep_and_prune, bp::Algorithm::uniform_grid,
                            bp::Algorithm::hybrid_grid, bp::Algorithm::adaptive_grid, bp::Algorithm::cluster_pairs,
                            bp::Algorithm::automatic}) {
        SCOPED_TRACE(bp::to_string(a));
        bp::Index index;
        ASSERT_TRUE(index.build(boxes, a).ok());
        check_query_rules(index);
    }
}

TEST(QueryContract, DynamicTree) {
    bp::DynamicTree tree;
    for (const bp::Box& b : kBoxes) tree.insert(b);
    check_query_rules(tree);
    std::vector<bp::Pair> pairs{{7, 8}};  // stale: pairs() replaces it
    ASSERT_EQ(tree.pairs(pairs), 1u);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].a < pairs[0].b, true);
}

TEST(QueryContract, Scene) {
    bp::Scene scene;
    for (const bp::Box& b : kBoxes) scene.add(b);
    ASSERT_TRUE(scene.update().ok());
    ASSERT_EQ(scene.pairs().size(), 1u);
    int calls = 0;
    EXPECT_FALSE(scene.for_each_overlap(kQuery, [&](bp::Scene::Id) {
        ++calls;
        return false;
    }));
    EXPECT_EQ(calls, 1);
    calls = 0;
    EXPECT_TRUE(scene.for_each_overlap(kQuery, [&](bp::Scene::Id) { ++calls; }));
    EXPECT_EQ(calls, 2);
}

}  // namespace
