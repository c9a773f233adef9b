// A whole particle run with pictures: see demo.hpp.
#include "particles/demo.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

namespace particles {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// 'path' quoted for sh.
std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

bool have_ffmpeg() { return std::system("command -v ffmpeg >/dev/null 2>&1") == 0; }

}  // namespace

RunResult run_particles(const RunSettings& settings, std::FILE* log) {
    namespace fs = std::filesystem;
    const auto t_start = clock_type::now();
    RunResult res;
    std::error_code ec;
    fs::create_directories(settings.out_dir, ec);
    if (ec) throw std::runtime_error("cannot create " + settings.out_dir + ": " + ec.message());
    res.out_dir = fs::absolute(settings.out_dir, ec).lexically_normal().string();
    if (ec) res.out_dir = settings.out_dir;
    const fs::path dir(res.out_dir);

    bool pictures = settings.pictures;
    if (pictures && !png_supported()) {
        pictures = false;
        res.notes.push_back("no pictures: this build has no libpng (install libpng-dev and rebuild)");
    }

    Simulation sim(settings.config);
    const long long steps = settings.steps > 0 ? settings.steps
                                               : std::max(1LL, static_cast<long long>(settings.seconds / sim.dt() + 0.5));
    const int per_frame = sim.substeps_per_frame();
    if (log) {
        const Vec3 b = sim.box();
        std::fprintf(log,
                     "particles: %zu spheres (r %.2f..%.2f), model %s, box %.1f x %.1f x %.1f, dt %.3g s "
                     "(%d steps a frame of %.4g s), %lld steps = %.2f s simulated%s\n",
                     sim.size(), settings.config.r_min, settings.config.r_max, to_string(settings.config.model), b.x,
                     b.y, b.z, sim.dt(), per_frame, settings.config.frame_dt, steps, steps * sim.dt(),
                     settings.config.periodic ? ", periodic in x and z" : "");
        std::fflush(log);
    }

    Image image;
    image.resize(settings.width, settings.height);
    std::vector<float> depth;
    std::vector<StepRecord> records;
    records.reserve(static_cast<std::size_t>(steps));
    double render_total_ms = 0;
    char name[64];
    auto write_frame = [&]() {
        const auto t0 = clock_type::now();
        render(view_of(sim), image, depth);
        std::snprintf(name, sizeof name, "frame_%04d.png", res.frames);
        std::string error;
        if (!write_png((dir / name).string(), image, error, 2)) throw std::runtime_error(error);
        res.last_frame = (dir / name).string();
        ++res.frames;
        render_total_ms += seconds_since(t0) * 1e3;
    };
    std::unique_ptr<ParticleWriter> particle_writer;
    if (!settings.particle_formats.empty())
        particle_writer = std::make_unique<ParticleWriter>(res.out_dir, settings.particle_formats);
    auto on_frame = [&]() {
        if (pictures) write_frame();
        if (particle_writer) particle_writer->write(sim);
    };
    on_frame();

    const bool report = log && settings.progress;
    const bool tty = report && isatty(fileno(log));  // a terminal: one line redrawn; else a line every 5 s
    double last_report = -1;
    for (long long s = 0; s < steps; ++s) {
        const StepStats& st = sim.step();
        records.push_back(StepRecord{st.broad_ms, st.total_ms, st.box_pairs, st.contacts, st.rebuilt});
        res.rebuilds += st.rebuilt ? 1 : 0;
        res.max_box_pairs = std::max(res.max_box_pairs, st.box_pairs);
        res.max_contacts = std::max(res.max_contacts, st.contacts);
        if ((s + 1) % per_frame == 0) on_frame();
        const double elapsed = seconds_since(t_start);
        if (report && (elapsed - last_report >= (tty ? 1.0 : 5.0) || s + 1 == steps)) {
            last_report = elapsed;
            std::fprintf(log, "%s  step %lld/%lld  t=%.2f s  %.1f ms/step (broad phase %.1f)  %zu candidate pairs, %zu contacts  [%.0f s]   ",
                         tty ? "\r" : "", s + 1, steps, sim.time(), st.total_ms, st.broad_ms, st.box_pairs, st.contacts, elapsed);
            if (!tty) std::fprintf(log, "\n");
            std::fflush(log);
        }
    }
    if (tty) std::fprintf(log, "\n");
    if (particle_writer) {
        particle_writer->close();
        res.particle_files = particle_writer->paths();
        res.particle_frames = particle_writer->frames();
    }
    res.steps = steps;
    res.simulated_s = sim.time();
    res.last_contacts = sim.contacts().size();
    res.kinetic_energy = sim.kinetic_energy();
    res.skin = sim.skin();
    double sum_t = 0, sum_b = 0;
    for (const StepRecord& r : records) sum_t += r.total_ms, sum_b += r.broad_ms;
    if (!records.empty()) res.step_ms_mean = sum_t / records.size(), res.broad_ms_mean = sum_b / records.size();
    if (res.frames > 0) res.render_ms_mean = render_total_ms / res.frames;

    // Every step as CSV.
    if (std::FILE* csv = std::fopen((dir / "steps.csv").string().c_str(), "w")) {
        std::fprintf(csv, "step,broad_ms,total_ms,box_pairs,contacts,rebuilt\n");
        for (std::size_t i = 0; i < records.size(); ++i)
            std::fprintf(csv, "%zu,%.4f,%.4f,%zu,%zu,%d\n", i + 1, records[i].broad_ms, records[i].total_ms,
                         records[i].box_pairs, records[i].contacts, records[i].rebuilt ? 1 : 0);
        std::fclose(csv);
    }

    if (pictures) {
        Image plot;
        plot.resize(960, 540);
        char title[160];
        std::snprintf(title, sizeof title, "%zu SPHERES, %s, %lld STEPS", sim.size(),
                      settings.config.model == Model::dem ? "DEM" : "ELASTIC", steps);
        plot_run(records, title, plot);
        std::string error;
        const std::string plot_path = (dir / "plot.png").string();
        if (!write_png(plot_path, plot, error, 6)) throw std::runtime_error(error);
        res.plot = plot_path;

        if (!settings.animation) {
            res.notes.push_back("no animation: turned off");
        } else if (!have_ffmpeg()) {
            res.notes.push_back("no animation: ffmpeg is not installed (the frames are there)");
        } else {
            const std::string frames = shell_quote((dir / "frame_%04d.png").string());
            const std::string mp4 = (dir / "particles.mp4").string(), gif = (dir / "particles.gif").string();
            const std::string quiet = " </dev/null >/dev/null 2>&1";
            const std::string x264 = "ffmpeg -y -loglevel error -framerate 30 -i " + frames +
                                     " -c:v libx264 -pix_fmt yuv420p -crf 22 " + shell_quote(mp4) + quiet;
            const std::string to_gif = "ffmpeg -y -loglevel error -framerate 30 -i " + frames +
                                       " -vf 'fps=15,scale=480:-2:flags=lanczos' " + shell_quote(gif) + quiet;
            if (std::system(x264.c_str()) == 0) res.animation = mp4;
            else if (std::system(to_gif.c_str()) == 0) res.animation = gif;
            else res.notes.push_back("no animation: ffmpeg failed (the frames are there)");
        }
    }
    res.wall_s = seconds_since(t_start);
    return res;
}

}  // namespace particles
