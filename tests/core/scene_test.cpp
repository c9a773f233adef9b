// The scene: random sequences of add, remove, move, sleep (no move), type
// and filter changes, checked after every update against a brute-force
// oracle: the pair set (exact on tight boxes, no static-static pairs,
// filters applied) and the events, which must be exactly the differences
// between consecutive sets. Also: ids are not reused before their end
// events are out, invalid boxes meet nothing, threads change nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <broadphase/scene.hpp>
// BasicScene<float, 1> below: its bodies, not compiled in the library.
#include "scene/scene_impl.hpp"
#include <broadphase_fixtures/scenes.hpp>

namespace {

using broadphase::Filter;
using broadphase::ObjectType;
using broadphase::Pair;

template <class T, int D>
struct Oracle {
    using Scene = broadphase::BasicScene<T, D>;
    using Box = broadphase::BasicBox<T, D>;

    static std::vector<Pair> pairs(const Scene& s, const std::vector<typename Scene::Id>& live) {
        std::vector<Pair> out;
        for (std::size_t i = 0; i < live.size(); ++i)
            for (std::size_t j = i + 1; j < live.size(); ++j) {
                const auto a = std::min(live[i], live[j]), b = std::max(live[i], live[j]);
                if (s.type(a) == ObjectType::static_object && s.type(b) == ObjectType::static_object) continue;
                // The boxes pairs are found with: the tight ones, or with fat
                // pairs the fat ones (checked against the tight ones in run_sequence).
                const Box& x = s.pair_box(a);
                const Box& y = s.pair_box(b);
                if (!x.valid() || !y.valid()) continue;
                if (!Filter::may_meet(s.filter(a), s.filter(b))) continue;
                bool hit = true;
                for (int k = 0; k < D; ++k) hit = hit && !(x.max[k] < y.min[k] || y.max[k] < x.min[k]);
                if (hit) out.push_back({a, b});
            }
        std::sort(out.begin(), out.end());
        return out;
    }

    static std::vector<Pair> minus(const std::vector<Pair>& x, const std::vector<Pair>& y) {
        std::vector<Pair> out;
        std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
        return out;
    }
};

/// Random boxes: snapped to a coarse lattice now and then (touching faces,
/// identical boxes), points, huge ones, far outliers, an offset, and now
/// and then an invalid one.
template <class T, int D>
broadphase::BasicBox<T, D> random_box(broadphase_fixtures::Random& r, double offset) {
    broadphase::BasicBox<T, D> b;
    const int kind = static_cast<int>(r.below(20));
    for (int k = 0; k < D; ++k) {
        double lo = r.uniform(0, 40), ext = r.uniform(0, 4);
        if (kind < 4) lo = std::floor(lo / 2) * 2, ext = 2;  // lattice: touching and identical
        if (kind == 4) ext = 0;                                // a point
        if (kind == 5) lo = -10, ext = 60;                     // huge
        if (kind == 6) lo = 1e6;                               // far outlier
        b.min[k] = static_cast<T>(offset + lo);
        b.max[k] = static_cast<T>(offset + lo + ext);
    }
    if (kind == 7 && r.below(4) == 0) b.min[0] = std::numeric_limits<T>::quiet_NaN();
    if (kind == 8 && r.below(4) == 0) std::swap(b.min[D - 1], b.max[D - 1]), b.max[D - 1] -= T(1);
    return b;
}

/// Queries on the scene against a scan of the live objects' boxes.
template <class T, int D>
void check_queries(const broadphase::BasicScene<T, D>& scene, const std::vector<std::uint32_t>& live,
                   broadphase_fixtures::Random& r, double offset) {
    using Box = broadphase::BasicBox<T, D>;
    for (int q = 0; q < 4; ++q) {
        const Box box = random_box<T, D>(r, offset);
        std::vector<std::uint32_t> got, want;
        scene.for_each_overlap(box, [&](std::uint32_t id) { got.push_back(id); });
        if (box.valid())
            for (auto id : live)
                if (scene.box(id).valid() && broadphase::overlaps(scene.box(id), box)) want.push_back(id);
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        ASSERT_EQ(got, want) << "box query " << q;
        // A ray from a random point: the closest hit's t equals the scan's.
        typename broadphase::BasicScene<T, D>::vec_type o{}, d{};
        for (int k = 0; k < D; ++k) o[k] = static_cast<T>(offset + r.uniform(-5, 45)), d[k] = static_cast<T>(r.uniform(-1, 1));
        const T max_t = T(100);
        T best = std::numeric_limits<T>::infinity();
        for (auto id : live) {
            T t;
            if (scene.box(id).valid() && broadphase::ray_hits_box(o, d, max_t, scene.box(id), t)) best = std::min(best, t);
        }
        const auto hit = scene.ray_cast(o, d, max_t);
        if (best == std::numeric_limits<T>::infinity()) {
            ASSERT_EQ(hit.id, (broadphase::BasicScene<T, D>::null));
        } else {
            ASSERT_NE(hit.id, (broadphase::BasicScene<T, D>::null));
            ASSERT_EQ(hit.t, best);
        }
    }
}

template <class T, int D>
void run_sequence(std::uint64_t seed, int steps, double offset, unsigned threads,
                  broadphase::UpdateMode mode = broadphase::UpdateMode::automatic, bool fat = false) {
    using Scene = broadphase::BasicScene<T, D>;
    using Id = typename Scene::Id;
    broadphase_fixtures::Random r(seed);
    Scene scene;
    broadphase::Options o;
    o.threads = threads;
    scene.set_options(o);
    scene.set_update_mode(mode);
    if (seed % 3 == 0) scene.set_margin(T(0));
    scene.set_fat_pairs(fat);
    std::vector<Id> live;
    std::vector<Pair> before;
    std::size_t begun_total = 0, ended_total = 0, pairs_total = 0;
    const Filter filters[] = {Filter{}, Filter{2, ~std::uint64_t(2), 0}, Filter{1, 1, 7}, Filter{4, 1 | 4, 7},
                              Filter{1, ~std::uint64_t(0), -3}};
    for (int step = 0; step < steps; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        std::set<Id> retired;
        const int ops = 1 + static_cast<int>(r.below(30));
        for (int op = 0; op < ops; ++op) {
            const int what = static_cast<int>(r.below(100));
            if (what < 30 || live.size() < 3) {
                const auto type = r.below(4) == 0 ? ObjectType::static_object : ObjectType::dynamic_object;
                const Id id = scene.add(random_box<T, D>(r, offset), type, r.next(), filters[r.below(5)]);
                ASSERT_EQ(retired.count(id), 0u) << "an id reused before its end events";
                live.push_back(id);
            } else if (what < 45) {
                const std::size_t i = r.below(live.size());
                ASSERT_TRUE(scene.remove(live[i]));
                ASSERT_FALSE(scene.remove(live[i]));
                retired.insert(live[i]);
                live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
            } else if (what < 80) {
                const Id id = live[r.below(live.size())];
                auto b = scene.box(id);
                if (r.below(3) == 0 || !b.valid()) {
                    b = random_box<T, D>(r, offset);  // a jump
                } else {
                    const T d = static_cast<T>(r.uniform(-0.5, 0.5));  // a small move
                    for (int k = 0; k < D; ++k) b.min[k] += d, b.max[k] += d;
                }
                ASSERT_TRUE(scene.move(id, b));
            } else if (what < 88) {
                const Id id = live[r.below(live.size())];
                scene.set_type(id, r.below(2) ? ObjectType::static_object : ObjectType::dynamic_object);
            } else if (what < 95) {
                scene.set_filter(live[r.below(live.size())], filters[r.below(5)]);
            }
            // else: nothing moves this op (sleeping objects)
        }
        ASSERT_TRUE(scene.update().ok());
        for (Id id : live) {
            const auto& tight = scene.box(id);
            const auto& paired = scene.pair_box(id);
            if (!fat || !tight.valid()) {
                ASSERT_TRUE(std::memcmp(&tight, &paired, sizeof tight) == 0);
            } else {
                for (int k = 0; k < D; ++k) {  // inside its fat box, which is a box grown by the margin
                    ASSERT_LE(paired.min[k], tight.min[k]);
                    ASSERT_GE(paired.max[k], tight.max[k]);
                    ASSERT_GE(paired.max[k] - paired.min[k], T(2) * scene.margin() * T(0.99));
                }
            }
        }
        const std::vector<Pair> now = Oracle<T, D>::pairs(scene, live);
        ASSERT_EQ(scene.pairs().size(), now.size());
        ASSERT_TRUE(scene.pairs() == now);
        ASSERT_TRUE(scene.begun() == (Oracle<T, D>::minus(now, before)));
        ASSERT_TRUE(scene.ended() == (Oracle<T, D>::minus(before, now)));
        ASSERT_EQ(scene.size(), live.size());
        begun_total += scene.begun().size(), ended_total += scene.ended().size(), pairs_total += now.size();
        if (mode == broadphase::UpdateMode::multi_box_pruning || mode == broadphase::UpdateMode::grid ||
            mode == broadphase::UpdateMode::enlarged) {
            ASSERT_TRUE(scene.last_update_incremental());
        }
        if (mode == broadphase::UpdateMode::rebuild) {
            ASSERT_FALSE(scene.last_update_incremental());
        }
        if (!fat && (mode == broadphase::UpdateMode::multi_box_pruning || mode == broadphase::UpdateMode::grid ||
                     mode == broadphase::UpdateMode::enlarged)) {
            ASSERT_EQ(scene.last_method(), mode);
        }
        ASSERT_EQ(scene.tree().validate(), "");
        check_queries<T, D>(scene, live, r, offset);
        before = now;
        // An update with nothing changed: no events, same pairs.
        if (step % 7 == 0) {
            ASSERT_TRUE(scene.update().ok());
            ASSERT_TRUE(scene.begun().empty());
            ASSERT_TRUE(scene.ended().empty());
            ASSERT_TRUE(scene.pairs() == now);
        }
    }
    // The sequence did exercise something.
    EXPECT_GT(begun_total, 50u);
    EXPECT_GT(ended_total, 20u);
    EXPECT_GT(pairs_total, 500u);
}

/// A scene of 1,000 objects where each update changes a different share of
/// them: a few (under kPartnerShare: the pairs before come from the changed
/// objects' partners), many (the sorted array), all (automatic rebuilds),
/// with removals, additions, jumps and filter changes among the moves.
/// Events and pair_count() are checked every update, pairs() only every
/// third one, so the array is also made after several updates behind.
void run_shares(std::uint64_t seed, broadphase::UpdateMode mode,
                const std::vector<double>& shares = {0.002, 0.01, 0.003, 0.3, 0.01, 0.005, 1.0, 0.002, 0.02, 0.6,
                                                     0.001, 0.03, 0.004, 0.1},
                int steps = 28) {
    using Scene = broadphase::Scene;
    using Id = Scene::Id;
    using Box = broadphase::Box;
    broadphase_fixtures::Random r(seed);
    Scene scene;
    scene.set_update_mode(mode);
    auto box_near = [&](double x, double y, double z) {
        const double e = r.uniform(0.5, 2);
        return Box{{static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)},
                   {static_cast<float>(x + e), static_cast<float>(y + e), static_cast<float>(z + e)}};
    };
    auto random_place = [&]() { return box_near(r.uniform(0, 22), r.uniform(0, 22), r.uniform(0, 22)); };
    std::vector<Id> live;
    for (int i = 0; i < 1000; ++i)
        live.push_back(scene.add(random_place(), r.below(10) == 0 ? ObjectType::static_object : ObjectType::dynamic_object));
    ASSERT_TRUE(scene.update().ok());
    std::vector<Pair> before = Oracle<float, 3>::pairs(scene, live);
    ASSERT_TRUE(scene.begun() == before);
    std::size_t by_share[3] = {0, 0, 0};  // updates with few, many, all changed
    for (int step = 0; step < steps; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        const double share = shares[static_cast<std::size_t>(step) % shares.size()];
        const std::size_t k = std::max<std::size_t>(1, static_cast<std::size_t>(share * double(live.size())));
        for (std::size_t c = 0; c < k; ++c) {
            const std::size_t i = r.below(live.size());
            const Id id = live[i];
            const int what = static_cast<int>(r.below(20));
            if (what == 0) {
                ASSERT_TRUE(scene.remove(id));
                live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
                live.push_back(scene.add(random_place()));
            } else if (what == 1) {
                scene.set_filter(id, r.below(2) ? Filter{2, ~std::uint64_t(2), 0} : Filter{});
            } else if (what == 2) {
                scene.move(id, random_place());  // a jump
            } else {
                Box b = scene.box(id);
                for (int a = 0; a < 3; ++a) {
                    const float d = static_cast<float>(r.uniform(-0.4, 0.4));
                    b.min[a] += d, b.max[a] += d;
                }
                scene.move(id, b);
            }
        }
        ASSERT_TRUE(scene.update().ok());
        const std::vector<Pair> now = Oracle<float, 3>::pairs(scene, live);
        ASSERT_EQ(scene.pair_count(), now.size());
        ASSERT_TRUE(scene.begun() == (Oracle<float, 3>::minus(now, before)));
        ASSERT_TRUE(scene.ended() == (Oracle<float, 3>::minus(before, now)));
        if (step % 3 == 2) {
            ASSERT_TRUE(scene.pairs() == now);
        }
        by_share[share <= Scene::kPartnerShare ? 0 : share < 1 ? 1 : 2] += 1;
        before = now;
    }
    ASSERT_TRUE(scene.pairs() == before);
    EXPECT_GT(by_share[0], 0u);
    EXPECT_GT(by_share[1], 0u);
}

TEST(Scene, FewManyAndAllChangedKeepPairsAndEvents) {
    for (auto mode : {broadphase::UpdateMode::automatic, broadphase::UpdateMode::multi_box_pruning,
                      broadphase::UpdateMode::rebuild, broadphase::UpdateMode::grid, broadphase::UpdateMode::enlarged}) {
        SCOPED_TRACE(broadphase::to_string(mode));
        run_shares(11, mode);
    }
}

// automatic: the grid runs (1.5% changed), then 12 rebuilds of 30% while
// the grid follows until it has followed more changes than a quarter of
// the objects (+1,024) and is dropped; then 1.5% again fills it anew.
// Pairs and events exact throughout.
TEST(Scene, AutomaticDropsAnIdleFollowerAndFillsItAgain) {
    std::vector<double> shares(14, 0.3);
    shares[0] = shares[13] = 0.015;
    run_shares(23, broadphase::UpdateMode::automatic, shares, 16);
}

// automatic's two rules (scene.hpp): follow the changes while cheaper than
// a rebuild (rebuild_share), by the grid unless its cells hold crowds.
TEST(Scene, AutomaticFollowsTheTwoRules) {
    using broadphase::UpdateMode;
    using Scene = broadphase::Scene;
    using Id = Scene::Id;
    using Box = broadphase::Box;
    EXPECT_NEAR(Scene::rebuild_share(0), 0.21, 0.01);
    EXPECT_NEAR(Scene::rebuild_share(8), 0.11, 0.01);
    for (double p = 0; p < 64; p += 0.5) EXPECT_GE(Scene::rebuild_share(p), Scene::rebuild_share(p + 0.5));
    broadphase_fixtures::Random r(5);
    auto moved_share = [&](Scene& scene, const std::vector<Id>& ids, double share) {
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (r.uniform(0, 1) >= share) continue;
            Box b = scene.box(ids[i]);
            for (int a = 0; a < 3; ++a) b.min[a] += 0.01f, b.max[a] += 0.01f;
            scene.move(ids[i], b);
        }
        EXPECT_TRUE(scene.update().ok());
        return scene.last_method();
    };
    {  // spread boxes of one size: grid while few change, a rebuild when most do
        Scene scene;
        std::vector<Id> ids;
        for (int i = 0; i < 4000; ++i) {
            const float x = float(r.uniform(0, 40)), y = float(r.uniform(0, 40)), z = float(r.uniform(0, 40));
            ids.push_back(scene.add(Box{{x, y, z}, {x + 1, y + 1, z + 1}}));
        }
        EXPECT_EQ(moved_share(scene, ids, 1), UpdateMode::rebuild);
        EXPECT_EQ(moved_share(scene, ids, 0.02), UpdateMode::grid);
        EXPECT_EQ(moved_share(scene, ids, 0.1), UpdateMode::grid);
        EXPECT_EQ(moved_share(scene, ids, 0.6), UpdateMode::rebuild);
    }
    {  // a dense crowd in a far larger world: the grid's cells hold crowds
        Scene scene;
        std::vector<Id> ids;
        for (int i = 0; i < 4000; ++i) {
            const float x = float(r.uniform(0, 1)), y = float(r.uniform(0, 1)), z = float(r.uniform(0, 1));
            ids.push_back(scene.add(Box{{x, y, z}, {x + 0.01f, y + 0.01f, z + 0.01f}}));
        }
        for (int i = 0; i < 40; ++i) {
            const float x = float(r.uniform(0, 1e5)), y = float(r.uniform(0, 1e5)), z = float(r.uniform(0, 1e5));
            ids.push_back(scene.add(Box{{x, y, z}, {x + 0.01f, y + 0.01f, z + 0.01f}}));
        }
        EXPECT_EQ(moved_share(scene, ids, 1), UpdateMode::rebuild);
        moved_share(scene, ids, 0.01);  // the grid, found crowded
        EXPECT_EQ(moved_share(scene, ids, 0.01), UpdateMode::multi_box_pruning);
    }
}

constexpr broadphase::UpdateMode kModes[] = {broadphase::UpdateMode::automatic, broadphase::UpdateMode::rebuild,
                                             broadphase::UpdateMode::multi_box_pruning,
                                             broadphase::UpdateMode::grid, broadphase::UpdateMode::enlarged};

TEST(Scene, RandomSequencesFloat3D) {
    for (auto mode : kModes)
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            SCOPED_TRACE(seed);
            SCOPED_TRACE(static_cast<int>(mode));
            run_sequence<float, 3>(seed, 60, 0.0, seed % 2 ? 1u : 2u, mode);
        }
}

TEST(Scene, RandomSequencesFatPairs) {
    for (auto mode : kModes)
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            SCOPED_TRACE(seed);
            SCOPED_TRACE(static_cast<int>(mode));
            run_sequence<float, 3>(seed + 40, 40, 0.0, seed % 2 ? 1u : 2u, mode, true);
        }
    run_sequence<double, 2>(47, 30, 1e7, 1, broadphase::UpdateMode::multi_box_pruning, true);
}

TEST(Scene, FatPairsIgnoreMovesInsideTheMargin) {
    broadphase::Scene scene;
    ASSERT_TRUE(scene.set_margin(0.1f));
    scene.add(broadphase::Box{{0, 0, 0}, {1, 1, 1}});
    const auto b = scene.add(broadphase::Box{{1.15f, 0, 0}, {2, 1, 1}});  // 0.15 apart: fat boxes overlap
    ASSERT_TRUE(scene.update().ok());
    EXPECT_TRUE(scene.pairs().empty());  // exact by default
    scene.set_fat_pairs(true);
    ASSERT_TRUE(scene.update().ok());
    ASSERT_EQ(scene.pairs().size(), 1u);
    EXPECT_EQ(scene.begun().size(), 1u);
    // Small moves inside the fat box: no event, nothing to do.
    for (int i = 0; i < 5; ++i) {
        const float d = 0.02f * float(i % 3);
        ASSERT_TRUE(scene.move(b, broadphase::Box{{1.15f + d, 0, 0}, {2 + d, 1, 1}}));
        ASSERT_TRUE(scene.update().ok());
        EXPECT_TRUE(scene.begun().empty());
        EXPECT_TRUE(scene.ended().empty());
        EXPECT_EQ(scene.pairs().size(), 1u);
    }
    // Leaving the fat box: a new fat box, and the pair ends.
    ASSERT_TRUE(scene.move(b, broadphase::Box{{1.5f, 0, 0}, {2.5f, 1, 1}}));
    ASSERT_TRUE(scene.update().ok());
    EXPECT_TRUE(scene.pairs().empty());
    EXPECT_EQ(scene.ended().size(), 1u);
    // The queries stay exact on the tight boxes.
    std::size_t found = 0;
    scene.for_each_overlap(broadphase::Box{{1.05f, 0, 0}, {1.1f, 1, 1}}, [&](broadphase::Scene::Id) { ++found; });
    EXPECT_EQ(found, 0u);
    // Back to exact pairs.
    ASSERT_TRUE(scene.move(b, broadphase::Box{{1.15f, 0, 0}, {2, 1, 1}}));
    scene.set_fat_pairs(false);
    ASSERT_TRUE(scene.update().ok());
    EXPECT_TRUE(scene.pairs().empty());
    EXPECT_FALSE(scene.set_margin(-1.0f));
}

TEST(Scene, RandomSequencesOffsetAndNegative) {
    for (auto mode : kModes) {
        SCOPED_TRACE(static_cast<int>(mode));
        run_sequence<float, 3>(11, 40, -1e3, 1, mode);
        run_sequence<double, 3>(12, 40, 1e7, 2, mode);
    }
}

TEST(Scene, RandomSequencesOtherTypes) {
    for (auto mode : kModes) {
        SCOPED_TRACE(static_cast<int>(mode));
        run_sequence<double, 2>(21, 40, 0.0, 1, mode);
        run_sequence<float, 2>(22, 40, -5.0, 3, mode);
    }
}

/// Enough objects for many regions (multi box pruning), moving in small
/// steps and now and then jumping, with region borders crossed, oversize and
/// infinite boxes, objects leaving the derived bounds (drift: the regions
/// are derived again), mass removal and re-adds (count halved and doubled).
template <class T, int D>
void run_crowd(std::uint64_t seed, broadphase::UpdateMode mode, int frames) {
    using Scene = broadphase::BasicScene<T, D>;
    using Id = typename Scene::Id;
    using Box = broadphase::BasicBox<T, D>;
    broadphase_fixtures::Random r(seed);
    Scene scene;
    scene.set_update_mode(mode);
    std::vector<Id> live;
    const double side = D == 3 ? 60 : D == 2 ? 200 : 3000;
    auto make = [&]() {
        Box b;
        const int kind = static_cast<int>(r.below(100));
        for (int k = 0; k < D; ++k) {
            const double lo = r.uniform(0, side), ext = kind < 2 ? r.uniform(20, 80) : r.uniform(0.5, 3);
            b.min[k] = static_cast<T>(lo);
            b.max[k] = static_cast<T>(lo + ext);
        }
        if (kind == 2) b.max[D - 1] = std::numeric_limits<T>::infinity();
        if (kind == 3) b.min[0] = -std::numeric_limits<T>::infinity();
        if (kind == 4) b.max[0] = b.min[0];  // flat
        return b;
    };
    for (int i = 0; i < 3000; ++i)
        live.push_back(scene.add(make(), r.below(5) == 0 ? ObjectType::static_object : ObjectType::dynamic_object));
    std::vector<Pair> before;
    std::size_t events = 0;
    for (int f = 0; f < frames; ++f) {
        SCOPED_TRACE("frame " + std::to_string(f));
        if (f == frames / 2) {  // most objects go, then come back: the count halves and doubles
            for (std::size_t i = 0; i < live.size(); i += 1) if (i % 4) scene.remove(live[i]);
            std::vector<Id> rest;
            for (std::size_t i = 0; i < live.size(); i += 4) rest.push_back(live[i]);
            live = rest;
        } else if (f == frames / 2 + 1) {
            for (int i = 0; i < 2500; ++i) live.push_back(scene.add(make()));
        }
        for (Id id : live) {
            if (scene.type(id) == ObjectType::static_object) continue;
            const std::uint64_t dice = r.below(100);
            if (dice >= 30) continue;
            Box b = scene.box(id);
            if (dice < 2) {
                b = make();
            } else if (dice < 3 && f > frames / 3) {  // drift: far away, to the derived bounds' outside
                for (int k = 0; k < D; ++k) b.min[k] += T(5 * side), b.max[k] += T(5 * side);
            } else {
                for (int k = 0; k < D; ++k) {
                    const T d = static_cast<T>(r.uniform(-0.6, 0.6));
                    b.min[k] += d, b.max[k] += d;
                }
            }
            scene.move(id, b);
        }
        ASSERT_TRUE(scene.update().ok());
        const std::vector<Pair> now = Oracle<T, D>::pairs(scene, live);
        ASSERT_EQ(scene.pairs().size(), now.size());
        ASSERT_TRUE(scene.pairs() == now);
        ASSERT_TRUE(scene.begun() == (Oracle<T, D>::minus(now, before)));
        ASSERT_TRUE(scene.ended() == (Oracle<T, D>::minus(before, now)));
        events += scene.begun().size() + scene.ended().size();
        before = now;
    }
    EXPECT_GT(events, 100u);
}

TEST(Scene, CrowdAcrossRegions) {
    for (auto mode : {broadphase::UpdateMode::multi_box_pruning, broadphase::UpdateMode::enlarged,
                      broadphase::UpdateMode::automatic}) {
        SCOPED_TRACE(broadphase::to_string(mode));
        run_crowd<float, 3>(31, mode, 24);
        run_crowd<double, 2>(32, mode, 16);
        run_crowd<float, 1>(33, mode, 10);
    }
}

/// An open world: a floor of touching static tiles with movers sliding
/// over it at coherent velocities (every mover moves every frame), and
/// statics added in a batch, removed, moved, turned dynamic and back and
/// refiltered mid-run; pairs and events against an oracle every frame.
/// The statics are kept apart from the engines (static_set.hpp): this
/// crosses its delta rebuilds, base rebuilds and dead entries.
void run_open_world(std::uint64_t seed, broadphase::UpdateMode mode, unsigned threads) {
    using Scene = broadphase::Scene;
    using Id = Scene::Id;
    using Box = broadphase::Box;
    broadphase_fixtures::Random r(seed);
    Scene scene;
    broadphase::Options o;
    o.threads = threads;
    scene.set_options(o);
    scene.set_update_mode(mode);
    const int g = 56;  // g x g tiles, 1 x 0.5 x 1, touching
    std::vector<Box> tiles;
    for (int i = 0; i < g; ++i)
        for (int j = 0; j < g; ++j)
            tiles.push_back(Box{{float(i), 0, float(j)}, {float(i + 1), 0.5f, float(j + 1)}});
    std::vector<Id> statics(tiles.size());
    scene.add(tiles.data(), tiles.size(), statics.data(), ObjectType::static_object);
    struct Mover {
        Id id;
        float x, z, vx, vz;
    };
    std::vector<Mover> movers;
    auto mover_box = [](const Mover& m) { return Box{{m.x, 0.45f, m.z}, {m.x + 0.8f, 1.25f, m.z + 0.8f}}; };
    for (int k = 0; k < 160; ++k) {
        Mover m{0, float(r.uniform(0, g - 1)), float(r.uniform(0, g - 1)), 0, 0};
        const double a = r.uniform(0, 6.283), v = r.uniform(0.025, 0.075);
        m.vx = float(v * std::cos(a)), m.vz = float(v * std::sin(a));
        m.id = scene.add(mover_box(m));
        movers.push_back(m);
    }
    // The oracle: every live object against every live dynamic one.
    auto oracle = [&]() {
        std::vector<Id> live;
        for (Id id = 0; id < 100000; ++id)
            if (scene.contains(id)) live.push_back(id);
        std::vector<Pair> out;
        for (Id a : live) {
            if (scene.type(a) != ObjectType::dynamic_object || !scene.box(a).valid()) continue;
            for (Id b : live) {
                if (b == a || !scene.box(b).valid()) continue;
                if (scene.type(b) == ObjectType::dynamic_object && b < a) continue;  // once
                if (!Filter::may_meet(scene.filter(a), scene.filter(b))) continue;
                if (broadphase::overlaps(scene.box(a), scene.box(b))) out.push_back(a < b ? Pair{a, b} : Pair{b, a});
            }
        }
        std::sort(out.begin(), out.end());
        return out;
    };
    std::vector<Pair> before;
    std::vector<Id> extra;
    std::size_t events = 0;
    for (int frame = 0; frame < 40; ++frame) {
        SCOPED_TRACE("frame " + std::to_string(frame));
        for (Mover& m : movers) {
            m.x += m.vx, m.z += m.vz;
            if (m.x < 0 || m.x > g - 0.8f) m.vx = -m.vx, m.x += 2 * m.vx;
            if (m.z < 0 || m.z > g - 0.8f) m.vz = -m.vz, m.z += 2 * m.vz;
            ASSERT_TRUE(scene.move(m.id, mover_box(m)));
        }
        if (frame == 5 || frame == 22) {  // a batch of raised statics (the delta, then a base rebuild)
            std::vector<Box> more;
            for (int k = 0; k < (frame == 5 ? 90 : 700); ++k) {
                const float x = float(r.below(g)), z = float(r.below(g));
                more.push_back(Box{{x + 0.25f, 0.5f, z + 0.25f}, {x + 0.75f, 0.9f, z + 0.75f}});
            }
            std::vector<Id> ids(more.size());
            scene.add(more.data(), more.size(), ids.data(), ObjectType::static_object);
            extra.insert(extra.end(), ids.begin(), ids.end());
        }
        if (frame == 12) {  // remove a third of the floor (dead entries past a quarter: a base rebuild)
            for (std::size_t i = 0; i < statics.size(); i += 3) ASSERT_TRUE(scene.remove(statics[i]));
        }
        if (frame == 8 || frame == 30) {  // a few statics turn dynamic, others back static
            for (int k = 0; k < 20; ++k) scene.set_type(statics[1 + 3 * r.below(statics.size() / 3 - 1)],
                                                        frame == 8 ? ObjectType::dynamic_object : ObjectType::static_object);
        }
        if (frame == 15) {  // statics moved (teleported) and refiltered
            for (int k = 0; k < 15; ++k) {
                const Id id = extra[r.below(extra.size())];
                if (!scene.contains(id)) continue;
                Box b = scene.box(id);
                const float d = float(r.below(5)) - 2;
                for (int a = 0; a < 3; a += 2) b.min[a] += d, b.max[a] += d;
                scene.move(id, b);
                scene.set_filter(extra[r.below(extra.size())], Filter{2, ~std::uint64_t(2), 0});
            }
        }
        if (frame == 33)  // every raised static leaves
            for (Id id : extra) scene.remove(id);
        ASSERT_TRUE(scene.update().ok());
        const std::vector<Pair> now = oracle();
        ASSERT_EQ(scene.pair_count(), now.size());
        ASSERT_TRUE(scene.begun() == (Oracle<float, 3>::minus(now, before)));
        ASSERT_TRUE(scene.ended() == (Oracle<float, 3>::minus(before, now)));
        if (frame % 4 == 3) {
            ASSERT_TRUE(scene.pairs() == now);
        }
        events += scene.begun().size() + scene.ended().size();
        before = now;
    }
    EXPECT_GT(events, 300u);
}

TEST(Scene, OpenWorldStaticsApart) {
    for (auto mode : {broadphase::UpdateMode::automatic, broadphase::UpdateMode::grid,
                      broadphase::UpdateMode::multi_box_pruning, broadphase::UpdateMode::rebuild,
                      broadphase::UpdateMode::enlarged}) {
        SCOPED_TRACE(broadphase::to_string(mode));
        run_open_world(41, mode, 1);
        run_open_world(42, mode, 2);
    }
}

TEST(Scene, EmptyAndOneObject) {
    broadphase::Scene s;
    ASSERT_TRUE(s.update().ok());
    EXPECT_TRUE(s.pairs().empty() && s.begun().empty() && s.ended().empty());
    const auto id = s.add(broadphase::Box{{0, 0, 0}, {1, 1, 1}});
    ASSERT_TRUE(s.update().ok());
    EXPECT_TRUE(s.pairs().empty());
    EXPECT_TRUE(s.remove(id));
    EXPECT_FALSE(s.contains(id));
    EXPECT_FALSE(s.move(id, broadphase::Box{{0, 0, 0}, {1, 1, 1}}));
    EXPECT_FALSE(s.remove(broadphase::Scene::null));
    ASSERT_TRUE(s.update().ok());
    EXPECT_EQ(s.size(), 0u);
}

TEST(Scene, EventsForATouchThatBeginsAndEnds) {
    broadphase::Scene s;
    const auto ground = s.add(broadphase::Box{{-100, -1, -100}, {100, 0, 100}}, ObjectType::static_object);
    const auto wall = s.add(broadphase::Box{{-1, 0, -100}, {0, 10, 100}}, ObjectType::static_object);
    const auto ball = s.add(broadphase::Box{{5, 5, 5}, {6, 6, 6}});
    ASSERT_TRUE(s.update().ok());
    EXPECT_TRUE(s.pairs().empty());  // the ground touches the wall, but both are static
    s.move(ball, broadphase::Box{{5, 0, 5}, {6, 1, 6}});  // touches the ground (closed boxes)
    ASSERT_TRUE(s.update().ok());
    ASSERT_EQ(s.begun().size(), 1u);
    EXPECT_EQ(s.begun()[0].a, ground);
    EXPECT_EQ(s.begun()[0].b, ball);
    s.move(ball, broadphase::Box{{5.5f, 0, 5}, {6.5f, 1, 6}});  // slides along: still touching, nothing new
    ASSERT_TRUE(s.update().ok());
    EXPECT_TRUE(s.begun().empty() && s.ended().empty());
    s.remove(ball);
    ASSERT_TRUE(s.update().ok());
    ASSERT_EQ(s.ended().size(), 1u);
    EXPECT_EQ(s.ended()[0].b, ball);
    (void)wall;
}

TEST(Scene, FilterRules) {
    EXPECT_TRUE(Filter::may_meet(Filter{}, Filter{}));
    EXPECT_FALSE(Filter::may_meet(Filter{1, 2, 0}, Filter{1, ~std::uint64_t(0), 0}));  // a's mask refuses b
    EXPECT_FALSE(Filter::may_meet(Filter{1, ~std::uint64_t(0), 5}, Filter{2, ~std::uint64_t(0), 5}));  // same group
    EXPECT_TRUE(Filter::may_meet(Filter{1, ~std::uint64_t(0), 5}, Filter{2, ~std::uint64_t(0), 6}));
    EXPECT_TRUE(Filter::may_meet(Filter{1, ~std::uint64_t(0), -5}, Filter{2, ~std::uint64_t(0), 5}));
}

TEST(Scene, InvalidBoxesMeetNothingUntilMoved) {
    broadphase::Scene s;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto a = s.add(broadphase::Box{{0, 0, 0}, {1, 1, 1}});
    const auto b = s.add(broadphase::Box{{nan, 0, 0}, {1, 1, 1}});
    const auto c = s.add(broadphase::Box{{0, 2, 0}, {1, 1, 1}});  // min > max
    ASSERT_TRUE(s.update().ok());
    EXPECT_TRUE(s.pairs().empty());
    s.move(b, broadphase::Box{{0.5f, 0.5f, 0.5f}, {2, 2, 2}});
    ASSERT_TRUE(s.update().ok());
    ASSERT_EQ(s.pairs().size(), 1u);
    EXPECT_TRUE((s.pairs()[0] == Pair{a, b}));
    (void)c;
}

}  // namespace
