// Google Benchmark suite for broadphase.
//
//   find_pairs/<scene>/<algorithm>   one full PairFinder::find_pairs frame
//   query/sparse20k/<algorithm>      every box of sparse20k queried in turn
//                                    against an Index built over sparse20k
//   memory_write/<how>               writing 199,990,000 Pair values (the
//                                    output of identical:20000) into a
//                                    reserved, reused vector: the floor for
//                                    identical:20000
//
// Scenes are generated once, outside every timing loop. Each benchmark does
// one warm-up frame before timing, so the PairFinder, the Index and the
// output vector have grown to size and the timed frames reuse their memory.
// Counters: pairs, boxes, ns_per_box (find_pairs); queries, hits,
// ns_per_query (query); pairs, ns_per_pair (memory_write); the ns_* ones
// are wall clock. The groups carry different counters, which Google
// Benchmark's CSV reporter refuses within one run: for CSV of the whole
// suite use scripts/bench_csv.sh (JSON converted), or filter to one group.
#include <benchmark/benchmark.h>

#include <broadphase/broadphase.hpp>
#include <broadphase/scenes.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#ifndef BROADPHASE_BENCH_BUILD_TYPE
#define BROADPHASE_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

using broadphase::Algorithm;
using Clock = std::chrono::steady_clock;

/// Each scene built once and kept for the whole run.
const broadphase::Boxes& scene(const std::string& name) {
    static std::map<std::string, broadphase::Boxes> cache;
    auto it = cache.find(name);
    if (it == cache.end()) {
        broadphase::Boxes boxes;
        if (!broadphase::scenes::make_scene(name, boxes)) {
            std::fprintf(stderr, "unknown scene %s\n", name.c_str());
            std::abort();
        }
        it = cache.emplace(name, std::move(boxes)).first;
    }
    return it->second;
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

void find_pairs_frame(benchmark::State& state, std::string scene_name, Algorithm algorithm) {
    const broadphase::Boxes& boxes = scene(scene_name);
    broadphase::PairFinder finder;
    std::vector<broadphase::Pair> pairs;
    broadphase::Options options;
    options.algorithm = algorithm;
    options.threads = 1;  // this suite is single-threaded; `broadphase bench --threads T` times threads

    // Warm-up frame: sizes every buffer, and gives the counts.
    broadphase::Report report = finder.find_pairs(boxes, pairs, options);
    if (!report.ok()) {
        state.SkipWithError(broadphase::to_string(report.status));
        return;
    }
    const double pair_count = double(report.pairs);

    Clock::duration spent{};
    for (auto _ : state) {
        const auto t0 = Clock::now();
        report = finder.find_pairs(boxes, pairs, options);
        benchmark::DoNotOptimize(pairs.data());
        benchmark::ClobberMemory();
        spent += Clock::now() - t0;
    }
    const double frames = double(state.iterations());
    state.counters["pairs"] = pair_count;
    state.counters["boxes"] = double(boxes.size());
    if (frames > 0 && !boxes.empty())
        state.counters["ns_per_box"] = seconds(spent) * 1e9 / (frames * double(boxes.size()));
    state.SetLabel(broadphase::to_string(finder.last_algorithm()));
}

void query_each_box(benchmark::State& state, std::string scene_name, Algorithm algorithm) {
    const broadphase::Boxes& boxes = scene(scene_name);
    std::vector<broadphase::Box> queries(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) queries[i] = boxes[i];

    broadphase::Index index;
    const broadphase::Report built = index.build(boxes, algorithm);
    if (!built.ok()) {
        state.SkipWithError(broadphase::to_string(built.status));
        return;
    }
    std::vector<std::uint32_t> hits;
    std::uint64_t hit_count = 0;
    for (const auto& q : queries) hit_count += index.query(q, hits);  // warm-up

    Clock::duration spent{};
    for (auto _ : state) {
        const auto t0 = Clock::now();
        std::uint64_t total = 0;
        for (const auto& q : queries) total += index.query(q, hits);
        benchmark::DoNotOptimize(total);
        spent += Clock::now() - t0;
    }
    const double n = double(queries.size());
    const double rounds = double(state.iterations());
    state.counters["queries"] = n;
    state.counters["hits"] = double(hit_count);
    if (rounds > 0 && n > 0) state.counters["ns_per_query"] = seconds(spent) * 1e9 / (rounds * n);
    state.SetLabel(broadphase::to_string(index.algorithm()));
}

/// identical:20000 has 20000 * 19999 / 2 pairs.
constexpr std::size_t identical20k_pairs = 199990000;

void record_write_counters(benchmark::State& state, Clock::duration spent, std::size_t count) {
    state.counters["pairs"] = double(count);
    const double rounds = double(state.iterations());
    if (rounds > 0) state.counters["ns_per_pair"] = seconds(spent) * 1e9 / (rounds * double(count));
}

/// Times fill() per iteration after one untimed call (which commits the pages).
template <class Fill>
void time_fill(benchmark::State& state, Fill& fill, std::size_t count) {
    fill();
    Clock::duration spent{};
    for (auto _ : state) {
        const auto t0 = Clock::now();
        fill();
        spent += Clock::now() - t0;
    }
    record_write_counters(state, spent, count);
}

/// push_back into a reserved vector, as the library's VectorSink does.
void memory_write_push_back(benchmark::State& state) {
    const std::size_t count = identical20k_pairs;
    std::vector<broadphase::Pair> out;
    out.reserve(count);
    auto fill = [&] {
        out.clear();
        for (std::uint32_t a = 0, b = 1; out.size() < count; ++b) {
            if (b == 20000) b = ++a + 1;  // the pairs of identical:20000, in order
            out.push_back(broadphase::Pair{a, b});
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    };
    time_fill(state, fill, count);
}

/// Plain stores into a vector already sized: the raw write bandwidth.
void memory_write_store(benchmark::State& state) {
    const std::size_t count = identical20k_pairs;
    std::vector<broadphase::Pair> out(count);
    auto fill = [&] {
        broadphase::Pair* p = out.data();
        for (std::size_t i = 0; i < count; ++i) p[i] = broadphase::Pair{std::uint32_t(i), std::uint32_t(i + 1)};
        benchmark::DoNotOptimize(p);
        benchmark::ClobberMemory();
    };
    time_fill(state, fill, count);
}

void register_all() {
    // Brute force only up to 40k boxes; the degenerate identical:20000
    // (199,990,000 pairs) only for the grids, the sweep and auto.
    struct SceneSpec {
        const char* name;
        bool brute_force;
    };
    const SceneSpec scene_list[] = {
        {"sparse20k", true},       {"dense20k", true},         {"stretched40k", true},
        {"clusters40k", true},     {"mixed20k", true},         {"uniform:100000", false},
        {"uniform:1000000", false}, {"identical:20000", false},
    };
    const Algorithm algorithms[] = {Algorithm::brute_force, Algorithm::sweep_and_prune, Algorithm::uniform_grid,
                                    Algorithm::hybrid_grid, Algorithm::adaptive_grid, Algorithm::automatic};

    for (const SceneSpec& s : scene_list) {
        for (Algorithm a : algorithms) {
            if (a == Algorithm::brute_force && !s.brute_force) continue;
            const std::string name = std::string("find_pairs/") + s.name + "/" + broadphase::to_string(a);
            benchmark::RegisterBenchmark(name.c_str(), find_pairs_frame, std::string(s.name), a)
                ->Unit(benchmark::kMillisecond);
        }
    }
    for (Algorithm a : algorithms) {
        const std::string name = std::string("query/sparse20k/") + broadphase::to_string(a);
        benchmark::RegisterBenchmark(name.c_str(), query_each_box, std::string("sparse20k"), a)
            ->Unit(benchmark::kMillisecond);
    }
    benchmark::RegisterBenchmark("memory_write/push_back", memory_write_push_back)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("memory_write/store", memory_write_store)
        ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("broadphase_build_type", BROADPHASE_BENCH_BUILD_TYPE);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
