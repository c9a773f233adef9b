// Partition<D> (mpi/include/broadphase/mpi/partition.hpp) on its own, no MPI:
// each leaf's region is worked out from the tree (the cuts on the path from
// the root), and then
// - every point (cuts, their neighbours, infinities included) lies in
//   exactly one region, the one rank_of names;
// - for_each_rank hits every region a box overlaps, each once, and no
//   region with a point outside the box (a scan of all regions decides);
// - the regions hold about the same weight of samples (within 1.2x of the
//   mean) on clustered and on weighted samples;
// - the same samples build the same partition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <broadphase/mpi/partition.hpp>
#include <broadphase_fixtures/scenes.hpp>

namespace {

using broadphase::mpi::Partition;
using broadphase::mpi::Sample;
using broadphase_fixtures::Random;

const double inf = std::numeric_limits<double>::infinity();

// A region: on each axis the points x with x >= lo (when has_lo) and x < hi
// (when has_hi), the tightest cuts on the path from the root.
template <int D>
struct Region {
    bool has_lo[D] = {};
    bool has_hi[D] = {};
    double lo[D] = {};
    double hi[D] = {};

    bool contains(const double* x) const {
        for (int k = 0; k < D; ++k) {
            if (has_lo[k] && !(x[k] >= lo[k])) return false;
            if (has_hi[k] && !(x[k] < hi[k])) return false;
        }
        return true;
    }
    // Whether some point of the closed box [a, b] lies in the region: the
    // smallest candidate on each axis is max(a, lo).
    bool overlaps(const double* a, const double* b) const {
        for (int k = 0; k < D; ++k) {
            const double x = has_lo[k] ? std::max(a[k], lo[k]) : a[k];
            if (!(x <= b[k])) return false;
            if (has_hi[k] && !(x < hi[k])) return false;
        }
        return true;
    }
    bool empty() const {
        for (int k = 0; k < D; ++k) {
            const double x = has_lo[k] ? lo[k] : -inf;
            if (has_hi[k] && !(x < hi[k])) return true;
        }
        return false;
    }
};

// The regions of the leaves, indexed by rank, from the tree alone.
template <int D>
std::vector<Region<D>> regions_of(const Partition<D>& p) {
    std::vector<Region<D>> out(p.regions());
    std::vector<int> seen(p.regions(), 0);
    struct Walk {
        const Partition<D>& p;
        std::vector<Region<D>>& out;
        std::vector<int>& seen;
        void go(int n, Region<D> r) {
            const auto& node = p.nodes()[n];
            if (node.rank >= 0) {
                ASSERT_LT(node.rank, static_cast<int>(out.size()));
                out[node.rank] = r;
                ++seen[node.rank];
                return;
            }
            Region<D> left = r, right = r;
            const int k = node.axis;
            if (!left.has_hi[k] || node.cut < left.hi[k]) left.hi[k] = node.cut;
            left.has_hi[k] = true;
            if (!right.has_lo[k] || node.cut > right.lo[k]) right.lo[k] = node.cut;
            right.has_lo[k] = true;
            go(node.left, left);
            go(node.right, right);
        }
    } walk{p, out, seen};
    walk.go(0, Region<D>{});
    for (int r = 0; r < p.regions(); ++r) EXPECT_EQ(seen[r], 1) << "rank " << r << " leaves";
    return out;
}

template <int D>
std::vector<Sample<D>> clustered(std::size_t n, std::uint64_t seed, bool weighted) {
    Random r(seed);
    double centres[12][D];
    for (auto& c : centres)
        for (int k = 0; k < D; ++k) c[k] = r.uniform(-1000, 1000);
    std::vector<Sample<D>> out(n);
    for (auto& s : out) {
        const double* c = centres[r.below(12)];
        const double spread = r.below(4) == 0 ? 200 : 10;
        for (int k = 0; k < D; ++k) s.at[k] = c[k] + r.uniform(-spread, spread);
        s.weight = weighted ? r.uniform(0.5, 4) : 1.0;
    }
    // A few far outliers.
    for (std::size_t i = 0; i < n; i += 997) out[i].at[0] = 1e9 * (i % 2 ? 1 : -1);
    return out;
}

// Points to try: the samples' range, every cut and the doubles next to it,
// infinities and huge values, on every axis.
template <int D>
std::vector<std::vector<double>> probe_points(const Partition<D>& p, std::uint64_t seed) {
    std::vector<double> values = {-inf, inf, -1e300, 1e300, 0.0, -0.0, 1e9, -1e9};
    for (const auto& n : p.nodes())
        if (n.rank < 0)
            for (double v : {n.cut, std::nextafter(n.cut, -inf), std::nextafter(n.cut, inf)}) values.push_back(v);
    Random r(seed);
    std::vector<std::vector<double>> out;
    for (int i = 0; i < 3000; ++i) {
        std::vector<double> x(D);
        for (int k = 0; k < D; ++k)
            x[k] = r.below(2) ? values[r.below(values.size())] : r.uniform(-1300, 1300);
        out.push_back(x);
    }
    return out;
}

template <int D>
void check_points(const Partition<D>& p, std::uint64_t seed) {
    const std::vector<Region<D>> regions = regions_of(p);
    for (const auto& x : probe_points(p, seed)) {
        int inside = 0, which = -1;
        for (int r = 0; r < p.regions(); ++r)
            if (regions[r].contains(x.data())) ++inside, which = r;
        ASSERT_EQ(inside, 1) << "a point in " << inside << " regions";
        ASSERT_EQ(p.rank_of(x.data()), which);
    }
}

template <int D>
void check_boxes(const Partition<D>& p, std::uint64_t seed) {
    const std::vector<Region<D>> regions = regions_of(p);
    const std::vector<std::vector<double>> pts = probe_points(p, seed);
    Random r(seed + 1);
    int empty_hits = 0;
    for (std::size_t i = 0; i + 1 < pts.size(); i += 2) {
        double lo[D], hi[D];
        for (int k = 0; k < D; ++k) {
            lo[k] = std::min(pts[i][k], pts[i + 1][k]);
            hi[k] = std::max(pts[i][k], pts[i + 1][k]);
            if (r.below(3) == 0) hi[k] = lo[k];  // flat on this axis
        }
        std::vector<int> hits;
        p.for_each_rank(lo, hi, [&](int rank) { hits.push_back(rank); });
        std::vector<int> sorted = hits;
        std::sort(sorted.begin(), sorted.end());
        ASSERT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) << "a region hit twice";
        for (int q = 0; q < p.regions(); ++q) {
            const bool hit = std::binary_search(sorted.begin(), sorted.end(), q);
            const bool overlaps = regions[q].overlaps(lo, hi);
            if (overlaps) {
                ASSERT_TRUE(hit) << "region " << q << " overlaps the box but was not hit";
            } else if (hit) {
                // Only a region without any point may be hit without overlapping.
                ASSERT_TRUE(regions[q].empty()) << "region " << q << " hit, but the box misses it";
                ++empty_hits;
            }
        }
        // The float path the distributed finder uses gives the same regions.
        float lf[D], hf[D];
        bool exact = true;
        for (int k = 0; k < D; ++k) {
            lf[k] = static_cast<float>(lo[k]);
            hf[k] = static_cast<float>(hi[k]);
            exact = exact && lf[k] == lo[k] && hf[k] == hi[k];
        }
        if (exact) {
            std::vector<int> fh;
            p.for_each_rank(lf, hf, [&](int rank) { fh.push_back(rank); });
            ASSERT_EQ(fh, hits);
        }
    }
    ::testing::Test::RecordProperty("empty_region_hits", empty_hits);
}

template <int D>
void check_balance(std::vector<Sample<D>> samples, int ranks, double limit) {
    const std::vector<Sample<D>> kept = samples;
    const Partition<D> p = Partition<D>::build(samples, ranks);
    ASSERT_EQ(p.regions(), ranks);
    std::vector<double> w(ranks, 0);
    double total = 0;
    for (const auto& s : kept) {
        w[p.rank_of(s.at)] += s.weight;
        total += s.weight;
    }
    const double mean = total / ranks, most = *std::max_element(w.begin(), w.end());
    EXPECT_LE(most, limit * mean) << ranks << " ranks: largest region " << most << ", mean " << mean;
}

TEST(Partition, OneRegionHoldsEverything) {
    const Partition<3> p;
    EXPECT_EQ(p.regions(), 1);
    const double x[3] = {-inf, 0, inf};
    EXPECT_EQ(p.rank_of(x), 0);
    int hits = 0;
    p.for_each_rank(x, x, [&](int r) { hits += r == 0; });
    EXPECT_EQ(hits, 1);
    std::vector<Sample<3>> none;
    EXPECT_TRUE(Partition<3>::build(none, 1) == p);
}

TEST(Partition, EveryPointInExactlyOneRegion) {
    for (int ranks : {1, 2, 3, 4, 5, 7, 8, 13, 16}) {
        SCOPED_TRACE(ranks);
        auto s3 = clustered<3>(4000, 10 + ranks, false);
        check_points(Partition<3>::build(s3, ranks), 20 + ranks);
        auto s2 = clustered<2>(3000, 30 + ranks, true);
        check_points(Partition<2>::build(s2, ranks), 40 + ranks);
    }
}

TEST(Partition, ForEachRankHitsExactlyTheOverlappedRegions) {
    for (int ranks : {1, 2, 3, 4, 7, 16}) {
        SCOPED_TRACE(ranks);
        auto s3 = clustered<3>(4000, 50 + ranks, ranks % 2);
        check_boxes(Partition<3>::build(s3, ranks), 60 + ranks);
        auto s2 = clustered<2>(2000, 70 + ranks, false);
        check_boxes(Partition<2>::build(s2, ranks), 80 + ranks);
    }
}

TEST(Partition, DegenerateSamples) {
    // No samples, one sample, all samples at one point, all on a plane:
    // still one region per rank and every point in exactly one.
    for (int ranks : {2, 3, 7}) {
        SCOPED_TRACE(ranks);
        std::vector<Sample<3>> none;
        const Partition<3> p0 = Partition<3>::build(none, ranks);
        EXPECT_EQ(p0.regions(), ranks);
        check_points(p0, 1);
        check_boxes(p0, 2);
        std::vector<Sample<3>> one(1, Sample<3>{{1, 2, 3}, 5});
        check_points(Partition<3>::build(one, ranks), 3);
        std::vector<Sample<3>> same(500, Sample<3>{{4, 4, 4}, 1});
        const Partition<3> ps = Partition<3>::build(same, ranks);
        check_points(ps, 4);
        check_boxes(ps, 5);
        auto flat = clustered<3>(1000, 6, false);
        for (auto& s : flat) s.at[2] = 0;
        const Partition<3> pf = Partition<3>::build(flat, ranks);
        check_points(pf, 7);
        check_boxes(pf, 8);
    }
}

TEST(Partition, BalancedOnClusteredSamples) {
    for (int ranks : {2, 3, 4, 5, 7, 8, 12, 16}) {
        check_balance(clustered<3>(20000, 90 + ranks, false), ranks, 1.2);
        check_balance(clustered<3>(20000, 100 + ranks, true), ranks, 1.2);
        check_balance(clustered<2>(8000, 110 + ranks, false), ranks, 1.2);
    }
}

TEST(Partition, SameSamplesSamePartition) {
    for (int ranks : {2, 3, 7, 16}) {
        auto a = clustered<3>(5000, 120 + ranks, true);
        auto b = a;
        const Partition<3> pa = Partition<3>::build(a, ranks);
        const Partition<3> pb = Partition<3>::build(b, ranks);
        EXPECT_TRUE(pa == pb) << ranks;
        auto c = clustered<3>(5000, 130 + ranks, true);
        EXPECT_FALSE(Partition<3>::build(c, ranks) == pa) << "other samples, the same cuts?";
    }
}

TEST(Partition, SamplePointSkipsInvalidAndInfinite) {
    broadphase::Boxes boxes;
    const float finf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    boxes.push_back(broadphase::Box{{0, 0, 0}, {2, 4, 6}});
    boxes.push_back(broadphase::Box{{-finf, 0, 0}, {finf, 1, 1}});  // infinite slab: its centre is NaN
    boxes.push_back(broadphase::Box{{0, 0, 0}, {finf, 1, 1}});      // half-infinite: centre +inf
    boxes.push_back(broadphase::Box{{nan, 0, 0}, {1, 1, 1}});
    boxes.push_back(broadphase::Box{{2, 0, 0}, {1, 1, 1}});          // inverted
    boxes.push_back(broadphase::Box{{3e38f, 0, 0}, {3.4e38f, 1, 1}}); // a huge but finite centre
    double c[3];
    ASSERT_TRUE(broadphase::mpi::sample_point(boxes, 0, c));
    EXPECT_EQ(c[0], 1);
    EXPECT_EQ(c[1], 2);
    EXPECT_EQ(c[2], 3);
    EXPECT_FALSE(broadphase::mpi::sample_point(boxes, 1, c));
    EXPECT_FALSE(broadphase::mpi::sample_point(boxes, 2, c));
    EXPECT_FALSE(broadphase::mpi::sample_point(boxes, 3, c));
    EXPECT_FALSE(broadphase::mpi::sample_point(boxes, 4, c));
    ASSERT_TRUE(broadphase::mpi::sample_point(boxes, 5, c));
    EXPECT_TRUE(std::isfinite(c[0]));
}

}  // namespace
