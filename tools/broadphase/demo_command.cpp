// broadphase demo: the main job. With no arguments,
//   1. the five challenges of the article "Simple Fast Adaptive Grid to
//      Accelerate Collision Detection between AABB of Particles" (CodeProject,
//      2022; "the article" below) met with this library, each answer checked
//      against brute force, in one table beside the article's published figures;
//   2. the particle simulation (sim/): 100,000 spheres falling into a pile,
//      rendered to PNG frames, an animation (ffmpeg, when installed), a plot
//      of the run, in a folder named at the end.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/brute_force.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "particles/demo.hpp"

#if __has_include("narrow_phase.hpp")
#include "narrow_phase.hpp"  // examples/pointclouds: the point-cloud narrow phases
#define BROADPHASE_DEMO_POINTCLOUDS 1
#endif

#ifdef BROADPHASE_WITH_CUDA
#include <broadphase/cuda/pair_finder.hpp>
#endif

#include "args.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "timing.hpp"

namespace broadphase_cli {
namespace {

using broadphase::Pair;

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string with_commas(std::uint64_t v) {
    std::string s = std::to_string(v), out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i && (s.size() - i) % 3 == 0) out += ',';
        out += s[i];
    }
    return out;
}

struct Row {
    std::string challenge, scene, n, pairs, ours, fps, article, hardware;
    int checked = -1;  ///< -1 not run, 0 differs from brute force, 1 equal
};

void check_ok(const broadphase::Report& r, const char* what) {
    if (!r.ok()) throw CliError(std::string(what) + " failed: " + broadphase::to_string(r.status));
}

/// The brute-force answer, sorted, on all threads (it is the oracle, not timed).
std::vector<Pair> brute_pairs(const broadphase::Boxes& boxes) {
    broadphase::BruteForce brute;
    broadphase::Options o;
    o.sorted = true;
    std::vector<Pair> out;
    check_ok(brute.find_pairs(boxes, out, o), "brute force");
    return out;
}

/// Frames of PairFinder (automatic) on `boxes`: one untimed, then up to
/// `frames` timed ones (stopping after `budget_ms`); the median ms, the
/// pairs checked against brute force.
Row time_scene(const std::string& name, const broadphase::Boxes& boxes, unsigned threads, int frames, double budget_ms) {
    broadphase::PairFinder finder;
    broadphase::Options o;
    o.threads = threads;
    std::vector<Pair> pairs;
    check_ok(finder.find_pairs(boxes, pairs, o), "find_pairs");
    const std::vector<double> times =
        time_repeated(frames, budget_ms, [&] { check_ok(finder.find_pairs(boxes, pairs, o), "find_pairs"); });
    Row row;
    row.scene = name;
    row.n = with_commas(boxes.size());
    row.pairs = with_commas(pairs.size());
    const double ms = median(times);
    row.ours = fmt("%.2f ms", ms) + " (" + broadphase::to_string(finder.last_algorithm()) + ", " +
               std::to_string(threads ? threads : broadphase::default_threads()) + "T)";
    row.fps = fmt("%.0f", 1000.0 / ms);
    broadphase::sort_pairs(pairs);
    row.checked = pairs == brute_pairs(boxes) ? 1 : 0;
    return row;
}

#ifdef BROADPHASE_DEMO_POINTCLOUDS
/// Challenge 1: 10,000 point clouds, broad phase + the lattice narrow phase,
/// one thread. Checked: the broad phase's candidates equal brute force's box
/// pairs, and the colliding pairs equal the article's brute narrow phase (all
/// 125 x 125 point distances) on those candidates.
Row challenge1() {
    namespace pc = pointclouds;
    const broadphase_fixtures::PointClouds clouds = broadphase_fixtures::pointclouds10k_clouds();
    broadphase::PairFinder finder;
    broadphase::Options o;
    o.threads = 1;
    std::vector<Pair> candidates, colliding;
    check_ok(finder.find_pairs(clouds.boxes, candidates, o), "find_pairs");
    pc::colliding_pairs(pc::Narrow::lattice, clouds, candidates, colliding);
    const std::vector<double> times = time_repeated(30, 1500, [&] {
        check_ok(finder.find_pairs(clouds.boxes, candidates, o), "find_pairs");
        pc::colliding_pairs(pc::Narrow::lattice, clouds, candidates, colliding);
    });
    Row row;
    row.scene = "pointclouds10k";
    row.n = with_commas(clouds.size());
    row.pairs = with_commas(colliding.size()) + " colliding";
    const double ms = median(times);
    row.ours = fmt("%.2f ms", ms) + " (broad+narrow, 1T)";
    row.fps = fmt("%.0f", 1000.0 / ms);
    std::vector<Pair> sorted_candidates = candidates;
    broadphase::sort_pairs(sorted_candidates);
    const std::vector<Pair> reference_candidates = brute_pairs(clouds.boxes);
    std::vector<Pair> reference_colliding;
    pc::colliding_pairs(pc::Narrow::brute, clouds, reference_candidates, reference_colliding);
    broadphase::sort_pairs(colliding);
    row.checked = sorted_candidates == reference_candidates && colliding == reference_colliding ? 1 : 0;
    return row;
}
#endif

/// Challenge 2: one box at a time against an Index of the 10,000 point-cloud
/// boxes (each box of the set queried in turn, as the article did), every query
/// timed on its own (the clock's own cost subtracted); the median. Checked:
/// every query's hits against a loop over all boxes.
Row challenge2() {
    const broadphase::Boxes boxes = broadphase_fixtures::pointclouds10k();
    const std::size_t n = boxes.size();
    broadphase::Index index;
    broadphase::Options o;
    o.threads = 1;
    check_ok(index.build(boxes, o), "Index::build");
    std::vector<broadphase::Box> queries(n);
    for (std::size_t i = 0; i < n; ++i) queries[i] = boxes[i];
    // The clock's own cost: the median of back-to-back readings.
    std::vector<double> overhead(10001);
    for (double& d : overhead) {
        const auto t0 = clock_type::now();
        d = std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
    }
    const double clock_ns = median(overhead);
    std::vector<double> samples;
    samples.reserve(3 * n);
    volatile std::uint64_t sink = 0;
    std::uint64_t hits = 0;
    for (int pass = 0; pass < 3; ++pass) {
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t count = 0;
            const auto t0 = clock_type::now();
            index.for_each_overlap(queries[i], [&](std::uint32_t) { ++count; });
            sink = count;
            const auto t1 = clock_type::now();
            samples.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() - clock_ns);
            if (pass == 0) hits += count;
        }
    }
    (void)sink;
    bool equal = true;
    std::vector<std::uint32_t> got;
    for (std::size_t i = 0; i < n && equal; ++i) {
        got.clear();
        index.for_each_overlap(queries[i], [&](std::uint32_t h) { got.push_back(h); });
        std::sort(got.begin(), got.end());
        std::vector<std::uint32_t> want;
        for (std::size_t j = 0; j < n; ++j)
            if (broadphase::overlaps(queries[i], queries[j])) want.push_back(static_cast<std::uint32_t>(j));
        equal = got == want;
    }
    Row row;
    row.scene = "pointclouds10k";
    row.n = "1 vs " + with_commas(n);
    row.pairs = with_commas(hits - n) + " hits";
    const double ns = std::max(0.0, median(samples));
    row.ours = fmt("%.0f ns/query", ns) + " (p50, " + broadphase::to_string(index.algorithm()) + ")";
    row.fps = "-";
    row.checked = equal ? 1 : 0;
    return row;
}

/// Challenge 5: 80,000 boxes on the GPU when there is one (and the CUDA
/// backend is built), else on the CPU's threads. Checked against brute force.
Row challenge5(unsigned threads, std::vector<std::string>& notes) {
    const std::string name = "uniform:80000";
    broadphase::Boxes boxes;
    broadphase_fixtures::make_scene(name, boxes);
#ifdef BROADPHASE_WITH_CUDA
    if (broadphase::cuda::available()) {
        broadphase::cuda::PairFinder gpu;
        std::vector<Pair> pairs;
        check_ok(gpu.find_pairs(boxes, pairs), "gpu find_pairs");
        std::vector<double> times;
        for (int f = 0; f < 30; ++f) {
            const auto t0 = clock_type::now();
            check_ok(gpu.find_pairs(boxes, pairs), "gpu find_pairs");
            times.push_back(elapsed_ms(t0, clock_type::now()));
        }
        Row row;
        row.scene = name;
        row.n = with_commas(boxes.size());
        row.pairs = with_commas(pairs.size());
        const double ms = median(times);
        row.ours = fmt("%.2f ms", ms) + " (GPU, boxes in + pairs out)";
        row.fps = fmt("%.0f", 1000.0 / ms);
        broadphase::sort_pairs(pairs);
        row.checked = pairs == brute_pairs(boxes) ? 1 : 0;
        notes.push_back("challenge 5 ran on " + broadphase::cuda::device_name() +
                        " (host boxes to host pairs, copies included; `broadphase bench uniform:80000 --device cuda` "
                        "times the device part alone)");
        return row;
    }
    notes.push_back("challenge 5: the CUDA backend is built but no GPU is present: ran on the CPU");
#else
    notes.push_back("challenge 5: no GPU backend in this build (no CUDA compiler at build time): ran on the CPU, "
                    "all threads");
#endif
    Row row = time_scene(name, boxes, threads, 20, 2000);
    return row;
}

void print_table(const std::vector<Row>& rows) {
    std::size_t w[8] = {9, 5, 1, 5, 4, 12, 14, 7};
    const char* head[8] = {"challenge", "scene", "N", "pairs", "ours (this machine)", "FPS", "the article's figure",
                           "the article's hardware"};
    for (int k = 0; k < 8; ++k) w[k] = std::max(w[k], std::string(head[k]).size());
    for (const Row& r : rows) {
        const std::string* f[8] = {&r.challenge, &r.scene, &r.n, &r.pairs, &r.ours, &r.fps, &r.article, &r.hardware};
        for (int k = 0; k < 8; ++k) w[k] = std::max(w[k], f[k]->size());
    }
    auto print = [&](const std::string* f[8], const char* check) {
        for (int k = 0; k < 8; ++k) std::printf("%-*s  ", static_cast<int>(w[k]), f[k]->c_str());
        std::printf("%s\n", check);
    };
    std::string hs[8];
    const std::string* hp[8];
    for (int k = 0; k < 8; ++k) hs[k] = head[k], hp[k] = &hs[k];
    print(hp, "brute force");
    for (const Row& r : rows) {
        const std::string* f[8] = {&r.challenge, &r.scene, &r.n, &r.pairs, &r.ours, &r.fps, &r.article, &r.hardware};
        print(f, r.checked < 0 ? "-" : r.checked ? "equal" : "DIFFERS");
    }
}

}  // namespace

int run_demo(const std::vector<std::string>& args) {
    const ParsedArgs p = parse_args(args, {{"--particles", "-n", true},
                                           {"--steps", "", true},
                                           {"--seconds", "", true},
                                           {"--model", "", true},
                                           {"--broad-phase", "", true},
                                           {"--skin", "", true},
                                           {"--out", "-o", true},
                                           {"--threads", "", true},
                                           {"--size", "", true},
                                           {"--export", "", true},
                                           {"--periodic", "", false},
                                           {"--no-challenges", "", false},
                                           {"--no-simulation", "", false},
                                           {"--no-animation", "", false}});
    if (p.has("--help")) return print_usage();
    if (!p.positional.empty()) throw usage_error("demo takes options only (see broadphase --help)");
    const auto t_start = clock_type::now();
    const long long threads = parse_count("--threads", p.get("--threads", "0"), 0, 4096);
    particles::RunSettings run;
    run.config.n = static_cast<std::size_t>(parse_count("--particles", p.get("--particles", "100000"), 1, 100000000));
    run.config.threads = static_cast<unsigned>(threads);
    if (!particles::parse_model(p.get("--model", "dem"), run.config.model))
        throw usage_error("--model needs dem or elastic, not '" + p.get("--model") + "'");
    if (!particles::parse_broad_phase(p.get("--broad-phase", "neighbor_list"), run.config.broad_phase))
        throw usage_error("--broad-phase needs neighbor_list, spheres or boxes, not '" + p.get("--broad-phase") + "'");
    if (p.has("--skin")) {
        const std::string text = p.get("--skin");
        char* end = nullptr;
        const double skin = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !(skin >= 0) || !std::isfinite(skin))
            throw usage_error("--skin needs a length >= 0 (e.g. 0.125), not '" + text + "'");
        run.config.skin = skin;
    }
    run.config.periodic = p.has("--periodic");
    run.steps = parse_count("--steps", p.get("--steps", "0"), 0, 100000000);
    if (p.has("--seconds")) run.seconds = static_cast<double>(parse_count("--seconds", p.get("--seconds"), 1, 3600));
    run.out_dir = p.get("--out", "particles-out");
    run.animation = !p.has("--no-animation");
    if (p.has("--export") && !particles::parse_particle_formats(p.get("--export"), run.particle_formats))
        throw usage_error("--export needs xyz, vtu or xyz,vtu, not '" + p.get("--export") + "'");
    if (p.has("--size")) {
        const std::string s = p.get("--size");
        const std::size_t x = s.find('x');
        if (x == std::string::npos) throw usage_error("--size needs WxH, e.g. 960x540");
        run.width = static_cast<int>(parse_count("--size", s.substr(0, x), 16, 8192)) & ~1;
        run.height = static_cast<int>(parse_count("--size", s.substr(x + 1), 16, 8192)) & ~1;
    }
    int status = 0;

    if (!p.has("--no-challenges")) {
        const unsigned all = static_cast<unsigned>(threads ? threads : broadphase::default_threads());
        std::printf("The five challenges of the article \"Simple Fast Adaptive Grid to Accelerate Collision "
                    "Detection between AABB of Particles\" (CodeProject, 2022), met with broadphase on this machine "
                    "(%u hardware threads; `--threads` sets the all-thread rows), each answer compared with brute "
                    "force's:\n\n",
                    broadphase::default_threads());
        std::fflush(stdout);
        std::vector<Row> rows;
        std::vector<std::string> notes;
        auto progress = [](const char* what) {
            std::fprintf(stderr, "  running %s ...\n", what);
            std::fflush(stderr);
        };
#ifdef BROADPHASE_DEMO_POINTCLOUDS
        progress("challenge 1 (10k point clouds)");
        rows.push_back(challenge1());
#else
        Row skipped;
        skipped.scene = "pointclouds10k";
        skipped.ours = "skipped: examples/pointclouds not in this source tree";
        rows.push_back(skipped);
        notes.push_back("challenge 1 skipped: examples/pointclouds/narrow_phase.hpp was not found at build time");
#endif
        rows.back().challenge = "1. 10k point clouds + narrow phase";
        rows.back().article = "22.5 ms (uniform grid); 13.7 ms on 8 threads";
        rows.back().hardware = "FX8150 2.1 GHz, 1 thread";

        progress("challenge 2 (one box against 10k)");
        rows.push_back(challenge2());
        rows.back().challenge = "2. one box vs 10k static boxes";
        rows.back().article = "1.1-1.8 us/query (adaptive grid)";
        rows.back().hardware = "FX8150 2.1 GHz";

        progress("challenge 3 (20k boxes, one thread)");
        rows.push_back(time_scene("sparse20k", broadphase_fixtures::sparse20k(), 1, 30, 1500));
        rows.back().challenge = "3. 20k boxes, 1 thread";
        rows.back().article = "11.4-11.8 ms (137 pairs)";
        rows.back().hardware = "FX8150 2.1 GHz, 1 thread";
        rows.push_back(time_scene("dense20k", broadphase_fixtures::dense20k(), 1, 30, 1500));
        rows.back().challenge = "3. 20k boxes, 1 thread";
        rows.back().article = "17.0-17.5 ms (29,326 pairs)";
        rows.back().hardware = "FX8150 2.1 GHz, 1 thread";

        progress("challenge 4 (40k boxes, all threads)");
        rows.push_back(time_scene("stretched40k", broadphase_fixtures::stretched40k(), all, 30, 1500));
        rows.back().challenge = "4. 40k boxes, all threads";
        rows.back().article = "18.4-18.8 ms (11,990 pairs)";
        rows.back().hardware = "FX8150, 7 threads";
        rows.push_back(time_scene("clusters40k", broadphase_fixtures::clusters40k(), all, 30, 1500));
        rows.back().challenge = "4. 40k boxes, all threads";
        rows.back().article = "12.8-14.1 ms (16 clusters, 7,190 pairs)";
        rows.back().hardware = "FX8150, 7 threads";

        progress("challenge 5 (80k boxes)");
        rows.push_back(challenge5(all, notes));
        rows.back().challenge = "5. 80k boxes";
        rows.back().article = "stated, never done (60 FPS = 16.7 ms)";
        rows.back().hardware = "GT1030 GPU";

        std::printf("\n");
        print_table(rows);
        for (const std::string& note : notes) std::printf("note: %s\n", note.c_str());
        std::printf("note: the article's figures were measured on other hardware (docs/benchmarks/seed-comparison.md): "
                    "compare orders of magnitude. The pairs counts differ from the article's because its random "
                    "numbers differ.\n");
        for (const Row& r : rows)
            if (r.checked == 0) status = 1;
        std::printf(status ? "\nFAILED: some answers differ from brute force\n\n"
                           : "\nEvery answer equals brute force's.\n\n");
        std::fflush(stdout);
    }

    if (!p.has("--no-simulation")) {
        const bool periodic = run.config.periodic;
        const particles::BroadPhase broad = run.config.broad_phase;
        std::string how;
        if (broad == particles::BroadPhase::neighbor_list)
            how = std::string("NeighborList::update on the spheres") + (periodic ? " in the periodic cell" : "") +
                  " (a half list with a skin of " +
                  fmt("%.3g", run.config.skin < 0 ? particles::default_skin(run.config.r_min) : run.config.skin) +
                  ", rebuilt when a sphere has moved half of it)";
        else if (broad == particles::BroadPhase::spheres)
            how = periodic ? "SpherePairFinder::find_pairs on the spheres in the periodic domain"
                           : "SpherePairFinder::find_pairs on the spheres";
        else
            how = periodic ? "PeriodicPairFinder::find_pairs on the spheres' boxes"
                           : "PairFinder::find_pairs on the spheres' boxes";
        std::printf("The particle simulation (sim/): %zu spheres, %s contacts, falling into a pile%s; every step calls "
                    "%s.\n",
                    run.config.n, particles::to_string(run.config.model),
                    periodic ? " between periodic side walls (x and z wrap around)" : "", how.c_str());
        std::fflush(stdout);
        const particles::RunResult r = particles::run_particles(run, stderr);
        std::printf("%lld steps (%.2f s simulated) in %.1f s; up to %s candidate pairs and %s contacts a step; %d "
                    "frames, %.0f ms each to draw and write\n",
                    r.steps, r.simulated_s, r.wall_s, with_commas(r.max_box_pairs).c_str(),
                    with_commas(r.max_contacts).c_str(), r.frames, r.render_ms_mean);
        std::printf("broad phase (%s): %.2f ms of a %.2f ms step on average (%.1f%%); %s %lld of %lld steps\n",
                    particles::to_string(broad), r.broad_ms_mean, r.step_ms_mean,
                    r.step_ms_mean > 0 ? 100.0 * r.broad_ms_mean / r.step_ms_mean : 0.0,
                    broad == particles::BroadPhase::neighbor_list ? "list rebuilt on" : "searched anew on", r.rebuilds,
                    r.steps);
        for (const std::string& note : r.notes) std::printf("note: %s\n", note.c_str());
        std::printf("\nPictures in %s/\n", r.out_dir.c_str());
        if (!r.last_frame.empty()) std::printf("  frames      frame_0000.png .. %s\n", r.last_frame.substr(r.out_dir.size() + 1).c_str());
        if (!r.animation.empty()) std::printf("  animation   %s\n", r.animation.substr(r.out_dir.size() + 1).c_str());
        if (!r.plot.empty()) std::printf("  plot        %s\n", r.plot.substr(r.out_dir.size() + 1).c_str());
        std::printf("  every step  steps.csv\n");
        for (const std::string& path : r.particle_files) {
            const bool pvd = path.size() > 4 && path.compare(path.size() - 4, 4, ".pvd") == 0;
            std::printf("  %s  %s (%d frames%s)\n", pvd ? "ParaView " : "OVITO    ",
                        path.substr(r.out_dir.size() + 1).c_str(), r.particle_frames,
                        pvd ? ": particles_0000.vtu ..., open the .pvd" : ", extended XYZ");
        }
    }
    std::printf("\ndemo finished in %.1f s\n", elapsed_ms(t_start, clock_type::now()) / 1000.0);
    return status;
}

}  // namespace broadphase_cli
