// The threading layer measured: 1 against 2 threads, OpenMP against the task
// pool (detail/task_pool.hpp), on find_pairs (uniform:1000000, dense20k) and
// find_sphere_pairs (1M spheres), in one process, alternating so that the
// machine's load falls on every configuration alike. Run it idle and with a
// competing load on the other core (docs/threading.md):
//
//   broadphase_threads_bench [ROUNDS]          the table (median ms)
//   broadphase_threads_bench --first LAYER T   a fresh process's first two calls
//                                              of find_sphere_pairs (1M), ms
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase_fixtures/scenes.hpp>
#include <broadphase/spheres.hpp>
#include <broadphase/detail/parallel.hpp>

namespace {

namespace bp = broadphase;

double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

/// 1M spheres of radius 0.5 at solid fraction 0.3, centres uniform in a cube.
std::vector<double> sphere_centres(std::size_t n) {
    broadphase_fixtures::Random rng(17);
    const double side = std::cbrt(static_cast<double>(n) * 4.18879 * 0.125 / 0.3);
    std::vector<double> xyz(3 * n);
    for (double& v : xyz) v = rng.uniform(0, side);
    return xyz;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t nspheres = 1000000;
    if (argc > 1 && std::strcmp(argv[1], "--first") == 0 && argc >= 4) {
        bp::detail::use_pool_layer() = std::strcmp(argv[2], "pool") == 0;
        const std::vector<double> xyz = sphere_centres(nspheres);
        bp::Options o;
        o.threads = static_cast<unsigned>(std::atoi(argv[3]));
        std::vector<bp::Pair> out;
        double t[3];
        for (double& ms : t) {
            bp::SpherePairFinder finder;  // a user calling the free function: fresh buffers every call
            const double t0 = now_ms();
            finder.find_pairs(bp::sphere_rows(xyz.data(), 0.5, nspheres), out, o);
            ms = now_ms() - t0;
        }
        std::printf("first-call layer=%s threads=%s: first %.1f ms, second %.1f ms, third %.1f ms (%zu pairs)\n", argv[2],
                    argv[3], t[0], t[1], t[2], out.size());
        return 0;
    }
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
    const bp::Boxes uniform = broadphase_fixtures::uniform(1000000), dense = broadphase_fixtures::dense20k();
    const std::vector<double> xyz = sphere_centres(nspheres);

    struct Case {
        std::string name;
        std::function<std::size_t(unsigned)> run;  // threads -> pairs
    };
    bp::PairFinder finder_u, finder_d;
    bp::SpherePairFinder finder_s;
    std::vector<bp::Pair> out;
    auto opts = [](unsigned t) {
        bp::Options o;
        o.threads = t;
        return o;
    };
    const std::vector<Case> cases = {
        {"uniform:1000000", [&](unsigned t) { finder_u.find_pairs(uniform, out, opts(t)); return out.size(); }},
        {"dense20k", [&](unsigned t) { finder_d.find_pairs(dense, out, opts(t)); return out.size(); }},
        {"spheres:1000000", [&](unsigned t) { finder_s.find_pairs(bp::sphere_rows(xyz.data(), 0.5, nspheres), out, opts(t)); return out.size(); }},
    };
    // Per case: layer (0 OpenMP, 1 pool) x threads (1, 2), `rounds` each,
    // the four configurations alternating within every round.
    std::printf("%-16s %8s %8s %8s %8s  %s\n", "scene", "omp 1", "omp 2", "pool 1", "pool 2", "pairs (ms: median of rounds)");
    for (const Case& c : cases) {
        const int reps = c.name == "dense20k" ? 50 : 1;  // dense20k: 50 calls a sample
        std::vector<double> ms[2][2];
        std::size_t pairs = 0;
        for (int layer = 0; layer < 2; ++layer)
            for (unsigned t : {1u, 2u}) bp::detail::use_pool_layer() = layer == 1, c.run(t);  // warm-up
        for (int r = 0; r < rounds; ++r)
            for (int layer = 0; layer < 2; ++layer)
                for (unsigned t : {1u, 2u}) {
                    bp::detail::use_pool_layer() = layer == 1;
                    const double t0 = now_ms();
                    for (int k = 0; k < reps; ++k) pairs = c.run(t);
                    ms[layer][t - 1].push_back((now_ms() - t0) / reps);
                }
        std::printf("%-16s %8.2f %8.2f %8.2f %8.2f  %zu\n", c.name.c_str(), median(ms[0][0]), median(ms[0][1]),
                    median(ms[1][0]), median(ms[1][1]), pairs);
        std::fflush(stdout);
    }
    return 0;
}
