// Physics checks of the particle simulation (sim/): conservation in a
// two-sphere collision, containment, determinism, a pile at rest, the
// broad phases' contacts against a brute-force sphere test and against each
// other, and the neighbour list's skin (kept lists, the same contacts).
#include <gtest/gtest.h>

#include <algorithm>
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

constexpr BroadPhase all_broad_phases[] = {BroadPhase::neighbor_list, BroadPhase::spheres, BroadPhase::boxes};

TEST(Simulation, SameSeedSameTrajectory) {
    // Within one broad phase a run is the same bit for bit at any thread
    // count, open or periodic. Across broad phases it is not (the pairs come
    // in another order: see BroadPhasesFindTheSameContacts).
    for (bool periodic : {false, true})
    for (BroadPhase broad : all_broad_phases)
        for (Model model : {Model::elastic, Model::dem}) {
            Config a = small_config(model, 1200, 11);
            a.broad_phase = broad;
            a.periodic = periodic;
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
            const char* where = periodic ? " periodic" : " open";
            EXPECT_TRUE(same) << to_string(model) << " " << to_string(broad) << where
                              << ": two runs of one seed differ";
            EXPECT_TRUE(differs) << to_string(model) << " " << to_string(broad) << where
                                 << ": another seed gave the same trajectory";
            EXPECT_EQ(sa.contacts().size(), sb.contacts().size());
            EXPECT_TRUE(sa.contacts() == sc.contacts());
        }
}

TEST(Simulation, ContactsEqualBruteForce) {
    // A DEM step finds its pairs on the positions it starts from: its
    // contacts must be exactly the overlapping spheres of that state, with
    // every broad phase (the neighbour list on steps that kept it too).
    for (BroadPhase broad : all_broad_phases) {
        Config c = small_config(Model::dem, 800);
        c.broad_phase = broad;
        Simulation sim(c);
        for (int s = 0; s < 120; ++s) sim.step();
        const int checked = broad == BroadPhase::neighbor_list ? 20 : 1;
        int kept = 0;
        for (int k = 0; k < checked; ++k) {
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
            EXPECT_TRUE(got == want) << to_string(broad) << ": " << got.size() << " contacts, brute force "
                                     << want.size();
            for (std::uint32_t i = 0; i < n; ++i) {
                bool touching = false;
                for (const broadphase::Pair& p : want) touching = touching || p.a == i || p.b == i;
                ASSERT_EQ(sim.in_contact()[i] != 0, touching) << to_string(broad) << ": sphere " << i;
            }
            kept += sim.last_stats().rebuilt ? 0 : 1;
        }
        if (broad == BroadPhase::neighbor_list) {
            EXPECT_GT(kept, 0) << "the list was rebuilt on every step checked";
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

/// The positions, velocities and radii of `sim`, to load into another
/// Simulation (set_particles) as the same state.
struct State {
    std::vector<Vec3> position, velocity;
    std::vector<double> radius;
};
State state_of(const Simulation& sim) {
    State st;
    for (std::size_t i = 0; i < sim.size(); ++i) {
        st.position.push_back({sim.x()[i], sim.y()[i], sim.z()[i]});
        st.velocity.push_back({sim.vx()[i], sim.vy()[i], sim.vz()[i]});
        st.radius.push_back(sim.radius()[i]);
    }
    return st;
}
void load(Simulation& sim, const State& st) { sim.set_particles(st.position, st.velocity, st.radius, false); }

std::vector<broadphase::Pair> sorted_contacts(const Simulation& sim) {
    std::vector<broadphase::Pair> v = sim.contacts();
    broadphase::sort_pairs(v);
    return v;
}

TEST(Simulation, BroadPhasesFindTheSameContacts) {
    // Bit for bit the same trajectory across broad phases is not to be
    // expected: each lists the pairs in its own order, and the contact loop
    // follows it (DEM sums the forces in that order, so the last bits
    // differ; elastic resolves contacts one after another, each on the state
    // the ones before it left, and a pair pushed into overlap in the loop
    // counts only if the broad phase listed it, which a list with a skin
    // does more often). What is expected: on the same state a DEM step finds
    // the same contacts with all three, and moves the spheres alike to
    // rounding. States from a neighbour-list run, open and periodic.
    for (bool periodic : {false, true}) {
        Config c = small_config(Model::dem, 800);
        c.periodic = periodic;
        c.broad_phase = BroadPhase::neighbor_list;
        Simulation run(c);
        Config cs = c, cb = c;
        cs.broad_phase = BroadPhase::spheres;
        cb.broad_phase = BroadPhase::boxes;
        Simulation list(c), spheres(cs), boxes(cb);
        for (int s = 1; s <= 150; ++s) {
            run.step();
            if (s % 25 != 0) continue;
            const State st = state_of(run);
            for (Simulation* t : {&list, &spheres, &boxes}) load(*t, st), t->step();
            const std::vector<broadphase::Pair> want = sorted_contacts(list);
            EXPECT_GT(want.size(), 0u);
            EXPECT_TRUE(sorted_contacts(spheres) == want) << "step " << s << (periodic ? " periodic" : " open");
            EXPECT_TRUE(sorted_contacts(boxes) == want) << "step " << s << (periodic ? " periodic" : " open");
            double worst = 0;
            for (const Simulation* t : {&spheres, &boxes})
                for (std::size_t i = 0; i < list.size(); ++i)
                    worst = std::max({worst, std::abs(t->x()[i] - list.x()[i]), std::abs(t->y()[i] - list.y()[i]),
                                      std::abs(t->z()[i] - list.z()[i])});
            EXPECT_LT(worst, 1e-9) << "step " << s << (periodic ? " periodic" : " open");
        }
    }
}

TEST(Simulation, NeighborListSkinKeepsTheContacts) {
    // With a skin the list is kept over several steps and still gives the
    // contacts a list without one (rebuilt on every step) gives on the same
    // states: a hot start of 800 spheres, open and periodic.
    for (bool periodic : {false, true}) {
        Config c = small_config(Model::dem, 800);
        c.periodic = periodic;
        Config c0 = c;
        c0.skin = 0;
        Simulation sim(c), bare(c0);
        ASSERT_EQ(sim.skin(), c.r_min);  // the default
        ASSERT_EQ(bare.skin(), 0.0);
        int kept = 0;
        const int steps = 150;
        for (int s = 0; s < steps; ++s) {
            load(bare, state_of(sim));
            sim.step(), bare.step();
            ASSERT_TRUE(bare.last_stats().rebuilt);
            kept += sim.last_stats().rebuilt ? 0 : 1;
            ASSERT_TRUE(sorted_contacts(sim) == sorted_contacts(bare))
                << "step " << s << (periodic ? " periodic" : " open") << ": " << sim.contacts().size() << " against "
                << bare.contacts().size();
            ASSERT_GE(sim.candidates().size(), bare.candidates().size());
        }
        EXPECT_EQ(sim.broad_builds(), static_cast<std::uint64_t>(steps - kept));
        EXPECT_GT(kept, steps / 2) << (periodic ? "periodic" : "open") << ": rebuilt on " << steps - kept << " of "
                                   << steps << " steps";
    }
}

TEST(Simulation, NeighborListKeptInASettledPile) {
    // A settled pile hardly moves: its list is kept (at most one rebuild
    // over half a second), and its contacts are those of a list with no skin
    // (rebuilt whenever a sphere moved) on the same states.
    Config c;
    c.n = 300;
    c.model = Model::dem;
    c.threads = 1;
    c.initial_speed = 0.5;
    c.damping_ratio = 0.7;
    Simulation sim(c);
    // Settled as in SettledPileStaysAtRest: 300 steps in a row with a kinetic
    // energy per sphere under a billionth of m g r_min.
    double mean_mass = 0;
    for (std::size_t i = 0; i < sim.size(); ++i) mean_mass += sim.mass(i) / sim.size();
    const double rest_energy = 1e-9 * mean_mass * c.gravity * c.r_min;
    for (int s = 0, quiet = 0; s < 30000 && quiet < 300; ++s) {
        sim.step();
        quiet = sim.kinetic_energy() / sim.size() < rest_energy ? quiet + 1 : 0;
    }
    ASSERT_LT(sim.kinetic_energy() / sim.size(), rest_energy) << "not settled";
    ASSERT_GT(sim.contacts().size(), sim.size() / 2) << "no pile";
    Config c0 = c;
    c0.skin = 0;
    Simulation bare(c0);
    load(bare, state_of(sim));
    const std::uint64_t before = sim.broad_builds();
    const int steps = static_cast<int>(0.5 / sim.dt());
    for (int s = 0; s < steps; ++s) {
        if (s % 10 == 0) {  // the same state now and then (bare's own run otherwise)
            load(bare, state_of(sim));
            sim.step(), bare.step();
            ASSERT_TRUE(sorted_contacts(sim) == sorted_contacts(bare)) << "step " << s;
        } else {
            sim.step(), bare.step();
        }
    }
    EXPECT_LE(sim.broad_builds() - before, 1u) << "a settled pile rebuilt its list on "
                                               << sim.broad_builds() - before << " of " << steps << " steps";
}

TEST(Simulation, NeighborListInANarrowPeriodicCell) {
    // A periodic side under twice the reach (here 4.5 and 2.3 against a
    // reach of up to 2 + 0.5): the list holds some pairs at two images and
    // spheres with their own image. The candidates are still each pair once
    // (a < b), and the contacts those of brute force under the minimum image.
    Config c = small_config(Model::dem, 24);
    c.periodic = true;
    c.size = Vec3{4.5, 40, 2.3};
    Simulation sim(c);
    const Vec3 box = sim.box();
    auto image = [](double d, double L) { return d - L * std::round(d / L); };
    std::size_t most = 0;
    for (int s = 0; s < 400; ++s) {
        const std::size_t n = sim.size();
        const std::vector<double> x(sim.x(), sim.x() + n), y(sim.y(), sim.y() + n), z(sim.z(), sim.z() + n);
        sim.step();
        std::vector<broadphase::Pair> cand = sim.candidates();
        for (const broadphase::Pair& p : cand) ASSERT_LT(p.a, p.b) << "step " << s;
        broadphase::sort_pairs(cand);
        ASSERT_TRUE(std::adjacent_find(cand.begin(), cand.end()) == cand.end()) << "step " << s << ": a pair twice";
        std::vector<broadphase::Pair> want;
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = i + 1; j < n; ++j) {
                const double dx = image(x[j] - x[i], box.x), dy = y[j] - y[i], dz = image(z[j] - z[i], box.z);
                const double reach = sim.radius()[i] + sim.radius()[j];
                if (dx * dx + dy * dy + dz * dz < reach * reach) want.push_back({i, j});
            }
        ASSERT_TRUE(sorted_contacts(sim) == want) << "step " << s << ": " << sim.contacts().size()
                                                  << " contacts, brute force " << want.size();
        most = std::max(most, want.size());
    }
    EXPECT_GT(most, 0u);
}

TEST(Simulation, NeighborListSameOnTwoThreads) {
    // The list takes a thread per so many spheres (8,192 now, neighbor_list.hpp):
    // at 70,000 it runs on two, and its candidates (order included) and the
    // trajectory are the same as on one, open and periodic.
    for (bool periodic : {false, true}) {
        Config a = small_config(Model::dem, 70000, 5);
        a.periodic = periodic;
        Config b = a;
        b.threads = 2;
        Simulation sa(a), sb(b);
        for (int s = 0; s < 3; ++s) {
            sa.step(), sb.step();
            ASSERT_TRUE(sa.candidates() == sb.candidates()) << "step " << s << (periodic ? " periodic" : " open");
        }
        bool same = true;
        for (std::size_t i = 0; i < sa.size(); ++i)
            same = same && sa.x()[i] == sb.x()[i] && sa.y()[i] == sb.y()[i] && sa.z()[i] == sb.z()[i];
        EXPECT_TRUE(same) << (periodic ? "periodic" : "open");
        EXPECT_GT(sa.candidates().size(), 0u);
    }
}

}  // namespace

namespace {

/// Config::periodic: x and z wrap around. Contacts are the overlapping
/// pairs under the minimum image (brute force), with every broad phase and
/// model; centres stay in [0, L) on x and z; and with no side walls the
/// horizontal momentum is conserved (contact forces are equal and opposite,
/// the floor pushes along y only).
TEST(Simulation, PeriodicSideWalls) {
    for (BroadPhase broad : all_broad_phases)
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
