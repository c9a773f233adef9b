// particles: a 3-D particle simulation built on broadphase. Spheres of
// varied radii in a closed box under gravity; every step the broad phase
// gives the candidate pairs, the narrow phase keeps the pairs whose spheres
// overlap, and one of two contact models acts on them. Two broad phases
// (Config::broad_phase): `spheres` (default: broadphase::SpherePairFinder's
// grid, the touching pairs straight from the centres and radii: 2-5x
// faster than boxes on the demo's 100,000 spheres, measured with `broadphase
// bench particles:100000`) or `boxes` (broadphase::PairFinder on the
// spheres' bounding boxes rounded outwards to float). The models:
//
//   elastic  impulse collisions that exchange momentum: an
//            overlapping pair that approaches gets equal and opposite
//            impulses along the line of centres, restitution e (1: kinetic
//            energy kept), then the overlap is split between the two by
//            inverse mass. Walls reflect the normal velocity (times e).
//   dem      the discrete element method's linear spring-dashpot normal
//            contact (as in Taichi's DEM tutorial): force k*overlap + damping on the
//            normal approach speed, never pulling; walls are the same
//            contact (stiffness 2k) against an infinite mass. Symplectic Euler.
//
// Axes: x to the right, y up (gravity -y), z towards the camera. The box is
// [0, size.x] x [0, size.y] x [0, size.z]; no sphere centre ever leaves it.
//
// Config::periodic: the side walls (x and z) are replaced by periodic
// boundaries, as in MD and DEM codes: a sphere leaving through x = size.x
// comes back at x = 0 (centres are wrapped into [0, size) after each
// move), contacts act across the boundary through the minimum image, and the
// broad phase is the library's periodic one (SpherePairFinder's or
// PeriodicPairFinder's find_pairs with a periodic domain). The floor and
// the ceiling stay walls. The box's x and z sizes are then rounded to floats,
// so that the box broad phase (float boxes) has exactly the same period.
// Everything is deterministic: the same Config gives the same trajectory,
// bit for bit, whatever the thread count (the broad phase's pair order does
// not depend on it, and the contact loop runs on one thread in pair order).
// Per-particle loops run on the library's threads (its task pool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/spheres.hpp>

namespace particles {

enum class Model { elastic, dem };

const char* to_string(Model m);
/// "elastic" or "dem"; false otherwise.
bool parse_model(const std::string& name, Model& out);

/// Where the candidate pairs come from: the sphere grid (touching pairs
/// only) or the box broad phase on the spheres' bounding boxes.
enum class BroadPhase { spheres, boxes };

const char* to_string(BroadPhase b);
/// "spheres" or "boxes"; false otherwise.
bool parse_broad_phase(const std::string& name, BroadPhase& out);

struct Vec3 {
    double x = 0, y = 0, z = 0;
};

struct Config {
    std::size_t n = 100000;         ///< particles
    Model model = Model::dem;
    std::uint64_t seed = 1;
    double r_min = 0.5, r_max = 1.0;  ///< radii uniform in [r_min, r_max]
    double density = 1.0;            ///< mass = density * 4/3 pi r^3
    double gravity = 10.0;
    /// The box; zero: sized from n (a tank 4 wide per 1 deep, the settled bed
    /// about a third of its height, the starting cloud up to about 0.8 of it).
    Vec3 size{0, 0, 0};
    double frame_dt = 1.0 / 30.0;    ///< simulated time per frame (a rendered picture)
    /// Steps per frame; 0: as many as stability needs (DEM: a tenth of the
    /// shortest contact duration; elastic: no sphere moves more than a
    /// quarter of the smallest radius per step at the fastest fall speed).
    int substeps = 0;
    // elastic
    double restitution = 1.0;  ///< between spheres and against walls
    // dem
    double stiffness = 0;          ///< k; 0: the settled bed's weight compresses contacts ~8% of r_min
    double damping_ratio = 0.3;    ///< of the critical damping of a contact
    double initial_speed = 1.0;    ///< random initial velocities, each component in [-s, s]
    // broad phase
    unsigned threads = 0;  ///< broad-phase threads (0: all)
    BroadPhase broad_phase = BroadPhase::spheres;
    /// The box broad phase's algorithm (BroadPhase::boxes; with spheres, a
    /// named algorithm makes SpherePairFinder take its box path).
    broadphase::Algorithm algorithm = broadphase::Algorithm::automatic;
    /// Options::min_boxes_per_thread of the broad phase (tests set 1).
    std::size_t min_per_thread = broadphase::Options{}.min_boxes_per_thread;
    /// Periodic side walls: x and z wrap around (see the top of this file).
    bool periodic = false;
};

/// What one step did and cost.
struct StepStats {
    double broad_ms = 0;        ///< the broad phase (boxes filled + PairFinder, or SpherePairFinder)
    double total_ms = 0;        ///< the whole step
    std::size_t box_pairs = 0;  ///< the broad phase's pairs (bounding boxes overlap; spheres: touching)
    std::size_t contacts = 0;   ///< pairs whose spheres overlap
};

class Simulation {
public:
    explicit Simulation(const Config& config);

    /// One step of dt(): broad phase, narrow phase, contact model, integration.
    const StepStats& step();
    /// substeps_per_frame() steps.
    void frame();

    const Config& config() const { return cfg_; }
    std::size_t size() const { return r_.size(); }
    double dt() const { return dt_; }
    int substeps_per_frame() const { return substeps_; }
    double time() const { return time_; }
    std::uint64_t steps() const { return steps_; }
    Vec3 box() const { return box_; }
    double stiffness() const { return k_; }

    const double* x() const { return px_.data(); }
    const double* y() const { return py_.data(); }
    const double* z() const { return pz_.data(); }
    const double* vx() const { return vx_.data(); }
    const double* vy() const { return vy_.data(); }
    const double* vz() const { return vz_.data(); }
    const double* radius() const { return r_.data(); }
    double mass(std::size_t i) const { return m_[i]; }
    /// 1 where the sphere overlapped another sphere in the last step (walls do not count).
    const std::uint8_t* in_contact() const { return contact_.data(); }
    /// The last step's overlapping pairs, in the broad phase's order.
    const std::vector<broadphase::Pair>& contacts() const { return contact_pairs_; }
    const StepStats& last_stats() const { return stats_; }

    /// Runs broad phase `b` on the current state into scratch memory (the
    /// simulation is not changed) and returns its milliseconds; `pairs` its
    /// pair count. For comparing the two broad phases on the same states.
    double time_broad_phase(BroadPhase b, std::size_t& pairs);

    double kinetic_energy() const;
    Vec3 momentum() const;

    /// Replaces the particles (tests): positions, velocities, radii; masses
    /// from the density. dt and the DEM stiffness stay as the Config made them
    /// unless `recompute_dt` (then they are derived anew for these radii).
    void set_particles(const std::vector<Vec3>& position, const std::vector<Vec3>& velocity,
                       const std::vector<double>& radius, bool recompute_dt = true);

private:
    void derive_step();
    void find_pairs();
    void find_pairs_with(BroadPhase b, std::vector<broadphase::Pair>& out);
    void step_elastic();
    void step_dem();
    void clamp_inside(std::size_t i);
    /// The minimum image of a difference d on axis 0 (x) or 2 (z) when
    /// periodic; d itself otherwise. O(1).
    double image(double d, int axis) const;
    template <class Resolve>
    void for_each_contact(Resolve&& resolve);  // the narrow phase both models share

    Config cfg_;
    Vec3 box_;
    double dt_ = 0, k_ = 0, time_ = 0;
    int substeps_ = 1;
    std::uint64_t steps_ = 0;
    std::vector<double> px_, py_, pz_, vx_, vy_, vz_, r_, m_, inv_m_, fx_, fy_, fz_;
    std::vector<std::uint8_t> contact_;
    broadphase::Boxes boxes_;
    broadphase::PairFinder finder_;
    broadphase::PeriodicPairFinder periodic_finder_;
    broadphase::SpherePairFinder sphere_finder_;
    std::vector<broadphase::Pair> pairs_, contact_pairs_, scratch_pairs_;
    StepStats stats_;
};

}  // namespace particles
