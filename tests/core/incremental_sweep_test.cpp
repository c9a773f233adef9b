// detail::IncrementalSweep (incremental sweep and prune on every axis):
// random sequences (fixed seeds) of insert, remove, batch insert, batch
// remove and move (small steps, large jumps, moves to the same box, touching
// faces, zero-size boxes, negative and 1e7-offset coordinates, infinite
// coordinates, many identical boxes), in 1-D, 2-D and 3-D, float and
// double. A pair set is kept from the move's began/ended calls (plus brute
// force pairs for inserted objects, minus removed objects' pairs) and
// compared after every step with brute force over the current boxes; the
// structure's invariants (validate()), its boxes and for_each_pair are
// checked after every step too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/detail/scene/incremental_sweep.hpp>

namespace {

template <class T, int D>
struct Config {
    using scalar = T;
    static constexpr int dims = D;
};

using PairSet = std::set<std::pair<std::uint32_t, std::uint32_t>>;

/// Kinds of random data, one per seed.
enum class Style {
    mixed,       // a bit of everything
    ties,        // a coarse lattice: many equal coordinates, identical boxes, touching faces
    offset,      // coordinates near 1e7 (float spacing 1 there) and negative ones
    infinite,    // many infinite coordinates
};

template <class T, int D>
class Harness {
public:
    using Box = broadphase::BasicBox<T, D>;
    using Sweep = broadphase::detail::IncrementalSweep<T, D>;

    Harness(std::uint64_t seed, Style style) : rng_(seed), style_(style) {}

    /// Runs `steps` random operations, checking after each; stops at the first failure.
    void run(int steps, std::size_t target) {
        for (int s = 0; s < steps; ++s) {
            step(target);
            check();
            if (::testing::Test::HasFailure()) {
                ADD_FAILURE() << "after step " << s;
                return;
            }
        }
    }

    std::uint64_t events() const { return events_; }

private:
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
    bool chance(double p) { return uniform(0, 1) < p; }

    /// A coordinate in the style's range, in double (cast to T by the caller: monotonic).
    double coordinate() {
        switch (style_) {
            case Style::ties: return 0.5 * pick(12);
            case Style::offset: return (chance(0.5) ? 1e7 : -30.0) + pick(40) * 0.5;
            default: return chance(0.3) ? 0.25 * pick(80) : uniform(-5, 25);
        }
    }

    Box random_box() {
        Box b;
        const double p_inf = style_ == Style::infinite ? 0.25 : (style_ == Style::mixed ? 0.03 : 0.0);
        for (int k = 0; k < D; ++k) {
            const double lo = coordinate();
            double size = 0;
            switch (pick(4)) {
                case 0: size = 0; break;                                         // a point on this axis
                case 1: size = style_ == Style::ties ? 0.5 * pick(4) : uniform(0, 2); break;
                case 2: size = style_ == Style::ties ? 0.5 : uniform(0, 6); break;
                default: size = style_ == Style::offset ? pick(4) : uniform(0, 1); break;
            }
            b.min[k] = static_cast<T>(lo);
            b.max[k] = static_cast<T>(lo + size);
            if (chance(p_inf)) {
                switch (pick(4)) {
                    case 0: b.min[k] = -inf(); break;
                    case 1: b.max[k] = inf(); break;
                    case 2: b.min[k] = b.max[k] = inf(); break;
                    default: b.min[k] = b.max[k] = -inf(); break;
                }
            }
        }
        return b;
    }

    /// A box touching live object `other` on one axis (face to face), overlapping it elsewhere.
    Box touching_box(const Box& other) {
        Box b = random_box();
        const int k = pick(D);
        for (int j = 0; j < D; ++j) b.min[j] = other.min[j], b.max[j] = other.max[j];
        if (chance(0.5)) {
            b.min[k] = other.max[k];
            b.max[k] = std::max(b.min[k], static_cast<T>(static_cast<double>(other.max[k]) + pick(3)));
        } else {
            b.max[k] = other.min[k];
            b.min[k] = std::min(b.max[k], static_cast<T>(static_cast<double>(other.min[k]) - pick(3)));
        }
        return b;
    }

    /// The box moved by a small step (0.05 to 0.3 of its size per axis, or of 1 for points and infinite sizes).
    Box small_step(const Box& b) {
        Box n = b;
        for (int k = 0; k < D; ++k) {
            double size = static_cast<double>(b.max[k]) - static_cast<double>(b.min[k]);
            if (!(size > 0) || std::isinf(size)) size = 1;
            double d = uniform(0.05, 0.3) * size * (chance(0.5) ? 1 : -1);
            if (style_ == Style::ties) d = 0.5 * (pick(3) - 1);
            if (style_ == Style::offset && chance(0.5)) d = pick(3) - 1.0;
            n.min[k] = static_cast<T>(static_cast<double>(b.min[k]) + d);
            n.max[k] = static_cast<T>(static_cast<double>(b.max[k]) + d);
            if (chance(0.15)) n.max[k] = static_cast<T>(static_cast<double>(n.max[k]) + uniform(-0.2, 0.2) * size);
            if (!(n.min[k] <= n.max[k])) n.max[k] = n.min[k];
        }
        return n;
    }

    std::vector<std::uint32_t> live() const {
        std::vector<std::uint32_t> out;
        for (std::uint32_t i = 0; i < model_.size(); ++i)
            if (model_[i]) out.push_back(i);
        return out;
    }

    std::uint32_t free_id() {
        // Mostly the lowest free ids (dense), now and then one past a gap (capacity growth).
        if (chance(0.05)) {
            model_.resize(model_.size() + 1 + pick(20));
            return static_cast<std::uint32_t>(model_.size() - 1);
        }
        std::vector<std::uint32_t> frees;
        for (std::uint32_t i = 0; i < model_.size(); ++i)
            if (!model_[i]) frees.push_back(i);
        if (frees.empty() || chance(0.3)) {
            model_.emplace_back();
            return static_cast<std::uint32_t>(model_.size() - 1);
        }
        return frees[pick(static_cast<int>(frees.size()))];
    }

    Box new_box(const std::vector<std::uint32_t>& alive) {
        if (!alive.empty()) {
            const int r = pick(10);
            const std::uint32_t other = alive[pick(static_cast<int>(alive.size()))];
            if (r == 0 || (style_ == Style::ties && r < 4)) return *model_[other];  // identical
            if (r == 1) return touching_box(*model_[other]);
        }
        return random_box();
    }

    void add_pairs_of(std::uint32_t id) {
        for (std::uint32_t o = 0; o < model_.size(); ++o)
            if (o != id && model_[o] && broadphase::overlaps(*model_[id], *model_[o]))
                pairs_.insert({std::min(id, o), std::max(id, o)});
    }
    void drop_pairs_of(std::uint32_t id) {
        for (auto it = pairs_.begin(); it != pairs_.end();)
            it = (it->first == id || it->second == id) ? pairs_.erase(it) : std::next(it);
    }

    void step(std::size_t target) {
        const std::vector<std::uint32_t> alive = live();
        const double fill = static_cast<double>(alive.size()) / static_cast<double>(target);
        const int r = pick(100);
        if (alive.empty() || (r < 12 && fill < 1.2)) {
            const std::uint32_t id = free_id();
            model_[id] = new_box(alive);
            sweep_.insert(id, *model_[id]);
            add_pairs_of(id);
        } else if (r < 17 && fill < 1.2) {
            const int n = 1 + pick(static_cast<int>(target / 4 + 1));
            std::vector<std::uint32_t> ids;
            std::vector<Box> boxes;
            for (int i = 0; i < n; ++i) {
                const std::uint32_t id = free_id();
                if (model_[id] || std::find(ids.begin(), ids.end(), id) != ids.end()) continue;
                ids.push_back(id);
                boxes.push_back(new_box(alive));
            }
            sweep_.insert_batch(ids.data(), boxes.data(), ids.size());
            for (std::size_t i = 0; i < ids.size(); ++i) model_[ids[i]] = boxes[i];
            for (const std::uint32_t id : ids) add_pairs_of(id);
        } else if (r < 27 && fill > 0.8) {
            const std::uint32_t id = alive[pick(static_cast<int>(alive.size()))];
            sweep_.remove(id);
            model_[id].reset();
            drop_pairs_of(id);
        } else if (r < 30 && fill > 0.8) {
            std::vector<std::uint32_t> ids;
            const int n = 1 + pick(static_cast<int>(alive.size() / 2 + 1));
            for (int i = 0; i < n; ++i) ids.push_back(alive[pick(static_cast<int>(alive.size()))]);  // repeats allowed
            sweep_.remove_batch(ids.data(), ids.size());
            for (const std::uint32_t id : ids)
                if (model_[id]) {
                    model_[id].reset();
                    drop_pairs_of(id);
                }
        } else {
            // A burst of moves, as in a frame.
            const int n = 1 + pick(8);
            for (int i = 0; i < n; ++i) {
                const std::uint32_t id = alive[pick(static_cast<int>(alive.size()))];
                if (!model_[id]) continue;
                const Box old = *model_[id];
                Box to;
                const int m = pick(20);
                if (m < 11) {
                    to = small_step(old);
                } else if (m < 14) {
                    to = random_box();  // a large jump
                } else if (m < 16) {
                    to = old;  // the same box
                    for (int k = 0; k < D; ++k)
                        if (to.min[k] == T(0)) to.min[k] = -to.min[k];  // -0 for +0 and back: the same key
                } else if (m < 18) {
                    to = touching_box(*model_[alive[pick(static_cast<int>(alive.size()))]]);
                } else {
                    to = new_box(alive);
                }
                model_[id] = to;
                sweep_.move(id, to, [&](std::uint32_t a, std::uint32_t b, bool began) {
                    ++events_;
                    EXPECT_LT(a, b);
                    EXPECT_TRUE(a == id || b == id) << a << " " << b << " moving " << id;
                    if (began) {
                        EXPECT_TRUE(pairs_.insert({a, b}).second) << "began twice: " << a << " " << b;
                    } else {
                        EXPECT_EQ(pairs_.erase({a, b}), 1u) << "ended while not begun: " << a << " " << b;
                    }
                });
            }
        }
    }

    void check() {
        ASSERT_TRUE(sweep_.validate());
        PairSet brute;
        std::size_t held = 0;
        for (std::uint32_t i = 0; i < model_.size(); ++i) {
            ASSERT_EQ(sweep_.contains(i), model_[i].has_value()) << i;
            if (!model_[i]) continue;
            ++held;
            const Box b = sweep_.box(i);
            for (int k = 0; k < D; ++k) {
                ASSERT_EQ(b.min[k], model_[i]->min[k]);
                ASSERT_EQ(b.max[k], model_[i]->max[k]);
            }
            for (std::uint32_t j = i + 1; j < model_.size(); ++j)
                if (model_[j] && broadphase::overlaps(*model_[i], *model_[j])) brute.insert({i, j});
        }
        ASSERT_EQ(sweep_.size(), held);
        ASSERT_FALSE(sweep_.contains(static_cast<std::uint32_t>(model_.size() + 1000)));
        ASSERT_EQ(pairs_, brute);
        std::vector<std::pair<std::uint32_t, std::uint32_t>> swept;
        sweep_.for_each_pair([&](std::uint32_t a, std::uint32_t b) { swept.push_back({a, b}); });
        const PairSet swept_set(swept.begin(), swept.end());
        ASSERT_EQ(swept.size(), swept_set.size()) << "a pair given twice by for_each_pair";
        ASSERT_EQ(swept_set, brute);
    }

    static constexpr T inf() { return std::numeric_limits<T>::infinity(); }

    std::mt19937_64 rng_;
    Style style_;
    Sweep sweep_;
    std::vector<std::optional<Box>> model_;
    PairSet pairs_;
    std::uint64_t events_ = 0;
};

template <class C>
class IncrementalSweepTest : public ::testing::Test {};

using Configs = ::testing::Types<Config<float, 1>, Config<float, 2>, Config<float, 3>, Config<double, 1>,
                                 Config<double, 2>, Config<double, 3>>;
TYPED_TEST_SUITE(IncrementalSweepTest, Configs);

TYPED_TEST(IncrementalSweepTest, RandomMixed) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    for (std::uint64_t seed : {1u, 2u}) {
        Harness<T, D> h(seed * 1000 + D, Style::mixed);
        h.run(700, 60);
        EXPECT_GT(h.events(), 0u);
        if (::testing::Test::HasFailure()) return;
    }
}

TYPED_TEST(IncrementalSweepTest, RandomTies) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    Harness<T, D> h(17 + D, Style::ties);
    h.run(700, 50);
    EXPECT_GT(h.events(), 0u);
}

TYPED_TEST(IncrementalSweepTest, RandomOffsetAndNegative) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    Harness<T, D> h(29 + D, Style::offset);
    h.run(700, 50);
    EXPECT_GT(h.events(), 0u);
}

TYPED_TEST(IncrementalSweepTest, RandomInfinite) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    Harness<T, D> h(41 + D, Style::infinite);
    h.run(700, 50);
}

TYPED_TEST(IncrementalSweepTest, ManyIdenticalBoxes) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    using Box = broadphase::BasicBox<T, D>;
    broadphase::detail::IncrementalSweep<T, D> s;
    Box b;
    for (int k = 0; k < D; ++k) b.min[k] = T(1), b.max[k] = T(2);
    const std::uint32_t n = 80;
    std::vector<std::uint32_t> ids(n);
    std::vector<Box> boxes(n, b);
    for (std::uint32_t i = 0; i < n; ++i) ids[i] = i;
    s.insert_batch(ids.data(), boxes.data(), n / 2);
    for (std::uint32_t i = n / 2; i < n; ++i) s.insert(i, b);
    ASSERT_TRUE(s.validate());
    std::size_t count = 0;
    s.for_each_pair([&](std::uint32_t, std::uint32_t) { ++count; });
    EXPECT_EQ(count, std::size_t(n) * (n - 1) / 2);
    // Move one of them right until it only touches the others, then past them, then back.
    PairSet pairs;
    for (std::uint32_t i = 1; i < n; ++i) pairs.insert({0, i});
    auto sink = [&](std::uint32_t a, std::uint32_t c, bool began) {
        if (began)
            EXPECT_TRUE(pairs.insert({a, c}).second);
        else
            EXPECT_EQ(pairs.erase({a, c}), 1u);
    };
    Box m = b;
    m.min[0] = T(2), m.max[0] = T(3);  // touching: still all pairs
    s.move(0, m, sink);
    EXPECT_EQ(pairs.size(), std::size_t(n - 1));
    m.min[0] = std::nextafter(T(2), T(3));  // apart
    s.move(0, m, sink);
    EXPECT_TRUE(pairs.empty());
    s.move(0, b, sink);  // back
    EXPECT_EQ(pairs.size(), std::size_t(n - 1));
    s.move(0, b, sink);  // the same box: nothing
    EXPECT_EQ(pairs.size(), std::size_t(n - 1));
    EXPECT_TRUE(s.validate());
}

/// One move that jumps over another object reports its pair began and then ended.
TYPED_TEST(IncrementalSweepTest, JumpOverBeginsAndEnds) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    using Box = broadphase::BasicBox<T, D>;
    broadphase::detail::IncrementalSweep<T, D> s;
    Box a, b;
    for (int k = 0; k < D; ++k) a.min[k] = T(0), a.max[k] = T(1), b.min[k] = T(0), b.max[k] = T(1);
    a.min[0] = T(-3), a.max[0] = T(-2);
    b.min[0] = T(0), b.max[0] = T(1);
    s.insert(7, a);
    s.insert(3, b);
    std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, bool>> calls;
    Box to = a;
    to.min[0] = T(5), to.max[0] = T(6);
    s.move(7, to, [&](std::uint32_t x, std::uint32_t y, bool began) { calls.push_back({{x, y}, began}); });
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0].first, std::make_pair(3u, 7u));
    EXPECT_TRUE(calls[0].second);
    EXPECT_EQ(calls[1].first, std::make_pair(3u, 7u));
    EXPECT_FALSE(calls[1].second);
    EXPECT_TRUE(s.validate());
}

TYPED_TEST(IncrementalSweepTest, ClearAndReuse) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    using Box = broadphase::BasicBox<T, D>;
    broadphase::detail::IncrementalSweep<T, D> s;
    Box b;
    for (int k = 0; k < D; ++k) b.min[k] = T(0), b.max[k] = T(1);
    s.insert(0, b);
    s.insert(1000, b);
    EXPECT_EQ(s.size(), 2u);
    s.clear();
    EXPECT_EQ(s.size(), 0u);
    EXPECT_FALSE(s.contains(0));
    EXPECT_FALSE(s.contains(1000));
    EXPECT_TRUE(s.validate());
    s.insert(1000, b);
    s.insert(5, b);
    std::size_t count = 0;
    s.for_each_pair([&](std::uint32_t x, std::uint32_t y) {
        EXPECT_EQ(x, 5u);
        EXPECT_EQ(y, 1000u);
        ++count;
    });
    EXPECT_EQ(count, 1u);
    const std::uint32_t gone[] = {5, 5, 1000};
    s.remove_batch(gone, 3);
    EXPECT_EQ(s.size(), 0u);
    EXPECT_TRUE(s.validate());
}

/// A bulk build of a larger set against brute force (the merge path with real sorting work).
TYPED_TEST(IncrementalSweepTest, BulkBuild) {
    using T = typename TypeParam::scalar;
    constexpr int D = TypeParam::dims;
    using Box = broadphase::BasicBox<T, D>;
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<double> u(0, 40);
    const std::uint32_t n = 600;
    std::vector<Box> boxes(n);
    std::vector<std::uint32_t> ids(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        ids[i] = 2 * i + 1;  // sparse ids
        for (int k = 0; k < D; ++k) {
            const double lo = std::floor(u(rng));
            boxes[i].min[k] = static_cast<T>(lo);
            boxes[i].max[k] = static_cast<T>(lo + std::floor(u(rng) / 8));
        }
    }
    broadphase::detail::IncrementalSweep<T, D> s;
    s.insert_batch(ids.data(), boxes.data(), n / 3);
    s.insert_batch(ids.data() + n / 3, boxes.data() + n / 3, n - n / 3);
    ASSERT_TRUE(s.validate());
    PairSet brute, got;
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = i + 1; j < n; ++j)
            if (broadphase::overlaps(boxes[i], boxes[j])) brute.insert({ids[i], ids[j]});
    s.for_each_pair([&](std::uint32_t a, std::uint32_t b) { EXPECT_TRUE(got.insert({a, b}).second); });
    EXPECT_EQ(got, brute);
}

}  // namespace
