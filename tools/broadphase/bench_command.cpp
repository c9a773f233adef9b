// broadphase bench: times full frames (build + find) of each algorithm on a
// built-in scene or a box file, optionally checking them against brute force.
// With --queries it times an Index instead: its build, single-box queries
// (one per box of the scene) and a batch query of every box.
// The frames are frames.cpp's, shared with broadphase-lab, the lab, which
// runs what is not for users: other libraries' broad phases as peers, motion
// sequences, move-file replays and the particle simulation timed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/brute_force.hpp>
#include <broadphase_fixtures/motion.hpp>

#ifdef BROADPHASE_WITH_CUDA
#include <broadphase/cuda/pair_finder.hpp>
#endif

#include "args.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "files.hpp"
#include "frames.hpp"
#include "json.hpp"
#include "timing.hpp"

namespace broadphase_cli {
namespace {

using broadphase::Algorithm;

// ---------------------------------------------------------------- --queries

/// Timed query passes (and builds, and batches) of one algorithm stop once
/// they add up to this much; at least one of each runs.
constexpr double query_time_budget_ms = 1000.0;

/// Each timed query's hit count is stored here before the clock is read
/// again, so the query's work cannot be moved out of its timed interval.
volatile std::uint32_t consumed = 0;

std::int64_t elapsed_ns(clock_type::time_point t0, clock_type::time_point t1) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
}

/// The hits of every query box, each list sorted: query i hit
/// hits[offsets[i] .. offsets[i + 1]).
struct HitLists {
    std::vector<std::size_t> offsets{0};
    std::vector<std::uint32_t> hits;
};

HitLists brute_force_hits(const broadphase::Boxes& boxes, const std::vector<broadphase::Box>& queries) {
    broadphase::Index brute;
    check(brute.build(boxes, Algorithm::brute_force), Algorithm::brute_force);
    HitLists ref;
    ref.offsets.reserve(queries.size() + 1);
    std::vector<std::uint32_t> hits;
    for (const broadphase::Box& q : queries) {
        brute.query(q, hits);
        std::sort(hits.begin(), hits.end());
        ref.hits.insert(ref.hits.end(), hits.begin(), hits.end());
        ref.offsets.push_back(ref.hits.size());
    }
    return ref;
}

/// What one now() costs inside a timed interval: the median of many
/// back-to-back pairs t1 - t0 with nothing between them.
std::int64_t clock_overhead_ns() {
    std::vector<std::int64_t> d(20001);
    for (std::int64_t& x : d) {
        const auto t0 = clock_type::now();
        const auto t1 = clock_type::now();
        x = elapsed_ns(t0, t1);
    }
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    return d[d.size() / 2];
}

/// Nearest-rank percentile of sorted samples: the smallest value with at
/// least p percent of the samples at or below it.
std::int64_t percentile(const std::vector<std::int64_t>& sorted_samples, double p) {
    if (sorted_samples.empty()) return 0;
    const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted_samples.size()));
    const std::size_t k = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
    return sorted_samples[std::min(k, sorted_samples.size() - 1)];
}

struct QueryResult {
    Algorithm algorithm = Algorithm::automatic;
    Algorithm chosen = Algorithm::automatic;  ///< Index::algorithm() after the build
    double build_ms = 0;                      ///< median of the timed builds
    std::int64_t p50_ns = 0, p90_ns = 0, p99_ns = 0;  ///< single queries, clock overhead subtracted
    double mean_ns = 0;           ///< whole pass without per-query clocks / n, median over passes
    double batch_ns = 0;          ///< query_batch of every box / n, median over batches
    std::uint64_t hits = 0;       ///< hits of one pass, self hits included
    std::int64_t overhead_ns = 0; ///< the clock overhead subtracted from every single query
    int passes = 0;               ///< timed passes over every box
    int verified = -1;            ///< -1 not checked, 0 differs from brute force, 1 equal
};

/// Builds `index` over `boxes` with `algorithm` and times it:
///   build: one untimed build, then up to `max_reps` timed rebuilds (memory reused);
///   single queries: one untimed pass over every box (collecting the hits when
///     `reference` is given), then up to `max_reps` repetitions of two timed
///     passes: one that times the whole pass (its mean needs no per-query
///     clock), and one that times every query on its own, from just before the
///     call to just after its result is consumed, minus the clock overhead;
///   batch: one untimed query_batch of every box, then up to `max_reps` timed ones.
/// Each stage stops early once its timed work passes query_time_budget_ms.
QueryResult time_queries(broadphase::Index& index, const broadphase::Boxes& boxes,
                         const std::vector<broadphase::Box>& queries, Algorithm algorithm, int max_reps,
                         unsigned threads, const HitLists* reference) {
    broadphase::Options options;  // for the build and the batch; single queries run on this thread
    options.algorithm = algorithm;
    options.threads = threads;
    QueryResult res;
    res.algorithm = algorithm;
    const std::size_t n = queries.size();

    // Build.
    check(index.build(boxes, options), algorithm);
    res.chosen = index.algorithm();
    res.build_ms = median(
        time_repeated(max_reps, query_time_budget_ms, [&] { check(index.build(boxes, options), algorithm); }));

    // Untimed pass: the hits, and the check against brute force.
    {
        std::vector<std::uint32_t> hits;
        bool equal = true;
        for (std::size_t i = 0; i < n; ++i) {
            index.query(queries[i], hits);
            res.hits += hits.size();
            if (reference) {
                std::sort(hits.begin(), hits.end());
                const auto b = reference->hits.begin();
                equal = equal && std::equal(hits.begin(), hits.end(), b + reference->offsets[i],
                                            b + reference->offsets[i + 1]);
            }
        }
        if (reference) res.verified = equal ? 1 : 0;
    }

    // Timed passes.
    res.overhead_ns = clock_overhead_ns();
    std::vector<std::int64_t> samples;
    samples.reserve(n * static_cast<std::size_t>(std::min(max_reps, 5)));
    std::vector<double> pass_means;
    double total_ms = 0;
    for (int k = 0; k < max_reps && (k == 0 || total_ms < query_time_budget_ms); ++k) {
        std::uint64_t pass_hits = 0;
        const auto p0 = clock_type::now();
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t count = 0;
            index.for_each_overlap(queries[i], [&](std::uint32_t) { ++count; });
            pass_hits += count;
        }
        const auto p1 = clock_type::now();
        consumed = static_cast<std::uint32_t>(pass_hits);
        pass_means.push_back(n ? static_cast<double>(elapsed_ns(p0, p1)) / static_cast<double>(n) : 0.0);

        const auto s0 = clock_type::now();
        for (std::size_t i = 0; i < n; ++i) {
            std::uint32_t count = 0;
            const auto t0 = clock_type::now();
            index.for_each_overlap(queries[i], [&](std::uint32_t) { ++count; });
            consumed = count;
            const auto t1 = clock_type::now();
            samples.push_back(elapsed_ns(t0, t1) - res.overhead_ns);
            pass_hits += count;
        }
        const auto s1 = clock_type::now();
        if (pass_hits != 2 * res.hits)
            throw CliError(std::string(broadphase::to_string(algorithm)) + ": queries gave different hits on a rerun");
        total_ms += elapsed_ms(p0, p1) + elapsed_ms(s0, s1);
        res.passes = k + 1;
    }
    std::sort(samples.begin(), samples.end());
    // Signed samples: a query faster than the median overhead goes negative
    // rather than being clamped, so the percentiles are not biased upwards;
    // only the reported percentile is floored at 0.
    res.p50_ns = std::max<std::int64_t>(0, percentile(samples, 50));
    res.p90_ns = std::max<std::int64_t>(0, percentile(samples, 90));
    res.p99_ns = std::max<std::int64_t>(0, percentile(samples, 99));
    res.mean_ns = median(pass_means);

    // Batch.
    {
        std::vector<broadphase::Pair> pairs;
        check(index.query_batch(boxes, pairs, options), algorithm);
        if (pairs.size() != res.hits)
            throw CliError(std::string(broadphase::to_string(algorithm)) + ": query_batch found " +
                           std::to_string(pairs.size()) + " hits, single queries " + std::to_string(res.hits));
        if (reference) {
            broadphase::sort_pairs(pairs);
            for (std::size_t i = 0, at = 0; i < n && res.verified == 1; ++i)
                for (std::size_t h = reference->offsets[i]; h < reference->offsets[i + 1]; ++h, ++at)
                    if (pairs[at].a != i || pairs[at].b != reference->hits[h]) res.verified = 0;
        }
        const std::vector<double> times = time_repeated(
            max_reps, query_time_budget_ms, [&] { check(index.query_batch(boxes, pairs, options), algorithm); });
        res.batch_ns = n ? median(times) * 1e6 / static_cast<double>(n) : 0.0;
    }
    return res;
}

void print_query_json(const QueryResult& r, const std::string& scene, std::size_t n, long long threads) {
    const char* verified = r.verified < 0 ? "null" : r.verified ? "true" : "false";
    std::printf(
        "{\"scene\":%s,\"n\":%zu,\"algorithm\":\"%s\",\"chosen\":\"%s\",\"build_ms\":%.4f,"
        "\"query_p50_ns\":%lld,\"query_p90_ns\":%lld,\"query_p99_ns\":%lld,\"query_mean_ns\":%.1f,"
        "\"query_hits\":%llu,\"batch_ns_per_query\":%.1f,\"clock_overhead_ns\":%lld,\"passes\":%d,"
        "\"verified\":%s,\"threads\":%lld}\n",
        json_string(scene).c_str(), n, broadphase::to_string(r.algorithm), broadphase::to_string(r.chosen),
        r.build_ms, static_cast<long long>(r.p50_ns), static_cast<long long>(r.p90_ns),
        static_cast<long long>(r.p99_ns), r.mean_ns, static_cast<unsigned long long>(r.hits), r.batch_ns,
        static_cast<long long>(r.overhead_ns), r.passes, verified, threads);
}

const char* query_row_format = "%-27s %9s %7s %7s %7s %8s %13s %10s %6s %9s\n";

void print_query_row(const QueryResult& r) {
    std::string name = broadphase::to_string(r.algorithm);
    if (r.algorithm == Algorithm::automatic) name += std::string(" (") + broadphase::to_string(r.chosen) + ")";
    char build[32], p50[32], p90[32], p99[32], mean[32], batch[32], hits[32], passes[16];
    std::snprintf(build, sizeof build, "%.3f", r.build_ms);
    std::snprintf(p50, sizeof p50, "%lld", static_cast<long long>(r.p50_ns));
    std::snprintf(p90, sizeof p90, "%lld", static_cast<long long>(r.p90_ns));
    std::snprintf(p99, sizeof p99, "%lld", static_cast<long long>(r.p99_ns));
    std::snprintf(mean, sizeof mean, "%.1f", r.mean_ns);
    std::snprintf(batch, sizeof batch, "%.1f", r.batch_ns);
    std::snprintf(hits, sizeof hits, "%llu", static_cast<unsigned long long>(r.hits));
    std::snprintf(passes, sizeof passes, "%d", r.passes);
    const char* verified = r.verified < 0 ? "-" : r.verified ? "yes" : "NO";
    std::printf(query_row_format, name.c_str(), build, p50, p90, p99, mean, batch, hits, passes, verified);
}

/// bench --queries: an Index per algorithm, timed as time_queries says.
int run_query_bench(const broadphase::Boxes& boxes, const std::string& scene, const std::vector<Algorithm>& algorithms,
                    int max_reps, long long threads, bool verify, bool json) {
    const std::size_t n = boxes.size();
    std::vector<broadphase::Box> queries(n);  // unpacked once, so no query pays for it
    for (std::size_t i = 0; i < n; ++i) queries[i] = boxes[i];

    HitLists reference;
    if (verify) {
        if (n > brute_force_limit)
            std::fprintf(stderr, "broadphase: note: verifying %zu queries by brute force takes O(n^2) time\n", n);
        reference = brute_force_hits(boxes, queries);
    }

    if (!json) {
        std::printf("scene %s: %zu boxes, threads %lld; each box queried against the index built over all of them\n",
                    scene.c_str(), n, threads);
        std::printf(query_row_format, "algorithm", "build ms", "p50 ns", "p90 ns", "p99 ns", "mean ns",
                    "batch ns/box", "hits", "passes", "verified");
        std::fflush(stdout);
    }
    broadphase::Index index;  // one index for every algorithm: memory is reused
    for (Algorithm a : algorithms) {
        const QueryResult r =
            time_queries(index, boxes, queries, a, max_reps, static_cast<unsigned>(threads), verify ? &reference : nullptr);
        if (json) print_query_json(r, scene, n, threads);
        else print_query_row(r);
        std::fflush(stdout);
    }
    return 0;
}


// ---------------------------------------------------------------- --device cuda

/// bench --device cuda: the CUDA backend. The boxes are uploaded once (timed
/// as upload_ms); each frame runs from boxes on the device to pairs
/// compacted there (median/min ms, host clock, synchronised); the pairs'
/// copy to the host is timed apart (transfer_ms, median over frames).
int run_cuda_bench(const broadphase::Boxes& boxes, const std::string& scene, int frames, bool sorted, bool verify,
                  bool json) {
#ifndef BROADPHASE_WITH_CUDA
    (void)boxes, (void)scene, (void)frames, (void)sorted, (void)verify, (void)json;
    throw CliError("--device cuda: this broadphase was built without the CUDA backend (no CUDA compiler at build time)");
#else
    namespace bc = broadphase::cuda;
    if (!bc::available()) throw CliError("--device cuda: no CUDA device found");
    const std::string device = bc::device_name();
    const std::size_t n = boxes.size();
    std::vector<broadphase::Pair> reference;
    const char* oracle = "";
    if (verify) {
        broadphase::Options o;
        o.sorted = true;
        broadphase::Report r;
        if (n <= brute_force_limit) {
            oracle = "brute_force";
            broadphase::BruteForce brute;
            r = brute.find_pairs(boxes, reference, o);
        } else {
            oracle = "automatic";
            std::fprintf(stderr,
                         "broadphase: note: %zu boxes: verifying against the CPU's automatic choice, not brute force\n",
                         n);
            broadphase::PairFinder cpu;
            r = cpu.find_pairs(boxes, reference, o);
        }
        check(r, Algorithm::brute_force);
    }
    using clock = std::chrono::steady_clock;
    bc::DeviceBoxSet set;
    std::vector<double> uploads;
    for (int k = 0; k < 3; ++k) {
        const auto t0 = clock::now();
        set.upload(boxes);
        uploads.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    bc::PairFinder finder;
    broadphase::Options options;
    options.sorted = sorted;
    auto frame = [&]() {
        const broadphase::Report r = finder.find_pairs_on_device(set.view(), options);
        if (!r.ok()) throw CliError(std::string("cuda failed: ") + broadphase::to_string(r.status) + ": " + finder.last_error());
    };
    frame();  // warm-up: buffers grow once
    std::vector<double> times, transfers;
    std::vector<broadphase::Pair> out;
    double total = 0;
    for (int f = 0; f < frames && (f == 0 || total < time_budget_ms); ++f) {
        const auto t0 = clock::now();
        frame();
        times.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
        total += times.back();
        finder.copy_pairs(out);
        transfers.push_back(finder.last_stats().transfer_ms);
    }
    const bc::FrameStats& st = finder.last_stats();
    FrameResult res;
    res.label = "cuda_grid";
    res.pairs = out.size();
    res.median_ms = median(times);
    res.min_ms = *std::min_element(times.begin(), times.end());
    res.frames = static_cast<int>(times.size());
    if (verify) {
        if (!sorted) broadphase::sort_pairs(out);
        res.verified = out == reference ? 1 : 0;
    }
    const double upload_ms = median(uploads), transfer_ms = median(transfers);
    const double device_mb = double(finder.device_bytes() + set.device_bytes()) / 1e6;
    const char* verified = res.verified < 0 ? "null" : res.verified ? "true" : "false";
    if (json) {
        std::printf(
            "{\"scene\":%s,\"n\":%zu,\"algorithm\":\"cuda\",\"chosen\":\"cuda_grid\",\"pairs\":%llu,\"median_ms\":%.4f,"
            "\"min_ms\":%.4f,\"verified\":%s,\"frames\":%d,\"threads\":1,\"device\":%s,\"upload_ms\":%.4f,"
            "\"transfer_ms\":%.4f,\"entries\":%llu,\"levels\":%d,\"key_bits\":%d,\"cell_size\":%.6g,"
            "\"device_mb\":%.1f,\"sorted\":%s,\"oracle\":%s}\n",
            json_string(scene).c_str(), n, static_cast<unsigned long long>(res.pairs), res.median_ms, res.min_ms,
            verified, res.frames, json_string(device).c_str(), upload_ms, transfer_ms,
            static_cast<unsigned long long>(st.entries), st.levels, st.key_bits, st.cell_size, device_mb,
            sorted ? "true" : "false", verify ? json_string(oracle).c_str() : "null");
    } else {
        std::printf("scene %s: %zu boxes, device %s%s\n", scene.c_str(), n, device.c_str(),
                    sorted ? ", pairs sorted on the device" : "");
        print_frame_columns();
        print_frame_result(res, FrameBench{}, n);
        std::printf("upload %.3f ms (boxes to the device, not in the frame), pair transfer %.3f ms (not in the frame), "
                    "%llu cell entries, %d levels, %d key bits, %.1f MB device memory\n",
                    upload_ms, transfer_ms, static_cast<unsigned long long>(st.entries), st.levels, st.key_bits,
                    device_mb);
    }
    std::fflush(stdout);
    return 0;
#endif
}

/// What `broadphase-lab` runs (the lab, not installed): the motion
/// benchmarks, move-file replays, the particle simulation timed, and other
/// libraries' broad phases as peers.
bool is_lab_scene(const std::string& scene) {
    return broadphase_fixtures::motion::is_sequence_name(scene) || scene.rfind("jolt-moves:", 0) == 0 ||
           scene.rfind("particles:", 0) == 0;
}
bool is_lab_algorithm(const std::string& name) {
    for (const char* peer : {"cgal", "fcl", "bullet-dbvt", "bullet-sap"})
        if (name == peer) return true;
    return false;
}

/// The one-line refusal of a lab mode: names broadphase-lab and the command to run there.
CliError moved_to_lab(const std::string& what, const std::vector<std::string>& args) {
    std::string command = "broadphase-lab bench";
    for (const std::string& a : args) command += " " + a;
    return usage_error(what + " is in broadphase-lab, the benchmark lab built beside broadphase (not installed): " + command);
}

}  // namespace

int run_bench(const std::vector<std::string>& args) {
    const ParsedArgs p = parse_args(args, {{"--algorithm", "-a", true},
                                           {"--frames", "", true},
                                           {"--threads", "", true},
                                           {"--verify", "", false},
                                           {"--json", "", false},
                                           {"--queries", "", false},
                                           {"--device", "", true},
                                           {"--sorted", "", false},
                                           {"--mode", "", true},
                                           {"--save-boxes", "", true},
                                           {"--save-moves", "", true},
                                           {"--format", "", true},
                                           {"--array", "", true}});
    if (p.has("--help")) return print_usage();
    if (p.positional.size() != 1) throw usage_error("bench needs one scene name or box file (see broadphase scenes)");
    const std::string scene = p.positional[0];
    // Motion sequences, move files, particles:N, --mode, --save-moves and
    // the peers moved to the lab, broadphase-lab: one line saying where.
    if (is_lab_scene(scene)) throw moved_to_lab("bench " + scene.substr(0, scene.find(':')) + ":...", args);
    for (const char* option : {"--mode", "--save-moves"})
        if (p.has(option)) throw moved_to_lab(option, args);
    const std::string algorithm_name = p.get("--algorithm", "automatic");
    if (is_lab_algorithm(algorithm_name)) throw moved_to_lab("--algorithm " + algorithm_name, args);
    const bool queries = p.has("--queries");
    const std::string device = p.get("--device", "cpu");
    if (device != "cpu" && device != "cuda")
        throw usage_error("--device needs cpu or cuda, not '" + device + "'");
    const bool on_cuda = device != "cpu";
    if (on_cuda && queries) throw usage_error("--queries runs on the CPU only (the GPU answers batches: see docs/cuda.md)");
    if (on_cuda && p.has("--algorithm")) throw usage_error("--algorithm applies to --device cpu; the GPU has one algorithm");
    if (on_cuda && p.has("--threads")) throw usage_error("--threads applies to --device cpu");
    if (!on_cuda && p.has("--sorted")) throw usage_error("--sorted applies to --device cuda");
    // --frames: timed frames, or with --queries timed passes over every box.
    const FrameBench bench = frame_settings(p, scene, "broadphase", queries ? "5" : "20");
    // A bad name is refused before the boxes are read.
    if (algorithm_name != "all" && algorithm_name != "ours") parse_algorithm_option(algorithm_name);

    const broadphase::Boxes boxes = load_bench_boxes(scene, p, bench.program);
    // --save-boxes FILE.npy: the scene's boxes, for other programs to time on the same input; nothing is timed.
    if (p.has("--save-boxes")) {
        save_boxes(p.get("--save-boxes", ""), boxes, p.get("--format"));
        return 0;
    }
    const std::size_t n = boxes.size();
    note_invalid_boxes(boxes, bench.program);

    if (on_cuda) return run_cuda_bench(boxes, scene, bench.frames, p.has("--sorted"), bench.verify, bench.json);

    // "all" and "ours": every algorithm the library knows (brute force only up
    // to brute_force_limit boxes), then automatic; with --queries too.
    const std::vector<Algorithm> algorithms = frame_algorithms(algorithm_name, n, bench.program);
    if (queries) return run_query_bench(boxes, scene, algorithms, bench.frames, bench.threads, bench.verify, bench.json);

    std::vector<broadphase::Pair> reference, out;
    run_frame_bench(boxes, algorithms, bench, reference, out);
    return 0;
}

}  // namespace broadphase_cli
