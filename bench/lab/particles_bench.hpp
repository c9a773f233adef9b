// broadphase-lab bench particles:N[:dem|:elastic][:BROAD[:OTHER]] — the particle
// simulation (sim/) timed as a scene: steps per second and the broad phase's
// share with BROAD (neighbor_list, the default, spheres or boxes); OTHER
// (default spheres, or neighbor_list when BROAD is spheres) is timed on the
// same states after each step.
#pragma once

#include <string>

namespace broadphase_cli {

/// Whether `scene` names the particle simulation ("particles:N", "particles:N:elastic").
bool is_particles_scene(const std::string& scene);

/// Times `steps` steps (0: 100) of the simulation from its starting cloud,
/// after one untimed step; prints a table row or (json) one JSON line.
int run_particles_bench(const std::string& scene, int steps, long long threads, bool json);

}  // namespace broadphase_cli
