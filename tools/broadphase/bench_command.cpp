// broadphase bench: times full frames (build + find) of each algorithm on a
// built-in scene or a box file, optionally checking them against brute force.
// With --queries it times an Index instead: its build, single-box queries
// (one per box of the scene) and a batch query of every box.
// Other libraries' broad phases (bench/peers/: CGAL, FCL, Bullet, those this
// build found) run as one-shot peers: --algorithm all times them after ours,
// --algorithm cgal|fcl|bullet-dbvt one of them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include <peers.hpp>

#ifdef BROADPHASE_WITH_CUDA
#include <broadphase/cuda/pair_finder.hpp>
#endif

#include "args.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "files.hpp"
#include "json.hpp"
#include "particles_bench.hpp"
#include "motion_bench.hpp"
#include "timing.hpp"

namespace broadphase_cli {
namespace {

using broadphase::Algorithm;

/// Timed frames stop once they add up to this much (at least one frame runs).
constexpr double time_budget_ms = 2000.0;
/// --algorithm all runs brute force only up to this many boxes.
constexpr std::size_t brute_force_limit = 50000;

struct Result {
    std::string peer;  ///< a peer's name (bench/peers/), "" for one of ours
    Algorithm algorithm = Algorithm::automatic;
    Algorithm chosen = Algorithm::automatic;  ///< what `automatic` resolved to
    std::uint64_t pairs = 0;
    double median_ms = 0, min_ms = 0;
    int frames = 0;
    int verified = -1;  ///< -1 not checked, 0 differs from brute force, 1 equal
    /// A peer's pairs against brute force's, when checked: "equal",
    /// "superset" (every exact pair and more: fat boxes, margins), or
    /// "differs" (some exact pair missing: other touching rules, rounding);
    /// with how many exact pairs it lacks and how many it adds.
    std::string relation;
    std::uint64_t missing = 0, extra = 0;
};

void check(const broadphase::Report& r, Algorithm a) {
    if (!r.ok())
        throw CliError(std::string(broadphase::to_string(a)) + " failed: " + broadphase::to_string(r.status));
}

/// One untimed warm-up frame, then up to `frames` timed ones on `finder`.
/// Leaves the last frame's pairs in `out`.
Result time_frames(broadphase::PairFinder& finder, const broadphase::Boxes& boxes, Algorithm algorithm, int frames,
                   unsigned threads, std::vector<broadphase::Pair>& out) {
    broadphase::Options options;
    options.algorithm = algorithm;
    options.threads = threads;
    check(finder.find_pairs(boxes, out, options), algorithm);

    const std::vector<double> times =
        time_repeated(frames, time_budget_ms, [&] { check(finder.find_pairs(boxes, out, options), algorithm); });
    Result res;
    res.algorithm = algorithm;
    res.chosen = finder.last_algorithm();
    res.pairs = out.size();
    res.median_ms = median(times);
    res.min_ms = *std::min_element(times.begin(), times.end());
    res.frames = static_cast<int>(times.size());
    return res;
}

std::string display_name(const Result& r) {
    if (!r.peer.empty()) return r.peer;
    std::string name = broadphase::to_string(r.algorithm);
    if (r.algorithm == Algorithm::automatic) name += std::string(" (") + broadphase::to_string(r.chosen) + ")";
    return name;
}

void print_json(const Result& r, const std::string& scene, std::size_t n, long long threads) {
    const char* verified = r.verified < 0 ? "null" : r.verified ? "true" : "false";
    const std::string algorithm = r.peer.empty() ? broadphase::to_string(r.algorithm) : r.peer;
    const std::string chosen = r.peer.empty() ? broadphase::to_string(r.chosen) : r.peer;
    // A peer's row adds its library and version, and with --verify how its pairs relate to the exact ones.
    std::string peer_fields;
    if (!r.peer.empty()) {
        peer_fields = ",\"peer\":" + json_string(broadphase_peers::peer_version(r.peer));
        if (!r.relation.empty())
            peer_fields += ",\"relation\":\"" + r.relation + "\",\"missing\":" + std::to_string(r.missing) +
                           ",\"extra\":" + std::to_string(r.extra);
        threads = 1;  // the peers run on one thread whatever --threads says
    }
    std::printf(
        "{\"scene\":%s,\"n\":%zu,\"algorithm\":\"%s\",\"chosen\":\"%s\",\"pairs\":%llu,\"median_ms\":%.4f,"
        "\"min_ms\":%.4f,\"verified\":%s,\"frames\":%d,\"threads\":%lld%s}\n",
        json_string(scene).c_str(), n, algorithm.c_str(), chosen.c_str(), static_cast<unsigned long long>(r.pairs),
        r.median_ms, r.min_ms, verified, r.frames, threads, peer_fields.c_str());
}

const char* row_format = "%-27s %11s %11s %13s %7s %9s\n";

void print_row(const Result& r) {
    char median[32], min[32], pairs[32], frames[16];
    std::snprintf(median, sizeof median, "%.3f", r.median_ms);
    std::snprintf(min, sizeof min, "%.3f", r.min_ms);
    std::snprintf(pairs, sizeof pairs, "%llu", static_cast<unsigned long long>(r.pairs));
    std::snprintf(frames, sizeof frames, "%d", r.frames);
    const char* verified = r.verified < 0 ? "-" : r.verified ? "yes" : "NO";
    if (!r.relation.empty() && !r.verified) verified = r.relation.c_str();  // a peer's superset or differs
    std::printf(row_format, display_name(r).c_str(), median, min, pairs, frames, verified);
}

// ---------------------------------------------------------------- peers

/// One peer (bench/peers/) timed like time_frames times ours: the boxes
/// loaded into the peer's own form (untimed), one untimed warm-up run, then
/// up to `frames` timed runs within the time budget, each building the
/// peer's structure from nothing and finding every pair (its structure is
/// freed between runs, untimed). Leaves the last run's pairs in `out`.
Result time_peer(const std::string& name, const broadphase::Boxes& boxes, int frames,
                 std::vector<broadphase::Pair>& out) {
    std::unique_ptr<broadphase_peers::Peer> peer = broadphase_peers::make_peer(name);
    if (!peer) throw CliError(name + ": this broadphase was built without it");
    peer->load(boxes);
    peer->find_pairs(out);
    std::vector<double> times;
    double total = 0;
    for (int k = 0; k < frames && (k == 0 || total < time_budget_ms); ++k) {
        peer->clear();
        const auto t0 = clock_type::now();
        peer->find_pairs(out);
        times.push_back(elapsed_ms(t0, clock_type::now()));
        total += times.back();
    }
    Result res;
    res.peer = name;
    res.pairs = out.size();
    res.median_ms = median(times);
    res.min_ms = *std::min_element(times.begin(), times.end());
    res.frames = static_cast<int>(times.size());
    return res;
}

/// How a peer's pairs (sorted here) relate to the exact ones (`reference`,
/// sorted): sets r.verified (1 only when equal), r.relation, r.missing and
/// r.extra. A pair listed twice counts as extra. O(K log K).
void compare_with_reference(std::vector<broadphase::Pair>& pairs, const std::vector<broadphase::Pair>& reference,
                            Result& r) {
    broadphase::sort_pairs(pairs);
    std::size_t i = 0, j = 0;
    r.missing = r.extra = 0;
    while (i < pairs.size() || j < reference.size()) {
        if (j == reference.size() || (i < pairs.size() && pairs[i] < reference[j])) {
            ++r.extra, ++i;
        } else if (i == pairs.size() || reference[j] < pairs[i]) {
            ++r.missing, ++j;
        } else {
            ++i, ++j;
        }
    }
    r.verified = r.missing == 0 && r.extra == 0 ? 1 : 0;
    r.relation = r.verified ? "equal" : r.missing == 0 ? "superset" : "differs";
}

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

/// Every concrete algorithm the library knows, in the order its docs list
/// them: broadphase::concrete_algorithms (options.hpp), the one list an
/// algorithm is added to; nothing here needs an edit for a new one.
std::vector<Algorithm> every_concrete_algorithm() {
    return std::vector<Algorithm>(std::begin(broadphase::concrete_algorithms),
                                  std::end(broadphase::concrete_algorithms));
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
    Result res;
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
        std::printf(row_format, "algorithm", "median ms", "min ms", "pairs", "frames", "verified");
        res.algorithm = Algorithm::automatic;
        char median_s[32], min_s[32], pairs_s[32], frames_s[16];
        std::snprintf(median_s, sizeof median_s, "%.3f", res.median_ms);
        std::snprintf(min_s, sizeof min_s, "%.3f", res.min_ms);
        std::snprintf(pairs_s, sizeof pairs_s, "%llu", static_cast<unsigned long long>(res.pairs));
        std::snprintf(frames_s, sizeof frames_s, "%d", res.frames);
        std::printf(row_format, "cuda_grid", median_s, min_s, pairs_s, frames_s,
                    res.verified < 0 ? "-" : res.verified ? "yes" : "NO");
        std::printf("upload %.3f ms (boxes to the device, not in the frame), pair transfer %.3f ms (not in the frame), "
                    "%llu cell entries, %d levels, %d key bits, %.1f MB device memory\n",
                    upload_ms, transfer_ms, static_cast<unsigned long long>(st.entries), st.levels, st.key_bits,
                    device_mb);
    }
    std::fflush(stdout);
    return 0;
#endif
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
    // Motion sequences (fall:N, brownian:N:F, static-world:N:F, game:N:F) run as scenes: motion_bench.cpp.
    if (broadphase_fixtures::motion::is_sequence_name(scene)) return run_motion_bench(p);
    if (scene.rfind("jolt-moves:", 0) == 0) return run_moves_bench(p);
    if (p.has("--save-moves")) throw usage_error("--save-moves applies to motion sequences (brownian:N:F, game:N:F)");
    if (p.has("--mode"))
        throw usage_error("--mode applies to motion sequences (fall:N, brownian:N:F, static-world:N:F, game:N:F) and move files");
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
    const int frames =
        static_cast<int>(parse_count("--frames", p.get("--frames", queries ? "5" : "20"), 1, 1000000));
    // --threads 0 (the default): all hardware threads; reported as the count it stands for.
    long long threads = parse_count("--threads", p.get("--threads", "0"), 0, 4096);
    if (threads == 0) threads = broadphase::default_threads();
    const bool verify = p.has("--verify"), json = p.has("--json");
    const std::string algorithm_name = p.get("--algorithm", "automatic");
    // "all": every algorithm of ours, automatic, then the peers this build has; "ours": the same without the peers.
    const bool with_peers = algorithm_name == "all";
    const bool all = with_peers || algorithm_name == "ours";
    const bool one_peer = broadphase_peers::is_peer_name(algorithm_name);
    if (one_peer && (queries || on_cuda))
        throw usage_error("--algorithm " + algorithm_name + ": the peers answer all pairs on the CPU only");
    if (one_peer && !broadphase_peers::make_peer(algorithm_name))
        throw CliError("--algorithm " + algorithm_name +
                       ": this broadphase was built without that peer (install libcgal-dev, libfcl-dev or "
                       "libbullet-dev, then configure again; see docs/peers.md)");
    const Algorithm single = all || one_peer ? Algorithm::automatic : parse_algorithm_option(algorithm_name);

    if (is_particles_scene(scene)) return run_particles_bench(scene, p.has("--frames") ? frames : 0, threads, json);
    broadphase::Boxes boxes;
    if (!broadphase_fixtures::make_scene(scene, boxes)) {
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
                         "broadphase: note: %s holds float64 values; bench times them rounded to float32 "
                         "(broadphase pairs answers in float64)\n",
                         file_label(scene).c_str());
        boxes = std::move(loaded).into<float>();
    }
    // --save-boxes FILE.npy: the scene's boxes, for other programs to time on the same input; nothing is timed.
    if (p.has("--save-boxes")) {
        save_boxes(p.get("--save-boxes", ""), boxes, p.get("--format"));
        return 0;
    }
    const std::size_t n = boxes.size();
    std::size_t invalid = 0;
    for (std::size_t i = 0; i < n; ++i) invalid += boxes[i].valid() ? 0 : 1;
    if (invalid > 0)
        std::fprintf(stderr, "broadphase: note: %zu invalid boxes (NaN or min > max) take part in no pair\n", invalid);

    if (on_cuda) return run_cuda_bench(boxes, scene, frames, p.has("--sorted"), verify, json);

    if (queries) {
        std::vector<Algorithm> algorithms;
        if (all) {
            for (Algorithm a : every_concrete_algorithm()) {
                if (a == Algorithm::brute_force && n > brute_force_limit) {
                    std::fprintf(stderr, "broadphase: note: brute_force skipped: %zu boxes, more than %zu\n", n,
                                 brute_force_limit);
                    continue;
                }
                algorithms.push_back(a);
            }
            algorithms.push_back(Algorithm::automatic);
        } else {
            algorithms.push_back(single);
        }
        return run_query_bench(boxes, scene, algorithms, frames, threads, verify, json);
    }

    std::vector<Algorithm> algorithms;
    std::vector<std::string> peers;
    if (with_peers) peers = broadphase_peers::peer_names();
    if (one_peer) peers.push_back(algorithm_name);
    if (all) {
        if (n <= brute_force_limit) algorithms.push_back(Algorithm::brute_force);
        else
            std::fprintf(stderr, "broadphase: note: brute_force skipped: %zu boxes, more than %zu\n", n,
                         brute_force_limit);
        for (Algorithm a : broadphase::concrete_algorithms)
            if (a != Algorithm::brute_force) algorithms.push_back(a);
        algorithms.push_back(Algorithm::automatic);
    } else if (!one_peer) {
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
        sorted.threads = static_cast<unsigned>(threads);
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
        Result r = time_frames(finder, boxes, a, frames, static_cast<unsigned>(threads), out);
        if (verify) {
            broadphase::sort_pairs(out);
            r.verified = out == reference ? 1 : 0;
        }
        if (json) print_json(r, scene, n, threads);
        else print_row(r);
        std::fflush(stdout);
    }

    // The peers, after ours, each on one thread.
    std::size_t exact_pairs = verify ? reference.size() : out.size();
    if (!peers.empty() && !verify && algorithms.empty()) {  // a peer alone: its pair cap needs the count
        broadphase::Options o;
        o.threads = static_cast<unsigned>(threads);
        check(finder.find_pairs(boxes, out, o), Algorithm::automatic);
        exact_pairs = out.size();
    }
    std::vector<std::string> ran;
    for (const std::string& name : peers) {
        if (exact_pairs > broadphase_peers::peer_pair_limit(name)) {
            std::fprintf(stderr, "broadphase: note: %s skipped: %zu pairs, more than its cap of %zu (memory)\n",
                         name.c_str(), exact_pairs, broadphase_peers::peer_pair_limit(name));
            continue;
        }
        Result r;
        try {
            r = time_peer(name, boxes, frames, out);
        } catch (const std::invalid_argument& e) {  // boxes the peer cannot take (docs/peers.md)
            std::fprintf(stderr, "broadphase: note: %s skipped: %s\n", name.c_str(), e.what());
            continue;
        }
        ran.push_back(name);
        if (verify) compare_with_reference(out, reference, r);
        if (json) print_json(r, scene, n, threads);
        else print_row(r);
        std::fflush(stdout);
    }
    if (!json && !ran.empty()) {
        std::printf("peers, one thread each, a frame = build + all pairs:");
        for (const std::string& name : ran)
            std::printf(" %s = %s;", name.c_str(), broadphase_peers::peer_version(name).c_str());
        std::printf(" see docs/peers.md\n");
    }
    return 0;
}

}  // namespace broadphase_cli
