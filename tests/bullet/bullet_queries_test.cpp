// Every query the Bullet adapter serves, differentially: the same world held
// three times, on the adapter, on Bullet's btDbvtBroadphase and on a brute
// force oracle (Bullet's btSimpleBroadphase: pairs and aabbTest by closed
// boxes, and a rayTest that tests every proxy's box in double), and every
// query asked of all three.
//
// The world: 1,100 bodies (boxes, spheres, capsules, cylinders; half sizes
// 0.04 to 0.6) dropped by a btDiscreteDynamicsWorld onto a ground with
// static walls, a huge thin platform, a tiny static box and a small static
// pile of steps; every seventh body starts asleep on the ground and sleeps
// until something hits it. The dynamics world is the driver only: each
// frame its transforms and activation states are copied into three
// btCollisionWorlds (one per broad phase, forceUpdateAllAabbs off, so
// sleeping bodies keep their boxes), which then run updateAabbs and
// computeOverlappingPairs. Eight trigger ghosts (btPairCachingGhostObject)
// circle through the pile, and a btKinematicCharacterController walks over
// the steps in each world.
//
// Compared, every frame or every few frames:
//   - the pair caches: the adapter's equals the oracle's; the dbvt's holds it;
//   - rays (btCollisionWorld::rayTest, all hits and closest hit) of random
//     origins, directions and lengths (1e-3 to 1e3), starting inside bodies,
//     axis-parallel, grazing box faces and edges exactly, and of zero length:
//     the hits (object, fraction, normal) equal in all three worlds, bit
//     for bit (the same narrow phase on the same objects);
//   - the broad phase's own ray candidates: every proxy the segment meets is
//     reported, nothing far from it is;
//   - convex sweeps (btCollisionWorld::convexSweepTest, every hit and the
//     closest) of spheres and boxes, the same lengths, zero included;
//   - aabbTest: the adapter's proxies equal the oracle's exactly, the dbvt's
//     equal them once its fat extras are dropped;
//   - contactTest and contactPairTest: the same points;
//   - the ghosts' overlapping objects (the adapter's equal the oracle's, the
//     dbvt's hold them) and their touching contacts (equal in all three);
//   - the character: its position after every step, bit for bit with the
//     oracle's world, and within 1e-4 of the dbvt's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <BulletCollision/BroadphaseCollision/btSimpleBroadphase.h>
#include <BulletCollision/CollisionDispatch/btGhostObject.h>
#include <BulletDynamics/Character/btKinematicCharacterController.h>
#include <btBulletDynamicsCommon.h>
#include <broadphase/bullet/broadphase_interface.hpp>

#include "bullet_common.hpp"

namespace {

using broadphase::bullet::BroadphaseInterface;
using namespace bullet_test;

constexpr int kDynamic = 1100;
constexpr int kFrames = 72;
constexpr int kQueryEvery = 6;  // the queries run on frames 6, 12, ..., 72
constexpr int kGhosts = 8;
constexpr btScalar kStep = btScalar(1) / 60;
const int kQueryMask = btBroadphaseProxy::AllFilter & ~btBroadphaseProxy::CharacterFilter;

enum World { brute = 0, dbvt = 1, ours = 2 };
const char* const kWorldName[] = {"btSimpleBroadphase", "btDbvtBroadphase", "adapter"};


/// The shapes, shared by every world (a shape holds no per-object state).
struct Shapes {
    btBoxShape ground{btVector3(40, 1, 40)};
    btBoxShape wall{btVector3(btScalar(0.5), 3, 14)};
    btBoxShape platform{btVector3(30, btScalar(0.05), 6)};  // huge and thin
    btBoxShape tiny{btVector3(btScalar(0.001), btScalar(0.001), btScalar(0.001))};
    btBoxShape step{btVector3(btScalar(0.5), btScalar(0.1), 2)};
    std::vector<std::unique_ptr<btCollisionShape>> bodies;  // the dynamic bodies' shapes, a few of each kind
    btBoxShape ghost{btVector3(btScalar(0.7), btScalar(0.5), btScalar(0.9))};
    // Z-axis: the controller turns its ghost from +z up to the up it is given.
    btCapsuleShapeZ character{btScalar(0.3), btScalar(0.8)};

    Shapes() {
        const btScalar sizes[] = {btScalar(0.04), btScalar(0.1), btScalar(0.25), btScalar(0.4), btScalar(0.6)};
        for (btScalar s : sizes) {
            bodies.emplace_back(new btBoxShape(btVector3(s, s * btScalar(0.7), s * btScalar(1.3))));
            bodies.emplace_back(new btSphereShape(s));
            bodies.emplace_back(new btCapsuleShape(s * btScalar(0.6), s * 2));
            bodies.emplace_back(new btCylinderShape(btVector3(s, s * btScalar(0.8), s)));
        }
    }
};

/// What each object is, in every world: a shape, a start transform, static or not.
struct ObjectSpec {
    btCollisionShape* shape;
    btTransform at;
    bool is_static;
    bool asleep;  // a dynamic body that starts asleep
};

std::vector<ObjectSpec> make_specs(Shapes& shapes) {
    std::vector<ObjectSpec> specs;
    auto put = [&](btCollisionShape* s, const btVector3& p, bool st, bool asleep = false) {
        btTransform t;
        t.setIdentity();
        t.setOrigin(p);
        specs.push_back({s, t, st, asleep});
    };
    put(&shapes.ground, btVector3(0, -1, 0), true);
    put(&shapes.wall, btVector3(-11, 3, 0), true);
    put(&shapes.wall, btVector3(11, 3, 0), true);
    put(&shapes.platform, btVector3(0, btScalar(6.05), -20), true);
    put(&shapes.tiny, btVector3(btScalar(-3.3), btScalar(0.001), btScalar(13.7)), true);
    // The character's steps: 0.2 m each, along +x from x = 14, then down again.
    for (int i = 0; i < 6; ++i) {
        const int h = i < 3 ? i + 1 : 6 - i;
        for (int j = 0; j < h; ++j)
            put(&shapes.step, btVector3(btScalar(14.5 + i), btScalar(0.1) + btScalar(0.2) * btScalar(j), 0), true);
    }
    std::mt19937 rng(2027);
    std::uniform_real_distribution<double> u(0, 1);
    for (int i = 0; i < kDynamic; ++i) {
        btCollisionShape* s = shapes.bodies[rng() % shapes.bodies.size()].get();
        if (i % 7 == 0) {  // asleep on the ground until hit
            btVector3 lo, hi;
            btTransform id;
            id.setIdentity();
            s->getAabb(id, lo, hi);
            put(s, btVector3(btScalar(-10 + 20 * u(rng)), -lo.y(), btScalar(-10 + 20 * u(rng))), false, true);
        } else {
            const int layer = i / 200;
            put(s, btVector3(btScalar(-9 + 18 * u(rng)), btScalar(2 + 2.5 * layer + 2 * u(rng)), btScalar(-9 + 18 * u(rng))), false);
        }
    }
    return specs;
}

/// The driver: a dynamics world (on btDbvtBroadphase, Bullet's default) that moves the bodies.
struct Driver {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
    std::vector<std::unique_ptr<btRigidBody>> bodies;

    explicit Driver(const std::vector<ObjectSpec>& specs) {
        world.setGravity(btVector3(0, -10, 0));
        for (const ObjectSpec& s : specs) {
            const btScalar mass = s.is_static ? 0 : 1;
            btVector3 inertia(0, 0, 0);
            if (mass > 0) s.shape->calculateLocalInertia(mass, inertia);
            btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, s.shape, inertia);
            info.m_startWorldTransform = s.at;
            bodies.emplace_back(new btRigidBody(info));
            world.addRigidBody(bodies.back().get());
            if (s.asleep) bodies.back()->setActivationState(ISLAND_SLEEPING);
        }
    }
    ~Driver() {
        for (auto& b : bodies) world.removeRigidBody(b.get());
    }
};

/// Whether the segment from -> to meets box [lo - grow, hi + grow], in
/// double; grow applies only on axes along which the segment moves (on the
/// others the arithmetic is exact on both sides).
bool segment_meets(const btVector3& from, const btVector3& to, const btVector3& lo, const btVector3& hi, double grow) {
    double t0 = 0, t1 = 1;
    for (int k = 0; k < 3; ++k) {
        const double o = from[k], d = double(to[k]) - double(from[k]);
        const double g = d == 0 ? 0 : grow;
        const double a = double(lo[k]) - g, b = double(hi[k]) + g;
        if (d == 0) {
            if (o < a || o > b) return false;
            continue;
        }
        double ta = (a - o) / d, tb = (b - o) / d;
        if (ta > tb) std::swap(ta, tb);
        t0 = std::max(t0, ta), t1 = std::min(t1, tb);
        if (t0 > t1) return false;
    }
    return true;
}

/// The oracle's broad phase: btSimpleBroadphase (brute-force pairs and
/// aabbTest on closed boxes), whose rayTest offers every proxy whose box
/// (grown by the swept box) the segment rayFrom -> rayTo meets, tested in
/// double and a few float roundings generous. (btSimpleBroadphase's own
/// rayTest offers every proxy: Bullet's narrow phase then reports some hits
/// far outside the shape, btSubsimplexConvexCast's false positives, which
/// no broad phase that looks at boxes would offer.)
struct BruteBroadphase : btSimpleBroadphase {
    BruteBroadphase() : btSimpleBroadphase(16384) {}
    void rayTest(const btVector3& from, const btVector3& to, btBroadphaseRayCallback& callback, const btVector3& aabbMin,
                 const btVector3& aabbMax) override {
        const double tol = tolerance(from, to);
        for (int i = 0; i <= m_LastHandleIndex; ++i) {
            btSimpleBroadphaseProxy* p = &m_pHandles[i];
            if (p->m_clientObject && segment_meets(from, to, p->m_aabbMin - aabbMax, p->m_aabbMax - aabbMin, tol)) callback.process(p);
        }
    }
    /// A few float roundings of the coordinates and the length.
    static double tolerance(const btVector3& from, const btVector3& to) {
        const double scale = 1 + std::max({std::fabs(from.x()), std::fabs(from.y()), std::fabs(from.z())}) + double((to - from).length());
        return 16 * std::numeric_limits<btScalar>::epsilon() * scale;
    }
};

/// One btCollisionWorld on one broad phase: the bodies' copies, the ghosts, the character.
struct QueryWorld {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};
    std::unique_ptr<btBroadphaseInterface> broadphase;
    btGhostPairCallback ghost_callback;
    std::unique_ptr<btCollisionWorld> world;
    std::vector<std::unique_ptr<btCollisionObject>> objects;  // by index: bodies, then ghosts
    std::vector<std::unique_ptr<btPairCachingGhostObject>> ghosts;
    std::unique_ptr<btPairCachingGhostObject> character_ghost;
    std::unique_ptr<btKinematicCharacterController> character;

    QueryWorld(World which, const std::vector<ObjectSpec>& specs, Shapes& shapes) {
        if (which == brute) broadphase.reset(new BruteBroadphase());
        if (which == dbvt) broadphase.reset(new btDbvtBroadphase());
        if (which == ours) broadphase.reset(new BroadphaseInterface());
        broadphase->getOverlappingPairCache()->setInternalGhostPairCallback(&ghost_callback);
        world.reset(new btCollisionWorld(&dispatcher, broadphase.get(), &configuration));
        world->setForceUpdateAllAabbs(false);  // sleeping bodies keep their boxes, as in a dynamics world
        for (const ObjectSpec& s : specs) {
            objects.emplace_back(new btCollisionObject());
            btCollisionObject* o = objects.back().get();
            o->setCollisionShape(s.shape);
            o->setWorldTransform(s.at);
            o->setUserIndex(static_cast<int>(objects.size()) - 1);
            if (s.is_static) {
                o->setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
                world->addCollisionObject(o, btBroadphaseProxy::StaticFilter,
                                          btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter);
            } else {
                world->addCollisionObject(o, btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter);
            }
        }
        for (int g = 0; g < kGhosts; ++g) {
            ghosts.emplace_back(new btPairCachingGhostObject());
            btPairCachingGhostObject* o = ghosts.back().get();
            o->setCollisionShape(&shapes.ghost);
            o->setCollisionFlags(btCollisionObject::CF_NO_CONTACT_RESPONSE);
            o->setWorldTransform(ghost_at(g, 0));
            o->setUserIndex(static_cast<int>(specs.size()) + g);
            world->addCollisionObject(o, btBroadphaseProxy::SensorTrigger,
                                      btBroadphaseProxy::AllFilter & ~btBroadphaseProxy::SensorTrigger);
        }
        character_ghost.reset(new btPairCachingGhostObject());
        btTransform start;
        start.setIdentity();
        start.setOrigin(btVector3(12, btScalar(0.75), btScalar(0.3)));
        character_ghost->setWorldTransform(start);
        character_ghost->setCollisionShape(&shapes.character);
        character_ghost->setCollisionFlags(btCollisionObject::CF_CHARACTER_OBJECT);
        character_ghost->setUserIndex(static_cast<int>(specs.size()) + kGhosts);
        world->addCollisionObject(character_ghost.get(), btBroadphaseProxy::CharacterFilter,
                                  btBroadphaseProxy::StaticFilter | btBroadphaseProxy::DefaultFilter);
        // Every box with Bullet's contact breaking threshold, as a dynamics
        // world's first step gives it (addCollisionObject gives the shape's
        // box alone): the narrow phase reports ray hits up to about 0.01
        // outside a shape, and sleeping and static bodies keep these boxes.
        for (int i = 0; i < world->getNumCollisionObjects(); ++i) world->updateSingleAabb(world->getCollisionObjectArray()[i]);
        character.reset(new btKinematicCharacterController(character_ghost.get(), &shapes.character, btScalar(0.35),
                                                           btVector3(0, 1, 0)));
        character->setGravity(btVector3(0, -10, 0));
    }
    ~QueryWorld() {
        world->removeCollisionObject(character_ghost.get());
        for (auto& g : ghosts) world->removeCollisionObject(g.get());
        for (auto& o : objects) world->removeCollisionObject(o.get());
    }

    /// Ghost g's place at frame f: circling through the pile at several heights.
    static btTransform ghost_at(int g, int f) {
        const double a = 0.9 * g + 0.05 * f, r = 2.0 + g;
        btTransform t;
        t.setIdentity();
        t.setOrigin(btVector3(btScalar(r * std::cos(a)), btScalar(0.3 + 0.4 * g), btScalar(r * std::sin(a))));
        return t;
    }

    /// The driver's frame copied in, then Bullet's per-step collision work: boxes, pairs.
    void sync(const Driver& d, int f) {
        for (std::size_t i = 0; i < objects.size(); ++i) {
            const btRigidBody& b = *d.bodies[i];
            objects[i]->setWorldTransform(b.getWorldTransform());
            objects[i]->forceActivationState(b.getActivationState());
        }
        for (int g = 0; g < kGhosts; ++g) ghosts[g]->setWorldTransform(ghost_at(g, f));
        world->updateAabbs();
        world->computeOverlappingPairs();
    }
};

/// A proxy's box, as the world gave it to the broad phase.
struct ProxyBox {
    btVector3 lo, hi;
};
std::vector<ProxyBox> proxy_boxes(QueryWorld& w) {
    std::vector<ProxyBox> out;
    for (auto& o : w.objects) out.push_back({o->getBroadphaseHandle()->m_aabbMin, o->getBroadphaseHandle()->m_aabbMax});
    for (auto& g : w.ghosts) out.push_back({g->getBroadphaseHandle()->m_aabbMin, g->getBroadphaseHandle()->m_aabbMax});
    const btBroadphaseProxy* c = w.character_ghost->getBroadphaseHandle();
    out.push_back({c->m_aabbMin, c->m_aabbMax});  // last: its index is the largest
    return out;
}

/// A ray query: from, to, and what kind it is (for messages).
struct Ray {
    btVector3 from, to;
    const char* kind;
};

/// One hit, comparable bit for bit: object, fraction, normal.
using Hit = std::tuple<int, btScalar, btScalar, btScalar, btScalar>;

std::vector<Hit> all_ray_hits(QueryWorld& w, const Ray& r) {
    btCollisionWorld::AllHitsRayResultCallback cb(r.from, r.to);
    cb.m_collisionFilterMask = kQueryMask;
    w.world->rayTest(r.from, r.to, cb);
    std::vector<Hit> out;
    for (int i = 0; i < cb.m_collisionObjects.size(); ++i) {
        const btVector3& n = cb.m_hitNormalWorld[i];
        out.emplace_back(index_of(cb.m_collisionObjects[i]), cb.m_hitFractions[i], n.x(), n.y(), n.z());
    }
    std::sort(out.begin(), out.end());
    return out;
}

btScalar closest_ray(QueryWorld& w, const Ray& r) {
    btCollisionWorld::ClosestRayResultCallback cb(r.from, r.to);
    cb.m_collisionFilterMask = kQueryMask;
    w.world->rayTest(r.from, r.to, cb);
    return cb.hasHit() ? cb.m_closestHitFraction : btScalar(2);
}

/// Every convex-sweep hit: the closest-hit fraction stays 1, so each candidate is judged alone.
struct AllSweepHits : btCollisionWorld::ConvexResultCallback {
    std::vector<Hit> hits;
    btScalar addSingleResult(btCollisionWorld::LocalConvexResult& r, bool /*normalInWorldSpace*/) override {
        hits.emplace_back(index_of(r.m_hitCollisionObject), r.m_hitFraction, r.m_hitNormalLocal.x(), r.m_hitNormalLocal.y(),
                          r.m_hitNormalLocal.z());
        return m_closestHitFraction;
    }
};

struct Sweep {
    btConvexShape* shape;
    btVector3 from, to;
    const char* kind;
};

std::vector<Hit> all_sweep_hits(QueryWorld& w, const Sweep& s) {
    AllSweepHits cb;
    cb.m_collisionFilterMask = kQueryMask;
    btTransform a, b;
    a.setIdentity(), b.setIdentity();
    a.setOrigin(s.from), b.setOrigin(s.to);
    w.world->convexSweepTest(s.shape, a, b, cb);
    std::sort(cb.hits.begin(), cb.hits.end());
    return cb.hits;
}

btScalar closest_sweep(QueryWorld& w, const Sweep& s) {
    btCollisionWorld::ClosestConvexResultCallback cb(s.from, s.to);
    cb.m_collisionFilterMask = kQueryMask;
    btTransform a, b;
    a.setIdentity(), b.setIdentity();
    a.setOrigin(s.from), b.setOrigin(s.to);
    w.world->convexSweepTest(s.shape, a, b, cb);
    return cb.hasHit() ? cb.m_closestHitFraction : btScalar(2);
}

/// The broad phase's own candidates for a ray as btCollisionWorld::rayTest
/// asks (unit direction, the length as lambda_max), or for a box swept along it.
struct Candidates : btBroadphaseRayCallback {
    std::set<int> ids;
    Candidates(const btVector3& from, const btVector3& to) {
        btVector3 d = to - from;
        const btScalar len = d.length();
        d /= len;  // as btCollisionWorld's callbacks: normalised, lambda_max the length
        for (int k = 0; k < 3; ++k) {
            m_rayDirectionInverse[k] = d[k] == btScalar(0) ? btScalar(BT_LARGE_FLOAT) : btScalar(1) / d[k];
            m_signs[k] = m_rayDirectionInverse[k] < 0;
        }
        m_lambda_max = d.dot(to - from);
    }
    bool process(const btBroadphaseProxy* p) override { return ids.insert(index_of(p)), true; }
};

struct Totals {
    long long rays = 0, ray_hits = 0, sweeps = 0, sweep_hits = 0, box_queries = 0, box_hits = 0, contacts = 0,
              pair_contacts = 0, ghost_overlaps = 0, ghost_touches = 0, candidates = 0, pairs = 0, asleep = 0;
    int frames = 0;
    double character_rise = 0, character_run = 0, character_vs_dbvt = 0;
};

btVector3 random_point(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-12, 12), h(-0.5, 10);
    return btVector3(btScalar(u(rng)), btScalar(h(rng)), btScalar(u(rng)));
}
btVector3 random_unit(std::mt19937& rng) {
    std::normal_distribution<double> n(0, 1);
    btVector3 v(btScalar(n(rng)), btScalar(n(rng)), btScalar(n(rng)));
    return v / v.length();
}
btScalar random_length(std::mt19937& rng) {  // log-uniform, 1e-3 to 1e3
    std::uniform_real_distribution<double> e(-3, 3);
    return btScalar(std::pow(10.0, e(rng)));
}

/// This frame's rays: random, from inside bodies, axis-parallel, grazing faces and edges, zero length.
std::vector<Ray> make_rays(std::mt19937& rng, const std::vector<ProxyBox>& boxes, QueryWorld& any) {
    std::vector<Ray> rays;
    std::uniform_int_distribution<std::size_t> pick(0, boxes.size() - 1);
    for (int i = 0; i < 40; ++i) {
        const btVector3 o = random_point(rng);
        rays.push_back({o, o + random_unit(rng) * random_length(rng), "random"});
    }
    for (int i = 0; i < 20; ++i) {  // from inside a body
        const btVector3 o = any.objects[pick(rng) % any.objects.size()]->getWorldTransform().getOrigin();
        rays.push_back({o, o + random_unit(rng) * random_length(rng), "inside"});
    }
    for (int i = 0; i < 20; ++i) {  // axis-parallel
        const btVector3 o = random_point(rng);
        btVector3 d(0, 0, 0);
        d[int(rng() % 3)] = (rng() % 2 ? 1 : -1) * random_length(rng);
        rays.push_back({o, o + d, "axis-parallel"});
    }
    for (int i = 0; i < 20; ++i) {  // along a proxy box's face (i even) or edge (i odd), exactly on it
        const ProxyBox& b = boxes[pick(rng)];
        const int a = int(rng() % 3), p = (a + 1) % 3, q = (a + 2) % 3;
        btVector3 from, to;
        std::uniform_real_distribution<double> w(0, 1);
        from[p] = rng() % 2 ? b.lo[p] : b.hi[p];
        from[q] = i % 2 ? (rng() % 2 ? b.lo[q] : b.hi[q]) : btScalar(b.lo[q] + (b.hi[q] - b.lo[q]) * btScalar(w(rng)));
        from[a] = b.lo[a] - btScalar(0.5);
        to = from;
        to[a] = b.hi[a] + btScalar(0.5);
        if (rng() % 2) std::swap(from, to);
        rays.push_back({from, to, i % 2 ? "edge-grazing" : "face-grazing"});
    }
    // Short rays straight down onto a body's top, ending 0.1 inside it (issue 27's case).
    const btScalar lengths[] = {btScalar(0.2), btScalar(0.5), btScalar(0.8), 1, btScalar(1.5), 5};
    for (btScalar len : lengths) {
        const ProxyBox& b = boxes[pick(rng) % any.objects.size()];
        const btVector3 top((b.lo.x() + b.hi.x()) / 2, b.hi.y(), (b.lo.z() + b.hi.z()) / 2);
        rays.push_back({top + btVector3(0, len - btScalar(0.1), 0), top - btVector3(0, btScalar(0.1), 0), "short-down"});
    }
    return rays;
}

void compare_frame(std::vector<std::unique_ptr<QueryWorld>>& w, Shapes& shapes, std::mt19937& rng, int f, Totals& t) {
    QueryWorld& B = *w[brute];
    QueryWorld& D = *w[dbvt];
    QueryWorld& O = *w[ours];
    const std::vector<ProxyBox> boxes = proxy_boxes(O);

    // Rays: the hits in the three worlds, and the adapter's candidates.
    // One query (a ray or a sweep) in the three worlds: every hit and the
    // closest hit equal, bit for bit; returns the number of hits.
    // may_miss(i): object i's box is met only within the oracle's tolerance
    // (a few float roundings), so a broad phase may offer it or not, and
    // Bullet's narrow phase may report a hit on it or not (seen with clang:
    // an inside ray 2 mm from a box's face); its hit is then the oracle's alone.
    auto agree = [&](auto all, auto closest, const auto& q, const char* what, auto may_miss) {
        const std::vector<Hit> want = all(B, q);
        const btScalar c = closest(B, q);
        // The oracle's hits less those of its own that got leaves out, and the closest of them.
        auto expected = [&](const std::vector<Hit>& got) {
            std::vector<Hit> w;
            for (const Hit& h : want)
                if (!may_miss(std::get<0>(h)) || std::binary_search(got.begin(), got.end(), h)) w.push_back(h);
            btScalar near = w.size() == want.size() ? c : btScalar(2);
            if (w.size() != want.size())
                for (const Hit& h : w) near = std::min(near, std::get<1>(h));
            return std::make_pair(w, near);
        };
        const std::vector<Hit> o = all(O, q), d = all(D, q);
        const auto [want_o, closest_o] = expected(o);
        const auto [want_d, closest_d] = expected(d);
        EXPECT_EQ(o, want_o) << "frame " << f << ", " << q.kind << " " << what << " (" << q.from.x() << ", " << q.from.y()
                             << ", " << q.from.z() << ") -> (" << q.to.x() << ", " << q.to.y() << ", " << q.to.z() << ")";
        EXPECT_EQ(d, want_d) << "frame " << f << ", " << q.kind << " " << what << " (dbvt)";
        EXPECT_EQ(closest(O, q), closest_o) << "frame " << f << ", " << q.kind << " " << what;
        EXPECT_EQ(closest(D, q), closest_d) << "frame " << f << ", " << q.kind << " " << what << " (dbvt)";
        return static_cast<long long>(want_o.size());
    };
    for (const Ray& r : make_rays(rng, boxes, O)) {
        ++t.rays;
        const double tol = BruteBroadphase::tolerance(r.from, r.to);
        t.ray_hits += agree(all_ray_hits, closest_ray, r, "ray",
                            [&](int i) {
                                return i >= 0 && std::size_t(i) < boxes.size() &&
                                       !segment_meets(r.from, r.to, boxes[i].lo, boxes[i].hi, -tol);
                            });

        Candidates got(r.from, r.to);
        O.broadphase->rayTest(r.from, r.to, got);
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            if (!segment_meets(r.from, r.to, boxes[i].lo, boxes[i].hi, -tol)) continue;
            EXPECT_TRUE(got.ids.count(int(i))) << "frame " << f << ", " << r.kind << " ray misses proxy " << i;
        }
        for (int i : got.ids) {
            EXPECT_TRUE(segment_meets(r.from, r.to, boxes[i].lo, boxes[i].hi, tol)) << r.kind << " extra " << i;
        }
        t.candidates += static_cast<long long>(got.ids.size());
    }
    {  // Zero-length rays: btCollisionWorld normalises a zero vector (NaN); the dbvt then reports nothing, and so must we.
        const btVector3 o = boxes[0].hi;
        const Ray r{o, o, "zero-length"};
        EXPECT_EQ(all_ray_hits(O, r), all_ray_hits(D, r)) << "frame " << f << ", zero-length ray";
    }

    // Convex sweeps: spheres and a box, random, inside, axis-parallel, short and zero length.
    btSphereShape small(btScalar(0.05)), ball(btScalar(0.3));
    btBoxShape cube(btVector3(btScalar(0.2), btScalar(0.2), btScalar(0.2)));
    btConvexShape* probes[] = {&small, &ball, &cube};
    std::vector<Sweep> sweeps;
    for (int i = 0; i < 24; ++i) {
        const btVector3 o = i % 3 == 0 ? O.objects[rng() % O.objects.size()]->getWorldTransform().getOrigin() : random_point(rng);
        btVector3 d = random_unit(rng);
        if (i % 4 == 1) d = btVector3(0, 0, 0), d[int(rng() % 3)] = 1;
        sweeps.push_back({probes[i % 3], o, o + d * random_length(rng), i % 3 == 0 ? "inside" : "random"});
    }
    for (int i = 0; i < 3; ++i) {
        const btVector3 o = random_point(rng);
        sweeps.push_back({probes[i], o, o, "zero-length"});
    }
    const btScalar lengths[] = {btScalar(0.2), btScalar(0.5), btScalar(0.8), 1, btScalar(1.5), 5};
    for (btScalar len : lengths) {  // a small sphere straight down onto a body's top, ending 0.1 inside
        const ProxyBox& b = boxes[rng() % O.objects.size()];
        const btVector3 top((b.lo.x() + b.hi.x()) / 2, b.hi.y(), (b.lo.z() + b.hi.z()) / 2);
        sweeps.push_back({&small, top + btVector3(0, len - btScalar(0.1), 0), top - btVector3(0, btScalar(0.1), 0), "short-down"});
    }
    for (const Sweep& s : sweeps) {
        ++t.sweeps;
        t.sweep_hits += agree(all_sweep_hits, closest_sweep, s, "sweep", [](int) { return false; });
    }

    // aabbTest: random boxes, points, a huge box, and boxes touching a proxy's face.
    struct Collect : btBroadphaseAabbCallback {
        std::set<int> ids;
        bool process(const btBroadphaseProxy* p) override { return ids.insert(index_of(p)), true; }
    };
    for (int i = 0; i < 24; ++i) {
        btVector3 lo = random_point(rng), hi = lo;
        if (i % 4 == 1) hi += btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5)) * random_length(rng) / 10;
        if (i % 4 == 2) {  // touching a proxy box's max face from outside
            const ProxyBox& b = boxes[rng() % boxes.size()];
            const int a = int(rng() % 3);
            lo = b.lo, hi = b.hi;
            lo[a] = b.hi[a], hi[a] = b.hi[a] + 1;
        }
        if (i == 3) lo = btVector3(-100, -100, -100), hi = btVector3(100, 100, 100);
        Collect want, got, fat;
        B.broadphase->aabbTest(lo, hi, want);
        O.broadphase->aabbTest(lo, hi, got);
        D.broadphase->aabbTest(lo, hi, fat);
        EXPECT_EQ(got.ids, want.ids) << "frame " << f << ", box " << i;
        std::set<int> tight;
        const int character = static_cast<int>(boxes.size()) - 1;  // may stand elsewhere in the dbvt's world
        want.ids.erase(character), got.ids.erase(character), fat.ids.erase(character);
        for (int id : fat.ids)
            if (boxes_overlap(lo, hi, boxes[id].lo, boxes[id].hi)) tight.insert(id);
        EXPECT_EQ(tight, want.ids) << "frame " << f << ", box " << i << " (dbvt)";
        ++t.box_queries;
        t.box_hits += static_cast<long long>(want.ids.size());
    }

    // contactTest (broad phase: aabbTest on the object's box) and contactPairTest.
    struct Points : btCollisionWorld::ContactResultCallback {
        std::vector<std::tuple<int, int, btScalar, btScalar, btScalar, btScalar>> points;
        btScalar addSingleResult(btManifoldPoint& p, const btCollisionObjectWrapper* a, int, int, const btCollisionObjectWrapper* b, int,
                                 int) override {
            const btVector3& x = p.getPositionWorldOnB();
            points.emplace_back(index_of(a->getCollisionObject()), index_of(b->getCollisionObject()), p.getDistance(), x.x(), x.y(), x.z());
            return 0;
        }
    };
    btSphereShape probe(btScalar(0.8));
    for (int i = 0; i < 6; ++i) {
        const btVector3 at = i % 2 ? O.objects[rng() % O.objects.size()]->getWorldTransform().getOrigin() : random_point(rng);
        std::vector<decltype(Points::points)> found;
        for (auto& world : w) {
            btCollisionObject object;
            object.setCollisionShape(i % 3 == 2 ? static_cast<btCollisionShape*>(&shapes.ghost) : &probe);
            object.getWorldTransform().setOrigin(at);
            object.setUserIndex(-1);
            Points cb;
            cb.m_collisionFilterMask = kQueryMask;
            world->world->contactTest(&object, cb);
            std::sort(cb.points.begin(), cb.points.end());
            found.push_back(cb.points);
        }
        EXPECT_EQ(found[ours], found[brute]) << "frame " << f << ", contactTest " << i;
        // The dbvt's fat boxes give more candidates, for which the narrow
        // phase also reports points some way apart: the touching ones must agree.
        auto touching = [](decltype(Points::points) v) {
            v.erase(std::remove_if(v.begin(), v.end(), [](const auto& p) { return std::get<2>(p) > 0; }), v.end());
            return v;
        };
        EXPECT_EQ(touching(found[dbvt]), touching(found[brute])) << "frame " << f << ", contactTest " << i << " (dbvt)";
        t.contacts += static_cast<long long>(found[brute].size());
    }
    {
        const std::set<IndexPair> pairs = pairs_of(O.broadphase->getOverlappingPairCache());
        int n = 0;
        for (const IndexPair& p : pairs) {
            if (p.first < 0 || p.second >= static_cast<int>(O.objects.size()) || n++ % 25 != 0) continue;
            std::vector<decltype(Points::points)> found;
            for (auto& world : w) {
                Points cb;
                world->world->contactPairTest(world->objects[p.first].get(), world->objects[p.second].get(), cb);
                std::sort(cb.points.begin(), cb.points.end());
                found.push_back(cb.points);
            }
            EXPECT_EQ(found[ours], found[brute]) << "frame " << f << ", contactPairTest " << p.first << " " << p.second;
            EXPECT_EQ(found[dbvt], found[brute]) << "frame " << f << ", contactPairTest (dbvt)";
            t.pair_contacts += static_cast<long long>(found[brute].size());
        }
    }
}

/// Ghost g's overlapping objects, and those it touches (contact points at distance <= 0).
std::set<int> ghost_overlaps(QueryWorld& w, int g) {
    std::set<int> out;
    for (int i = 0; i < w.ghosts[g]->getNumOverlappingObjects(); ++i) out.insert(index_of(w.ghosts[g]->getOverlappingObject(i)));
    return out;
}
std::set<int> ghost_touches(QueryWorld& w, int g) {
    btPairCachingGhostObject& ghost = *w.ghosts[g];
    w.dispatcher.dispatchAllCollisionPairs(ghost.getOverlappingPairCache(), w.world->getDispatchInfo(), &w.dispatcher);
    std::set<int> out;
    btManifoldArray manifolds;
    btBroadphasePairArray& pairs = ghost.getOverlappingPairCache()->getOverlappingPairArray();
    for (int i = 0; i < pairs.size(); ++i) {
        manifolds.clear();
        if (pairs[i].m_algorithm) pairs[i].m_algorithm->getAllContactManifolds(manifolds);
        for (int m = 0; m < manifolds.size(); ++m) {
            const btPersistentManifold* pm = manifolds[m];
            for (int p = 0; p < pm->getNumContacts(); ++p) {
                if (pm->getContactPoint(p).getDistance() > 0) continue;
                out.insert(index_of(pm->getBody0() == &ghost ? pm->getBody1() : pm->getBody0()));
            }
        }
    }
    return out;
}

TEST(BulletAdapterQueries, AgreeWithDbvtAndBruteForce) {
    Shapes shapes;
    const std::vector<ObjectSpec> specs = make_specs(shapes);
    ASSERT_GE(specs.size(), 1000u);
    Driver driver(specs);
    std::vector<std::unique_ptr<QueryWorld>> w;
    for (World which : {brute, dbvt, ours}) w.emplace_back(new QueryWorld(which, specs, shapes));
    auto& adapter = static_cast<BroadphaseInterface&>(*w[ours]->broadphase);

    std::mt19937 rng(27);
    Totals t;
    btVector3 start[3];
    for (int k = 0; k < 3; ++k) start[k] = w[k]->character_ghost->getWorldTransform().getOrigin();
    btScalar highest = start[ours].y();
    for (int f = 1; f <= kFrames; ++f) {
        driver.world.stepSimulation(kStep, 0);
        for (int k = 0; k < 3; ++k) w[k]->sync(driver, f);
        ASSERT_TRUE(adapter.last_report().ok()) << "frame " << f;
        ++t.frames;
        for (const auto& b : driver.bodies) t.asleep += b->getActivationState() == ISLAND_SLEEPING && !b->isStaticObject();

        // The pair caches: ours equals brute force; the dbvt's (fat, removed lazily) holds them.
        const std::set<IndexPair> want = pairs_of(w[brute]->broadphase->getOverlappingPairCache());
        EXPECT_EQ(pairs_of(w[ours]->broadphase->getOverlappingPairCache()), want) << "frame " << f;
        const std::set<IndexPair> fat = pairs_of(w[dbvt]->broadphase->getOverlappingPairCache());
        EXPECT_TRUE(std::includes(fat.begin(), fat.end(), want.begin(), want.end())) << "frame " << f;
        t.pairs += static_cast<long long>(want.size());

        // Ghosts: the same overlapping objects as brute force (the dbvt's hold them), the same touches.
        for (int g = 0; g < kGhosts; ++g) {
            const std::set<int> o = ghost_overlaps(*w[brute], g);
            EXPECT_EQ(ghost_overlaps(*w[ours], g), o) << "frame " << f << ", ghost " << g;
            const std::set<int> od = ghost_overlaps(*w[dbvt], g);
            EXPECT_TRUE(std::includes(od.begin(), od.end(), o.begin(), o.end())) << "frame " << f << ", ghost " << g << " (dbvt)";
            const std::set<int> touch = ghost_touches(*w[brute], g);
            EXPECT_EQ(ghost_touches(*w[ours], g), touch) << "frame " << f << ", ghost " << g;
            EXPECT_EQ(ghost_touches(*w[dbvt], g), touch) << "frame " << f << ", ghost " << g << " (dbvt)";
            t.ghost_overlaps += static_cast<long long>(o.size());
            t.ghost_touches += static_cast<long long>(touch.size());
        }

        // The character walks +x over the steps: the same path in every world.
        for (int k = 0; k < 3; ++k) {
            w[k]->character->setWalkDirection(btVector3(btScalar(0.06), 0, 0));
            w[k]->character->updateAction(w[k]->world.get(), kStep);
        }
        const btVector3 pb = w[brute]->character_ghost->getWorldTransform().getOrigin();
        const btVector3 po = w[ours]->character_ghost->getWorldTransform().getOrigin();
        const btVector3 pd = w[dbvt]->character_ghost->getWorldTransform().getOrigin();
        EXPECT_EQ(po, pb) << "frame " << f << ": character at " << po.x() << " " << po.y() << " " << po.z() << ", brute force's at "
                          << pb.x() << " " << pb.y() << " " << pb.z();
        t.character_vs_dbvt = std::max(t.character_vs_dbvt, double((pd - pb).length()));
        EXPECT_LE((pd - pb).length(), btScalar(1e-4)) << "frame " << f << ": dbvt's character at " << pd.x() << " " << pd.y() << " "
                                                     << pd.z();
        highest = std::max(highest, po.y());

        if (f % kQueryEvery == 0) compare_frame(w, shapes, rng, f, t);
        if (::testing::Test::HasFailure()) break;  // one frame's report is enough
    }
    t.character_run = double(w[ours]->character_ghost->getWorldTransform().getOrigin().x() - start[ours].x());
    t.character_rise = double(highest - start[ours].y());
    EXPECT_EQ(t.frames, kFrames);
    EXPECT_GT(t.ray_hits, 100);
    EXPECT_GT(t.sweep_hits, 20);
    EXPECT_GT(t.box_hits, 100);
    EXPECT_GT(t.contacts, 0);
    EXPECT_GT(t.ghost_touches, 0);
    EXPECT_GT(t.asleep, 0);
    EXPECT_GT(t.character_run, 2.0);    // it walked
    EXPECT_GT(t.character_rise, 0.3);   // and climbed the steps
    std::printf("queries: %d frames of %zu objects, %lld pairs; %lld rays (%lld hits, %lld candidates), %lld sweeps (%lld hits), "
                "%lld box queries (%lld hits), contactTest %lld points, contactPairTest %lld; ghosts %lld overlaps, %lld touches; "
                "character ran %.2f m, rose %.2f m, farthest from dbvt's %.2g m; %lld body-frames asleep\n",
                t.frames, specs.size(), t.pairs, t.rays, t.ray_hits, t.candidates, t.sweeps, t.sweep_hits, t.box_queries, t.box_hits,
                t.contacts, t.pair_contacts, t.ghost_overlaps, t.ghost_touches, t.character_run, t.character_rise, t.character_vs_dbvt,
                t.asleep);
}

/// Issue 27's case as a user met it: one unit box at the origin, rays and
/// small-sphere sweeps straight down onto its top face, ending 0.1 inside it.
TEST(BulletAdapterQueries, ShortRaysAndSweepsHitAUnitBox) {
    for (World which : {dbvt, ours}) {
        btDefaultCollisionConfiguration configuration;
        btCollisionDispatcher dispatcher(&configuration);
        std::unique_ptr<btBroadphaseInterface> bp;
        if (which == dbvt) {
            bp.reset(new btDbvtBroadphase());
        } else {
            bp.reset(new BroadphaseInterface());
        }
        btCollisionWorld world(&dispatcher, bp.get(), &configuration);
        btBoxShape unit(btVector3(btScalar(0.5), btScalar(0.5), btScalar(0.5)));
        btCollisionObject box;
        box.setCollisionShape(&unit);
        box.setUserIndex(0);
        world.addCollisionObject(&box);
        btSphereShape probe(btScalar(0.05));
        for (btScalar len : {btScalar(0.2), btScalar(0.5), btScalar(0.8), btScalar(1), btScalar(1.5), btScalar(5)}) {
            const btVector3 from(0, btScalar(0.4) + len, 0), to(0, btScalar(0.4), 0);
            btCollisionWorld::ClosestRayResultCallback ray(from, to);
            world.rayTest(from, to, ray);
            EXPECT_TRUE(ray.hasHit()) << kWorldName[which] << ": ray of length " << len;
            btTransform a, b;
            a.setIdentity(), b.setIdentity();
            a.setOrigin(from), b.setOrigin(to);
            btCollisionWorld::ClosestConvexResultCallback sweep(from, to);
            world.convexSweepTest(&probe, a, b, sweep);
            EXPECT_TRUE(sweep.hasHit()) << kWorldName[which] << ": sweep of length " << len;
        }
        world.removeCollisionObject(&box);
    }
}

}  // namespace
