// BasicDynamicTree (include/broadphase/dynamic_tree.hpp) against brute force.
//
// A model (id -> tight box) follows every insert, remove and move; after
// every step the tree must validate() and every query must return exactly
// what a scan of the model's tight boxes returns:
//   - box and point queries and all pairs: the scan uses the test harness's
//     own overlap test (reference.hpp), written from the definition;
//   - sphere, ray and box-cast queries: the scan applies the library's
//     per-box predicates (geometry.hpp: sphere_overlaps_box, ray_hits_box,
//     box_cast_hits_box) to every tight box, and the results must be equal
//     bit for bit, t included. This checks the tree (pruning never loses a
//     hit, the closest hit is the closest), not the predicates' arithmetic.
// The predicates themselves are checked separately (Predicates.*): against
// a long double reference, with a tolerance on t, because the slab test
// divides in T (float or double) and so rounds; a hit/miss disagreement is
// allowed only where the reference says the ray passes within rounding
// distance of an edge. Hand-made cases with exactly representable answers
// (axis-aligned rays along faces, through corners and edges, rays starting
// inside, zero-length rays, touching spheres and swept boxes) must be exact.
//
// float and double, 2-D and 3-D; fixed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <broadphase/dynamic_tree.hpp>

#include "reference.hpp"
#include "test_scenes.hpp"

namespace {

using broadphase::BasicBox;
using broadphase::BasicDynamicTree;
using bptest::Random;

template <class T, int D>
using Vec = std::array<T, D>;

constexpr double kInf = std::numeric_limits<double>::infinity();

template <class T, int D>
BasicBox<T, D> make_box(const Vec<double, D>& lo, const Vec<double, D>& hi) {
    BasicBox<T, D> b;
    for (int k = 0; k < D; ++k) {
        b.min[k] = static_cast<T>(lo[k]);
        b.max[k] = static_cast<T>(hi[k]);
    }
    return b;
}

template <class T, int D>
bool ref_overlaps(const BasicBox<T, D>& a, const BasicBox<T, D>& b) {
    return bptest::ref_overlap(bptest::ref_box(a), bptest::ref_box(b));
}

template <class T, int D>
bool ref_contains(const BasicBox<T, D>& b, const Vec<T, D>& p) {
    for (int k = 0; k < D; ++k)
        if (p[k] < b.min[k] || b.max[k] < p[k]) return false;
    return true;
}

/// Random boxes of several kinds in a region of side `side`, offset by `off`.
template <class T, int D>
struct Gen {
    Random r;
    double side;
    double off;
    Gen(std::uint64_t seed, double side_, double off_ = 0) : r(seed), side(side_), off(off_) {}

    BasicBox<T, D> box() {
        Vec<double, D> lo{}, hi{};
        const auto kind = r.below(20);
        for (int k = 0; k < D; ++k) {
            double c = off + r.uniform(0, side), e = 0;
            if (kind < 10) e = r.uniform(0, side / 10);          // ordinary
            else if (kind < 13) { c = off + std::floor(c); e = double(r.below(3)); }  // snapped: touching faces
            else if (kind < 15) e = 0;                           // a point
            else if (kind < 17) e = std::exp(r.uniform(-12, 3)) * side / 10;  // tiny to huge
            else if (kind < 19) e = r.uniform(0, side / 3);
            else e = r.uniform(0, 1);
            lo[k] = c - e / 2;
            hi[k] = c + e / 2;
        }
        if (r.below(60) == 0) {  // an infinite slab or half space on one axis
            const int k = int(r.below(D));
            lo[k] = -kInf;
            if (r.below(2)) hi[k] = kInf;
        }
        if (r.below(80) == 0) {  // a far outlier
            for (int k = 0; k < D; ++k) lo[k] += 1e6 * side, hi[k] += 1e6 * side;
        }
        return make_box<T, D>(lo, hi);
    }
    Vec<T, D> point() {
        Vec<T, D> p;
        for (int k = 0; k < D; ++k) {
            double c = off + r.uniform(-side / 10, side * 1.1);
            if (r.below(4) == 0) c = off + std::floor(r.uniform(0, side));  // on snapped faces
            p[k] = static_cast<T>(c);
        }
        return p;
    }
    Vec<T, D> direction() {
        Vec<T, D> d{};
        const auto kind = r.below(6);
        if (kind == 0) {  // along an axis
            d[r.below(D)] = static_cast<T>(r.below(2) ? 1 : -1);
        } else if (kind == 1) {  // zero
        } else if (kind == 2) {  // along a diagonal
            for (int k = 0; k < D; ++k) d[k] = static_cast<T>(r.below(2) ? 1 : -1);
        } else {
            for (int k = 0; k < D; ++k) d[k] = static_cast<T>(r.uniform(-1, 1));
            if (r.below(3) == 0) d[r.below(D)] = 0;
        }
        return d;
    }
    T max_t() {
        switch (r.below(5)) {
            case 0: return std::numeric_limits<T>::infinity();
            case 1: return 0;
            default: return static_cast<T>(r.uniform(0, side * 1.5));
        }
    }
};

template <class T, int D>
struct Checker {
    using Tree = BasicDynamicTree<T, D>;
    using Box = BasicBox<T, D>;
    using V = Vec<T, D>;
    using Hit = typename Tree::Hit;
    std::map<std::uint32_t, Box> model;

    static std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
        std::sort(v.begin(), v.end());
        return v;
    }

    void box_query(const Tree& tree, const Box& q) const {
        std::vector<std::uint32_t> got, want;
        EXPECT_TRUE(tree.for_each_overlap(q, [&](std::uint32_t id) { got.push_back(id); return true; }));
        if (q.valid())
            for (const auto& [id, b] : model)
                if (ref_overlaps(b, q)) want.push_back(id);
        ASSERT_EQ(sorted(got), want);
    }
    void point_query(const Tree& tree, const V& p) const {
        std::vector<std::uint32_t> got, want;
        tree.for_each_containing(p, [&](std::uint32_t id) { got.push_back(id); });
        for (const auto& [id, b] : model)
            if (ref_contains<T, D>(b, p)) want.push_back(id);
        ASSERT_EQ(sorted(got), want);
    }
    void sphere_query(const Tree& tree, const V& c, T r) const {
        std::vector<std::uint32_t> got, want;
        tree.for_each_overlapping_sphere(c, r, [&](std::uint32_t id) { got.push_back(id); });
        for (const auto& [id, b] : model)
            if (broadphase::sphere_overlaps_box(c, r, b)) want.push_back(id);
        ASSERT_EQ(sorted(got), want);
    }
    /// Compares the closest hit and the list of all hits with the scan.
    template <class Test>
    void compare_hits(const Hit& closest, std::vector<std::pair<std::uint32_t, T>> all, Test test) const {
        std::vector<std::pair<std::uint32_t, T>> want;
        Hit best;
        for (const auto& [id, b] : model) {
            T t = 0;
            if (!test(b, t)) continue;
            want.emplace_back(id, t);
            if (!best || t < best.t) best.proxy = id, best.t = t;  // ids increase: ties keep the smallest
        }
        std::sort(all.begin(), all.end());
        ASSERT_EQ(all, want);
        ASSERT_EQ(closest.proxy, best.proxy);
        if (best) {
            ASSERT_EQ(closest.t, best.t);
        }
    }
    void ray_query(const Tree& tree, const V& o, const V& d, T max_t) const {
        std::vector<std::pair<std::uint32_t, T>> all;
        tree.for_each_ray_hit(o, d, max_t, [&](std::uint32_t id, T t) {
            EXPECT_TRUE(t >= 0 && t <= max_t);
            all.emplace_back(id, t);
        });
        compare_hits(tree.ray_cast(o, d, max_t), all,
                     [&](const Box& b, T& t) { return broadphase::ray_hits_box(o, d, max_t, b, t); });
    }
    void cast_query(const Tree& tree, const Box& m, const V& v) const {
        std::vector<std::pair<std::uint32_t, T>> all;
        tree.for_each_box_cast_hit(m, v, [&](std::uint32_t id, T t) {
            EXPECT_TRUE(t >= 0 && t <= 1);
            all.emplace_back(id, t);
        });
        compare_hits(tree.box_cast(m, v), all,
                     [&](const Box& b, T& t) { return broadphase::box_cast_hits_box(m, v, b, t); });
    }
    void pairs(const Tree& tree) const {
        std::vector<broadphase::Pair> got{{7, 7}}, want;  // (a stale entry: pairs() replaces)
        const std::size_t count = tree.pairs(got);
        ASSERT_EQ(count, got.size());
        std::sort(got.begin(), got.end());
        for (auto i = model.begin(); i != model.end(); ++i)
            for (auto j = std::next(i); j != model.end(); ++j)
                if (ref_overlaps(i->second, j->second))
                    want.push_back(broadphase::Pair{static_cast<std::uint32_t>(i->first), static_cast<std::uint32_t>(j->first)});
        ASSERT_EQ(got.size(), want.size());
        ASSERT_EQ(got, want);
    }
    void state(const Tree& tree) const {
        ASSERT_EQ(tree.validate(), "");
        ASSERT_EQ(tree.size(), model.size());
        for (const auto& [id, b] : model) {
            ASSERT_TRUE(tree.contains(id));
            const Box& t = tree.tight_box(id);
            for (int k = 0; k < D; ++k) {
                ASSERT_EQ(t.min[k], b.min[k]);
                ASSERT_EQ(t.max[k], b.max[k]);
            }
        }
    }
    /// Every kind of query, `n` random ones each, from g.
    void queries(const Tree& tree, Gen<T, D>& g, int n) const {
        for (int i = 0; i < n; ++i) {
            box_query(tree, g.box());
            point_query(tree, g.point());
            sphere_query(tree, g.point(), static_cast<T>(g.r.uniform(0, g.side / 5)));
            ray_query(tree, g.point(), g.direction(), g.max_t());
            V v = g.direction();
            for (int k = 0; k < D; ++k) v[k] = static_cast<T>(v[k] * g.r.uniform(0, g.side / 2));
            cast_query(tree, g.box(), v);
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
};

/// Random insert/remove/move sequences; everything checked after every step.
template <class T, int D>
void random_sequence(std::uint64_t seed, int steps, double off, int slack) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " offset " + std::to_string(off) + " slack " +
                 std::to_string(slack));
    const double side = 40;
    Gen<T, D> g(seed, side, off);
    BasicDynamicTree<T, D> tree(static_cast<T>(0.5));
    ASSERT_TRUE(tree.set_balance_slack(slack));
    Checker<T, D> c;
    std::vector<std::uint32_t> live;
    int changed = 0, kept = 0;
    for (int step = 0; step < steps; ++step) {
        const auto op = g.r.below(100);
        if (op < 40 || live.size() < 5) {
            const auto b = g.box();
            const std::uint32_t id = tree.insert(b, 1000 + step);
            ASSERT_NE(id, tree.null);
            ASSERT_EQ(c.model.count(id), 0u);
            ASSERT_EQ(tree.user_value(id), std::uint64_t(1000 + step));
            c.model[id] = b;
            live.push_back(id);
        } else if (op < 50) {
            const auto i = g.r.below(live.size());
            ASSERT_TRUE(tree.remove(live[i]));
            ASSERT_FALSE(tree.remove(live[i]));
            c.model.erase(live[i]);
            live[i] = live.back();
            live.pop_back();
        } else if (op < 97) {
            const std::uint32_t id = live[g.r.below(live.size())];
            auto b = c.model[id];
            Vec<T, D> disp{};
            const auto how = g.r.below(4);
            if (how == 3) {
                b = g.box();  // a jump anywhere
            } else {
                const double scale = how == 0 ? 0.05 : how == 1 ? 0.6 : 5.0;  // inside, near, out of the fat box
                for (int k = 0; k < D; ++k) {
                    disp[k] = static_cast<T>(g.r.uniform(-scale, scale));
                    b.min[k] += disp[k];
                    b.max[k] += disp[k];
                    if (!(b.min[k] <= b.max[k])) b.max[k] = b.min[k];
                }
            }
            const auto before = tree.fat_box(id);
            const bool moved = tree.move(id, b, g.r.below(2) ? disp : Vec<T, D>{});
            (moved ? changed : kept)++;
            if (!moved) {  // the fat box stayed and still holds the tight box
                for (int k = 0; k < D; ++k) {
                    ASSERT_EQ(tree.fat_box(id).min[k], before.min[k]);
                    ASSERT_TRUE(before.min[k] <= b.min[k] && b.max[k] <= before.max[k]);
                }
            }
            c.model[id] = b;
        } else if (op < 98) {
            tree.rebuild();
        } else {  // invalid input changes nothing
            const std::uint32_t id = live[g.r.below(live.size())];
            auto b = c.model[id];
            b.min[0] = std::numeric_limits<T>::quiet_NaN();
            ASSERT_EQ(tree.insert(b), tree.null);
            ASSERT_FALSE(tree.move(id, b));
            auto flipped = c.model[id];
            std::swap(flipped.min[D - 1], flipped.max[D - 1]);
            if (!(flipped.min[D - 1] <= flipped.max[D - 1])) {
                ASSERT_EQ(tree.insert(flipped), tree.null);
                ASSERT_FALSE(tree.move(id, flipped));
            }
        }
        c.state(tree);
        if (::testing::Test::HasFatalFailure()) return;
        c.queries(tree, g, 2);
        if (step % 8 == 0) c.pairs(tree);
        if (::testing::Test::HasFatalFailure()) return;
    }
    c.pairs(tree);
    EXPECT_GT(changed, 0);
    EXPECT_GT(kept, 0);
    // Remove everything: the tree empties and stays valid.
    for (std::uint32_t id : live) ASSERT_TRUE(tree.remove(id));
    c.model.clear();
    c.state(tree);
    EXPECT_EQ(tree.root(), tree.null);
    EXPECT_EQ(tree.node_count(), 0u);
}

template <class T, int D>
void all_sequences() {
    // Slack 1: AVL promotions all the time; 1000: area rotations only.
    for (auto [seed, slack] : {std::pair<std::uint64_t, int>{1, 6}, {2, 1}, {3, 1000}, {6, 2}}) {
        random_sequence<T, D>(seed, 500, 0, slack);
        if (::testing::Test::HasFatalFailure()) return;
    }
    random_sequence<T, D>(4, 300, -500, 6);
    if (std::is_same_v<T, double>) random_sequence<T, D>(5, 300, 1e7, 6);
}

TEST(DynamicTree, RandomSequencesFloat3) { all_sequences<float, 3>(); }
TEST(DynamicTree, RandomSequencesFloat2) { all_sequences<float, 2>(); }
TEST(DynamicTree, RandomSequencesDouble3) { all_sequences<double, 3>(); }
TEST(DynamicTree, RandomSequencesDouble2) { all_sequences<double, 2>(); }

/// Large tree: quality after insertion and after rebuild, queries and pairs.
template <class T, int D>
void large() {
    const std::size_t n = 4000;
    Gen<T, D> g(77, D == 3 ? 60 : 300);
    BasicDynamicTree<T, D> tree;
    Checker<T, D> c;
    for (std::size_t i = 0; i < n; ++i) {
        auto b = g.box();
        for (int k = 0; k < D; ++k)  // no slabs or outliers here: the quality bounds assume a compact scene
            if (!std::isfinite(double(b.min[k])) || !std::isfinite(double(b.max[k])) || b.min[k] > T(1e5))
                b = make_box<T, D>(Vec<double, D>{}, Vec<double, D>{});
        c.model[tree.insert(b)] = b;
    }
    c.state(tree);
    const auto q1 = tree.quality();
    const double log2n = std::log2(double(n));
    EXPECT_LE(q1.height, 3 * log2n) << "insertion with rotations keeps the tree shallow";
    c.queries(tree, g, 30);
    c.pairs(tree);
    // Churn: every proxy jumps somewhere else, then rebuild.
    for (auto& [id, b] : c.model) {
        b = g.box();
        for (int k = 0; k < D; ++k)
            if (!std::isfinite(double(b.min[k])) || !std::isfinite(double(b.max[k])))
                b = make_box<T, D>(Vec<double, D>{}, Vec<double, D>{});
        tree.move(id, b);
    }
    c.state(tree);
    tree.rebuild();
    c.state(tree);
    const auto q2 = tree.quality();
    EXPECT_EQ(q2.leaves, n);
    EXPECT_EQ(q2.nodes, 2 * n - 1);
    EXPECT_LE(q2.height, 2 * log2n + 4);
    EXPECT_GE(q2.area_ratio, 1.0);
    c.queries(tree, g, 30);
    c.pairs(tree);
}
TEST(DynamicTree, LargeFloat3) { large<float, 3>(); }
TEST(DynamicTree, LargeDouble2) { large<double, 2>(); }

/// Builds a tree over boxes (by insertion, then again after rebuild) and
/// runs the given extra rays and every random query against brute force.
template <class T, int D>
void scene(const std::vector<BasicBox<T, D>>& boxes, double side, std::uint64_t seed, double off = 0) {
    using V = Vec<T, D>;
    for (int pass = 0; pass < 2; ++pass) {
        SCOPED_TRACE(pass == 0 ? "inserted" : "rebuilt");
        BasicDynamicTree<T, D> tree;
        Checker<T, D> c;
        for (const auto& b : boxes) c.model[tree.insert(b)] = b;
        if (pass == 1) tree.rebuild();
        c.state(tree);
        c.pairs(tree);
        Gen<T, D> g(seed, side, off);
        c.queries(tree, g, 40);
        // Rays along every axis, both ways, from each box's corners, centre
        // and just outside, with infinite, exact and zero lengths.
        for (std::size_t i = 0; i < boxes.size() && i < 30; ++i) {
            const auto& b = boxes[i];
            V corner = b.min, centre{}, before = b.min;
            bool finite = true;
            for (int k = 0; k < D; ++k) {
                finite = finite && std::isfinite(double(b.min[k])) && std::isfinite(double(b.max[k]));
                centre[k] = b.min[k] / 2 + b.max[k] / 2;
                before[k] = b.min[k] - 1;
            }
            if (!finite) continue;
            for (int k = 0; k < D; ++k)
                for (T s : {T(1), T(-1)}) {
                    V d{};
                    d[k] = s;
                    for (const V& o : {corner, b.max, centre, before})
                        for (T m : {std::numeric_limits<T>::infinity(), T(0), T(1), b.max[k] - b.min[k]}) {
                            c.ray_query(tree, o, d, m);
                            if (::testing::Test::HasFatalFailure()) return;
                        }
                }
            V diag;
            for (int k = 0; k < D; ++k) diag[k] = 1;
            c.ray_query(tree, before, diag, std::numeric_limits<T>::infinity());  // towards the min corner
            c.ray_query(tree, centre, V{}, T(5));                                  // zero direction: point test
            c.point_query(tree, corner);
            c.point_query(tree, b.max);
            c.sphere_query(tree, centre, T(0));
            c.cast_query(tree, b, V{});  // a static cast is an overlap test at t = 0
        }
    }
}

TEST(DynamicTree, EmptyAndOneProxy) {
    using Tree = broadphase::DynamicTree;
    Tree tree;
    EXPECT_EQ(tree.validate(), "");
    EXPECT_EQ(tree.height(), 0);
    EXPECT_FALSE(tree.ray_cast({0, 0, 0}, {1, 0, 0}, 10));
    EXPECT_FALSE(tree.box_cast({{0, 0, 0}, {1, 1, 1}}, {1, 0, 0}));
    int calls = 0;
    auto count = [&](auto...) { ++calls; };
    tree.for_each_overlap({{-1e9f, -1e9f, -1e9f}, {1e9f, 1e9f, 1e9f}}, count);
    tree.for_each_containing({0, 0, 0}, count);
    tree.for_each_overlapping_sphere({0, 0, 0}, 1e9f, count);
    tree.for_each_pair(count);
    tree.for_each_ray_hit({0, 0, 0}, {1, 1, 1}, 1e9f, count);
    EXPECT_EQ(calls, 0);
    tree.rebuild();
    EXPECT_EQ(tree.validate(), "");
    EXPECT_FALSE(tree.remove(0));
    EXPECT_FALSE(tree.move(0, {{0, 0, 0}, {1, 1, 1}}));

    const std::uint32_t id = tree.insert({{0, 0, 0}, {1, 1, 1}}, 42);
    ASSERT_NE(id, Tree::null);
    EXPECT_EQ(tree.validate(), "");
    EXPECT_EQ(tree.user_value(id), 42u);
    tree.set_user_value(id, 43);
    EXPECT_EQ(tree.user_value(id), 43u);
    tree.set_user_value(id, 42);
    auto hit = tree.ray_cast({-2, 0.5f, 0.5f}, {1, 0, 0}, 10);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit.proxy, id);
    EXPECT_EQ(hit.t, 2.0f);
    EXPECT_FALSE(tree.ray_cast({-2, 0.5f, 0.5f}, {1, 0, 0}, 1.99f));
    hit = tree.box_cast({{-3, 0, 0}, {-2, 1, 1}}, {4, 0, 0});
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit.t, 0.5f);
    tree.for_each_pair(count);
    EXPECT_EQ(calls, 0);
    tree.rebuild();
    EXPECT_EQ(tree.validate(), "");
    EXPECT_EQ(tree.root(), id);
    EXPECT_FALSE(tree.move(id, {{0.05f, 0, 0}, {1.05f, 1, 1}}));  // inside the default 0.1 margin
    EXPECT_TRUE(tree.move(id, {{5, 5, 5}, {6, 6, 6}}));
    EXPECT_EQ(tree.validate(), "");
    EXPECT_TRUE(tree.remove(id));
    EXPECT_EQ(tree.validate(), "");
    EXPECT_TRUE(tree.empty());
    // The freed node is reused.
    EXPECT_EQ(tree.insert({{0, 0, 0}, {0, 0, 0}}), id);
}

template <class T, int D>
void adversarial() {
    using B = BasicBox<T, D>;
    using VD = Vec<double, D>;
    auto cube = [](double lo, double hi, double off = 0) {
        VD a, b;
        for (int k = 0; k < D; ++k) a[k] = lo + off, b[k] = hi + off;
        return make_box<T, D>(a, b);
    };
    {
        SCOPED_TRACE("identical");
        std::vector<B> v(60, cube(1, 2));
        scene<T, D>(v, 4, 11);
    }
    {
        SCOPED_TRACE("points, some coincident");
        std::vector<B> v;
        Random r(12);
        for (int i = 0; i < 120; ++i) {
            VD p;
            for (int k = 0; k < D; ++k) p[k] = double(r.below(6));
            v.push_back(make_box<T, D>(p, p));
        }
        scene<T, D>(v, 6, 13);
    }
    {
        SCOPED_TRACE("touching faces: a grid of unit cells");
        std::vector<B> v;
        const int m = D == 3 ? 5 : 11;
        for (int i = 0; i < (D == 3 ? m * m * m : m * m); ++i) {
            VD a, b;
            int x = i;
            for (int k = 0; k < D; ++k) a[k] = x % m, b[k] = a[k] + 1, x /= m;
            v.push_back(make_box<T, D>(a, b));
        }
        scene<T, D>(v, m, 14);
    }
    {
        SCOPED_TRACE("huge and tiny, far outliers, infinite slabs");
        std::vector<B> v;
        Random r(15);
        for (int i = 0; i < 100; ++i) {
            const double c = r.uniform(0, 50), e = std::exp(r.uniform(-20, 4));
            v.push_back(cube(c - e, c + e));
        }
        v.push_back(cube(1e30, 2e30));
        v.push_back(cube(-3e30, -1e30));
        v.push_back(cube(-1e6, 1e6));
        VD a, b;
        for (int k = 0; k < D; ++k) a[k] = -kInf, b[k] = kInf;
        b[D - 1] = 0;  // a ground half-space
        v.push_back(make_box<T, D>(a, b));
        for (int k = 0; k < D; ++k) a[k] = 3, b[k] = 3;
        a[0] = -kInf, b[0] = kInf;  // an infinite line
        v.push_back(make_box<T, D>(a, b));
        for (int k = 0; k < D; ++k) a[k] = kInf, b[k] = kInf;  // the point at +inf
        v.push_back(make_box<T, D>(a, b));
        scene<T, D>(v, 60, 16);
    }
    {
        SCOPED_TRACE("negative and offset coordinates");
        const double off = std::is_same_v<T, float> ? -1e7 : 1e7;
        std::vector<B> v;
        Random r(17);
        for (int i = 0; i < 100; ++i) {
            const double c = std::floor(r.uniform(0, 40)), e = double(r.below(4));
            v.push_back(cube(c, c + e, off));
        }
        scene<T, D>(v, 40, 18, off);
    }
}
TEST(DynamicTree, AdversarialFloat3) { adversarial<float, 3>(); }
TEST(DynamicTree, AdversarialFloat2) { adversarial<float, 2>(); }
TEST(DynamicTree, AdversarialDouble3) { adversarial<double, 3>(); }
TEST(DynamicTree, AdversarialDouble2) { adversarial<double, 2>(); }

/// The closest-hit traversal prunes with a multiply-by-inverse slab test
/// widened to be conservative (detail/dynamic_tree_inline.hpp, FastRay) and decides with
/// the exact predicate: direction components from subnormal (the inverse
/// overflows: exact fallback) to huge (entries overflow), rays along axes
/// and lying in faces, hits exactly at max_t, tiny max_t, all against the scan.
template <class T, int D>
void ray_extremes() {
    using V = Vec<T, D>;
    using Box = BasicBox<T, D>;
    Gen<T, D> g(31, 50);
    for (int pass = 0; pass < 2; ++pass) {
        SCOPED_TRACE(pass == 0 ? "inserted" : "rebuilt");
        BasicDynamicTree<T, D> tree;
        Checker<T, D> c;
        for (int i = 0; i < 300; ++i) {
            const Box b = g.box();
            c.model[tree.insert(b)] = b;
        }
        if (pass == 1) tree.rebuild();
        ASSERT_EQ(tree.validate(), "");
        const T scales[] = {std::numeric_limits<T>::denorm_min(),
                            std::numeric_limits<T>::min() / T(4),  // subnormal: 1/d overflows
                            std::numeric_limits<T>::min(),
                            T(1e-30),
                            T(1e-7),
                            T(1),
                            T(1e7),
                            T(1e30),
                            std::numeric_limits<T>::max() / T(4)};
        for (int i = 0; i < 400; ++i) {
            const V o = g.point();
            V d = g.direction();
            for (int k = 0; k < D; ++k) d[k] *= scales[g.r.below(std::size(scales))];
            c.ray_query(tree, o, d, g.max_t());
            if (::testing::Test::HasFatalFailure()) return;
        }
        // Hits exactly at max_t, and just short of it; rays in a face plane.
        int n = 0;
        for (const auto& [id, b] : c.model) {
            if (++n > 60) break;
            bool finite = true;
            for (int k = 0; k < D; ++k) finite = finite && std::isfinite(double(b.min[k])) && std::isfinite(double(b.max[k]));
            if (!finite) continue;
            for (int k = 0; k < D; ++k) {
                V o{};
                for (int j = 0; j < D; ++j) o[j] = b.min[j] / 2 + b.max[j] / 2;
                o[k] = b.min[k] - T(3);
                V d{};
                d[k] = T(1);
                const T exact = b.min[k] - o[k];  // the entry t, as the predicate computes it
                for (T m : {exact, std::nextafter(exact, T(0)), T(0), std::numeric_limits<T>::infinity()}) {
                    c.ray_query(tree, o, d, m);
                    if (::testing::Test::HasFatalFailure()) return;
                }
                V face = b.min;  // along axis k, inside the faces min[j] (j != k)
                face[k] = b.min[k] - T(1);
                c.ray_query(tree, face, d, std::numeric_limits<T>::infinity());
                V back = b.max;
                back[k] = b.max[k] + T(1);
                d[k] = T(-1);
                c.ray_query(tree, back, d, T(1));  // touches the max face at t = max_t
                if (::testing::Test::HasFatalFailure()) return;
            }
        }
        // A NaN or infinite direction component: nothing, from both queries.
        const T nan = std::numeric_limits<T>::quiet_NaN();
        for (int k = 0; k < D; ++k)
            for (T bad : {nan, std::numeric_limits<T>::infinity()}) {
                V d{};
                d[0] = T(1);
                d[k] = bad;
                EXPECT_FALSE(tree.ray_cast(g.point(), d, T(100)));
                int calls = 0;
                tree.for_each_ray_hit(g.point(), d, T(100), [&](std::uint32_t, T) { ++calls; });
                EXPECT_EQ(calls, 0);
            }
    }
}
TEST(DynamicTree, RayExtremesFloat3) { ray_extremes<float, 3>(); }
TEST(DynamicTree, RayExtremesDouble3) { ray_extremes<double, 3>(); }
TEST(DynamicTree, RayExtremesFloat2) { ray_extremes<float, 2>(); }

/// A tree deeper than the closest-hit traversal's fixed stack (a chain of
/// nested boxes with balance slack 1000 grows one level per insert): the
/// spilling stack must give the same answers.
TEST(DynamicTree, DeepTreeRays) {
    using Tree = broadphase::DynamicTree;
    Tree tree;
    tree.set_balance_slack(1000);
    Checker<float, 3> c;
    for (int i = 0; i < 200; ++i) {
        const float e = std::ldexp(1.0f, -i / 4) * 1000;  // nested, shrinking towards the origin
        const BasicBox<float, 3> b{{-e, -e, -e}, {e * 1.0001f, e, e}};
        c.model[tree.insert(b)] = b;
    }
    ASSERT_EQ(tree.validate(), "");
    ASSERT_GT(tree.height(), 64);  // deeper than the fixed stacks
    Gen<float, 3> g(41, 10);
    for (int i = 0; i < 200; ++i) {
        std::array<float, 3> o = g.point();
        for (auto& x : o) x -= 5;
        c.ray_query(tree, o, g.direction(), g.max_t());
        c.box_query(tree, g.box());
        c.point_query(tree, o);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(DynamicTree, InvalidInput) {
    using Tree = broadphase::DynamicTree;
    using broadphase::Box;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    Tree tree;
    EXPECT_EQ(tree.insert({{nan, 0, 0}, {1, 1, 1}}), Tree::null);
    EXPECT_EQ(tree.insert({{0, 0, 0}, {1, nan, 1}}), Tree::null);
    EXPECT_EQ(tree.insert({{0, 2, 0}, {1, 1, 1}}), Tree::null);
    EXPECT_TRUE(tree.empty());
    EXPECT_EQ(tree.validate(), "");
    const auto a = tree.insert({{0, 0, 0}, {1, 1, 1}});
    const auto b = tree.insert({{-inf, -inf, -inf}, {inf, inf, 0}});  // infinite: valid
    ASSERT_NE(a, Tree::null);
    ASSERT_NE(b, Tree::null);
    EXPECT_FALSE(tree.move(a, {{0, 0, 0}, {nan, 1, 1}}));
    EXPECT_FALSE(tree.move(a, {{5, 0, 0}, {4, 1, 1}}));
    EXPECT_EQ(tree.tight_box(a).max[0], 1.0f);
    EXPECT_FALSE(tree.move(12345, {{0, 0, 0}, {1, 1, 1}}));
    EXPECT_FALSE(tree.move(Tree::null, {{0, 0, 0}, {1, 1, 1}}));
    EXPECT_FALSE(tree.remove(12345));
    EXPECT_FALSE(tree.remove(Tree::null));
    // A non-finite displacement hint is ignored.
    EXPECT_TRUE(tree.move(a, {{10, 0, 0}, {11, 1, 1}}, {inf, nan, 0}));
    EXPECT_EQ(tree.validate(), "");
    // An internal node's index is no proxy.
    EXPECT_FALSE(tree.contains(tree.root()));
    EXPECT_FALSE(tree.remove(tree.root()));
    EXPECT_FALSE(tree.set_margin(-1));
    EXPECT_FALSE(tree.set_margin(nan));
    EXPECT_FALSE(tree.set_margin(inf));
    EXPECT_EQ(tree.margin(), Tree::default_margin);
    EXPECT_TRUE(tree.set_margin(0));
    EXPECT_TRUE(tree.move(a, {{10.5f, 0, 0}, {11, 1, 1}}));  // margin 0: the fat box shrinks to the tight box
    EXPECT_EQ(tree.fat_box(a).min[0], 10.5f);
    EXPECT_EQ(tree.validate(), "");
    // Invalid queries report nothing.
    int calls = 0;
    auto count = [&](auto...) { ++calls; };
    tree.for_each_overlap({{nan, 0, 0}, {1, 1, 1}}, count);
    tree.for_each_overlap({{2, 0, 0}, {1, 1, 1}}, count);
    tree.for_each_containing({nan, 0, 0}, count);
    tree.for_each_overlapping_sphere({0, 0, nan}, 1, count);
    tree.for_each_overlapping_sphere({0, 0, 0}, -1, count);
    tree.for_each_overlapping_sphere({0, 0, 0}, nan, count);
    tree.for_each_ray_hit({nan, 0, 0}, {1, 0, 0}, 1, count);
    tree.for_each_ray_hit({inf, 0, 0}, {1, 0, 0}, 1, count);
    tree.for_each_ray_hit({0, 0, 0}, {inf, 0, 0}, 1, count);
    tree.for_each_ray_hit({0, 0, 0}, {1, 0, 0}, -1, count);
    tree.for_each_ray_hit({0, 0, 0}, {1, 0, 0}, nan, count);
    tree.for_each_box_cast_hit({{0, 0, 0}, {nan, 1, 1}}, {1, 0, 0}, count);
    tree.for_each_box_cast_hit({{0, 0, 0}, {1, 1, 1}}, {nan, 0, 0}, count);
    EXPECT_EQ(calls, 0);
    EXPECT_FALSE(tree.ray_cast({0, 0, 0}, {1, 0, 0}, nan));
    // The half space is found from anywhere below z = 0.
    auto hit = tree.ray_cast({1e30f, -1e30f, -5}, {0, 0, 1}, inf);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit.proxy, b);
    EXPECT_EQ(hit.t, 0.0f);
    hit = tree.ray_cast({0, 0, 7}, {0, 0, -1}, inf);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit.proxy, b);
    EXPECT_EQ(hit.t, 7.0f);
}

TEST(DynamicTree, StopEarly) {
    broadphase::DynamicTree tree;
    for (int i = 0; i < 50; ++i) tree.insert({{0, 0, 0}, {1, 1, 1}});
    int calls = 0;
    auto stop = [&](auto...) { ++calls; return false; };
    EXPECT_FALSE(tree.for_each_overlap({{0, 0, 0}, {1, 1, 1}}, stop));
    EXPECT_FALSE(tree.for_each_containing({0.5f, 0.5f, 0.5f}, stop));
    EXPECT_FALSE(tree.for_each_overlapping_sphere({0, 0, 0}, 1, stop));
    EXPECT_FALSE(tree.for_each_ray_hit({-1, 0.5f, 0.5f}, {1, 0, 0}, 5, stop));
    EXPECT_FALSE(tree.for_each_box_cast_hit({{-3, 0, 0}, {-2, 1, 1}}, {5, 0, 0}, stop));
    EXPECT_FALSE(tree.for_each_pair(stop));
    EXPECT_EQ(calls, 6);
    // Identical boxes: the closest hit is the smallest id.
    EXPECT_EQ(tree.ray_cast({-1, 0.5f, 0.5f}, {1, 0, 0}, 5).proxy, 0u);
}

TEST(DynamicTree, MoveAllocatesNothingAfterWarmUp) {
    broadphase::BasicDynamicTree<double, 3> tree;
    Gen<double, 3> g(21, 30);
    std::vector<std::uint32_t> ids;
    tree.reserve(500);
    const auto cap = tree.node_capacity();
    ASSERT_GE(cap, 999u);
    for (int i = 0; i < 500; ++i) ids.push_back(tree.insert(g.box()));
    EXPECT_EQ(tree.node_capacity(), cap) << "reserve(500) covers 500 inserts";
    for (int round = 0; round < 20; ++round)
        for (auto id : ids) tree.move(id, g.box(), {1, -1, 0.5});
    EXPECT_EQ(tree.node_capacity(), cap);
    EXPECT_EQ(tree.validate(), "");
    // remove + insert reuse nodes too.
    for (int i = 0; i < 100; ++i) {
        tree.remove(ids[i]);
        ids[i] = tree.insert(g.box());
    }
    EXPECT_EQ(tree.node_capacity(), cap);
    EXPECT_EQ(tree.validate(), "");
}

TEST(DynamicTree, ConcurrentQueries) {
    broadphase::DynamicTree tree;
    Gen<float, 3> g(31, 40);
    for (int i = 0; i < 2000; ++i) tree.insert(g.box());
    std::vector<std::array<float, 3>> origins, dirs;
    for (int i = 0; i < 200; ++i) origins.push_back(g.point()), dirs.push_back(g.direction());
    auto run = [&](std::vector<std::uint64_t>& out) {
        for (std::size_t i = 0; i < origins.size(); ++i) {
            const auto h = tree.ray_cast(origins[i], dirs[i], 100);
            std::uint64_t sum = h.proxy;
            tree.for_each_overlapping_sphere(origins[i], 3, [&](std::uint32_t id) { sum = sum * 31 + id; });
            out.push_back(sum);
        }
        std::uint64_t sum = 0;
        tree.for_each_pair([&](std::uint32_t a, std::uint32_t b) { sum += a ^ b; });
        out.push_back(sum);
    };
    std::vector<std::uint64_t> want;
    run(want);
    std::vector<std::vector<std::uint64_t>> got(4);
    std::vector<std::thread> threads;
    for (auto& v : got) threads.emplace_back([&run, &v] { run(v); });
    for (auto& t : threads) t.join();
    for (const auto& v : got) EXPECT_EQ(v, want);
}

// -- the predicates against a long double reference ----------------------

// Non-template wrappers: braced arguments inside gtest's macros.
bool ray3f(const Vec<float, 3>& o, const Vec<float, 3>& d, float m, const BasicBox<float, 3>& b, float& t) {
    return broadphase::ray_hits_box(o, d, m, b, t);
}
bool cast3d(const BasicBox<double, 3>& m, const Vec<double, 3>& v, const BasicBox<double, 3>& b, double& t) {
    return broadphase::box_cast_hits_box(m, v, b, t);
}
bool sphere3d(const Vec<double, 3>& c, double r, const BasicBox<double, 3>& b) {
    return broadphase::sphere_overlaps_box(c, r, b);
}

/// Entry t of the ray in long double; false for a miss. `slack` is how far
/// from a hit/miss boundary the ray passes (t0 - t1 on the deciding axis).
template <class T, int D>
bool ref_ray(const Vec<T, D>& o, const Vec<T, D>& d, T max_t, const BasicBox<T, D>& b, long double& t,
             long double& slack) {
    long double t0 = 0, t1 = max_t;
    slack = std::numeric_limits<long double>::infinity();
    for (int k = 0; k < D; ++k) {
        const long double ok = o[k], dk = d[k], lo = b.min[k], hi = b.max[k];
        if (dk == 0) {
            if (ok < lo || hi < ok) return false;
            continue;
        }
        long double a = (lo - ok) / dk, c = (hi - ok) / dk;
        if (dk < 0) std::swap(a, c);
        t0 = std::max(t0, a);
        t1 = std::min(t1, c);
    }
    slack = std::fabs(t1 - t0);
    t = t0;
    return t0 <= t1;
}

template <class T, int D>
void ray_predicate_random() {
    Random r(41);
    const long double eps = std::numeric_limits<T>::epsilon() * 8;
    int hits = 0;
    for (int i = 0; i < 20000; ++i) {
        Vec<T, D> o, d;
        BasicBox<T, D> b;
        for (int k = 0; k < D; ++k) {
            o[k] = static_cast<T>(r.uniform(-10, 10));
            d[k] = static_cast<T>(r.below(5) == 0 ? 0.0 : r.uniform(-1, 1));
            const double c = r.uniform(-5, 5), e = r.uniform(0, 4);
            b.min[k] = static_cast<T>(c - e);
            b.max[k] = static_cast<T>(c + e);
        }
        const T max_t = r.below(4) == 0 ? std::numeric_limits<T>::infinity() : static_cast<T>(r.uniform(0, 40));
        T t = 0;
        long double rt = 0, slack = 0;
        const bool got = broadphase::ray_hits_box(o, d, max_t, b, t);
        const bool want = ref_ray<T, D>(o, d, max_t, b, rt, slack);
        // Both sides round (the library in T); a disagreement is allowed only
        // when the ray passes within rounding distance of an edge.
        const long double scale = 1 + std::fabs(rt) + 20;
        if (got != want) {
            EXPECT_LE(slack, eps * scale * 4) << "i " << i;
            continue;
        }
        if (!got) continue;
        ++hits;
        EXPECT_GE(t, T(0));
        EXPECT_LE(t, max_t);
        // t = (b.min - o) / d in T: two roundings, relative to |b.min| + |o|.
        EXPECT_LE(std::fabs(static_cast<long double>(t) - rt), eps * scale) << "i " << i;
    }
    EXPECT_GT(hits, 300);
}
TEST(Predicates, RayRandomFloat3) { ray_predicate_random<float, 3>(); }
TEST(Predicates, RayRandomDouble2) { ray_predicate_random<double, 2>(); }

TEST(Predicates, RayExactCases) {
    using V = Vec<float, 3>;
    const float inf = std::numeric_limits<float>::infinity();
    const BasicBox<float, 3> b{{0, 0, 0}, {1, 1, 1}};
    float t = -1;
    auto hits = [&](V o, V d, float m) { t = -1; return broadphase::ray_hits_box(o, d, m, b, t); };
    EXPECT_TRUE(hits({-1, 0.5f, 0.5f}, {1, 0, 0}, inf)); EXPECT_EQ(t, 1.0f);
    EXPECT_TRUE(hits({2, 0.5f, 0.5f}, {-1, 0, 0}, inf)); EXPECT_EQ(t, 1.0f);
    EXPECT_TRUE(hits({-1, 1, 0.5f}, {1, 0, 0}, inf)); EXPECT_EQ(t, 1.0f);  // along the face y = 1
    EXPECT_TRUE(hits({-1, 1, 1}, {1, 0, 0}, inf)); EXPECT_EQ(t, 1.0f);     // along the edge y = z = 1
    EXPECT_FALSE(hits({-1, 1.0000001f, 1}, {1, 0, 0}, inf));                // just above the edge
    EXPECT_TRUE(hits({-1, -1, -1}, {1, 1, 1}, inf)); EXPECT_EQ(t, 1.0f);   // through the corner
    EXPECT_TRUE(hits({-1, 1, -1}, {1, -1, 1}, inf)); EXPECT_EQ(t, 1.0f);   // through the edge
    EXPECT_TRUE(hits({2, -1, 0.5f}, {-1, 1, 0}, inf)); EXPECT_EQ(t, 1.0f); // touches only the edge x=1,y=0
    EXPECT_TRUE(hits({0.5f, 0.5f, 0.5f}, {1, 0, 0}, 10)); EXPECT_EQ(t, 0.0f);  // inside
    EXPECT_TRUE(hits({0, 0, 0}, {-1, 0, 0}, 10)); EXPECT_EQ(t, 0.0f);           // on the corner, leaving
    EXPECT_TRUE(hits({0.5f, 0.5f, 0.5f}, {0, 0, 0}, 10)); EXPECT_EQ(t, 0.0f);   // zero direction, inside
    EXPECT_FALSE(hits({2, 0.5f, 0.5f}, {0, 0, 0}, 10));                          // zero direction, outside
    EXPECT_TRUE(hits({1, 0.5f, 0.5f}, {1, 0, 0}, 0)); EXPECT_EQ(t, 0.0f);       // zero length, on the face
    EXPECT_FALSE(hits({-1, 0.5f, 0.5f}, {1, 0, 0}, 0.999f));                     // too short
    EXPECT_TRUE(hits({-1, 0.5f, 0.5f}, {1, 0, 0}, 1)); EXPECT_EQ(t, 1.0f);      // just long enough
    EXPECT_FALSE(hits({-1, 0.5f, 0.5f}, {-1, 0, 0}, inf));                       // pointing away
    EXPECT_TRUE(hits({-1, 0.5f, 0.5f}, {1e-30f, 0, 0}, inf)); EXPECT_EQ(t, 1e30f);  // tiny direction: no NaN
    // 1 / 1e-45 overflows float: the entry t rounds to inf, so only an infinite ray reaches it.
    EXPECT_FALSE(hits({-1, 0.5f, 0.5f}, {1e-45f, 0, 0}, 1e38f));
    EXPECT_TRUE(hits({-1, 0.5f, 0.5f}, {1e-45f, 0, 0}, inf)); EXPECT_EQ(t, inf);
    // Infinite boxes.
    const BasicBox<float, 3> slab{{-inf, -inf, -inf}, {inf, inf, 0}};
    EXPECT_TRUE(ray3f({5, 5, 3}, {0, 0, -1}, inf, slab, t)); EXPECT_EQ(t, 3.0f);
    EXPECT_TRUE(ray3f({5, 5, 3}, {1, 1, -1}, inf, slab, t)); EXPECT_EQ(t, 3.0f);
    EXPECT_FALSE(ray3f({5, 5, 3}, {1, 0, 0}, inf, slab, t));
}

TEST(Predicates, BoxCastAndSphere) {
    using B = BasicBox<double, 3>;
    const B target{{0, 0, 0}, {1, 1, 1}};
    double t = -1;
    EXPECT_TRUE(cast3d({{-3, 0, 0}, {-1, 1, 1}}, {2, 0, 0}, target, t));
    EXPECT_EQ(t, 0.5);
    EXPECT_TRUE(cast3d({{-3, 1, 1}, {-1, 2, 2}}, {2, 0, 0}, target, t));
    EXPECT_EQ(t, 0.5);  // slides along the edge y = z = 1
    EXPECT_FALSE(cast3d({{-3, 1.5, 0}, {-1, 2, 1}}, {2, 0, 0}, target, t));
    EXPECT_TRUE(cast3d({{-3, -3, -3}, {-1, -1, -1}}, {1, 1, 1}, target, t));
    EXPECT_EQ(t, 1.0);  // corner meets corner at the very end
    EXPECT_FALSE(cast3d({{-3, -3, -3}, {-1, -1, -1}}, {0.99, 0.99, 0.99}, target, t));
    EXPECT_TRUE(cast3d({{0.5, 0.5, 0.5}, {2, 2, 2}}, {5, 5, 5}, target, t));
    EXPECT_EQ(t, 0.0);  // overlapping at the start
    EXPECT_TRUE(cast3d({{1, 1, 1}, {2, 2, 2}}, {0, 0, 0}, target, t));
    EXPECT_EQ(t, 0.0);  // static and touching
    EXPECT_FALSE(cast3d({{1.5, 0, 0}, {2, 1, 1}}, {0, 0, 0}, target, t));
    const double inf = kInf;
    const B point_at_inf{{inf, inf, inf}, {inf, inf, inf}};
    EXPECT_TRUE(cast3d(point_at_inf, {1, 0, 0}, point_at_inf, t));
    EXPECT_EQ(t, 0.0);
    // Random casts against the long double reference (the cast is a ray
    // from 0 against the box grown by the moving box).
    Random r(42);
    for (int i = 0; i < 5000; ++i) {
        B m, b;
        Vec<double, 3> v;
        for (int k = 0; k < 3; ++k) {
            double c = r.uniform(-5, 5), e = r.uniform(0, 2);
            m.min[k] = c - e, m.max[k] = c + e;
            c = r.uniform(-5, 5), e = r.uniform(0, 2);
            b.min[k] = c - e, b.max[k] = c + e;
            v[k] = r.below(5) == 0 ? 0 : r.uniform(-10, 10);
        }
        const bool got = broadphase::box_cast_hits_box(m, v, b, t);
        BasicBox<double, 3> grown;
        for (int k = 0; k < 3; ++k) grown.min[k] = b.min[k] - m.max[k], grown.max[k] = b.max[k] - m.min[k];
        long double rt = 0, slack = 0;
        const bool want = ref_ray<double, 3>({0, 0, 0}, v, 1.0, grown, rt, slack);
        if (got != want) {
            EXPECT_LE(slack, 1e-13) << i;
            continue;
        }
        if (got) {
            EXPECT_NEAR(t, static_cast<double>(rt), 1e-13) << i;
        }
        EXPECT_EQ(got && t == 0, broadphase::overlaps(m, b)) << i;  // t = 0 exactly when they overlap now
    }
    // Spheres: touching counts; corner distances.
    EXPECT_TRUE(sphere3d({2, 0.5, 0.5}, 1, target));
    EXPECT_FALSE(sphere3d({2.000001, 0.5, 0.5}, 1, target));
    EXPECT_TRUE(sphere3d({0.5, 0.5, 0.5}, 0, target));
    EXPECT_TRUE(sphere3d({4, 5, 1}, 5, target));   // corner (1,1,1): 3,4,0 -> 5
    EXPECT_FALSE(sphere3d({4, 5, 1}, 4.999, target));
    EXPECT_TRUE(sphere3d({1e300, 0.5, 0.5}, inf, target));
}

}  // namespace
