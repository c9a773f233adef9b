#include <broadphase/broadphase.hpp>
#include <cstdio>
#include <vector>

int main() {
    const float rows[] = {0, 0, 0, 1, 1, 1,        // box 0: minx miny minz maxx maxy maxz
                          0.5f, 0.5f, 0.5f, 2, 2, 2,  // box 1: overlaps box 0
                          3, 3, 3, 4, 4, 4};       // box 2: alone
    broadphase::Boxes boxes;                      // struct of arrays, float, 3-D
    boxes.assign_rows(rows, 3);
    broadphase::PairFinder finder;                // keep it: it reuses its memory every frame
    std::vector<broadphase::Pair> pairs;
    broadphase::Report report = finder.find_pairs(boxes, pairs);  // (a, b), a < b, each once
    for (auto [a, b] : pairs) std::printf("%u %u\n", a, b);
    return report.ok() ? 0 : 1;
}
