// broadphase bench particles:N[:dem|:elastic][:spheres|:boxes] — the particle
// simulation (sim/) timed as a scene: steps per second and the broad phase's
// share; the other broad phase is timed on the same states after each step.
#pragma once

#include <string>

namespace broadphase_cli {

/// Whether `scene` names the particle simulation ("particles:N", "particles:N:elastic").
bool is_particles_scene(const std::string& scene);

/// Times `steps` steps (0: 100) of the simulation from its starting cloud,
/// after one untimed step; prints a table row or (json) one JSON line.
int run_particles_bench(const std::string& scene, int steps, long long threads, bool json);

}  // namespace broadphase_cli
