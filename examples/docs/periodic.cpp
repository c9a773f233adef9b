// Pairs in a periodic domain: boxes and spheres that meet across the boundary.
#include <broadphase/periodic.hpp>
#include <broadphase/spheres.hpp>
#include <cstdio>
#include <vector>

int main() {
    const float rows[] = {9.5f, 0, 0, 10.5f, 1, 1,      // box 0 crosses x = 10 ...
                          0.25f, 0.5f, 0, 1, 1.5f, 1,  // box 1: ... and meets it there (10.5 wraps to 0.5)
                          -5, 0, 0, -4, 1, 1};          // box 2: x = -5 wraps to 5: alone
    broadphase::Boxes boxes;
    boxes.assign_rows(rows, 3);
    broadphase::PeriodicDomain domain{{10, 10, 0}};     // x and y wrap with period 10; z is open (0)
    broadphase::PeriodicPairFinder finder;               // keep it between frames: it reuses its memory
    std::vector<broadphase::Pair> pairs;
    broadphase::Report report = finder.find_pairs(boxes, domain, pairs);  // (a, b), a < b, each once
    for (auto [a, b] : pairs) std::printf("boxes %u %u\n", a, b);

    // Spheres, minimum image: centres at x = 0.5 and 9.5 are 1 apart, so radii 0.5 touch.
    const double xyz[] = {0.5, 5, 5, 9.5, 5, 5, 5, 5, 5};
    broadphase::SpherePairFinder spheres;
    std::vector<broadphase::Pair> touching;
    spheres.find_pairs(broadphase::sphere_rows(xyz, 0.5, 3), broadphase::BasicPeriodicDomain<double, 3>{{10, 10, 10}},
                       touching);
    for (auto [a, b] : touching) std::printf("spheres %u %u\n", a, b);
    return report.ok() && pairs.size() == 1 && touching.size() == 1 ? 0 : 1;
}
