// Timed frames of our algorithms and their rows: see frames.hpp.
#include "frames.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include <broadphase/brute_force.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include "errors.hpp"
#include "files.hpp"
#include "json.hpp"
#include "timing.hpp"

namespace broadphase_cli {

using broadphase::Algorithm;

void check(const broadphase::Report& r, Algorithm a) {
    if (!r.ok())
        throw CliError(std::string(broadphase::to_string(a)) + " failed: " + broadphase::to_string(r.status));
}

broadphase::Boxes load_bench_boxes(const std::string& scene, const ParsedArgs& p, const std::string& program) {
    broadphase::Boxes boxes;
    if (broadphase_fixtures::make_scene(scene, boxes)) return boxes;
    FileOptions files;
    files.format = p.get("--format");
    files.array = p.get("--array");
    if (!has_box_file_extension(scene) && !is_std_stream(scene) && !p.has("--format"))
        throw usage_error("unknown scene '" + scene +
                          "'; see broadphase scenes, or give a box file (.npy, .npz, .csv, .txt) or a "
                          "mesh (.off, .ply, .obj, .stl)");
    // bench is about speed: it times float boxes, as for every scene. A
    // float64 file (or a .csv of values that are not all floats) is rounded
    // to the nearest float here, which can change its pairs; `pairs`
    // answers such files exactly, in double.
    LoadedBoxes loaded = load_boxes(scene, files);
    if (loaded.is_double())
        std::fprintf(stderr,
                     "%s: note: %s holds float64 values; bench times them rounded to float32 "
                     "(broadphase pairs answers in float64)\n",
                     program.c_str(), file_label(scene).c_str());
    return std::move(loaded).into<float>();
}

void note_invalid_boxes(const broadphase::Boxes& boxes, const std::string& program) {
    std::size_t invalid = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i) invalid += boxes[i].valid() ? 0 : 1;
    if (invalid > 0)
        std::fprintf(stderr, "%s: note: %zu invalid boxes (NaN or min > max) take part in no pair\n",
                     program.c_str(), invalid);
}

FrameBench frame_settings(const ParsedArgs& p, const std::string& scene, const std::string& program,
                          const char* fallback_frames) {
    FrameBench b;
    b.program = program;
    b.scene = scene;
    b.frames = static_cast<int>(parse_count("--frames", p.get("--frames", fallback_frames), 1, 1000000));
    // --threads 0 (the default): all hardware threads; reported as the count it stands for.
    b.threads = parse_count("--threads", p.get("--threads", "0"), 0, 4096);
    if (b.threads == 0) b.threads = broadphase::default_threads();
    b.verify = p.has("--verify");
    b.json = p.has("--json");
    return b;
}

std::vector<Algorithm> frame_algorithms(const std::string& name, std::size_t n, const std::string& program) {
    if (name != "all" && name != "ours") return {parse_algorithm_option(name)};
    std::vector<Algorithm> algorithms;
    if (n <= brute_force_limit) algorithms.push_back(Algorithm::brute_force);
    else
        std::fprintf(stderr, "%s: note: brute_force skipped: %zu boxes, more than %zu\n", program.c_str(), n,
                     brute_force_limit);
    for (Algorithm a : broadphase::concrete_algorithms)
        if (a != Algorithm::brute_force) algorithms.push_back(a);
    algorithms.push_back(Algorithm::automatic);
    return algorithms;
}

std::vector<broadphase::Pair> brute_force_pairs(const broadphase::Boxes& boxes, long long threads,
                                                const std::string& program) {
    if (boxes.size() > brute_force_limit)
        std::fprintf(stderr, "%s: note: verifying %zu boxes by brute force takes O(n^2) time\n", program.c_str(),
                     boxes.size());
    broadphase::BruteForce brute;
    broadphase::Options sorted;
    sorted.sorted = true;
    sorted.threads = static_cast<unsigned>(threads);
    std::vector<broadphase::Pair> reference;
    check(brute.find_pairs(boxes, reference, sorted), Algorithm::brute_force);
    return reference;
}

FrameResult time_frames(broadphase::PairFinder& finder, const broadphase::Boxes& boxes, Algorithm algorithm,
                        int frames, unsigned threads, std::vector<broadphase::Pair>& out) {
    broadphase::Options options;
    options.algorithm = algorithm;
    options.threads = threads;
    check(finder.find_pairs(boxes, out, options), algorithm);

    const std::vector<double> times =
        time_repeated(frames, time_budget_ms, [&] { check(finder.find_pairs(boxes, out, options), algorithm); });
    FrameResult res;
    res.algorithm = algorithm;
    res.chosen = finder.last_algorithm();
    res.pairs = out.size();
    res.median_ms = median(times);
    res.min_ms = *std::min_element(times.begin(), times.end());
    res.frames = static_cast<int>(times.size());
    return res;
}

namespace {

const char* row_format = "%-27s %11s %11s %13s %7s %9s\n";

std::string display_name(const FrameResult& r) {
    if (!r.label.empty()) return r.label;
    std::string name = broadphase::to_string(r.algorithm);
    if (r.algorithm == Algorithm::automatic) name += std::string(" (") + broadphase::to_string(r.chosen) + ")";
    return name;
}

}  // namespace

void print_frame_columns() {
    std::printf(row_format, "algorithm", "median ms", "min ms", "pairs", "frames", "verified");
    std::fflush(stdout);
}

void print_frame_header(const FrameBench& bench, std::size_t n) {
    if (bench.json) return;
    std::printf("scene %s: %zu boxes, threads %lld\n", bench.scene.c_str(), n, bench.threads);
    print_frame_columns();
}

void print_frame_result(const FrameResult& r, const FrameBench& bench, std::size_t n) {
    if (bench.json) {
        const char* verified = r.verified < 0 ? "null" : r.verified ? "true" : "false";
        const std::string algorithm = r.label.empty() ? broadphase::to_string(r.algorithm) : r.label;
        const std::string chosen = r.label.empty() ? broadphase::to_string(r.chosen) : r.label;
        std::printf(
            "{\"scene\":%s,\"n\":%zu,\"algorithm\":%s,\"chosen\":%s,\"pairs\":%llu,\"median_ms\":%.4f,"
            "\"min_ms\":%.4f,\"verified\":%s,\"frames\":%d,\"threads\":%lld%s}\n",
            json_string(bench.scene).c_str(), n, json_string(algorithm).c_str(), json_string(chosen).c_str(),
            static_cast<unsigned long long>(r.pairs), r.median_ms, r.min_ms, verified, r.frames,
            r.threads < 0 ? bench.threads : r.threads, r.json_fields.c_str());
    } else {
        char median_s[32], min_s[32], pairs_s[32], frames_s[16];
        std::snprintf(median_s, sizeof median_s, "%.3f", r.median_ms);
        std::snprintf(min_s, sizeof min_s, "%.3f", r.min_ms);
        std::snprintf(pairs_s, sizeof pairs_s, "%llu", static_cast<unsigned long long>(r.pairs));
        std::snprintf(frames_s, sizeof frames_s, "%d", r.frames);
        const char* verified = r.verified < 0 ? "-" : r.verified ? "yes" : "NO";
        if (r.verified == 0 && !r.verified_text.empty()) verified = r.verified_text.c_str();
        std::printf(row_format, display_name(r).c_str(), median_s, min_s, pairs_s, frames_s, verified);
    }
    std::fflush(stdout);
}

void run_frame_bench(const broadphase::Boxes& boxes, const std::vector<Algorithm>& algorithms,
                     const FrameBench& bench, std::vector<broadphase::Pair>& reference,
                     std::vector<broadphase::Pair>& out) {
    const std::size_t n = boxes.size();
    // The oracle, computed once, sorted.
    if (bench.verify) reference = brute_force_pairs(boxes, bench.threads, bench.program);
    print_frame_header(bench, n);
    broadphase::PairFinder finder;  // one finder for every frame: memory is reused
    for (Algorithm a : algorithms) {
        FrameResult r = time_frames(finder, boxes, a, bench.frames, static_cast<unsigned>(bench.threads), out);
        if (bench.verify) {
            broadphase::sort_pairs(out);
            r.verified = out == reference ? 1 : 0;
        }
        print_frame_result(r, bench, n);
    }
}

}  // namespace broadphase_cli
