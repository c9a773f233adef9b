// find_sphere_pairs / SpherePairFinder (spheres.hpp) against a brute-force
// reference of the documented rule: random scenes (float and double, rows
// and columns, one radius and many), the grid and the box path, thread
// counts (same pairs, same order), max_pairs, sorted, and odd input
// (coincident centres, zero, huge and tiny radii, 1e7 offsets, NaN and
// infinite centres, negative, NaN and infinite radii, empty, one sphere).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <broadphase_fixtures/scenes.hpp>
#include <broadphase/spheres.hpp>

namespace {

namespace bp = broadphase;
using bp::Pair;

/// Spheres owned by the test: rows x y z and radii (one entry: all alike).
template <class T>
struct Cloud {
    std::vector<T> xyz, r;
    std::size_t size() const { return xyz.size() / 3; }
    bp::SphereView<T> rows() const {
        return r.size() == 1 && size() != 1 ? bp::sphere_rows<T>(xyz.data(), r[0], size())
                                            : bp::sphere_rows<T>(xyz.data(), r.data(), size());
    }
    T radius(std::size_t i) const { return r.size() == 1 ? r[0] : r[i]; }
};

/// The reference: every pair i < j of valid spheres with finite centres
/// whose double |ci - cj|^2 <= (ri + rj)^2 (spheres.hpp's rule), sorted;
/// `invalid` the spheres with a NaN coordinate or a radius not >= 0.
template <class T>
std::vector<Pair> reference(const Cloud<T>& c, std::vector<std::uint32_t>* invalid = nullptr) {
    const std::size_t n = c.size();
    std::vector<char> ok(n), finite(n);
    for (std::size_t i = 0; i < n; ++i) {
        const T* p = &c.xyz[3 * i];
        ok[i] = !(std::isnan(p[0]) || std::isnan(p[1]) || std::isnan(p[2])) && c.radius(i) >= 0;
        finite[i] = std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]);
        if (!ok[i] && invalid) invalid->push_back(static_cast<std::uint32_t>(i));
    }
    std::vector<Pair> out;
    for (std::size_t i = 0; i < n; ++i) {
        if (!ok[i] || !finite[i]) continue;
        for (std::size_t j = i + 1; j < n; ++j) {
            if (!ok[j] || !finite[j]) continue;
            const double dx = double(c.xyz[3 * i]) - double(c.xyz[3 * j]);
            const double dy = double(c.xyz[3 * i + 1]) - double(c.xyz[3 * j + 1]);
            const double dz = double(c.xyz[3 * i + 2]) - double(c.xyz[3 * j + 2]);
            const double rr = double(c.radius(i)) + double(c.radius(j));
            if (dx * dx + dy * dy + dz * dz <= rr * rr)
                out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
        }
    }
    return out;
}

std::vector<Pair> sorted(std::vector<Pair> p) {
    std::sort(p.begin(), p.end());
    return p;
}

/// n random spheres in a cube sized for solid fraction `fraction`, radii
/// uniform in [r0, r1] (r0 == r1: one radius for all).
template <class T>
Cloud<T> random_cloud(std::size_t n, double r0, double r1, double fraction, std::uint64_t seed, double offset = 0) {
    broadphase_fixtures::Random rng(seed);
    const double rm = (r0 + r1) / 2;
    const double side = std::cbrt(std::max<double>(n, 1) * 4.18879 * rm * rm * rm / fraction);
    Cloud<T> c;
    for (std::size_t i = 0; i < 3 * n; ++i) c.xyz.push_back(static_cast<T>(offset + rng.uniform(0, side)));
    if (r0 == r1) c.r.push_back(static_cast<T>(r0));
    else
        for (std::size_t i = 0; i < n; ++i) c.r.push_back(static_cast<T>(rng.uniform(r0, r1)));
    return c;
}

bp::Options opts(unsigned threads, bp::Algorithm a = bp::Algorithm::automatic, bool sort = false) {
    bp::Options o;
    o.threads = threads;
    o.algorithm = a;
    o.sorted = sort;
    o.min_boxes_per_thread = 1;  // threads and several tasks whatever the size
    return o;
}

/// Checks one cloud on both paths and several thread counts against the
/// reference; returns the grid's (or automatic path's) method.
template <class T>
bp::SphereMethod check(const Cloud<T>& c, const std::string& what) {
    std::vector<std::uint32_t> invalid;
    const std::vector<Pair> want = reference(c, &invalid);
    bp::SpherePairFinder finder;
    std::vector<Pair> got, first;
    bp::Report r = finder.find_pairs(c.rows(), first, opts(1));
    const bp::SphereMethod method = finder.last_method();
    EXPECT_TRUE(r.ok()) << what;
    EXPECT_EQ(r.pairs, first.size()) << what;
    EXPECT_EQ(r.invalid_a, invalid) << what;
    EXPECT_EQ(sorted(first), want) << what;
    for (const Pair& p : first) EXPECT_LT(p.a, p.b) << what;
    // Into a LargeArray (the Python module's output): on one thread the
    // grid writes straight into it; the same pairs in the same order.
    bp::LargeArray<Pair> into;
    for (unsigned t : {1u, 2u}) {
        r = finder.find_pairs_into(c.rows(), static_cast<const bp::BasicPeriodicDomain<T, 3>*>(nullptr), into, opts(t));
        EXPECT_EQ(r.pairs, into.size()) << what;
        EXPECT_EQ(std::vector<Pair>(into.data(), into.data() + into.size()), first) << what << ": into, " << t << " threads";
    }
    for (unsigned t : {2u, 3u, 8u}) {
        r = finder.find_pairs(c.rows(), got, opts(t));
        EXPECT_EQ(finder.last_method(), method) << what;
        EXPECT_EQ(got, first) << what << ": unsorted order at " << t << " threads";
        EXPECT_EQ(r.invalid_a, invalid) << what;
        r = finder.find_pairs(c.rows(), got, opts(t, bp::Algorithm::automatic, true));
        EXPECT_EQ(got, want) << what << ": sorted at " << t << " threads";
    }
    for (bp::Algorithm a : {bp::Algorithm::hybrid_grid, bp::Algorithm::brute_force}) {
        r = finder.find_pairs(c.rows(), got, opts(2, a, true));
        EXPECT_EQ(finder.last_method(), bp::SphereMethod::boxes);
        EXPECT_TRUE(r.ok()) << what;
        EXPECT_EQ(r.invalid_a, invalid) << what;
        EXPECT_EQ(got, want) << what << ": box path " << bp::to_string(a);
    }
    return method;
}

template <class T>
class Spheres : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Spheres, Scalars);

TYPED_TEST(Spheres, RandomGrid) {
    using T = TypeParam;
    for (std::size_t n : {0u, 1u, 2u, 100u, 3000u})
        for (double f : {0.001, 0.05, 0.3, 0.6}) {
            // Very sparse (0.001: 500 diameter-cells a sphere) and empty go to the box path.
            const bp::SphereMethod want = (f < 0.01 && n > 100) || n == 0 ? bp::SphereMethod::boxes : bp::SphereMethod::grid;
            EXPECT_EQ(check(random_cloud<T>(n, 0.5, 0.5, f, n + 7), "one radius n=" + std::to_string(n)), want) << f << " n=" << n;
            EXPECT_EQ(check(random_cloud<T>(n, 0.3, 0.6, f, n + 8), "radii 0.3-0.6 n=" + std::to_string(n)), want) << f;
        }
}

TYPED_TEST(Spheres, SpreadRadiiTakeTheBoxPath) {
    using T = TypeParam;
    EXPECT_EQ(check(random_cloud<T>(2000, 0.01, 2.0, 0.2, 3), "radii 0.01-2"), bp::SphereMethod::boxes);
    // Huge and tiny mixed.
    Cloud<T> c = random_cloud<T>(1500, 0.001, 0.002, 0.01, 4);
    for (std::size_t i = 0; i < c.size(); i += 100) c.r[i] = static_cast<T>(30);
    c.r[5] = 0;
    EXPECT_EQ(check(c, "huge and tiny radii"), bp::SphereMethod::boxes);
}

TYPED_TEST(Spheres, Offsets) {
    using T = TypeParam;
    for (double off : {1e7, -1e7, 1e6 + 0.25}) {
        check(random_cloud<T>(2000, 0.5, 0.5, 0.3, 5, off), "offset one radius " + std::to_string(off));
        check(random_cloud<T>(2000, 0.4, 0.6, 0.3, 6, off), "offset radii " + std::to_string(off));
    }
}

TYPED_TEST(Spheres, LatticeOnCellBoundaries) {
    using T = TypeParam;
    // Spacing exactly one diameter: every face neighbour touches, at cell
    // boundaries of a grid whose cells are a diameter wide.
    for (double off : {0.0, -1e6, 1e6 + 0.25}) {
        Cloud<T> c;
        for (int x = 0; x < 7; ++x)
            for (int y = 0; y < 7; ++y)
                for (int z = 0; z < 7; ++z)
                    for (int k : {x, y, z}) c.xyz.push_back(static_cast<T>(k * T(0.75) + T(off)));
        c.r.push_back(T(0.375));
        EXPECT_EQ(check(c, "lattice"), bp::SphereMethod::grid);
        EXPECT_EQ(reference(c).size(), 3u * 6 * 49);
    }
}

TYPED_TEST(Spheres, CoincidentAndZero) {
    using T = TypeParam;
    Cloud<T> c;
    for (int i = 0; i < 200; ++i) c.xyz.insert(c.xyz.end(), {T(1e7), T(1e7), T(1e7)});
    c.r.push_back(T(1e-3));
    EXPECT_EQ(check(c, "coincident"), bp::SphereMethod::grid);
    EXPECT_EQ(reference(c).size(), 200u * 199 / 2);
    c.r[0] = 0;  // coincident points touch (all radii zero: box path)
    EXPECT_EQ(check(c, "coincident points"), bp::SphereMethod::boxes);
    EXPECT_EQ(reference(c).size(), 200u * 199 / 2);
    Cloud<T> z = random_cloud<T>(500, 0.5, 0.5, 0.3, 9);
    z.r.assign(500, T(0.5));
    for (std::size_t i = 0; i < 500; i += 7) z.r[i] = 0;  // some points among spheres: mean still near
    check(z, "some zero radii");
}

TYPED_TEST(Spheres, InvalidAndInfinite) {
    using T = TypeParam;
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    Cloud<T> c = random_cloud<T>(600, 0.6, 0.6, 0.3, 10);
    c.r.assign(600, T(0.6));
    c.xyz[3 * 4 + 1] = nan;   // invalid
    c.r[9] = T(-1);           // invalid
    c.r[10] = nan;            // invalid
    c.r[11] = T(-1e-30);      // invalid, however small
    c.xyz[3 * 20] = inf;      // touches nothing
    c.xyz[3 * 21] = inf;
    c.xyz[3 * 22] = -inf, c.xyz[3 * 22 + 1] = inf;
    EXPECT_EQ(check(c, "invalid and infinite centres"), bp::SphereMethod::grid);
    Cloud<T> big = c;
    big.r[30] = inf;  // touches every finite sphere: box path
    big.r[31] = T(1e30);
    EXPECT_EQ(check(big, "infinite radius"), bp::SphereMethod::boxes);
    Cloud<T> outlier = c;
    outlier.xyz[3 * 40] = T(1e30);  // the table would be huge: box path
    EXPECT_EQ(check(outlier, "far outlier"), bp::SphereMethod::boxes);
    Cloud<T> clusters = random_cloud<T>(600, 0.4, 0.4, 0.3, 11);
    for (std::size_t i = 900; i < 1800; ++i) clusters.xyz[i] += T(1e7);
    check(clusters, "two far clusters");
    if constexpr (std::is_same<T, double>::value) {
        // Beyond float's range: the box path's float boxes saturate (no
        // pair lost); squares past 1e308 compare as infinity, as documented.
        Cloud<T> huge = c;
        for (std::size_t i = 50; i < 60; ++i) huge.xyz[3 * i] = (i % 2 ? 1 : -1) * T(1e200), huge.r[i] = T(1e39);
        huge.r[60] = T(1e200);
        EXPECT_EQ(check(huge, "beyond float's range"), bp::SphereMethod::boxes);
    }
    Cloud<T> all_nan;
    all_nan.xyz.assign(9, nan);
    all_nan.r.push_back(T(1));
    check(all_nan, "all NaN");
    Cloud<T> all_neg = random_cloud<T>(3, 1, 1, 0.3, 1);
    all_neg.r[0] = T(-1);
    check(all_neg, "all negative");
}

TYPED_TEST(Spheres, ColumnsEqualRows) {
    using T = TypeParam;
    const Cloud<T> c = random_cloud<T>(4000, 0.4, 0.6, 0.3, 12);
    std::vector<T> x, y, z;
    for (std::size_t i = 0; i < c.size(); ++i) x.push_back(c.xyz[3 * i]), y.push_back(c.xyz[3 * i + 1]), z.push_back(c.xyz[3 * i + 2]);
    std::vector<Pair> a, b;
    ASSERT_TRUE(bp::find_sphere_pairs(c.rows(), a, opts(2)).ok());
    ASSERT_TRUE(bp::find_sphere_pairs(bp::sphere_columns<T>(x.data(), y.data(), z.data(), c.r.data(), c.size()), b, opts(2)).ok());
    EXPECT_EQ(a, b);
    EXPECT_EQ(sorted(a), reference(c));
    ASSERT_TRUE(bp::find_sphere_pairs(bp::sphere_columns<T>(x.data(), y.data(), z.data(), T(0.5), c.size()), b, opts(3)).ok());
    Cloud<T> one = c;
    one.r.assign(1, T(0.5));
    EXPECT_EQ(sorted(b), reference(one));
}

TYPED_TEST(Spheres, MaxPairs) {
    using T = TypeParam;
    const Cloud<T> c = random_cloud<T>(5000, 0.5, 0.5, 0.3, 13);
    std::vector<Pair> full, got;
    bp::SpherePairFinder finder;
    ASSERT_TRUE(finder.find_pairs(c.rows(), full, opts(1)).ok());
    ASSERT_GT(full.size(), 200u);
    for (unsigned t : {1u, 2u, 3u}) {
        bp::Options o = opts(t);
        o.max_pairs = full.size();
        EXPECT_TRUE(finder.find_pairs(c.rows(), got, o).ok());
        EXPECT_EQ(got, full);
        o.max_pairs = 100;
        const bp::Report r = finder.find_pairs(c.rows(), got, o);
        EXPECT_EQ(r.status, bp::Status::pair_budget_exceeded);
        EXPECT_EQ(r.pairs, 100u);
        EXPECT_EQ(got, std::vector<Pair>(full.begin(), full.begin() + 100)) << t << " threads";
        bp::LargeArray<Pair> into;
        EXPECT_EQ(finder.find_pairs_into(c.rows(), static_cast<const bp::BasicPeriodicDomain<T, 3>*>(nullptr), into, o).status,
                  bp::Status::pair_budget_exceeded);
        EXPECT_EQ(std::vector<Pair>(into.data(), into.data() + into.size()), got) << t << " threads, into";
        // The box path bounds the box pairs: what it keeps are true pairs.
        o.algorithm = bp::Algorithm::hybrid_grid;
        EXPECT_EQ(finder.find_pairs(c.rows(), got, o).status, bp::Status::pair_budget_exceeded);
        EXPECT_LE(got.size(), 100u);
        const std::vector<Pair> want = sorted(full);
        for (const Pair& p : got) EXPECT_TRUE(std::binary_search(want.begin(), want.end(), p));
    }
}

TEST(Spheres, ReuseAcrossSizes) {
    // One finder, frames of changing size and kind: each answer right.
    bp::SpherePairFinder finder;
    std::vector<Pair> got;
    for (std::size_t n : {3000u, 10u, 0u, 5000u, 3000u}) {
        const Cloud<double> c = random_cloud<double>(n, 0.4, 0.6, 0.3, n);
        ASSERT_TRUE(finder.find_pairs(c.rows(), got, opts(2, bp::Algorithm::automatic, true)).ok());
        EXPECT_EQ(got, reference(c)) << n;
        const Cloud<float> f = random_cloud<float>(n, 0.5, 0.5, 0.05, n + 1);
        ASSERT_TRUE(finder.find_pairs(f.rows(), got, opts(3, bp::Algorithm::automatic, true)).ok());
        EXPECT_EQ(got, reference(f)) << n;
    }
}

TEST(Spheres, ConcurrentFinders) {
    // Finders on several threads at once share the task pool's helpers:
    // each call finishes with its own answer.
    const Cloud<double> c = random_cloud<double>(20000, 0.5, 0.5, 0.3, 14);
    std::vector<Pair> want;
    ASSERT_TRUE(bp::find_sphere_pairs(c.rows(), want, opts(1)).ok());
    std::vector<std::vector<Pair>> got(4);
    std::vector<std::thread> callers;
    for (unsigned i = 0; i < 4; ++i)
        callers.emplace_back([&, i] {
            bp::SpherePairFinder finder;
            for (int rep = 0; rep < 3; ++rep) finder.find_pairs(c.rows(), got[i], opts(2 + i % 2));
        });
    for (std::thread& t : callers) t.join();
    for (const auto& g : got) EXPECT_EQ(g, want);
}

}  // namespace

TEST(Spheres, BoxPathKeepsTouchingPairsNearZero) {
    // Found by tests/fuzz/fuzz_spheres: x = -1 with r = 1 and x = 3.6e-43
    // (subnormal) with r = 0 touch by the rule (dx rounds to -1 in double),
    // but boxes rounded outwards by one float step, subnormal near 0, did
    // not overlap. Every path must report the pair.
    const float tiny = 3.57331108e-43f;
    const float xyz[6] = {-1, -3, -3, tiny, -3, -3};
    const float radii[2] = {1, 0};
    for (bp::Algorithm a : {bp::Algorithm::automatic, bp::Algorithm::brute_force, bp::Algorithm::sweep_and_prune,
                            bp::Algorithm::uniform_grid, bp::Algorithm::hybrid_grid, bp::Algorithm::adaptive_grid,
                            bp::Algorithm::cluster_pairs}) {
        bp::Options o;
        o.algorithm = a;
        std::vector<Pair> got;
        ASSERT_TRUE(bp::find_sphere_pairs(bp::sphere_rows(xyz, radii, 2), got, o).ok());
        ASSERT_EQ(got.size(), 1u) << bp::to_string(a);
    }
}

TEST(Spheres, HugeRadiiTakeEveryPairTheRuleTakes) {
    // Found by the Python fuzzer: r = 1e300 at -1e300 and points at 1.
    // (r_i + r_j)^2 overflows to infinity, so the rule takes the pairs
    // (inf <= inf) although the spheres' boxes are apart. Every path must.
    const double xyz[12] = {1, 1, 1, -1.0000000000009095e+300, -1.0000000000009095e+300, -1.0000000000009095e+300,
                            1, 1, 1, 5e299, -3e299, 7e299};
    const double radii[4] = {5e-324, 1e300, 0, 1e154};
    for (bp::Algorithm a : bp::concrete_algorithms) {
        for (bp::Algorithm which : {a, bp::Algorithm::automatic}) {
            bp::Options o;
            o.algorithm = which;
            std::vector<Pair> got;
            ASSERT_TRUE(bp::find_sphere_pairs(bp::sphere_rows(xyz, radii, 4), got, o).ok());
            std::sort(got.begin(), got.end());
            // The huge sphere (1) meets all three; 0 and 2 coincide; 3 (r = 1e154) and 0 or 2: no.
            const std::vector<Pair> want = {{0, 1}, {0, 2}, {1, 2}, {1, 3}};
            ASSERT_EQ(got, want) << bp::to_string(which);
        }
    }
}

TEST(Spheres, EmptyVectorRows) {
    // sphere_rows on an empty vector's data() (possibly null): no pointer
    // arithmetic on null (found by fuzz_spheres under UBSan), no pairs.
    std::vector<double> xyz, radii;
    std::vector<Pair> got;
    ASSERT_TRUE(bp::find_sphere_pairs(bp::sphere_rows(xyz.data(), radii.data(), 0), got).ok());
    EXPECT_TRUE(got.empty());
}
