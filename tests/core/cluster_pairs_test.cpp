// The cluster-pair search's own tests, beside the differential suites it is
// plugged into (subjects.cpp, every SIMD level in simd_test.cpp, whose
// Kernels suite tests its kernel): both cluster sizes at the current SIMD
// level, clusters cut at every tail length, a cluster with itself, pairs
// across clusters found once, trees of different heights for two sets, and
// the cluster pairs it tests.
#include <algorithm>
#include <string>
#include <vector>

#include <broadphase/brute_force.hpp>
#include <broadphase/cluster_pairs.hpp>
#include <broadphase/geometry.hpp>

#include "differential.hpp"
#include "test_scenes.hpp"

namespace bptest {
namespace {

using broadphase::Boxes;
using broadphase::ClusterPairs;

/// n copies of one box: every pair overlaps, within and across clusters.
Boxes identical(std::size_t n) {
    Boxes b;
    for (std::size_t i = 0; i < n; ++i) b.push_back(box3(1, 2, 3, 4, 5, 6));
    return b;
}

std::vector<Pair> all_pairs(std::size_t n) {
    std::vector<Pair> out;
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = i + 1; j < n; ++j) out.push_back({i, j});
    return out;
}

std::vector<Pair> sorted_pairs(ClusterPairs& c, const Boxes& a, const Boxes* b = nullptr, unsigned threads = 1) {
    std::vector<Pair> out;
    Options o;
    o.threads = threads;
    o.min_boxes_per_thread = 1;
    const Report r = b ? c.find_pairs(a, *b, out, o) : c.find_pairs(a, out, o);
    EXPECT_EQ(r.status, Status::ok);
    if (!b) {
        for (const Pair& p : out) EXPECT_LT(p.a, p.b) << "a pair within one set is (a < b)";
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Pair> brute(const Boxes& a, const Boxes* b = nullptr) {
    broadphase::BruteForce bf;
    std::vector<Pair> out;
    Options o;
    o.sorted = true;
    if (b) bf.find_pairs(a, *b, out, o);
    else bf.find_pairs(a, out, o);
    return out;
}

class ClusterSize : public ::testing::TestWithParam<int> {
protected:
    ClusterPairs make() const {
        ClusterPairs c;
        c.set_cluster_size(GetParam());
        return c;
    }
};

// Every pair exactly once, whatever the tail: a cluster with itself reports
// j > i only, pairs across clusters come from one pair of clusters.
TEST_P(ClusterSize, IdenticalBoxesEveryCount) {
    ClusterPairs c = make();
    for (std::size_t n = 0; n <= 50; ++n) {
        const Boxes b = identical(n);
        EXPECT_EQ(sorted_pairs(c, b), all_pairs(n)) << "n=" << n;
        EXPECT_EQ(sorted_pairs(c, b, nullptr, 3), all_pairs(n)) << "n=" << n << ", 3 threads";
    }
}

// Boxes apart along a line: Morton order is x order, the clusters' boxes do
// not overlap, and each cluster is tested with itself only.
TEST_P(ClusterSize, DisjointClustersTestThemselvesOnly) {
    ClusterPairs c = make();
    const std::size_t m = static_cast<std::size_t>(GetParam());
    for (std::size_t n : {2, 9, 16, 17, 100, 1000}) {
        Boxes b;
        for (std::size_t i = 0; i < n; ++i) {
            const float x = 10.0f * static_cast<float>(i);
            b.push_back(box3(x, 0, 0, x + 1, 1, 1));
        }
        EXPECT_EQ(sorted_pairs(c, b), std::vector<Pair>{}) << "n=" << n;
        EXPECT_EQ(c.cluster_pair_count(), (n + m - 1) / m) << "n=" << n;
    }
}

TEST_P(ClusterSize, RandomScenesAgainstBruteForce) {
    ClusterPairs c = make();
    for (std::size_t n : {3, 31, 257, 3000}) {
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const Boxes a = random_scene<float, 3>(n, seed, RandomKind::mixed);
            EXPECT_EQ(sorted_pairs(c, a), brute(a)) << "n=" << n << " seed=" << seed;
            EXPECT_EQ(sorted_pairs(c, a, nullptr, 3), brute(a)) << "n=" << n << " seed=" << seed << ", 3 threads";
        }
    }
}

// Two sets whose trees differ in height (1 box against thousands, and back).
TEST_P(ClusterSize, TwoSetsOfDifferentHeights) {
    ClusterPairs c = make();
    for (std::size_t na : {1, 5, 40, 3000}) {
        for (std::size_t nb : {1, 17, 3000}) {
            const Boxes a = random_scene<float, 3>(na, na + 11, RandomKind::mixed);
            const Boxes b = random_scene<float, 3>(nb, nb + 23, RandomKind::mixed);
            EXPECT_EQ(sorted_pairs(c, a, &b), brute(a, &b)) << "na=" << na << " nb=" << nb;
            EXPECT_EQ(sorted_pairs(c, b, &a), brute(b, &a)) << "na=" << na << " nb=" << nb;
        }
    }
}

TEST_P(ClusterSize, QueriesDownTheTree) {
    ClusterPairs c = make();
    const Boxes b = random_scene<float, 3>(2000, 7, RandomKind::mixed);
    const Boxes q = random_scene<float, 3>(200, 8, RandomKind::mixed);
    ASSERT_EQ(c.build(b).status, Status::ok);
    std::vector<std::uint32_t> got;
    for (std::size_t i = 0; i < q.size(); ++i) {
        c.query(q[i], got);
        std::sort(got.begin(), got.end());
        std::vector<std::uint32_t> want;
        if (q[i].valid())
            for (std::uint32_t j = 0; j < b.size(); ++j)
                if (b[j].valid() && broadphase::overlaps(b[j], q[i])) want.push_back(j);
        ASSERT_EQ(got, want) << "query " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(ClusterPairs, ClusterSize, ::testing::Values(8, 16),
                         [](const ::testing::TestParamInfo<int>& info) { return "M" + std::to_string(info.param); });

}  // namespace
}  // namespace bptest
