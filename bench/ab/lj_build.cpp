// bench/ab/ab_bench.sh's neighbour-list case: NeighborList on an fcc LJ liquid-like lattice (LAMMPS's in.lj:
// density 0.8442, cutoff 2.5, skin 0.3), 256,000 atoms; first build in this
// process, then the median of 9 warm builds after small moves.
#include <broadphase/neighbor_list.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
int main(int argc, char** argv) {
    const int m = argc > 1 ? std::atoi(argv[1]) : 40;  // 4 m^3 atoms
    const double a = std::cbrt(4.0 / 0.8442), L = a * m;
    std::vector<double> x;
    std::mt19937_64 rng(1);
    std::normal_distribution<double> g(0, 0.05);
    const double base[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j)
            for (int k = 0; k < m; ++k)
                for (auto& b : base) {
                    x.push_back((i + b[0]) * a + g(rng));
                    x.push_back((j + b[1]) * a + g(rng));
                    x.push_back((k + b[2]) * a + g(rng));
                }
    const std::size_t n = x.size() / 3;
    broadphase::NeighborListOptions o;
    o.cutoff = 2.5;
    o.skin = 0.3;
    o.threads = 1;
    broadphase::NeighborList list(o, broadphase::PeriodicCell::orthorhombic(L, L, L));
    auto t0 = std::chrono::steady_clock::now();
    auto r = list.build(broadphase::sphere_rows(x.data(), 0.0, n));
    auto t1 = std::chrono::steady_clock::now();
    std::vector<double> warm;
    for (int rep = 0; rep < 9; ++rep) {
        for (double& v : x) v += g(rng) * 0.01;
        auto s0 = std::chrono::steady_clock::now();
        list.build(broadphase::sphere_rows(x.data(), 0.0, n));
        auto s1 = std::chrono::steady_clock::now();
        warm.push_back(std::chrono::duration<double, std::milli>(s1 - s0).count());
    }
    std::sort(warm.begin(), warm.end());
    std::printf("lj%zu first_ms=%.2f warm_ms=%.2f entries=%zu ok=%d\n", n,
                std::chrono::duration<double, std::milli>(t1 - t0).count(), warm[4], list.entries(), int(r.ok()));
}
