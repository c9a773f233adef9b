// particles: a whole run for `broadphase demo` — simulate, render every
// frame to PNG, then an animation (ffmpeg, when installed), a plot of the
// run and a CSV of every step, all in one folder.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "particles/export.hpp"
#include "particles/render.hpp"
#include "particles/simulation.hpp"

namespace particles {

struct RunSettings {
    Config config;
    long long steps = 0;          ///< steps to simulate; 0: `seconds` of simulated time
    double seconds = 3.0;
    std::string out_dir = "particles-out";
    int width = 960, height = 540;  ///< frame size (even, for video encoders)
    bool pictures = true;         ///< frames, animation and plot (needs libpng)
    bool animation = true;        ///< ffmpeg, when on PATH
    bool progress = true;         ///< a progress line on `log`
    /// Particle files for OVITO and ParaView, one frame per picture (export.hpp); none by default.
    std::vector<ParticleFormat> particle_formats;
};

struct RunResult {
    long long steps = 0;
    int frames = 0;                ///< PNG frames written
    double simulated_s = 0;
    double wall_s = 0;             ///< the whole run, pictures included
    double step_ms_mean = 0, broad_ms_mean = 0;  ///< per step
    long long rebuilds = 0;        ///< steps whose broad phase searched anew (StepStats::rebuilt)
    double skin = 0;               ///< the neighbour list's skin (Simulation::skin)
    double render_ms_mean = 0;     ///< per frame: render + PNG
    std::size_t max_box_pairs = 0, max_contacts = 0, last_contacts = 0;
    double kinetic_energy = 0;     ///< at the end
    std::string out_dir;           ///< absolute
    std::string animation;         ///< path, or "" (none made)
    std::string plot;              ///< path, or ""
    std::string last_frame;        ///< path, or ""
    std::vector<std::string> particle_files;  ///< particles.xyz and/or particles.pvd, as asked
    int particle_frames = 0;       ///< frames written to them
    std::vector<std::string> notes;  ///< what was skipped and why
};

/// Runs the simulation as `settings` says, writing into settings.out_dir
/// (created): frame_0000.png ... (one per frame_dt of simulated time, the
/// starting state first), particles.mp4 (or .gif), plot.png, steps.csv,
/// and with settings.particle_formats the particles at the same instants
/// (particles.xyz; particles_0000.vtu ... and particles.pvd).
/// Progress lines go to `log` (null: none). Throws std::runtime_error when
/// the folder cannot be made or a PNG or particle file cannot be written.
RunResult run_particles(const RunSettings& settings, std::FILE* log);

}  // namespace particles
