// Physics checks of the particle simulation (sim/): conservation in a
// two-sphere collision, containment, determinism, a pile at rest, and the
// broad phase's contacts against a brute-force sphere test.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "particles/simulation.hpp"

namespace {

using particles::BroadPhase;
using particles::Config;
using particles::Model;
using particles::Simulation;
using particles::Vec3;

double norm(const Vec3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

/// Two spheres (radii 0.5 and 0.8, so different masses) flying at each
/// other off-centre in a big box without gravity, stepped until they have
/// met and parted.
Simulation two_spheres(Model model, int substeps) {
    Config c;
    c.n = 2;
    c.model = model;
    c.gravity = 0;
    c.size = Vec3{40, 40, 40};
    c.restitution = 1.0;
    c.damping_ratio = 0.0;  // DEM: an undamped spring stores and gives back the energy
    c.stiffness = 2000;
    c.threads = 1;
    c.substeps = substeps;  // 0: the default step
    Simulation sim(c);
    sim.set_particles({{15, 20, 20}, {25, 20.3, 20.2}}, {{3, 0.1, 0}, {-2, 0, -0.1}}, {0.5, 0.8});
    return sim;
}

void check_two_sphere_collision(Model model, double energy_tolerance, int substeps = 0) {
    Simulation sim = two_spheres(model, substeps);
    const Vec3 p0 = sim.momentum();
    const double e0 = sim.kinetic_energy();
    bool met = false;
    for (int s = 0; s < 20000 && !(met && sim.contacts().empty()); ++s) {
        sim.step();
        met = met || !sim.contacts().empty();
    }
    ASSERT_TRUE(met) << "the spheres never collided";
    ASSERT_TRUE(sim.contacts().empty()) << "the spheres never parted";
    const Vec3 p1 = sim.momentum();
    const double e1 = sim.kinetic_energy();
    EXPECT_NEAR(p1.x, p0.x, 1e-9 * norm(p0));
    EXPECT_NEAR(p1.y, p0.y, 1e-9 * norm(p0));
    EXPECT_NEAR(p1.z, p0.z, 1e-9 * norm(p0));
    EXPECT_NEAR(e1, e0, energy_tolerance * e0);
    // Something happened: the lighter sphere turned back.
    EXPECT_LT(sim.vx()[0], 0.0);
}

TEST(Simulation, ElasticCollisionConservesMomentumAndEnergy) { check_two_sphere_collision(Model::elastic, 1e-9); }

TEST(Simulation, UndampedDemCollisionConservesMomentumAndEnergy) {
    // Symplectic Euler through a stiff spring: with the default step (a tenth
    // of the contact duration) the energy comes back to within 2% once the
    // spheres have parted, and the error shrinks with the step.
    check_two_sphere_collision(Model::dem, 2e-2);
    const Simulation coarse = two_spheres(Model::dem, 0);
    check_two_sphere_collision(Model::dem, 2e-3, coarse.substeps_per_frame() * 10);
}

Config small_config(Model model, std::size_t n, std::uint64_t seed = 7) {
    Config c;
    c.n = n;
    c.model = model;
    c.seed = seed;
    c.initial_speed = 8.0;  // a hot start: spheres hit walls and each other hard
    c.threads = 1;
    return c;
}

TEST(Simulation, NoParticleLeavesTheBox) {
    for (Model model : {Model::elastic, Model::dem}) {
        Config c = small_config(model, 1500);
        c.initial_speed = 4.0;
        Simulation sim(c);
        const Vec3 box = sim.box();
        for (int s = 0; s < 400; ++s) {
            sim.step();
            for (std::size_t i = 0; i < sim.size(); ++i) {
                const double r = sim.radius()[i];
                // No centre ever leaves. Surfaces stay inside exactly with the
                // elastic walls; DEM's are springs as soft as the contacts, so a
                // sphere landing at speed sinks in a little (here up to a third
                // of r: the stiffness is set for the weight of the bed).
                const double slack = model == Model::dem ? 0.4 * r : 1e-9;
                ASSERT_TRUE(sim.x()[i] >= 0 && sim.x()[i] <= box.x && sim.y()[i] >= 0 && sim.y()[i] <= box.y &&
                            sim.z()[i] >= 0 && sim.z()[i] <= box.z);
                ASSERT_GE(sim.x()[i] - r, -slack) << to_string(model) << " step " << s << " sphere " << i;
                ASSERT_GE(sim.y()[i] - r, -slack) << to_string(model) << " step " << s << " sphere " << i;
                ASSERT_GE(sim.z()[i] - r, -slack) << to_string(model) << " step " << s << " sphere " << i;
                ASSERT_LE(sim.x()[i] + r, box.x + slack) << to_string(model) << " step " << s << " sphere " << i;
                ASSERT_LE(sim.y()[i] + r, box.y + slack) << to_string(model) << " step " << s << " sphere " << i;
                ASSERT_LE(sim.z()[i] + r, box.z + slack) << to_string(model) << " step " << s << " sphere " << i;
            }
        }
    }
}

TEST(Simulation, SameSeedSameTrajectory) {
    for (BroadPhase broad : {BroadPhase::spheres, BroadPhase::boxes})
        for (Model model : {Model::elastic, Model::dem}) {
            Config a = small_config(model, 1200, 11);
            a.broad_phase = broad;
            a.min_per_thread = 1;  // threads and several tasks at this size
            Config b = a, c = a, other = a;
            b.threads = 2;  // the thread count changes nothing
            c.threads = 3;
            other.seed = 12;
            Simulation sa(a), sb(b), sc(c), so(other);
            for (int s = 0; s < 150; ++s) sa.step(), sb.step(), sc.step(), so.step();
            bool same = true, differs = false;
            for (std::size_t i = 0; i < sa.size(); ++i) {
                for (const Simulation* t : {&sb, &sc})
                    same = same && sa.x()[i] == t->x()[i] && sa.y()[i] == t->y()[i] && sa.z()[i] == t->z()[i] &&
                           sa.vx()[i] == t->vx()[i] && sa.vy()[i] == t->vy()[i] && sa.vz()[i] == t->vz()[i];
                differs = differs || sa.x()[i] != so.x()[i];
            }
            EXPECT_TRUE(same) << to_string(model) << " " << to_string(broad) << ": two runs of one seed differ";
            EXPECT_TRUE(differs) << to_string(model) << " " << to_string(broad) << ": another seed gave the same trajectory";
            EXPECT_EQ(sa.contacts().size(), sb.contacts().size());
            EXPECT_TRUE(sa.contacts() == sc.contacts());
        }
}

TEST(Simulation, ContactsEqualBruteForce) {
    // A DEM step finds its pairs on the positions it starts from: its
    // contacts must be exactly the overlapping spheres of that state, with
    // either broad phase.
    for (BroadPhase broad : {BroadPhase::spheres, BroadPhase::boxes}) {
        Config c = small_config(Model::dem, 800);
        c.broad_phase = broad;
        Simulation sim(c);
        for (int s = 0; s < 120; ++s) sim.step();
        const std::size_t n = sim.size();
        const std::vector<double> x(sim.x(), sim.x() + n), y(sim.y(), sim.y() + n), z(sim.z(), sim.z() + n);
        sim.step();
        std::vector<broadphase::Pair> got = sim.contacts(), want;
        broadphase::sort_pairs(got);
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = i + 1; j < n; ++j) {
                const double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
                const double reach = sim.radius()[i] + sim.radius()[j];
                if (dx * dx + dy * dy + dz * dz < reach * reach) want.push_back({i, j});
            }
        EXPECT_GT(want.size(), 0u);
        EXPECT_TRUE(got == want) << to_string(broad) << ": " << got.size() << " contacts, brute force " << want.size();
        for (std::uint32_t i = 0; i < n; ++i) {
            bool touching = false;
            for (const broadphase::Pair& p : want) touching = touching || p.a == i || p.b == i;
            ASSERT_EQ(sim.in_contact()[i] != 0, touching) << to_string(broad) << ": sphere " << i;
        }
    }
}

TEST(Simulation, SettledPileStaysAtRest) {
    Config c;
    c.n = 300;
    c.model = Model::dem;
    c.threads = 1;
    c.initial_speed = 0.5;
    c.damping_ratio = 0.7;
    Simulation sim(c);
    // Let it fall and settle: run until the kinetic energy per sphere is tiny.
    double mean_mass = 0;
    for (std::size_t i = 0; i < sim.size(); ++i) mean_mass += sim.mass(i) / sim.size();
    const double g = c.gravity, r_min = c.r_min;
    // At rest: kinetic energy per sphere under a billionth of m g r (speeds
    // of about 1e-4 here); normal-only contacts have no friction, so the
    // pile creeps for a while before it stops.
    const double rest_energy = 1e-9 * mean_mass * g * r_min;
    int s = 0, quiet = 0;  // settled: 300 steps in a row under rest_energy
    for (; s < 30000 && quiet < 300; ++s) {
        sim.step();
        quiet = sim.kinetic_energy() / sim.size() < rest_energy ? quiet + 1 : 0;
    }
    ASSERT_LT(sim.kinetic_energy() / sim.size(), rest_energy) << "not settled after " << s << " steps";
    ASSERT_GT(sim.contacts().size(), sim.size() / 2) << "no pile";
    // At rest it stays: over a further second nothing moves by more than a
    // thousandth of the smallest radius, and the energy stays down.
    const std::vector<double> x(sim.x(), sim.x() + sim.size()), y(sim.y(), sim.y() + sim.size()),
        z(sim.z(), sim.z() + sim.size());
    const int second = static_cast<int>(1.0 / sim.dt());
    double max_energy = 0;
    for (int k = 0; k < second; ++k) {
        sim.step();
        max_energy = std::max(max_energy, sim.kinetic_energy() / sim.size());
    }
    double max_move = 0;
    for (std::size_t i = 0; i < sim.size(); ++i) {
        const double dx = sim.x()[i] - x[i], dy = sim.y()[i] - y[i], dz = sim.z()[i] - z[i];
        max_move = std::max(max_move, std::sqrt(dx * dx + dy * dy + dz * dz));
    }
    EXPECT_LT(max_move, 1e-3 * r_min);
    EXPECT_LT(max_energy, rest_energy);  // and it gains no energy
}

}  // namespace

namespace {

/// Config::periodic: x and z wrap around. Contacts are the overlapping
/// pairs under the minimum image (brute force), with either broad phase and
/// model; centres stay in [0, L) on x and z; and with no side walls the
/// horizontal momentum is conserved (contact forces are equal and opposite,
/// the floor pushes along y only).
TEST(Simulation, PeriodicSideWalls) {
    for (BroadPhase broad : {BroadPhase::spheres, BroadPhase::boxes})
        for (Model model : {Model::dem, Model::elastic}) {
            Config c = small_config(model, 800);
            c.broad_phase = broad;
            c.periodic = true;
            Simulation sim(c);
            const Vec3 box = sim.box();
            ASSERT_EQ(box.x, static_cast<double>(static_cast<float>(box.x)));
            const Vec3 p0 = sim.momentum();
            bool across = false;  // some contact acted across a periodic boundary
            for (int s = 0; s < 150; ++s) {
                const std::size_t n = sim.size();
                const std::vector<double> x(sim.x(), sim.x() + n), y(sim.y(), sim.y() + n), z(sim.z(), sim.z() + n);
                sim.step();
                for (std::size_t i = 0; i < n; ++i) {
                    ASSERT_TRUE(sim.x()[i] >= 0 && sim.x()[i] < box.x && sim.z()[i] >= 0 && sim.z()[i] < box.z)
                        << to_string(model) << " " << to_string(broad) << " step " << s << " sphere " << i;
                }
                if (model != Model::dem || s % 30 != 29) continue;
                // DEM finds its pairs on the state the step starts from.
                std::vector<broadphase::Pair> got = sim.contacts(), want;
                broadphase::sort_pairs(got);
                auto image = [](double d, double L) { return d - L * std::round(d / L); };
                for (std::uint32_t i = 0; i < n; ++i)
                    for (std::uint32_t j = i + 1; j < n; ++j) {
                        const double dx = image(x[j] - x[i], box.x), dy = y[j] - y[i], dz = image(z[j] - z[i], box.z);
                        const double reach = sim.radius()[i] + sim.radius()[j];
                        if (dx * dx + dy * dy + dz * dz < reach * reach) {
                            want.push_back({i, j});
                            across = across || std::abs(x[j] - x[i]) > box.x / 2 || std::abs(z[j] - z[i]) > box.z / 2;
                        }
                    }
                EXPECT_TRUE(got == want) << to_string(broad) << " step " << s << ": " << got.size()
                                         << " contacts, brute force " << want.size();
            }
            if (model == Model::dem) {
                EXPECT_TRUE(across) << to_string(broad) << ": no contact across the boundary";
            }
            const Vec3 p1 = sim.momentum();
            const double scale = norm(p0) + 1;
            EXPECT_NEAR(p1.x, p0.x, 1e-9 * scale) << to_string(model) << " " << to_string(broad);
            EXPECT_NEAR(p1.z, p0.z, 1e-9 * scale) << to_string(model) << " " << to_string(broad);
        }
}

}  // namespace
