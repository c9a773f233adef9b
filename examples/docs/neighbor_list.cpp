// A Verlet neighbour list kept between MD steps in a periodic cell: a half
// list (each pair once) of the pairs within cutoff + skin, in CSR rows,
// rebuilt only when some particle has moved more than skin / 2.
#include <broadphase/neighbor_list.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
    const double L = 10, cutoff = 2.5, skin = 0.3;
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> in_box(0, L);
    std::normal_distribution<double> jiggle(0, 0.01);
    std::vector<double> xyz(3 * 500);
    for (double& c : xyz) c = in_box(rng);
    const std::size_t n = xyz.size() / 3;

    broadphase::NeighborListOptions options;
    options.cutoff = cutoff, options.skin = skin;
    broadphase::NeighborList list(options, broadphase::PeriodicCell::orthorhombic(L, L, L));

    std::size_t pairs_within = 0;
    for (int step = 0; step < 20; ++step) {
        for (double& c : xyz) c += jiggle(rng);  // the integrator's move
        list.update(xyz.data(), n);              // builds only when some particle moved over skin / 2
        pairs_within = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::uint64_t e = list.offsets()[i]; e < list.offsets()[i + 1]; ++e) {
                const std::size_t j = list.indices()[e];
                double d2 = 0;
                for (int k = 0; k < 3; ++k) {
                    double d = xyz[3 * j + k] - xyz[3 * i + k];
                    d -= L * std::nearbyint(d / L);  // minimum image (the cutoff is under L / 2)
                    d2 += d * d;
                }
                if (d2 < cutoff * cutoff) ++pairs_within;  // forces on i and j here
            }
    }
    std::printf("%zu builds in 20 steps, %zu entries, %zu pairs within the cutoff\n", list.builds(), list.entries(),
                pairs_within);
    return 0;
}
