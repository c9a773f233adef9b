// The scene's engines (detail/scene/engines.hpp) against their one
// interface, each driven alone: random frames of sets and erases (moves,
// arrivals, departures, refiltered objects, points and identical boxes),
// and after every commit the pairs handed to the frame checked against
// brute force: every overlapping pair with a changed object, each once,
// nothing else; on one thread and on three; filled, cleared and filled again.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <random>
#include <vector>

#include "scene/engines.hpp"
#include "scene/enlarged_bounds.hpp"
#include "scene/incremental_grid.hpp"
#include "scene/multi_box_pruning.hpp"
#include <broadphase/dynamic_tree.hpp>

namespace {

using broadphase::Pair;
using Box = broadphase::BasicBox<float, 3>;
using Id = std::uint32_t;
using Tree = broadphase::BasicDynamicTree<float, 3>;

bool overlap(const Box& a, const Box& b) {
    for (int k = 0; k < 3; ++k)
        if (a.max[k] < b.min[k] || b.max[k] < a.min[k]) return false;
    return true;
}

/// What the scene gives an engine, kept by the test: the tree of the
/// present objects, the pairs before with a changed object, the refiltered
/// objects; the pairs handed over, per thread.
struct TestFrame {
    Tree tree_;
    std::vector<Pair> stale_;
    std::vector<std::uint8_t> refiltered_;
    std::vector<std::vector<Pair>> got_ = std::vector<std::vector<Pair>>(8);

    void operator()(unsigned me, Id a, Id b) { got_.at(me).push_back(a < b ? Pair{a, b} : Pair{b, a}); }
    const Tree& tree() const { return tree_; }
    const std::vector<Pair>& stale() const { return stale_; }
    bool requery(Id id) const { return refiltered_[id] != 0; }
    bool is_static(Id) const { return false; }  // (the scene keeps statics apart)
};

/// The world the engine follows: boxes, present or not.
struct World {
    std::vector<Box> box;
    std::vector<char> present;
    std::vector<std::uint32_t> proxy;

    std::vector<Pair> pairs() const {
        std::vector<Pair> out;
        for (Id a = 0; a < box.size(); ++a)
            for (Id b = a + 1; b < box.size(); ++b)
                if (present[a] && present[b] && overlap(box[a], box[b])) out.push_back({a, b});
        return out;
    }
};

Box random_box(std::mt19937& rng) {
    std::uniform_real_distribution<float> at(-50.f, 50.f), size(0.f, 6.f);
    std::uniform_int_distribution<int> kind(0, 9);
    Box b;
    const int k = kind(rng);
    for (int a = 0; a < 3; ++a) {
        float lo = at(rng);
        if (k == 0) lo = float(int(lo / 4) * 4);  // on a lattice: touching faces, identical boxes
        b.min[a] = lo;
        b.max[a] = k == 1 ? lo : lo + (k == 2 ? 40.f : size(rng));  // points; a few wide boxes
    }
    return b;
}

template <class Engine>
class EngineContract : public ::testing::Test {};

using Engines = ::testing::Types<broadphase::detail::MultiBoxPruning<float, 3>, broadphase::detail::IncrementalGrid<float, 3>,
                                 broadphase::detail::EnlargedBounds<float, 3>>;
TYPED_TEST_SUITE(EngineContract, Engines);

TYPED_TEST(EngineContract, ChangedObjectsInTheirPairsOut) {
    constexpr Id n = 700;
    for (unsigned threads : {1u, 3u}) {
        std::mt19937 rng(17 + threads);
        TypeParam engine;
        TestFrame frame;
        World w;
        w.box.resize(n), w.present.assign(n, 0), w.proxy.assign(n, Tree::null);
        frame.refiltered_.assign(n, 0);
        std::vector<Pair> before;
        auto fill = [&] {  // the scene's fill: every present object, no search
            for (Id id = 0; id < n; ++id)
                if (w.present[id]) engine.set(id, w.box[id]);
            engine.commit(frame, false, 1);
            engine.finish();
            EXPECT_TRUE(engine.filled());
        };
        for (Id id = 0; id < n; ++id)
            if (rng() % 4) w.box[id] = random_box(rng), w.present[id] = 1, w.proxy[id] = frame.tree_.insert(w.box[id], id);
        fill();
        before = w.pairs();
        for (int f = 0; f < 40; ++f) {
            if (f == 20) {  // forgotten, then filled again (the tree engine holds nothing: always filled)
                engine.clear();
                if (!engine.filled()) fill();
            }
            // A random share of the objects changes, from none to all.
            const unsigned share = f % 5 == 0 ? 100 : f % 5 == 1 ? 0 : 1 + rng() % 20;
            std::vector<Id> changed;
            std::vector<char> is_changed(n, 0);
            for (Id id = 0; id < n; ++id) {
                if (rng() % 100 >= share) continue;
                changed.push_back(id), is_changed[id] = 1;
                const unsigned what = rng() % 10;
                if (w.present[id] && what == 0) {  // leaves
                    w.present[id] = 0;
                    frame.tree_.remove(w.proxy[id]);
                    w.proxy[id] = Tree::null;
                } else if (w.present[id] && what == 1) {  // its filter changed: same box
                    frame.refiltered_[id] = 1;
                } else {
                    Box b = w.present[id] && what < 8 ? w.box[id] : random_box(rng);  // small step, or anywhere
                    std::uniform_real_distribution<float> step(-1.5f, 1.5f);
                    if (w.present[id] && what < 8)
                        for (int k = 0; k < 3; ++k) {
                            const float s = step(rng);
                            b.min[k] += s, b.max[k] += s;
                        }
                    w.box[id] = b;
                    if (w.present[id]) frame.tree_.move(w.proxy[id], b);
                    else w.present[id] = 1, w.proxy[id] = frame.tree_.insert(b, id);
                }
            }
            // The pairs before with a changed object, sorted.
            frame.stale_.clear();
            for (const Pair& p : before)
                if (is_changed[p.a] || is_changed[p.b]) frame.stale_.push_back(p);
            for (Id id : changed) {
                if (w.present[id]) engine.set(id, w.box[id]);
                else engine.erase(id);
            }
            for (auto& g : frame.got_) g.clear();
            engine.commit(frame, true, threads);
            engine.finish();
            std::vector<Pair> got;
            for (auto& g : frame.got_) got.insert(got.end(), g.begin(), g.end());
            std::sort(got.begin(), got.end());
            const std::vector<Pair> now = w.pairs();
            std::vector<Pair> want;
            for (const Pair& p : now)
                if (is_changed[p.a] || is_changed[p.b]) want.push_back(p);
            ASSERT_EQ(got, want) << "frame " << f << ", " << changed.size() << " changed, threads " << threads;
            before = now;
            for (Id id : changed) frame.refiltered_[id] = 0;
        }
    }
}

// Enlarged bounds keep their promise: after every frame each present
// object's box lies in its enlarged box, and its candidates are exactly the
// present objects whose enlarged boxes overlap its own (both ways); small
// steps mostly stay inside (the enlarged box is then kept), jumps leave it.
TEST(EnlargedBounds, CandidatesAreTheOverlappingEnlargedBoxes) {
    constexpr Id n = 500;
    std::mt19937 rng(5);
    broadphase::detail::EnlargedBounds<float, 3> engine;
    TestFrame frame;
    World w;
    w.box.resize(n), w.present.assign(n, 0), w.proxy.assign(n, Tree::null);
    frame.refiltered_.assign(n, 0);
    for (Id id = 0; id < n; ++id)
        if (rng() % 4) w.box[id] = random_box(rng), w.present[id] = 1, engine.set(id, w.box[id]);
    engine.commit(frame, false, 1);
    engine.finish();
    std::size_t kept = 0, moved = 0;
    std::vector<Box> fat_before(n);
    for (int f = 0; f < 60; ++f) {
        for (Id id = 0; id < n; ++id)
            if (w.present[id]) fat_before[id] = engine.enlarged(id);
        std::vector<char> changed(n, 0);
        for (Id id = 0; id < n; ++id) {
            if (rng() % 100 >= 30) continue;
            changed[id] = 1;
            const unsigned what = rng() % 20;
            if (w.present[id] && what == 0) {
                w.present[id] = 0, engine.erase(id);
                continue;
            }
            Box b = w.present[id] && what > 1 ? w.box[id] : random_box(rng);
            std::uniform_real_distribution<float> step(-0.05f, 0.05f);
            if (w.present[id] && what > 1)
                for (int k = 0; k < 3; ++k) {
                    const float s = step(rng) * (b.max[k] - b.min[k] + 0.1f);
                    b.min[k] += s, b.max[k] += s;
                }
            w.box[id] = b, w.present[id] = 1;
            engine.set(id, b);
        }
        for (auto& g : frame.got_) g.clear();
        engine.commit(frame, true, 1);
        engine.finish();
        for (Id id = 0; id < n; ++id) {
            if (!w.present[id]) continue;
            const Box& fat = engine.enlarged(id);
            ASSERT_TRUE(broadphase::contains(fat, w.box[id])) << id;
            if (changed[id] && f > 0) ++moved, kept += fat.min[0] == fat_before[id].min[0] && fat.max[2] == fat_before[id].max[2];
            std::vector<Id> want, got = engine.candidates(id);
            for (Id o = 0; o < n; ++o)
                if (o != id && w.present[o] && overlap(fat, engine.enlarged(o))) want.push_back(o);
            std::sort(got.begin(), got.end());
            ASSERT_EQ(got, want) << "frame " << f << ", object " << id;
        }
    }
    EXPECT_GT(kept, moved / 2);  // most small steps stayed inside
}

}  // namespace
