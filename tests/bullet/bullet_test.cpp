// The Bullet adapter (bullet/include/broadphase/bullet/broadphase_interface.hpp)
// against Bullet's own btDbvtBroadphase, on a pile: a static ground box and
// 200 boxes and spheres dropped on it, 200 frames of 1/60 s, with 10 bodies
// removed at frame 60, 10 added at frame 100, every tenth body in a filter
// group that does not collide with itself, and at frame 150 some bodies'
// masks narrowed at run time.
//
// What is compared, and why it is exact:
//
// Lockstep (the exact comparison): one btDiscreteDynamicsWorld on
// btDbvtBroadphase runs the pile. After each step, every box Bullet gave its
// broad phase (the dbvt proxies' m_aabbMin/m_aabbMax: the same floats) is
// given to an adapter on its own (createProxy/setAabb/destroyProxy as the
// world did), then calculateOverlappingPairs. Both broad phases have then
// seen the same box sequence. The adapter's pair cache must equal, as a set
// of body index pairs, every frame:
//   - the brute-force set: all pairs of live bodies whose boxes overlap
//     (closed boxes) and that the cache's filter accepts (Bullet's group/mask
//     rule, or the installed overlap filter callback), and
//   - btDbvtBroadphase's cache, less the pairs whose boxes do not overlap
//     and those the current filter rejects. btDbvtBroadphase keeps pairs of
//     its fat boxes (grown by a margin and the velocity), removed lazily, and
//     never drops a pair whose filter changed; it must hold every exact pair.
// The ray and box tests are compared the same way: the adapter's proxies
// against brute force on the same boxes, and against the dbvt's (which
// reports fat boxes) less those whose box the ray misses.
//
// End to end: the same pile run by two dynamics worlds, one on each broad
// phase. While the bodies' transforms stay bit-identical, the worlds'
// overlapping pairs (less the dbvt's extra fat pairs) must be the same and
// so must btCollisionWorld's ray, convex sweep and contact tests. Bullet's
// solver order follows the pair cache's order, which differs (each cache
// holds its pairs in insertion order), so the trajectories may part after
// the first contacts: from then on only sanity is required (finite states,
// nothing through the ground, the pile about as high).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <btBulletDynamicsCommon.h>
#include <broadphase/bullet/broadphase_interface.hpp>

#include "bullet_common.hpp"

namespace {

using broadphase::bullet::BroadphaseInterface;
using namespace bullet_test;

constexpr int kBodies = 200;
constexpr int kFrames = 200;
constexpr btScalar kStep = btScalar(1) / 60;
constexpr int kGhostGroup = 64;  // every tenth body: collides with all but its own group

/// Bullet's default broad-phase filter (btHashedOverlappingPairCache without a callback).
bool default_rule(const btBroadphaseProxy* a, const btBroadphaseProxy* b) {
    return (a->m_collisionFilterGroup & b->m_collisionFilterMask) != 0 &&
           (b->m_collisionFilterGroup & a->m_collisionFilterMask) != 0;
}

/// A filter callback: the default rule, and never two bodies whose indices add up to a multiple of 3.
struct ThirdsFilter : btOverlapFilterCallback {
    bool needBroadphaseCollision(btBroadphaseProxy* a, btBroadphaseProxy* b) const override {
        return default_rule(a, b) && (index_of(a) + index_of(b)) % 3 != 0;
    }
};

/// The pile: a world on a given broad phase, bodies by index (null once removed).
struct Pile {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};
    btSequentialImpulseConstraintSolver solver;
    std::unique_ptr<btBroadphaseInterface> broadphase;
    std::unique_ptr<btDiscreteDynamicsWorld> world;
    btBoxShape ground_shape{btVector3(12, 1, 12)};
    btBoxShape box_shape{btVector3(btScalar(0.4), btScalar(0.4), btScalar(0.4))};
    btSphereShape sphere_shape{btScalar(0.42)};
    std::vector<btRigidBody*> bodies;  // bodies[0] is the ground
    int frame = 0;

    Pile(std::unique_ptr<btBroadphaseInterface> bp, btOverlapFilterCallback* filter) : broadphase(std::move(bp)) {
        if (filter) broadphase->getOverlappingPairCache()->setOverlapFilterCallback(filter);
        world = std::make_unique<btDiscreteDynamicsWorld>(&dispatcher, broadphase.get(), &solver, &configuration);
        world->setGravity(btVector3(0, -10, 0));
        add_body(&ground_shape, btVector3(0, -1, 0), 0);
        for (int i = 1; i <= kBodies; ++i) {
            const int layer = (i - 1) / 64, k = (i - 1) % 64;
            // An 8 x 8 lattice per layer, each layer shifted a little so the pile tumbles.
            const btVector3 at(btScalar(k % 8) * btScalar(1.05) - btScalar(3.7) + btScalar(0.23) * btScalar(layer % 3),
                               btScalar(1.0) + btScalar(layer) * btScalar(1.1),
                               btScalar(k / 8) * btScalar(1.05) - btScalar(3.7) - btScalar(0.17) * btScalar(layer % 2));
            add_body(i % 2 ? static_cast<btCollisionShape*>(&box_shape) : &sphere_shape, at, 1);
        }
    }
    ~Pile() {
        for (btRigidBody* b : bodies)
            if (b) world->removeRigidBody(b), delete b;
        world.reset();
    }

    void add_body(btCollisionShape* shape, const btVector3& at, btScalar mass) {
        btVector3 inertia(0, 0, 0);
        if (mass > 0) shape->calculateLocalInertia(mass, inertia);
        btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
        info.m_startWorldTransform.setIdentity();
        info.m_startWorldTransform.setOrigin(at);
        btRigidBody* body = new btRigidBody(info);
        const int index = static_cast<int>(bodies.size());
        body->setUserIndex(index);
        bodies.push_back(body);
        if (mass == 0) {
            world->addRigidBody(body);  // static: StaticFilter, colliding with all but StaticFilter
        } else if (index % 10 == 3) {
            world->addRigidBody(body, kGhostGroup, btBroadphaseProxy::AllFilter ^ kGhostGroup);
        } else {
            world->addRigidBody(body);
        }
    }

    /// One frame: the scripted changes, then one step of the world.
    void step() {
        ++frame;
        if (frame == 60)  // 10 bodies removed
            for (int i = 7; i <= kBodies; i += 20) world->removeRigidBody(bodies[i]), delete bodies[i], bodies[i] = nullptr;
        if (frame == 100)  // 10 spheres dropped on the pile
            for (int j = 0; j < 10; ++j)
                add_body(&sphere_shape, btVector3(btScalar(j % 5) - 2, 12, btScalar(j / 5) - btScalar(0.5)), 1);
        if (frame == 150)  // masks narrowed at run time: these no longer meet the DefaultFilter bodies
            for (int i = 1; i < static_cast<int>(bodies.size()); i += 9)
                if (bodies[i]) bodies[i]->getBroadphaseHandle()->m_collisionFilterMask &= ~int(btBroadphaseProxy::DefaultFilter);
        world->stepSimulation(kStep, 0);
    }
};

/// Every proxy a broad-phase ray (or box-cast) test reports, by index.
struct CollectRay : btBroadphaseRayCallback {
    std::set<int> hits;
    CollectRay(const btVector3& from, const btVector3& to) {
        const btVector3 d = to - from;
        for (int k = 0; k < 3; ++k) {
            m_rayDirectionInverse[k] = d[k] == btScalar(0) ? btScalar(BT_LARGE_FLOAT) : btScalar(1) / d[k];
            m_signs[k] = m_rayDirectionInverse[k] < 0;
        }
        m_lambda_max = 1;
    }
    bool process(const btBroadphaseProxy* p) override { return hits.insert(index_of(p)), true; }
};
struct CollectBox : btBroadphaseAabbCallback {
    std::set<int> hits;
    bool process(const btBroadphaseProxy* p) override { return hits.insert(index_of(p)), true; }
};

/// The entry parameter of segment from + t * (to - from), t in [0, 1], into box [lo, hi]; false on a miss.
bool segment_hits(const btVector3& from, const btVector3& to, const btVector3& lo, const btVector3& hi) {
    broadphase::BasicBox<btScalar, 3> b;
    for (int k = 0; k < 3; ++k) b.min[k] = lo[k], b.max[k] = hi[k];
    const btVector3 d = to - from;
    btScalar t = 0;
    return broadphase::ray_hits_box<btScalar, 3>({from.x(), from.y(), from.z()}, {d.x(), d.y(), d.z()}, btScalar(1), b, t);
}

struct LockstepTotals {
    int frames = 0;
    long long pairs = 0, dbvt_extra = 0, ray_hits = 0, box_hits = 0;
};

/// The lockstep comparison (see the top of the file), with or without an overlap filter callback.
LockstepTotals run_lockstep(btOverlapFilterCallback* filter) {
    LockstepTotals totals;
    Pile pile(std::make_unique<btDbvtBroadphase>(), filter);
    BroadphaseInterface adapter;
    if (filter) adapter.getOverlappingPairCache()->setOverlapFilterCallback(filter);
    std::vector<btBroadphaseProxy*> mine;  // by body index
    const btOverlappingPairCache* cache = adapter.getOverlappingPairCache();
    auto accepts = [&](btBroadphaseProxy* a, btBroadphaseProxy* b) {
        return filter ? filter->needBroadphaseCollision(a, b) : default_rule(a, b);
    };
    for (int f = 1; f <= kFrames; ++f) {
        pile.step();
        // The world's changes, made to the adapter: removed, added, masks, boxes.
        const int n = static_cast<int>(pile.bodies.size());
        mine.resize(n, nullptr);
        for (int i = 0; i < n; ++i) {
            btRigidBody* body = pile.bodies[i];
            if (!body && mine[i]) adapter.destroyProxy(mine[i], nullptr), mine[i] = nullptr;
            if (!body) continue;
            const btBroadphaseProxy* ref = body->getBroadphaseHandle();
            if (!mine[i]) {
                mine[i] = adapter.createProxy(ref->m_aabbMin, ref->m_aabbMax, body->getCollisionShape()->getShapeType(), body,
                                              ref->m_collisionFilterGroup, ref->m_collisionFilterMask, nullptr);
            }
            mine[i]->m_collisionFilterGroup = ref->m_collisionFilterGroup;
            mine[i]->m_collisionFilterMask = ref->m_collisionFilterMask;
            adapter.setAabb(mine[i], ref->m_aabbMin, ref->m_aabbMax, nullptr);
        }
        adapter.calculateOverlappingPairs(nullptr);
        EXPECT_TRUE(adapter.last_report().ok());

        // Brute force on the boxes the dbvt was given.
        PairSet exact;
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) {
                if (!pile.bodies[i] || !pile.bodies[j]) continue;
                btBroadphaseProxy* a = mine[i];
                btBroadphaseProxy* b = mine[j];
                if (boxes_overlap(a->m_aabbMin, a->m_aabbMax, b->m_aabbMin, b->m_aabbMax) && accepts(a, b)) exact.insert({i, j});
            }
        const PairSet got = pairs_of(cache);
        EXPECT_EQ(got, exact) << "frame " << f;
        // The dbvt's cache: every exact pair, and nothing else once its fat extras are dropped.
        PairSet dbvt_exact;
        const btOverlappingPairCache* dcache = pile.broadphase->getOverlappingPairCache();
        for (int k = 0; k < dcache->getNumOverlappingPairs(); ++k) {
            btBroadphaseProxy* a = dcache->getOverlappingPairArrayPtr()[k].m_pProxy0;
            btBroadphaseProxy* b = dcache->getOverlappingPairArrayPtr()[k].m_pProxy1;
            if (boxes_overlap(a->m_aabbMin, a->m_aabbMax, b->m_aabbMin, b->m_aabbMax) && accepts(a, b))
                dbvt_exact.insert(ordered(index_of(a), index_of(b)));
            else
                ++totals.dbvt_extra;
        }
        EXPECT_EQ(got, dbvt_exact) << "frame " << f;
        if (got != exact || got != dbvt_exact) break;  // one frame's report is enough
        ++totals.frames;
        totals.pairs += static_cast<long long>(got.size());

        // Every 10th frame: rays and a box cast through the pile, and a box query.
        if (f % 10 != 0) continue;
        const btVector3 froms[] = {btVector3(-6, 1, -5), btVector3(0, 15, 0), btVector3(6, btScalar(0.5), 3)};
        const btVector3 tos[] = {btVector3(6, btScalar(3.5), 5), btVector3(btScalar(0.3), -1, btScalar(-0.2)),
                                 btVector3(-6, btScalar(2.5), -3)};
        for (int r = 0; r < 3; ++r) {
            CollectRay want_ray(froms[r], tos[r]), dbvt_ray(froms[r], tos[r]), got_ray(froms[r], tos[r]);
            for (int i = 0; i < n; ++i)
                if (pile.bodies[i] && segment_hits(froms[r], tos[r], mine[i]->m_aabbMin, mine[i]->m_aabbMax)) want_ray.hits.insert(i);
            adapter.rayTest(froms[r], tos[r], got_ray);
            pile.broadphase->rayTest(froms[r], tos[r], dbvt_ray);
            EXPECT_EQ(got_ray.hits, want_ray.hits) << "frame " << f << " ray " << r;
            std::set<int> dbvt_tight;
            for (int i : dbvt_ray.hits)
                if (segment_hits(froms[r], tos[r], mine[i]->m_aabbMin, mine[i]->m_aabbMax)) dbvt_tight.insert(i);
            EXPECT_EQ(got_ray.hits, dbvt_tight) << "frame " << f << " ray " << r;
            totals.ray_hits += static_cast<long long>(got_ray.hits.size());

            // Box cast: a 0.6-wide box swept along the segment; the boxes it
            // meets are those the segment meets grown by it (Minkowski sum).
            const btVector3 lo(btScalar(-0.3), btScalar(-0.3), btScalar(-0.3)), hi(btScalar(0.3), btScalar(0.3), btScalar(0.3));
            CollectRay want_cast(froms[r], tos[r]), dbvt_cast(froms[r], tos[r]), got_cast(froms[r], tos[r]);
            for (int i = 0; i < n; ++i)
                if (pile.bodies[i] && segment_hits(froms[r], tos[r], mine[i]->m_aabbMin - hi, mine[i]->m_aabbMax - lo))
                    want_cast.hits.insert(i);
            adapter.rayTest(froms[r], tos[r], got_cast, lo, hi);
            pile.broadphase->rayTest(froms[r], tos[r], dbvt_cast, lo, hi);
            EXPECT_EQ(got_cast.hits, want_cast.hits) << "frame " << f << " box cast " << r;
            EXPECT_GE(got_cast.hits.size(), got_ray.hits.size());
            for (int i : got_cast.hits) EXPECT_TRUE(dbvt_cast.hits.count(i)) << "frame " << f << " box cast " << r << " body " << i;
        }
        const btVector3 qlo(-1, 0, -1), qhi(1, 2, 1);
        CollectBox want_box, got_box, dbvt_box;
        for (int i = 0; i < n; ++i)
            if (pile.bodies[i] && boxes_overlap(qlo, qhi, mine[i]->m_aabbMin, mine[i]->m_aabbMax)) want_box.hits.insert(i);
        adapter.aabbTest(qlo, qhi, got_box);
        pile.broadphase->aabbTest(qlo, qhi, dbvt_box);
        EXPECT_EQ(got_box.hits, want_box.hits) << "frame " << f;
        for (int i : got_box.hits) EXPECT_TRUE(dbvt_box.hits.count(i)) << "frame " << f << " body " << i;
        totals.box_hits += static_cast<long long>(got_box.hits.size());
    }
    for (btBroadphaseProxy* p : mine)
        if (p) adapter.destroyProxy(p, nullptr);
    EXPECT_EQ(adapter.proxy_count(), 0u);
    EXPECT_EQ(cache->getNumOverlappingPairs(), 0);
    return totals;
}

TEST(BulletAdapter, LockstepPairsEqualBruteForceAndDbvt) {
    const LockstepTotals t = run_lockstep(nullptr);
    EXPECT_EQ(t.frames, kFrames);
    EXPECT_GT(t.pairs, 10000);  // the pile is in contact for most of the run
    EXPECT_GT(t.ray_hits, 0);
    EXPECT_GT(t.box_hits, 0);
    std::printf("lockstep: %d frames, %lld pairs compared, dbvt's fat extras %lld, ray hits %lld, box hits %lld\n", t.frames,
                t.pairs, t.dbvt_extra, t.ray_hits, t.box_hits);
}

TEST(BulletAdapter, LockstepWithOverlapFilterCallback) {
    ThirdsFilter filter;
    const LockstepTotals t = run_lockstep(&filter);
    EXPECT_EQ(t.frames, kFrames);
    EXPECT_GT(t.pairs, 5000);
    std::printf("lockstep with a filter callback: %d frames, %lld pairs compared\n", t.frames, t.pairs);
}

/// The transforms of two piles, bit for bit.
bool same_state(const Pile& a, const Pile& b) {
    if (a.bodies.size() != b.bodies.size()) return false;
    for (std::size_t i = 0; i < a.bodies.size(); ++i) {
        if (!a.bodies[i] != !b.bodies[i]) return false;
        if (!a.bodies[i]) continue;
        const btTransform& x = a.bodies[i]->getWorldTransform();
        const btTransform& y = b.bodies[i]->getWorldTransform();
        if (std::memcmp(&x.getOrigin(), &y.getOrigin(), sizeof(btScalar) * 3) != 0) return false;
        for (int r = 0; r < 3; ++r)
            if (std::memcmp(&x.getBasis()[r], &y.getBasis()[r], sizeof(btScalar) * 3) != 0) return false;
    }
    return true;
}

/// The bodies the closest ray, the closest convex sweep and a contact test find.
struct WorldQueries {
    int ray_body = -1, sweep_body = -1;
    btScalar ray_fraction = 0, sweep_fraction = 0;
    std::set<int> contacts;
};
struct ContactCollector : btCollisionWorld::ContactResultCallback {
    std::set<int>* out;
    btScalar addSingleResult(btManifoldPoint& point, const btCollisionObjectWrapper* a, int, int, const btCollisionObjectWrapper* b,
                             int, int) override {
        // Touching only: the narrow phase also reports points a little apart,
        // for the candidates a broad phase gives (the dbvt's fat boxes give more).
        if (point.getDistance() > 0) return 0;
        out->insert(a->getCollisionObject()->getUserIndex());
        out->insert(b->getCollisionObject()->getUserIndex());
        return 0;
    }
};
WorldQueries world_queries(Pile& pile) {
    WorldQueries q;
    // The boxes of the bodies where the step left them (Bullet's own are
    // those the step began with): the candidates of either broad phase then
    // hold every shape the queries can meet, so the answers must be equal.
    pile.world->updateAabbs();
    const btVector3 from(-6, 1, -5), to(6, btScalar(3.5), 5);
    btCollisionWorld::ClosestRayResultCallback ray(from, to);
    pile.world->rayTest(from, to, ray);
    if (ray.hasHit()) q.ray_body = ray.m_collisionObject->getUserIndex(), q.ray_fraction = ray.m_closestHitFraction;
    btSphereShape probe(btScalar(0.3));
    btTransform a, b;
    a.setIdentity(), b.setIdentity();
    a.setOrigin(btVector3(0, 15, 0)), b.setOrigin(btVector3(btScalar(0.3), -1, btScalar(-0.2)));
    btCollisionWorld::ClosestConvexResultCallback sweep(a.getOrigin(), b.getOrigin());
    pile.world->convexSweepTest(&probe, a, b, sweep);
    if (sweep.hasHit()) q.sweep_body = sweep.m_hitCollisionObject->getUserIndex(), q.sweep_fraction = sweep.m_closestHitFraction;
    btSphereShape ball(btScalar(1.5));
    btCollisionObject object;
    object.setCollisionShape(&ball);
    object.getWorldTransform().setOrigin(btVector3(0, 1, 0));
    object.setUserIndex(-1);
    ContactCollector contact;
    contact.out = &q.contacts;
    pile.world->contactTest(&object, contact);
    q.contacts.erase(-1);
    return q;
}

TEST(BulletAdapter, DynamicsWorldRunsOnTheAdapter) {
    Pile dbvt(std::make_unique<btDbvtBroadphase>(), nullptr);
    Pile mine(std::make_unique<BroadphaseInterface>(), nullptr);
    int identical = 0, queried = 0;
    bool apart = false;
    double seconds_dbvt = 0, seconds_mine = 0;  // the worlds' steps, broad, narrow phase and solver
    for (int f = 1; f <= kFrames; ++f) {
        const auto t0 = std::chrono::steady_clock::now();
        dbvt.step();
        const auto t1 = std::chrono::steady_clock::now();
        mine.step();
        const auto t2 = std::chrono::steady_clock::now();
        seconds_dbvt += std::chrono::duration<double>(t1 - t0).count();
        seconds_mine += std::chrono::duration<double>(t2 - t1).count();
        if (!apart && same_state(dbvt, mine)) {
            ++identical;
            // The same boxes: the pairs must be the same, less the dbvt's fat extras.
            const PairSet got = pairs_of(mine.broadphase->getOverlappingPairCache());
            PairSet want;
            const btOverlappingPairCache* dcache = dbvt.broadphase->getOverlappingPairCache();
            for (int k = 0; k < dcache->getNumOverlappingPairs(); ++k) {
                btBroadphaseProxy* a = dcache->getOverlappingPairArrayPtr()[k].m_pProxy0;
                btBroadphaseProxy* b = dcache->getOverlappingPairArrayPtr()[k].m_pProxy1;
                if (boxes_overlap(a->m_aabbMin, a->m_aabbMax, b->m_aabbMin, b->m_aabbMax) && default_rule(a, b))
                    want.insert(ordered(index_of(a), index_of(b)));
            }
            EXPECT_EQ(got, want) << "frame " << f;
            if (f == 1 || f % 5 == 0) {
                const WorldQueries x = world_queries(dbvt), y = world_queries(mine);
                EXPECT_EQ(x.ray_body, y.ray_body) << "frame " << f;
                EXPECT_EQ(x.ray_fraction, y.ray_fraction) << "frame " << f;
                EXPECT_EQ(x.sweep_body, y.sweep_body) << "frame " << f;
                EXPECT_EQ(x.sweep_fraction, y.sweep_fraction) << "frame " << f;
                EXPECT_EQ(x.contacts, y.contacts) << "frame " << f;
                ++queried;
            }
        } else {
            apart = true;
        }
    }
    EXPECT_GE(identical, 1);
    EXPECT_GE(queried, 1);
    // Sanity once apart: finite, above the ground, the pile about as high.
    double height_dbvt = 0, height_mine = 0;
    int count = 0;
    for (std::size_t i = 1; i < dbvt.bodies.size(); ++i)  // (the scene itself is sane)
        if (dbvt.bodies[i]) {
            EXPECT_GT(dbvt.bodies[i]->getWorldTransform().getOrigin().y(), btScalar(0.2)) << "dbvt's body " << i;
        }
    for (std::size_t i = 1; i < mine.bodies.size(); ++i) {
        if (!mine.bodies[i]) continue;
        const btVector3& p = mine.bodies[i]->getWorldTransform().getOrigin();
        EXPECT_TRUE(std::isfinite(p.x()) && std::isfinite(p.y()) && std::isfinite(p.z())) << "body " << i;
        EXPECT_GT(p.y(), btScalar(0.2)) << "body " << i << " went through the ground";
        height_mine += p.y(), height_dbvt += dbvt.bodies[i]->getWorldTransform().getOrigin().y(), ++count;
    }
    height_mine /= count, height_dbvt /= count;
    EXPECT_NEAR(height_mine, height_dbvt, 0.25 * height_dbvt);
    std::printf("dynamics worlds: bit-identical for %d of %d frames (queries compared on %d), mean height %.3f (dbvt %.3f);"
                " steps %.1f ms (dbvt %.1f ms)\n",
                identical, kFrames, queried, height_mine, height_dbvt, 1e3 * seconds_mine, 1e3 * seconds_dbvt);
}

/// A ray callback that keeps the nearest hit: it lowers m_lambda_max as it goes, and may stop at the first.
struct NearestRay : CollectRay {
    const BroadphaseInterface* adapter;
    btVector3 from, to;
    bool stop_at_first = false;
    int calls = 0;
    btScalar reported_beyond = 0;  // the largest entry lambda reported beyond the limit in force
    NearestRay(const BroadphaseInterface* a, const btVector3& f, const btVector3& t) : CollectRay(f, t), adapter(a), from(f), to(t) {}
    bool process(const btBroadphaseProxy* p) override {
        ++calls;
        broadphase::BasicBox<btScalar, 3> b;
        for (int k = 0; k < 3; ++k) b.min[k] = p->m_aabbMin[k], b.max[k] = p->m_aabbMax[k];
        const btVector3 d = to - from;
        btScalar t = 0;
        EXPECT_TRUE((broadphase::ray_hits_box<btScalar, 3>({from.x(), from.y(), from.z()}, {d.x(), d.y(), d.z()},
                                                            btScalar(1), b, t)));
        if (t > m_lambda_max) reported_beyond = std::max(reported_beyond, t - m_lambda_max);
        m_lambda_max = std::min(m_lambda_max, t);
        return !stop_at_first;
    }
};

TEST(BulletAdapter, RayCallbackClipsAndStops) {
    BroadphaseInterface adapter;
    // A row of 20 unit boxes along x, and a ray through all of them.
    std::vector<btBroadphaseProxy*> row;
    for (int i = 0; i < 20; ++i)
        row.push_back(adapter.createProxy(btVector3(btScalar(2 * i), 0, 0), btVector3(btScalar(2 * i + 1), 1, 1), BOX_SHAPE_PROXYTYPE,
                                          nullptr, 1, -1, nullptr));
    adapter.calculateOverlappingPairs(nullptr);
    EXPECT_EQ(adapter.getOverlappingPairCache()->getNumOverlappingPairs(), 0);
    const btVector3 from(-1, btScalar(0.5), btScalar(0.5)), to(41, btScalar(0.5), btScalar(0.5));
    NearestRay nearest(&adapter, from, to);
    adapter.rayTest(from, to, nearest);
    EXPECT_GE(nearest.calls, 1);
    EXPECT_LT(nearest.calls, 20);  // the cast followed m_lambda_max: the boxes beyond the first were pruned
    EXPECT_EQ(nearest.reported_beyond, btScalar(0));  // nothing past the clipped limit is reported
    EXPECT_FLOAT_EQ(nearest.m_lambda_max, btScalar(1) / 42);  // the first box, entered at x = 0
    NearestRay first(&adapter, from, to);
    first.stop_at_first = true;
    adapter.rayTest(from, to, first);
    EXPECT_EQ(first.calls, 1);  // process returned false: the search stopped
    // Clipped from the start: only the boxes within lambda 0.25 (x <= 9.5): 5 of them.
    // (A callback fills m_rayDirectionInverse, as btDbvtBroadphase also needs: CollectRay's, lambda 1 at `to`.)
    struct Count : CollectRay {
        int n = 0;
        using CollectRay::CollectRay;
        bool process(const btBroadphaseProxy*) override { return ++n, true; }
    } count(from, to);
    count.m_lambda_max = btScalar(0.25);
    adapter.rayTest(from, to, count);
    EXPECT_EQ(count.n, 5);
    for (btBroadphaseProxy* p : row) adapter.destroyProxy(p, nullptr);
}

}  // namespace
