// broadphase_bullet_worlds: whole Bullet worlds stepped on three broad
// phases, as a user of the Bullet adapter (docs/bullet.md) would swap it in:
// Bullet's btDbvtBroadphase (its default), its sweep and prune
// (bt32BitAxisSweep3) and ours (broadphase::bullet::BroadphaseInterface),
// exact ("ours") and with fat pairs ("ours-fat": the pairs of boxes grown
// by the scene's margin, 0.1, as btDbvtBroadphase's cache holds).
//
//   broadphase_bullet_worlds [--world boxes|spheres|field|all] [--broadphase dbvt|sap|ours|ours-fat|all]
//                            [--steps S] [--json]
//
// The worlds, in the style of Bullet's own benchmark demos (one
// btDiscreteDynamicsWorld each, default configuration, sequential impulse
// solver, steps of 1/60 s with no substeps), on a static ground box:
// - boxes:   3,000 unit boxes in a 15 x 15 x 14 lattice (0.1 apart) that
//            falls onto the ground into a pile;
// - spheres: 10,000 spheres (radius 0.5) in a column 10 x 10 x 100 high,
//            poured into a bin of four static walls;
// - field:   20,000 unit boxes resting on the ground 1 apart in a 142 x 142
//            field (at rest from the start: Bullet puts them to sleep).
// Per broad phase and world: the median and mean ms of a whole step, and of
// its broad phase (btCollisionWorld::updateAabbs, which hands Bullet's boxes
// to the broad phase, plus computeOverlappingPairs), and, to check that the
// worlds come out alike, the bodies' mean height, the highest one and the
// sleeping ones after the last step (the broad phases give the solver the
// same contacts in other orders, so the piles match in their statistics,
// not body by body).
#include <broadphase/bullet/broadphase_interface.hpp>

#include <btBulletDynamicsCommon.h>
#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

/// A dynamics world that times its broad phase's share of each step.
class TimedWorld : public btDiscreteDynamicsWorld {
public:
    using btDiscreteDynamicsWorld::btDiscreteDynamicsWorld;
    double broadphase_ms = 0;  // since the last reset
    double pairs_ms = 0;       // of which computeOverlappingPairs (the broad phase's own work)
    void updateAabbs() override {
        const auto t0 = clock_type::now();
        btDiscreteDynamicsWorld::updateAabbs();
        broadphase_ms += ms_since(t0);
    }
    void computeOverlappingPairs() override {
        const auto t0 = clock_type::now();
        btDiscreteDynamicsWorld::computeOverlappingPairs();
        const double ms = ms_since(t0);
        broadphase_ms += ms;
        pairs_ms += ms;
    }
};

struct Result {
    std::string world, broadphase;
    std::size_t bodies = 0;
    int steps = 0;
    double step_median = 0, step_mean = 0, bp_median = 0, bp_mean = 0, pairs_median = 0, pairs_mean = 0;
    double mean_height = 0, top = 0;
    std::size_t sleeping = 0, pairs = 0;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

Result run(const std::string& world_name, const std::string& bp_name, int steps) {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    btSequentialImpulseConstraintSolver solver;
    std::unique_ptr<btBroadphaseInterface> broadphase;
    if (bp_name == "dbvt") broadphase = std::make_unique<btDbvtBroadphase>();
    else if (bp_name == "sap") broadphase = std::make_unique<bt32BitAxisSweep3>(btVector3(-500, -50, -500), btVector3(500, 500, 500), 100000);
    else {
        auto ours = std::make_unique<broadphase::bullet::BroadphaseInterface>();
        if (bp_name == "ours-fat") ours->scene().set_fat_pairs(true);  // pairs of boxes grown by its margin, as dbvt's
        broadphase = std::move(ours);
    }
    TimedWorld world(&dispatcher, broadphase.get(), &solver, &configuration);
    world.setGravity(btVector3(0, -9.81f, 0));

    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btMotionState>> states;
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    auto add = [&](btCollisionShape* shape, const btVector3& at, btScalar mass) {
        btVector3 inertia(0, 0, 0);
        if (mass > 0) shape->calculateLocalInertia(mass, inertia);
        states.push_back(std::make_unique<btDefaultMotionState>(btTransform(btQuaternion::getIdentity(), at)));
        btRigidBody::btRigidBodyConstructionInfo info(mass, states.back().get(), shape, inertia);
        bodies.push_back(std::make_unique<btRigidBody>(info));
        world.addRigidBody(bodies.back().get());
    };
    auto shape = [&](btCollisionShape* s) {
        shapes.emplace_back(s);
        return s;
    };
    btCollisionShape* ground = shape(new btBoxShape(btVector3(400, 1, 400)));
    add(ground, btVector3(0, -1, 0), 0);
    std::size_t dynamic = 0;
    if (world_name == "boxes") {
        btCollisionShape* box = shape(new btBoxShape(btVector3(0.5f, 0.5f, 0.5f)));
        for (int y = 0; y < 14; ++y)
            for (int x = 0; x < 15; ++x)
                for (int z = 0; z < 15 && dynamic < 3000; ++z, ++dynamic)
                    add(box, btVector3(1.1f * (x - 7), 0.6f + 1.1f * y, 1.1f * (z - 7)), 1);
    } else if (world_name == "spheres") {
        btCollisionShape* ball = shape(new btSphereShape(0.5f));
        btCollisionShape* wall = shape(new btBoxShape(btVector3(0.5f, 20, 12)));
        btCollisionShape* wall2 = shape(new btBoxShape(btVector3(12, 20, 0.5f)));
        add(wall, btVector3(-12, 20, 0), 0), add(wall, btVector3(12, 20, 0), 0);
        add(wall2, btVector3(0, 20, -12), 0), add(wall2, btVector3(0, 20, 12), 0);
        for (int y = 0; y < 100; ++y)
            for (int x = 0; x < 10; ++x)
                for (int z = 0; z < 10; ++z, ++dynamic)
                    add(ball, btVector3(1.05f * (x - 4.5f) + 0.01f * (y % 3), 0.6f + 1.05f * y, 1.05f * (z - 4.5f)), 1);
    } else {
        btCollisionShape* box = shape(new btBoxShape(btVector3(0.5f, 0.5f, 0.5f)));
        for (int x = 0; x < 142; ++x)
            for (int z = 0; z < 142 && dynamic < 20000; ++z, ++dynamic)
                add(box, btVector3(2.0f * (x - 71), 0.5f, 2.0f * (z - 71)), 1);
    }

    std::vector<double> step_ms, bp_ms, pairs_ms;
    for (int s = 0; s < steps; ++s) {
        world.broadphase_ms = world.pairs_ms = 0;
        const auto t0 = clock_type::now();
        world.stepSimulation(btScalar(1) / 60, 0);
        step_ms.push_back(ms_since(t0));
        bp_ms.push_back(world.broadphase_ms);
        pairs_ms.push_back(world.pairs_ms);
    }
    Result r;
    r.world = world_name, r.broadphase = bp_name, r.bodies = dynamic, r.steps = steps;
    r.step_median = median(step_ms), r.bp_median = median(bp_ms), r.pairs_median = median(pairs_ms);
    for (double t : step_ms) r.step_mean += t / steps;
    for (double t : bp_ms) r.bp_mean += t / steps;
    for (double t : pairs_ms) r.pairs_mean += t / steps;
    for (std::size_t i = 1; i < bodies.size(); ++i) {
        const btRigidBody& b = *bodies[i];
        if (b.getInvMass() == 0) continue;
        const double y = b.getCenterOfMassPosition().getY();
        r.mean_height += y / double(dynamic);
        r.top = std::max(r.top, y);
        r.sleeping += b.getActivationState() == ISLAND_SLEEPING;
    }
    r.pairs = static_cast<std::size_t>(broadphase->getOverlappingPairCache()->getNumOverlappingPairs());
    for (auto& b : bodies) world.removeRigidBody(b.get());
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    std::string which = "all", which_bp = "all";
    int steps = 300;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--world" && i + 1 < argc) which = argv[++i];
        else if (a == "--steps" && i + 1 < argc) steps = std::max(1, std::atoi(argv[++i]));
        else if (a == "--broadphase" && i + 1 < argc) which_bp = argv[++i];
        else if (a == "--json") json = true;
        else {
            std::fprintf(stderr, "usage: broadphase_bullet_worlds [--world boxes|spheres|field|all] "
                                 "[--broadphase dbvt|sap|ours|ours-fat|all] [--steps S] [--json]\n");
            return 2;
        }
    }
    std::vector<std::string> worlds;
    for (const char* w : {"boxes", "spheres", "field"})
        if (which == "all" || which == w) worlds.push_back(w);
    if (worlds.empty()) {
        std::fprintf(stderr, "broadphase_bullet_worlds: unknown world '%s' (boxes, spheres, field, all)\n", which.c_str());
        return 2;
    }
    if (!json)
        std::printf("%-8s %-8s %7s %6s %10s %10s %10s %10s %10s %10s %9s %9s %9s %8s\n", "world", "bp", "bodies", "steps",
                    "step ms", "step mean", "bp ms", "bp mean", "pairs ms", "pairs mean", "mean y", "top y", "sleeping",
                    "pairs");
    for (const std::string& w : worlds)
        for (const char* bp : {"dbvt", "sap", "ours", "ours-fat"}) {
            if (which_bp != "all" && which_bp != bp) continue;
            const Result r = run(w, bp, steps);
            if (json)
                std::printf("{\"world\":\"%s\",\"broadphase\":\"%s\",\"bodies\":%zu,\"steps\":%d,\"step_median_ms\":%.4f,"
                            "\"step_mean_ms\":%.4f,\"bp_median_ms\":%.4f,\"bp_mean_ms\":%.4f,\"pairs_median_ms\":%.4f,"
                            "\"pairs_mean_ms\":%.4f,\"mean_height\":%.4f,\"top\":%.4f,\"sleeping\":%zu,\"pairs\":%zu}\n",
                            r.world.c_str(), r.broadphase.c_str(), r.bodies, r.steps, r.step_median, r.step_mean,
                            r.bp_median, r.bp_mean, r.pairs_median, r.pairs_mean, r.mean_height, r.top, r.sleeping, r.pairs);
            else
                std::printf("%-8s %-8s %7zu %6d %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %9.3f %9.3f %9zu %8zu\n",
                            r.world.c_str(), r.broadphase.c_str(), r.bodies, r.steps, r.step_median, r.step_mean,
                            r.bp_median, r.bp_mean, r.pairs_median, r.pairs_mean, r.mean_height, r.top, r.sleeping,
                            r.pairs);
            std::fflush(stdout);
        }
    return 0;
}
