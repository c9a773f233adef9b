// Google Benchmark suite for broadphase.
//
//   find_pairs/<scene>/<algorithm>   one full PairFinder::find_pairs frame
//   query/sparse20k/<algorithm>      every box of sparse20k queried in turn
//                                    against an Index built over sparse20k
//   ray_cast/uniform100k/<tree>/<len> DynamicTree::ray_cast (closest hit)
//                                    over the 100,000 boxes of uniform:100000
//                                    (tree: "inserted" one by one, or after
//                                    "rebuilt" rebuild()); 4,096 fixed rays,
//                                    origins uniform in the scene's bounding
//                                    cube, directions uniform on the sphere,
//                                    len: "short" max_t = the cube's side,
//                                    "long" max_t = +inf, "aimed" (picking)
//                                    max_t = side, each ray aimed at the
//                                    centre of a random scene box (always a
//                                    hit); each call timed
//                                    alone: median_ns, p90_ns, mean_ns (the
//                                    clock's own cost, clock_ns, included)
//   tree_query/uniform100k/<kind>    DynamicTree box (each scene box), point
//                                    and sphere (r = 4) queries, rebuilt tree
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
// suite use bench/bench_csv.sh (JSON converted), or filter to one group.
#include <benchmark/benchmark.h>

#include <broadphase/broadphase.hpp>
#include <broadphase/dynamic_tree.hpp>
#include <broadphase_fixtures/scenes.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <utility>
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
        if (!broadphase_fixtures::make_scene(name, boxes)) {
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

/// A scene cut in two for the two-set search: by size (the boxes whose
/// widest extent is in the lowest quarter against those in the highest:
/// two scales when the scene mixes them; the middle half left out) or by
/// index (even against odd: alike). Cached.
const std::pair<broadphase::Boxes, broadphase::Boxes>& scene_halves(const std::string& name, bool by_size) {
    static std::map<std::pair<std::string, bool>, std::pair<broadphase::Boxes, broadphase::Boxes>> cache;
    auto it = cache.find({name, by_size});
    if (it == cache.end()) {
        const broadphase::Boxes& all = scene(name);
        std::vector<float> widest(all.size());
        for (std::size_t i = 0; i < all.size(); ++i) {
            const broadphase::Box b = all[i];
            widest[i] = std::max({b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]});
        }
        std::vector<float> sorted = widest;
        std::sort(sorted.begin(), sorted.end());
        const float low = sorted.empty() ? 0.0f : sorted[sorted.size() / 4];
        const float high = sorted.empty() ? 0.0f : sorted[sorted.size() * 3 / 4];
        std::pair<broadphase::Boxes, broadphase::Boxes> halves;
        for (std::size_t i = 0; i < all.size(); ++i) {
            if (by_size && widest[i] < low) halves.first.push_back(all[i]);
            else if (by_size && widest[i] > high) halves.second.push_back(all[i]);
            else if (!by_size) (i % 2 == 0 ? halves.first : halves.second).push_back(all[i]);
        }
        it = cache.emplace(std::make_pair(name, by_size), std::move(halves)).first;
    }
    return it->second;
}

/// Pairs between the two halves of a scene (scene_halves), one thread.
void find_pairs_between(benchmark::State& state, std::string scene_name, bool by_size, Algorithm algorithm) {
    const auto& [a, b] = scene_halves(scene_name, by_size);
    broadphase::PairFinder finder;
    std::vector<broadphase::Pair> pairs;
    broadphase::Options options;
    options.algorithm = algorithm;
    options.threads = 1;
    broadphase::Report report = finder.find_pairs(a, b, pairs, options);  // warm-up
    if (!report.ok()) {
        state.SkipWithError(broadphase::to_string(report.status));
        return;
    }
    for (auto _ : state) {
        report = finder.find_pairs(a, b, pairs, options);
        benchmark::DoNotOptimize(pairs.data());
        benchmark::ClobberMemory();
    }
    state.counters["pairs"] = double(report.pairs);
    state.counters["a"] = double(a.size());
    state.counters["b"] = double(b.size());
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

/// A DynamicTree over uniform:100000, inserted in scene order (default
/// margin), optionally rebuilt; built once per state and kept.
const broadphase::DynamicTree& tree_of(const std::string& scene_name, bool rebuilt) {
    static std::map<std::pair<std::string, bool>, broadphase::DynamicTree> cache;
    auto key = std::make_pair(scene_name, rebuilt);
    auto it = cache.find(key);
    if (it == cache.end()) {
        const broadphase::Boxes& boxes = scene(scene_name);
        broadphase::DynamicTree tree;
        tree.reserve(boxes.size());
        for (std::size_t i = 0; i < boxes.size(); ++i) tree.insert(boxes[i], i);
        if (rebuilt) tree.rebuild();
        it = cache.emplace(key, std::move(tree)).first;
    }
    return it->second;
}

struct Ray {
    std::array<float, 3> origin, direction;
};

/// 4,096 fixed rays: origins uniform in the bounding cube of the scene,
/// directions uniform on the unit sphere. Also gives the cube's side.
std::vector<Ray> rays_in(const broadphase::Boxes& boxes, float& side) {
    std::array<float, 3> lo{}, hi{};
    for (int k = 0; k < 3; ++k) {
        lo[k] = *std::min_element(boxes.min(k), boxes.min(k) + boxes.size());
        hi[k] = *std::max_element(boxes.max(k), boxes.max(k) + boxes.size());
    }
    side = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    broadphase_fixtures::Random r(77);
    std::vector<Ray> rays(4096);
    for (Ray& ray : rays) {
        double d[3], len2 = 0;
        do {
            len2 = 0;
            for (double& x : d) x = r.uniform(-1, 1), len2 += x * x;
        } while (len2 > 1 || len2 < 1e-6);  // uniform in the ball, then normalised
        const double len = std::sqrt(len2);
        for (int k = 0; k < 3; ++k) {
            ray.origin[k] = float(r.uniform(lo[k], lo[k] + side));
            ray.direction[k] = float(d[k] / len);
        }
    }
    return rays;
}

/// Median, 90th percentile and mean of per-call nanoseconds (sorts `ns`).
void record_latency(benchmark::State& state, std::vector<double>& ns) {
    if (ns.empty()) return;
    double sum = 0;
    for (double x : ns) sum += x;
    std::sort(ns.begin(), ns.end());
    state.counters["median_ns"] = ns[ns.size() / 2];
    state.counters["p90_ns"] = ns[ns.size() * 9 / 10];
    state.counters["mean_ns"] = sum / double(ns.size());
    // What one timed empty interval costs (steady_clock read twice).
    std::vector<double> empty(1001);
    for (double& e : empty) {
        const auto t0 = Clock::now();
        const auto t1 = Clock::now();
        e = std::chrono::duration<double, std::nano>(t1 - t0).count();
    }
    std::sort(empty.begin(), empty.end());
    state.counters["clock_ns"] = empty[empty.size() / 2];
}

enum class RayLength { short_, long_, aimed };

void ray_cast_rays(benchmark::State& state, std::string scene_name, bool rebuilt, RayLength length) {
    const broadphase::DynamicTree& tree = tree_of(scene_name, rebuilt);
    const broadphase::Boxes& boxes = scene(scene_name);
    float side = 0;
    std::vector<Ray> rays = rays_in(boxes, side);
    const float max_t = length == RayLength::long_ ? std::numeric_limits<float>::infinity() : side;
    if (length == RayLength::aimed) {
        broadphase_fixtures::Random r(78);
        for (Ray& ray : rays) {
            const broadphase::Box b = boxes[std::size_t(r.below(boxes.size()))];
            double d[3], len2 = 0;
            for (int k = 0; k < 3; ++k) {
                d[k] = 0.5 * (double(b.min[k]) + double(b.max[k])) - double(ray.origin[k]);
                len2 += d[k] * d[k];
            }
            const double len = std::sqrt(len2);
            for (int k = 0; k < 3; ++k) ray.direction[k] = float(d[k] / len);
        }
    }
    std::size_t hits = 0;
    for (const Ray& r : rays) hits += tree.ray_cast(r.origin, r.direction, max_t) ? 1 : 0;  // warm-up
    std::vector<double> ns;
    ns.reserve(std::size_t(std::min<benchmark::IterationCount>(state.max_iterations, 50000000)));
    std::size_t i = 0;
    for (auto _ : state) {
        const Ray& r = rays[i];
        i = (i + 1) & (rays.size() - 1);
        const auto t0 = Clock::now();
        auto h = tree.ray_cast(r.origin, r.direction, max_t);
        benchmark::DoNotOptimize(h);
        const auto t1 = Clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    record_latency(state, ns);
    state.counters["hit_fraction"] = double(hits) / double(rays.size());
    state.counters["height"] = tree.height();
    state.counters["area_ratio"] = tree.quality().area_ratio;
}

enum class TreeQuery { box, point, sphere };

void tree_query(benchmark::State& state, std::string scene_name, TreeQuery kind) {
    const broadphase::DynamicTree& tree = tree_of(scene_name, true);
    const broadphase::Boxes& boxes = scene(scene_name);
    float side = 0;
    const std::vector<Ray> rays = rays_in(boxes, side);  // their origins are the points and centres
    std::vector<double> ns;
    ns.reserve(std::size_t(std::min<benchmark::IterationCount>(state.max_iterations, 50000000)));
    std::size_t i = 0, found = 0, calls = 0;
    for (auto _ : state) {
        std::size_t count = 0;
        auto f = [&](std::uint32_t) { ++count; };
        const auto t0 = Clock::now();
        switch (kind) {
            case TreeQuery::box: tree.for_each_overlap(boxes[i % boxes.size()], f); break;
            case TreeQuery::point: tree.for_each_containing(rays[i & 4095].origin, f); break;
            case TreeQuery::sphere: tree.for_each_overlapping_sphere(rays[i & 4095].origin, 4.0f, f); break;
        }
        benchmark::DoNotOptimize(count);
        const auto t1 = Clock::now();
        ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
        found += count;
        ++calls;
        i = (i * 7919 + 1) % 100003;
    }
    record_latency(state, ns);
    if (calls) state.counters["hits_per_query"] = double(found) / double(calls);
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

/// push_back into a reserved vector, as the library's PairSink does into a vector.
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
        // Real-data shapes (real_scenes.hpp): meshes, a scan, a pile, voxels, hair.
        {"sphere-mesh:100000", false}, {"torus-mesh:100000", false}, {"terrain:100000", false},
        {"soup:100000", false},        {"scan:100000", false},       {"pile:100000", false},
        {"voxels:100000", false},      {"hair:100000", false},
        // Scale that varies from place to place (issue 30): a remeshed
        // surface, clusters at 100x different scales, a teapot in a stadium.
        {"refined-mesh:100000", false}, {"spread-clusters:100000", false}, {"stadium:100000", false},
    };
    const Algorithm algorithms[] = {Algorithm::brute_force, Algorithm::sweep_and_prune, Algorithm::uniform_grid,
                                    Algorithm::hybrid_grid, Algorithm::adaptive_grid, Algorithm::cluster_pairs,
                                    Algorithm::automatic};

    for (const SceneSpec& s : scene_list) {
        for (Algorithm a : algorithms) {
            if (a == Algorithm::brute_force && !s.brute_force) continue;
            const std::string name = std::string("find_pairs/") + s.name + "/" + broadphase::to_string(a);
            benchmark::RegisterBenchmark(name.c_str(), find_pairs_frame, std::string(s.name), a)
                ->Unit(benchmark::kMillisecond);
        }
    }
    // Two sets: a scene's smallest quarter against its widest (two scales),
    // and even against odd boxes (one scale).
    for (const auto& [scene_name, by_size] : {std::make_pair("spread-clusters:100000", true),
                                              std::make_pair("uniform:100000", false)}) {
        for (Algorithm a : algorithms) {
            if (a == Algorithm::brute_force) continue;
            const std::string name = std::string("between/") + scene_name + (by_size ? "/by-size/" : "/even-odd/") +
                                     broadphase::to_string(a);
            benchmark::RegisterBenchmark(name.c_str(), find_pairs_between, std::string(scene_name), by_size, a)
                ->Unit(benchmark::kMillisecond);
        }
    }
    for (Algorithm a : algorithms) {
        const std::string name = std::string("query/sparse20k/") + broadphase::to_string(a);
        benchmark::RegisterBenchmark(name.c_str(), query_each_box, std::string("sparse20k"), a)
            ->Unit(benchmark::kMillisecond);
    }
    for (bool rebuilt : {false, true})
        for (RayLength length : {RayLength::short_, RayLength::long_, RayLength::aimed}) {
            const char* len = length == RayLength::short_ ? "/short" : length == RayLength::long_ ? "/long" : "/aimed";
            const std::string name =
                std::string("ray_cast/uniform100k/") + (rebuilt ? "rebuilt" : "inserted") + len;
            benchmark::RegisterBenchmark(name.c_str(), ray_cast_rays, std::string("uniform:100000"), rebuilt, length)
                ->Unit(benchmark::kNanosecond);
        }
    benchmark::RegisterBenchmark("tree_query/uniform100k/box", tree_query, std::string("uniform:100000"),
                                 TreeQuery::box)
        ->Unit(benchmark::kNanosecond);
    benchmark::RegisterBenchmark("tree_query/uniform100k/point", tree_query, std::string("uniform:100000"),
                                 TreeQuery::point)
        ->Unit(benchmark::kNanosecond);
    benchmark::RegisterBenchmark("tree_query/uniform100k/sphere", tree_query, std::string("uniform:100000"),
                                 TreeQuery::sphere)
        ->Unit(benchmark::kNanosecond);
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
