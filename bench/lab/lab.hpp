// broadphase-lab: the benchmark lab, beside the `broadphase` CLI
// (tools/broadphase/) and sharing its files, options and frame timing, but
// built with the benchmarks and never installed. What users run is in the
// CLI; here is what measures us against others and the incremental Scene:
// other libraries' broad phases as peers (bench/peers/), motion sequences
// through the Scene's update modes and Bullet's broad phases, move-file
// replays from the Jolt peer, and the particle simulation timed.
#pragma once

#include <string>
#include <vector>

namespace broadphase_cli {

/// broadphase-lab bench SCENE|FILE|SEQUENCE|jolt-moves:FILE|particles:N [options]
int run_lab_bench(const std::vector<std::string>& args);

/// broadphase-lab scenes: the motion sequences and particles:N.
int run_lab_scenes(const std::vector<std::string>& args);

/// The --help text.
const char* lab_usage_text();

/// "broadphase-lab 0.1.0"
std::string lab_version_text();

}  // namespace broadphase_cli
