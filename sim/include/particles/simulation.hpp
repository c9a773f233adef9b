// particles: a 3-D particle simulation built on broadphase. Spheres of
// varied radii in a closed box under gravity; every step the broad phase
// gives the candidate pairs, the narrow phase keeps the pairs whose spheres
// overlap, and one of two contact models acts on them. Three broad phases
// (Config::broad_phase):
//
//   neighbor_list  (default) broadphase::NeighborList, as MD and DEM codes
//                  keep one: a half list of the pairs within r_i + r_j +
//                  skin, rebuilt only when some sphere has moved more than
//                  skin / 2 since the last build (Config::skin); between
//                  builds the step reuses the same candidate pairs and only
//                  checks the displacements (one pass over the positions).
//   spheres        broadphase::SpherePairFinder's grid every step: the
//                  touching pairs straight from the centres and radii.
//   boxes          broadphase::PairFinder every step on the spheres'
//                  bounding boxes rounded outwards to float.
//
// All three give the narrow phase every overlapping pair (it tests the
// current positions, so the list's extra pairs only cost a distance test);
// `broadphase-lab bench particles:N:BROAD` times one against another on the
// same states. The models:
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
// broad phase is the library's periodic one (the NeighborList in an
// orthorhombic PeriodicCell open in y, whose skin test takes the minimum
// image of a displacement, so wrapping is not moving; SpherePairFinder's or
// PeriodicPairFinder's find_pairs with a periodic domain). The floor and
// the ceiling stay walls. The box's x and z sizes are then rounded to floats,
// so that the box broad phase (float boxes) has exactly the same period.
// Everything is deterministic: the same Config gives the same trajectory,
// bit for bit, whatever the thread count (the broad phase's pair order does
// not depend on it, and the contact loop runs on one thread in pair order).
// The broad phases list the pairs in different orders, so two broad phases
// give the same contacts on the same state but not the same trajectory bit
// for bit (the forces are summed in another order; elastic contacts are
// resolved one after another, each on the state the ones before it left).
// Per-particle loops run on the library's threads (its task pool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/neighbor_list.hpp>
#include <broadphase/spheres.hpp>

namespace particles {

enum class Model { elastic, dem };

const char* to_string(Model m);
/// "elastic" or "dem"; false otherwise.
bool parse_model(const std::string& name, Model& out);

/// Where the candidate pairs come from: a neighbour list with a skin (the
/// pairs within reach + skin, kept between rebuilds), the sphere grid every
/// step (touching pairs only) or the box broad phase every step on the
/// spheres' bounding boxes.
enum class BroadPhase { neighbor_list, spheres, boxes };

const char* to_string(BroadPhase b);
/// "neighbor_list", "spheres" or "boxes"; false otherwise.
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
    BroadPhase broad_phase = BroadPhase::neighbor_list;
    /// BroadPhase::neighbor_list's Verlet skin (a length); negative: the
    /// default, r_min (see default_skin in simulation.cpp). 0 rebuilds every
    /// step that moved a sphere.
    double skin = -1;
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
    double broad_ms = 0;        ///< the broad phase (NeighborList::update + its rows into pairs; boxes filled +
                                ///< PairFinder; or SpherePairFinder)
    double total_ms = 0;        ///< the whole step
    std::size_t box_pairs = 0;  ///< the broad phase's pairs (list: within reach + skin; boxes: bounding boxes
                                ///< overlap; spheres: touching)
    std::size_t contacts = 0;   ///< pairs whose spheres overlap
    bool rebuilt = false;       ///< the broad phase searched anew: every step with spheres and boxes, with
                                ///< neighbor_list when the list was rebuilt
};

/// Config::skin's default for radii from r_min: r_min (see simulation.cpp).
double default_skin(double r_min);

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
    /// The neighbour list's skin (BroadPhase::neighbor_list): Config::skin, or its default.
    double skin() const { return skin_; }
    /// Steps whose broad phase searched anew (StepStats::rebuilt) so far:
    /// the list's rebuilds with BroadPhase::neighbor_list, every step otherwise.
    std::uint64_t broad_builds() const { return broad_builds_; }

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
    /// The last step's candidate pairs (the broad phase's, a < b), in its order.
    const std::vector<broadphase::Pair>& candidates() const { return pairs_; }
    const StepStats& last_stats() const { return stats_; }

    /// Runs broad phase `b` on the current state into scratch memory (the
    /// simulation is not changed) and returns its milliseconds; `pairs` its
    /// pair count. For comparing the broad phases on the same states: called
    /// after every step, BroadPhase::neighbor_list keeps a list of its own
    /// that follows the states (rebuilt only when the skin says so).
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
    /// BroadPhase::spheres or boxes into `out`, searched anew: returns true.
    bool find_pairs_with(BroadPhase b, std::vector<broadphase::Pair>& out);
    /// BroadPhase::neighbor_list: `list` updated on the current state, its
    /// rows into `out` when it was rebuilt. True then.
    bool update_list(broadphase::NeighborList& list, std::vector<broadphase::Pair>& out);
    broadphase::NeighborList make_list() const;
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
    double dt_ = 0, k_ = 0, time_ = 0, skin_ = 0;
    int substeps_ = 1;
    std::uint64_t steps_ = 0, broad_builds_ = 0;
    std::vector<double> px_, py_, pz_, vx_, vy_, vz_, r_, m_, inv_m_, fx_, fy_, fz_;
    std::vector<std::uint8_t> contact_;
    broadphase::Boxes boxes_;
    broadphase::PairFinder finder_;
    broadphase::PeriodicPairFinder periodic_finder_;
    broadphase::SpherePairFinder sphere_finder_;
    /// The list of BroadPhase::neighbor_list, and time_broad_phase's own
    /// (both made anew by set_particles: radii may change).
    broadphase::NeighborList list_, scratch_list_;
    /// Whether a pair may be listed more than once (a periodic cell under
    /// twice the largest reach: several images within reach).
    bool list_repeats_ = false;
    std::vector<broadphase::Pair> pairs_, contact_pairs_, scratch_pairs_, scratch_list_pairs_;
    StepStats stats_;
};

}  // namespace particles
