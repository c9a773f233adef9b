// Periodic domains (periodic.hpp, and the periodic sphere pairs of
// spheres.hpp) against brute force over the images, written from the
// documented rules only: random scenes with fixed seeds (float and double,
// 2-D and 3-D, every algorithm, 1 and 3 threads, some axes periodic) and
// adversarial ones: boxes touching across the boundary, boxes at 0 and at L,
// boxes larger than L/2 and than L, coordinates outside [0, L) and far away,
// points, invalid boxes, values whose wrap rounds in T, bad periods.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

#include <broadphase/periodic.hpp>
#include <broadphase/spheres.hpp>

namespace {

namespace bp = broadphase;
using bp::Pair;

/// One axis of the oracle, in long double (exact for the test's values:
/// lattice values and floats of moderate exponent range): some integer k
/// with [c + kL, b + kL] meeting [a, e] (closed), tried for every k that
/// could matter; an extent of L or more, or an infinite coordinate, covers
/// the axis.
bool axis_meets(long double a, long double e, long double c, long double b, long double L) {
    if (!std::isfinite(a) || !std::isfinite(e) || !std::isfinite(c) || !std::isfinite(b)) return true;
    if (e - a >= L || b - c >= L) return true;
    const long double k0 = std::floor((a - b) / L) - 2, k1 = std::ceil((e - c) / L) + 2;
    for (long double k = k0; k <= k1; k += 1)
        if (!(e < c + k * L || b + k * L < a)) return true;
    return false;
}

/// The oracle: every pair i < j of valid boxes that meets on every axis
/// (periodic axes through an image, the others as they are), sorted.
template <class T, int D>
std::vector<Pair> oracle(const bp::BasicBoxes<T, D>& boxes, const bp::BasicPeriodicDomain<T, D>& dom,
                         std::vector<std::uint32_t>* invalid = nullptr) {
    const std::size_t n = boxes.size();
    std::vector<char> ok(n);
    for (std::size_t i = 0; i < n; ++i) {
        ok[i] = boxes[i].valid();
        if (!ok[i] && invalid) invalid->push_back(static_cast<std::uint32_t>(i));
    }
    std::vector<Pair> out;
    for (std::size_t i = 0; i < n; ++i) {
        if (!ok[i]) continue;
        for (std::size_t j = i + 1; j < n; ++j) {
            if (!ok[j]) continue;
            bool meet = true;
            for (int k = 0; k < D && meet; ++k) {
                const long double a = boxes.min(k)[i], e = boxes.max(k)[i], c = boxes.min(k)[j], b = boxes.max(k)[j];
                if (dom.period[k] != 0) meet = axis_meets(a, e, c, b, dom.period[k]);
                else meet = !(e < c || b < a);
            }
            if (meet) out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
        }
    }
    return out;
}

/// Checks that `got` holds each of `want`'s pairs once (as a < b) and no other.
void expect_same_pairs(std::vector<Pair> got, const std::vector<Pair>& want, const char* what) {
    for (const Pair& p : got) ASSERT_LT(p.a, p.b) << what;
    std::sort(got.begin(), got.end());
    ASSERT_TRUE(std::adjacent_find(got.begin(), got.end()) == got.end()) << what << ": a pair reported twice";
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_TRUE(got[i] == want[i]) << what << ": pair " << i << " is (" << got[i].a << ", " << got[i].b
                                       << "), want (" << want[i].a << ", " << want[i].b << ")";
}

/// Random boxes: mins in [-1.5 L, 2.5 L] (wrapped by the finder), sizes
/// mostly small, some points, some above L/2 and some above L. Lattice:
/// every value a multiple of L/64, so that boxes touch and coincide.
template <class T, int D>
bp::BasicBoxes<T, D> random_boxes(std::uint64_t seed, std::size_t n, T L, bool lattice) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    bp::BasicBoxes<T, D> boxes(n);
    auto value = [&](double v) -> T {
        if (lattice) return static_cast<T>(std::round(v * 64 / L) * L / 64);
        return static_cast<T>(static_cast<float>(v));  // floats: exact in the long double oracle
    };
    for (std::size_t i = 0; i < n; ++i) {
        const double kind = u(rng);
        for (int k = 0; k < D; ++k) {
            const double lo = -1.5 * L + 4.0 * L * u(rng);
            double size = 0.12 * L * u(rng);
            if (kind < 0.1) size = 0;                          // points
            else if (kind < 0.15) size = (0.4 + 0.3 * u(rng)) * L;  // above L/2 sometimes
            else if (kind < 0.17) size = (0.9 + 0.3 * u(rng)) * L;  // about L and above
            const T a = value(lo);
            T b = value(lo + size);
            if (b < a) b = a;
            boxes.min(k)[i] = a;
            boxes.max(k)[i] = b;
        }
    }
    return boxes;
}

template <class P>
struct PeriodicBoxes : ::testing::Test {};

template <class T, int D>
struct Kind {
    using scalar = T;
    static constexpr int dims = D;
};
using Kinds = ::testing::Types<Kind<float, 3>, Kind<double, 3>, Kind<float, 2>, Kind<double, 2>>;
TYPED_TEST_SUITE(PeriodicBoxes, Kinds);

/// Runs `finder` with every algorithm and automatic at 1 and 3 threads:
/// the oracle's pairs, each once, the same order for both thread counts.
template <class T, int D>
void check_all_algorithms(const bp::BasicBoxes<T, D>& boxes, const bp::BasicPeriodicDomain<T, D>& dom,
                          const std::vector<Pair>& want, const std::vector<std::uint32_t>& invalid) {
    bp::BasicPeriodicPairFinder<T, D> finder;
    std::vector<bp::Algorithm> algos(std::begin(bp::concrete_algorithms), std::end(bp::concrete_algorithms));
    algos.push_back(bp::Algorithm::automatic);
    for (bp::Algorithm a : algos) {
        std::vector<Pair> one, three;
        bp::Options o;
        o.algorithm = a;
        o.threads = 1;
        const bp::Report r1 = finder.find_pairs(boxes, dom, one, o);
        ASSERT_TRUE(r1.ok()) << bp::to_string(r1.status);
        EXPECT_EQ(r1.pairs, one.size());
        EXPECT_EQ(r1.invalid_a, invalid) << bp::to_string(a);
        expect_same_pairs(one, want, bp::to_string(a));
        o.threads = 3;
        o.min_boxes_per_thread = 1;
        const bp::Report r3 = finder.find_pairs(boxes, dom, three, o);
        ASSERT_TRUE(r3.ok());
        ASSERT_EQ(one.size(), three.size()) << bp::to_string(a);
        for (std::size_t i = 0; i < one.size(); ++i) ASSERT_TRUE(one[i] == three[i]) << bp::to_string(a) << " order";
        o.sorted = true;
        std::vector<Pair> sorted;
        finder.find_pairs(boxes, dom, sorted, o);
        ASSERT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
        expect_same_pairs(sorted, want, "sorted");
    }
}

/// Random scenes, every algorithm, each pattern of periodic axes.
TYPED_TEST(PeriodicBoxes, RandomScenesAgainstBruteForce) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    const T L = 8;
    int scene = 0;
    for (unsigned mask = 1; mask < (1u << D); ++mask) {
        for (bool lattice : {true, false}) {
            for (std::size_t n : {std::size_t(60), std::size_t(300)}) {
                const auto boxes = random_boxes<T, D>(1000 + scene++, n, L, lattice);
                bp::BasicPeriodicDomain<T, D> dom;
                for (int k = 0; k < D; ++k) dom.period[k] = (mask >> k) & 1u ? L : T(0);
                const std::vector<Pair> want = oracle(boxes, dom);
                SCOPED_TRACE(::testing::Message() << "mask " << mask << " lattice " << lattice << " n " << n);
                check_all_algorithms(boxes, dom, want, {});
            }
        }
    }
}

/// A scene large enough for automatic to pick a grid (4,096 boxes and
/// ghosts or more), through the one-shot function.
TYPED_TEST(PeriodicBoxes, LargeSceneAndOneShot) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    const T L = 8;
    const auto boxes = random_boxes<T, D>(77, 4500, L, true);
    bp::BasicPeriodicDomain<T, D> dom;
    dom.period.fill(L);
    dom.period[D - 1] = 0;
    const std::vector<Pair> want = oracle(boxes, dom);
    std::vector<Pair> got;
    ASSERT_TRUE(bp::find_pairs(boxes, dom, got).ok());
    expect_same_pairs(got, want, "one-shot");
}

/// Moving boxes by whole periods (exactly, on lattice values) changes no pair.
TYPED_TEST(PeriodicBoxes, MovingByWholePeriodsChangesNothing) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    const T L = 8;
    auto boxes = random_boxes<T, D>(5, 300, L, true);
    bp::BasicPeriodicDomain<T, D> dom;
    dom.period.fill(L);
    std::vector<Pair> before, after;
    bp::BasicPeriodicPairFinder<T, D> finder;
    bp::Options o;
    o.sorted = true;
    finder.find_pairs(boxes, dom, before, o);
    std::mt19937_64 rng(6);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        for (int k = 0; k < D; ++k) {
            const T shift = L * static_cast<T>(static_cast<int>(rng() % 41) - 20);  // -20 L .. 20 L
            boxes.min(k)[i] += shift;
            boxes.max(k)[i] += shift;
        }
    }
    finder.find_pairs(boxes, dom, after, o);
    expect_same_pairs(after, before, "moved");
    expect_same_pairs(after, oracle(boxes, dom), "moved, oracle");
}

/// Boxes touching across the boundary, at 0 and at L, wider than L/2 and
/// than L, outside [0, L), points; the other axes overlap everywhere.
TYPED_TEST(PeriodicBoxes, Adversarial) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    const T L = 10;
    // Each case: two intervals on axis 0 (periodic); the expected answer.
    struct Case {
        T a0, a1, b0, b1;
        bool meet;
    };
    const Case cases[] = {
        {9, 10, 0, 1, true},            // touching across L
        {9.5, 9.75, 0.25, 1, false},    // close across L, apart
        {9.5, 9.75, 10.25, 11, false},  // the same, b beyond L
        {0, 0, 10, 10, true},           // points at 0 and at L coincide
        {0, 0, 20, 20, true},           // ... at 2L
        {-10, -10, 0, 0, true},         // ... at -L
        {5, 5, 15, 15, true},
        {5, 5, 15.5, 15.5, false},
        {0, 6, 5, 12, true},            // above L/2: two images meet; once
        {0, 6, 6.5, 9.75, false},       // above L/2, apart
        {3, 13, 5, 5, true},            // extent exactly L: covers the axis
        {3, 12.75, 2.875, 2.875, false},  // just under L: misses the gap
        {3, 12.75, 12.875, 12.875, false},
        {3, 12.75, 13, 13, true},       // touches itself across L
        {-100, 100, 4, 4, true},        // much larger than L
        {-0.5, -0.25, 9.6, 9.7, true},  // negative, wrapped
        {-0.5, -0.25, 9.8, 9.9, false},
        {-30.5, -30.25, 49.6, 49.7, true},  // several periods away
        {0.5, 0.5, 0.5, 0.5, true},     // coincident points
        {-std::numeric_limits<T>::infinity(), 0, 5, 5, true},  // an infinite coordinate covers the axis
        {2, 2, 2, std::numeric_limits<T>::infinity(), true},
    };
    for (const Case& c : cases) {
        bp::BasicBoxes<T, D> boxes(2);
        for (int k = 1; k < D; ++k) boxes.min(k)[0] = 0, boxes.max(k)[0] = 1, boxes.min(k)[1] = 1, boxes.max(k)[1] = 2;
        boxes.min(0)[0] = c.a0, boxes.max(0)[0] = c.a1, boxes.min(0)[1] = c.b0, boxes.max(0)[1] = c.b1;
        for (int swap = 0; swap < 2; ++swap) {
            bp::BasicPeriodicDomain<T, D> dom;
            dom.period[0] = L;
            if (swap) {  // b first
                const auto x = boxes[0];
                boxes.set(0, boxes[1]);
                boxes.set(1, x);
            }
            SCOPED_TRACE(::testing::Message() << "a [" << c.a0 << ", " << c.a1 << "], b [" << c.b0 << ", " << c.b1
                                              << "], swapped " << swap);
            EXPECT_EQ(oracle(boxes, dom).size(), c.meet ? 1u : 0u) << "oracle";
            check_all_algorithms(boxes, dom, oracle(boxes, dom), {});
            // The same on every periodic axis pattern that includes axis 0.
            dom.period.fill(L);
            check_all_algorithms(boxes, dom, oracle(boxes, dom), {});
        }
    }
}

/// Many boxes larger than L/2 and than L, all meeting through several images.
TYPED_TEST(PeriodicBoxes, LargeBoxesEachPairOnce) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    const T L = 4;
    std::mt19937_64 rng(9);
    bp::BasicBoxes<T, D> boxes(80);
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (int k = 0; k < D; ++k) {
            const T lo = static_cast<T>(static_cast<int>(rng() % 64) - 16) / 4;
            boxes.min(k)[i] = lo, boxes.max(k)[i] = lo + static_cast<T>(rng() % 24) / 4;  // up to 1.5 L
        }
    bp::BasicPeriodicDomain<T, D> dom;
    dom.period.fill(L);
    check_all_algorithms(boxes, dom, oracle(boxes, dom), {});
}

/// Invalid boxes are in no pair and reported, as by find_pairs.
TYPED_TEST(PeriodicBoxes, InvalidBoxesReported) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    const T L = 8;
    auto boxes = random_boxes<T, D>(3, 50, L, true);
    boxes.min(0)[3] = std::numeric_limits<T>::quiet_NaN();
    boxes.max(D - 1)[7] = boxes.min(D - 1)[7] - 1;  // inverted on an open or periodic axis
    boxes.min(0)[20] = boxes.max(0)[20] + 1;        // inverted on a periodic axis
    bp::BasicPeriodicDomain<T, D> dom;
    dom.period[0] = L;
    std::vector<std::uint32_t> invalid;
    const std::vector<Pair> want = oracle(boxes, dom, &invalid);
    ASSERT_EQ(invalid, (std::vector<std::uint32_t>{3, 7, 20}));
    check_all_algorithms(boxes, dom, want, invalid);
}

/// Values whose wrap into [0, L) rounds in T: the answer is still the exact one.
TYPED_TEST(PeriodicBoxes, WrapIsExact) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    const T L = 10;
    const T ulp = std::nextafter(L, T(0)) - L;               // -(spacing below 10)
    const T below_l = L + ulp;                               // the largest T below 10
    const T half = -ulp / 2;                                 // -half lands on a tie in T: L - half rounds
    struct Case {
        T a, b;
        bool meet;      // point a and point b
        bool meet_box;  // point a and the box [b - 1, b]
    };
    const Case cases[] = {
        {-half, below_l, false, false},  // -half wraps to L - half: not below_l, though fl(L - half) may be
        {ulp, below_l, true, true},      // -spacing wraps to below_l exactly
        {-half / 4, below_l, false, false},
        {-half / 4, 0, false, true},     // wraps to just under L, not to 0; [-1, 0] holds it
        {-std::numeric_limits<T>::denorm_min(), 0, false, true},
        {std::numeric_limits<T>::denorm_min(), 0, false, false},
    };
    for (const Case& c : cases) {
        bp::BasicBoxes<T, D> boxes(2);
        for (int k = 0; k < D; ++k) boxes.min(k)[0] = boxes.max(k)[0] = boxes.min(k)[1] = boxes.max(k)[1] = 1;
        boxes.min(0)[0] = boxes.max(0)[0] = c.a;
        boxes.min(0)[1] = boxes.max(0)[1] = c.b;
        bp::BasicPeriodicDomain<T, D> dom;
        dom.period[0] = L;
        SCOPED_TRACE(::testing::Message() << "a " << c.a << " b " << c.b);
        std::vector<Pair> got;
        ASSERT_TRUE(bp::find_pairs(boxes, dom, got).ok());
        EXPECT_EQ(got.size(), c.meet ? 1u : 0u);
        // A box reaching exactly to the point, and one stopping short of it.
        boxes.min(0)[1] = c.b - 1;
        boxes.max(0)[1] = c.b;
        bp::find_pairs(boxes, dom, got);
        EXPECT_EQ(got.size(), c.meet_box ? 1u : 0u) << "box ending at b";
    }
    if constexpr (std::is_same_v<T, double>) {
        // Far from the origin: 1e15 is a multiple of 10, and double's
        // spacing there is 0.125.
        bp::BasicBoxes<T, D> boxes(3);
        for (int k = 0; k < D; ++k)
            for (std::size_t i = 0; i < 3; ++i) boxes.min(k)[i] = boxes.max(k)[i] = 1;
        boxes.min(0)[0] = boxes.max(0)[0] = 1e15 + 0.5;
        boxes.min(0)[1] = boxes.max(0)[1] = 0.5;
        boxes.min(0)[2] = boxes.max(0)[2] = -1e15 + 0.625;
        bp::BasicPeriodicDomain<T, D> dom;
        dom.period[0] = L;
        std::vector<Pair> got;
        bp::find_pairs(boxes, dom, got);
        expect_same_pairs(got, {{0, 1}}, "1e15");
    }
}

TYPED_TEST(PeriodicBoxes, BudgetSortedAndNoPeriodicAxis) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    const T L = 8;
    const auto boxes = random_boxes<T, D>(11, 200, L, true);
    bp::BasicPeriodicDomain<T, D> dom;
    dom.period[0] = L;
    const std::vector<Pair> want = oracle(boxes, dom);
    ASSERT_GT(want.size(), 10u);
    bp::BasicPeriodicPairFinder<T, D> finder;
    bp::Options o;
    o.sorted = true;
    o.max_pairs = 7;
    std::vector<Pair> got;
    const bp::Report r = finder.find_pairs(boxes, dom, got, o);
    EXPECT_EQ(r.status, bp::Status::pair_budget_exceeded);
    ASSERT_EQ(got.size(), 7u);
    for (std::size_t i = 0; i < 7; ++i) EXPECT_TRUE(got[i] == want[i]);
    o.max_pairs = want.size();
    EXPECT_TRUE(finder.find_pairs(boxes, dom, got, o).ok());
    // Without a periodic axis: find_pairs's own answer.
    bp::BasicPeriodicDomain<T, D> open;
    std::vector<Pair> plain;
    bp::find_pairs(boxes, plain, bp::Options{});
    finder.find_pairs(boxes, open, got);
    EXPECT_EQ(finder.ghosts(), 0u);
    expect_same_pairs(got, [&] { auto p = plain; std::sort(p.begin(), p.end()); return p; }(), "open");
    // An empty set.
    bp::BasicBoxes<T, D> none;
    EXPECT_TRUE(finder.find_pairs(none, dom, got).ok());
    EXPECT_TRUE(got.empty());
}

TYPED_TEST(PeriodicBoxes, BadPeriodsThrow) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    bp::BasicBoxes<T, D> boxes(1);
    std::vector<Pair> out;
    for (T bad : {T(-1), std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                  std::numeric_limits<T>::max()}) {
        bp::BasicPeriodicDomain<T, D> dom;
        dom.period[D - 1] = bad;
        EXPECT_THROW(bp::find_pairs(boxes, dom, out), std::invalid_argument);
    }
}

/// A kept finder allocates nothing on a second frame of the same size
/// (checked through the capacities it exposes: the output's).
TEST(PeriodicFinder, ReusesTheOutput) {
    const auto boxes = random_boxes<float, 3>(21, 500, 8.0f, true);
    bp::PeriodicDomain dom{{8, 8, 8}};
    bp::PeriodicPairFinder finder;
    std::vector<Pair> out;
    finder.find_pairs(boxes, dom, out);
    const Pair* data = out.data();
    const std::size_t cap = out.capacity();
    finder.find_pairs(boxes, dom, out);
    EXPECT_EQ(out.data(), data);
    EXPECT_EQ(out.capacity(), cap);
    EXPECT_GT(finder.ghosts(), 0u);
}

// ---- spheres ----

/// Spheres owned by the test: rows x y z, radii.
template <class T>
struct Cloud {
    std::vector<T> xyz, r;
    std::size_t size() const { return r.size(); }
    bp::SphereView<T> view() const { return bp::sphere_rows<T>(xyz.data(), r.data(), size()); }
};

/// spheres.hpp's periodic rule, written out: wrap each coordinate into
/// [0, L) in double, d = the difference, the smallest of d, d - L, d + L.
double wrap(double c, double L) {
    double w = std::fmod(c, L);
    if (w < 0) w += L;
    if (w >= L) w = 0;
    return w;
}
double min_image(double a, double b, double L) {
    const double d = wrap(a, L) - wrap(b, L);
    double best = d;
    for (double x : {d - L, d + L})
        if (std::abs(x) < std::abs(best)) best = x;
    return best;
}

template <class T>
std::vector<Pair> sphere_oracle(const Cloud<T>& c, const bp::BasicPeriodicDomain<T, 3>& dom,
                                std::vector<std::uint32_t>* invalid = nullptr) {
    const std::size_t n = c.size();
    std::vector<char> ok(n), finite(n);
    for (std::size_t i = 0; i < n; ++i) {
        const T* p = &c.xyz[3 * i];
        ok[i] = !(std::isnan(p[0]) || std::isnan(p[1]) || std::isnan(p[2])) && c.r[i] >= 0;
        finite[i] = std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]);
        if (!ok[i] && invalid) invalid->push_back(static_cast<std::uint32_t>(i));
    }
    std::vector<Pair> out;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            if (!ok[i] || !ok[j] || !finite[i] || !finite[j]) continue;
            double d[3];
            for (int k = 0; k < 3; ++k) {
                const double a = c.xyz[3 * i + k], b = c.xyz[3 * j + k];
                d[k] = dom.period[k] != 0 ? min_image(a, b, dom.period[k]) : a - b;
            }
            const double rr = double(c.r[i]) + double(c.r[j]);
            if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= rr * rr)
                out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
        }
    return out;
}

template <class T>
Cloud<T> random_cloud(std::uint64_t seed, std::size_t n, double L, double r_max) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    Cloud<T> c;
    for (std::size_t i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k) c.xyz.push_back(static_cast<T>(-L + 3 * L * u(rng)));
        c.r.push_back(static_cast<T>(u(rng) < 0.05 ? 0.0 : r_max * u(rng)));
    }
    return c;
}

template <class T>
struct PeriodicSpheres : ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PeriodicSpheres, Scalars);

TYPED_TEST(PeriodicSpheres, RandomAgainstTheRule) {
    using T = TypeParam;
    int seed = 0;
    // 10.1 is no float: double spheres then take the double box path.
    for (const T L : {T(10), T(10.1)})
    for (unsigned mask = 1; mask < 8; ++mask)
        for (double r_max : {0.6, 3.0, 7.0}) {  // small; above L/4; above L/2
            const Cloud<T> c = random_cloud<T>(200 + seed++, 250, L, r_max);
            bp::BasicPeriodicDomain<T, 3> dom;
            for (int k = 0; k < 3; ++k) dom.period[k] = (mask >> k) & 1u ? L : T(0);
            const std::vector<Pair> want = sphere_oracle(c, dom);
            bp::SpherePairFinder finder;
            for (bp::Algorithm a : {bp::Algorithm::automatic, bp::Algorithm::sweep_and_prune, bp::Algorithm::uniform_grid}) {
                for (unsigned threads : {1u, 3u}) {
                    bp::Options o;
                    o.algorithm = a, o.threads = threads, o.min_boxes_per_thread = 1;
                    std::vector<Pair> got;
                    const bp::Report r = finder.find_pairs(c.view(), dom, got, o);
                    ASSERT_TRUE(r.ok());
                    // Automatic: the cell list when at most one image is
                    // within reach (small radii), else the box path.
                    if (a != bp::Algorithm::automatic || r_max == 7.0) {
                        EXPECT_EQ(finder.last_method(), bp::SphereMethod::boxes);
                    }
                    SCOPED_TRACE(::testing::Message() << "L " << L << " mask " << mask << " r_max " << r_max);
                    expect_same_pairs(got, want, bp::to_string(a));
                }
            }
        }
}

// The cell list path (radii within 2x of the mean, periods over about 3
// diameters): the same pairs as the rule, in the same order at any thread
// count; a period too short for one image takes the box path.
TYPED_TEST(PeriodicSpheres, CellListAgainstTheRule) {
    using T = TypeParam;
    int seed = 0;
    for (const T L : {T(10), T(10.1), T(3.5)})
        for (unsigned mask = 1; mask < 8; ++mask)
            for (double r_lo : {0.5, 0.3}) {
                std::mt19937_64 rng(900 + seed++);
                std::uniform_real_distribution<double> u(0, 1);
                Cloud<T> c;
                for (std::size_t i = 0; i < 600; ++i) {
                    for (int k = 0; k < 3; ++k) c.xyz.push_back(static_cast<T>(-L + 3 * L * u(rng)));
                    c.r.push_back(static_cast<T>(r_lo + (0.5 - r_lo) * u(rng)));
                }
                // Exact ties across the boundary: two spheres a diameter
                // apart through the wrap on every periodic axis.
                for (int k = 0; k < 3; ++k) c.xyz.push_back(k == 0 ? T(0.25) : T(1));
                c.r.push_back(T(0.5));
                for (int k = 0; k < 3; ++k) c.xyz.push_back(k == 0 ? static_cast<T>(L - 0.75) : T(1));
                c.r.push_back(T(0.5));
                bp::BasicPeriodicDomain<T, 3> dom;
                for (int k = 0; k < 3; ++k) dom.period[k] = (mask >> k) & 1u ? L : T(0);
                const std::vector<Pair> want = sphere_oracle(c, dom);
                bp::SpherePairFinder finder;
                std::vector<Pair> first;
                for (unsigned threads : {1u, 3u}) {
                    bp::Options o;
                    o.threads = threads, o.min_boxes_per_thread = 1;
                    std::vector<Pair> got;
                    ASSERT_TRUE(finder.find_pairs(c.view(), dom, got, o).ok());
                    SCOPED_TRACE(::testing::Message() << "L " << L << " mask " << mask << " r_lo " << r_lo);
                    EXPECT_EQ(finder.last_method(), L > 3 ? bp::SphereMethod::grid : bp::SphereMethod::boxes);
                    if (threads == 1) first = got;
                    else EXPECT_EQ(got, first);
                    bp::LargeArray<Pair> into;  // the Python module's output: the same
                    ASSERT_TRUE(finder.find_pairs_into(c.view(), &dom, into, o).ok());
                    EXPECT_EQ(std::vector<Pair>(into.data(), into.data() + into.size()), got);
                    expect_same_pairs(got, want, "automatic");
                }
            }
}

TYPED_TEST(PeriodicSpheres, AcrossTheBoundaryAndOddInput) {
    using T = TypeParam;
    const T L = 10;
    Cloud<T> c;
    auto add = [&](T x, T y, T z, T r) { c.xyz.insert(c.xyz.end(), {x, y, z}), c.r.push_back(r); };
    add(0.5, 5, 5, 0.5);    // 0: touches 1 across x = 0 (distance 1 = r + r)
    add(9.5, 5, 5, 0.5);    // 1
    add(-9.5, 5, 5, 0.25);  // 2: wraps to 0.5: coincides with 0; 1 from 1 (> 0.75: apart)
    add(5, 5, 5, 6);        // 3: radius above L/2
    add(5, 25, 5, 0);       // 4: a point at y = 25 = 5 (mod 10): inside 3
    add(5, 5, std::numeric_limits<T>::quiet_NaN(), 1);  // 5: invalid
    add(5, 5, 5, -1);       // 6: invalid
    add(std::numeric_limits<T>::infinity(), 5, 5, 1);   // 7: touches nothing
    add(2, 2, 2, std::numeric_limits<T>::infinity());   // 8: touches every finite centre
    bp::BasicPeriodicDomain<T, 3> dom{{L, L, L}};
    std::vector<std::uint32_t> invalid;
    const std::vector<Pair> want = sphere_oracle(c, dom, &invalid);
    EXPECT_EQ(invalid, (std::vector<std::uint32_t>{5, 6}));
    std::vector<Pair> got;
    const bp::Report r = bp::find_sphere_pairs(c.view(), dom, got);
    EXPECT_EQ(r.invalid_a, invalid);
    expect_same_pairs(got, want, "odd");
    const std::set<std::pair<int, int>> must = {{0, 1}, {0, 2}, {3, 4}, {0, 8}, {4, 8}};
    std::set<std::pair<int, int>> have;
    for (const Pair& p : got) have.insert({int(p.a), int(p.b)});
    for (const auto& m : must) EXPECT_TRUE(have.count(m)) << m.first << ", " << m.second;
    EXPECT_FALSE(have.count({0, 7}));
    // Bad period.
    dom.period[1] = -1;
    EXPECT_THROW(bp::find_sphere_pairs(c.view(), dom, got), std::invalid_argument);
    // No periodic axis: the ordinary call.
    bp::BasicPeriodicDomain<T, 3> open;
    std::vector<Pair> plain;
    bp::find_sphere_pairs(c.view(), open, got);
    bp::find_sphere_pairs(c.view(), plain);
    std::sort(plain.begin(), plain.end());
    expect_same_pairs(got, plain, "open");
}

}  // namespace
