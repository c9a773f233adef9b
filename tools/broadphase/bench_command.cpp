// broadphase bench: times full frames (build + find) of each algorithm on a
// built-in scene or a box file, optionally checking them against brute force.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/scenes.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "files.hpp"

namespace broadphase_cli {
namespace {

using broadphase::Algorithm;

/// Timed frames stop once they add up to this much (at least one frame runs).
constexpr double time_budget_ms = 2000.0;
/// --algorithm all runs brute force only up to this many boxes.
constexpr std::size_t brute_force_limit = 50000;

struct Result {
    Algorithm algorithm = Algorithm::automatic;
    Algorithm chosen = Algorithm::automatic;  ///< what `automatic` resolved to
    std::uint64_t pairs = 0;
    double median_ms = 0, min_ms = 0;
    int frames = 0;
    int verified = -1;  ///< -1 not checked, 0 differs from brute force, 1 equal
};

void check(const broadphase::Report& r, Algorithm a) {
    if (!r.ok())
        throw CliError(std::string(broadphase::to_string(a)) + " failed: " + broadphase::to_string(r.status));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/// One untimed warm-up frame, then up to `frames` timed ones on `finder`.
/// Leaves the last frame's pairs in `out`.
Result time_frames(broadphase::PairFinder& finder, const broadphase::Boxes& boxes, Algorithm algorithm, int frames,
                   std::vector<broadphase::Pair>& out) {
    using clock = std::chrono::steady_clock;
    broadphase::Options options;
    options.algorithm = algorithm;
    check(finder.find_pairs(boxes, out, options), algorithm);

    std::vector<double> times;
    double total = 0;
    for (int f = 0; f < frames && (f == 0 || total < time_budget_ms); ++f) {
        const auto t0 = clock::now();
        const broadphase::Report r = finder.find_pairs(boxes, out, options);
        const auto t1 = clock::now();
        check(r, algorithm);
        times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        total += times.back();
    }
    Result res;
    res.algorithm = algorithm;
    res.chosen = finder.last_algorithm();
    res.pairs = out.size();
    res.median_ms = median(times);
    res.min_ms = *std::min_element(times.begin(), times.end());
    res.frames = static_cast<int>(times.size());
    return res;
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string display_name(const Result& r) {
    std::string name = broadphase::to_string(r.algorithm);
    if (r.algorithm == Algorithm::automatic) name += std::string(" (") + broadphase::to_string(r.chosen) + ")";
    return name;
}

void print_json(const Result& r, const std::string& scene, std::size_t n, long long threads) {
    const char* verified = r.verified < 0 ? "null" : r.verified ? "true" : "false";
    std::printf(
        "{\"scene\":%s,\"n\":%zu,\"algorithm\":\"%s\",\"chosen\":\"%s\",\"pairs\":%llu,\"median_ms\":%.4f,"
        "\"min_ms\":%.4f,\"verified\":%s,\"frames\":%d,\"threads\":%lld}\n",
        json_string(scene).c_str(), n, broadphase::to_string(r.algorithm), broadphase::to_string(r.chosen),
        static_cast<unsigned long long>(r.pairs), r.median_ms, r.min_ms, verified, r.frames, threads);
}

const char* row_format = "%-24s %11s %11s %13s %7s %9s\n";

void print_row(const Result& r) {
    char median[32], min[32], pairs[32], frames[16];
    std::snprintf(median, sizeof median, "%.3f", r.median_ms);
    std::snprintf(min, sizeof min, "%.3f", r.min_ms);
    std::snprintf(pairs, sizeof pairs, "%llu", static_cast<unsigned long long>(r.pairs));
    std::snprintf(frames, sizeof frames, "%d", r.frames);
    const char* verified = r.verified < 0 ? "-" : r.verified ? "yes" : "NO";
    std::printf(row_format, display_name(r).c_str(), median, min, pairs, frames, verified);
}

}  // namespace

int run_bench(const std::vector<std::string>& args) {
    const ParsedArgs p = parse_args(args, {{"--algorithm", "-a", true},
                                           {"--frames", "", true},
                                           {"--threads", "", true},
                                           {"--verify", "", false},
                                           {"--json", "", false},
                                           {"--help", "-h", false}});
    if (p.has("--help")) {
        std::fputs(usage_text(), stdout);
        return 0;
    }
    if (p.positional.size() != 1) throw usage_error("bench needs one scene name or box file (see broadphase scenes)");
    const std::string scene = p.positional[0];
    const int frames = static_cast<int>(parse_count("--frames", p.get("--frames", "20"), 1, 1000000));
    const long long threads = parse_count("--threads", p.get("--threads", "1"), 1, 4096);
    const bool verify = p.has("--verify"), json = p.has("--json");
    const std::string algorithm_name = p.get("--algorithm", "auto");
    const bool all = algorithm_name == "all";
    const Algorithm single = all ? Algorithm::automatic : parse_algorithm_option(algorithm_name);

    broadphase::Boxes boxes;
    if (!broadphase::scenes::make_scene(scene, boxes)) {
        if (!has_box_file_extension(scene))
            throw usage_error("unknown scene '" + scene + "'; see broadphase scenes, or give a .npy or .csv file");
        boxes = load_boxes(scene);
    }
    const std::size_t n = boxes.size();
    std::size_t invalid = 0;
    for (std::size_t i = 0; i < n; ++i) invalid += boxes[i].valid() ? 0 : 1;
    if (invalid > 0)
        std::fprintf(stderr, "broadphase: note: %zu invalid boxes (NaN or min > max) take part in no pair\n", invalid);

    std::vector<Algorithm> algorithms;
    if (all) {
        if (n <= brute_force_limit) algorithms.push_back(Algorithm::brute_force);
        else
            std::fprintf(stderr, "broadphase: note: brute_force skipped: %zu boxes, more than %zu\n", n,
                         brute_force_limit);
        algorithms.insert(algorithms.end(), {Algorithm::sweep_and_prune, Algorithm::uniform_grid,
                                             Algorithm::hybrid_grid, Algorithm::automatic});
    } else {
        algorithms.push_back(single);
    }

    // The oracle, computed once, sorted.
    std::vector<broadphase::Pair> reference;
    if (verify) {
        if (n > brute_force_limit)
            std::fprintf(stderr, "broadphase: note: verifying %zu boxes by brute force takes O(n^2) time\n", n);
        broadphase::BruteForce brute;
        broadphase::Options sorted;
        sorted.sorted = true;
        const broadphase::Report r = brute.find_pairs(boxes, reference, sorted);
        check(r, Algorithm::brute_force);
    }

    if (!json) {
        std::printf("scene %s: %zu boxes, threads %lld\n", scene.c_str(), n, threads);
        std::printf(row_format, "algorithm", "median ms", "min ms", "pairs", "frames", "verified");
        std::fflush(stdout);
    }
    broadphase::PairFinder finder;  // one finder for every frame: memory is reused
    std::vector<broadphase::Pair> out;
    for (Algorithm a : algorithms) {
        Result r = time_frames(finder, boxes, a, frames, out);
        if (verify) {
            broadphase::sort_pairs(out);
            r.verified = out == reference ? 1 : 0;
        }
        if (json) print_json(r, scene, n, threads);
        else print_row(r);
        std::fflush(stdout);
    }
    return 0;
}

}  // namespace broadphase_cli
