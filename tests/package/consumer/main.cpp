// Uses an installed broadphase through find_package (consumer/), or through
// pkg-config alone (package_library_only): a few boxes, every algorithm, the
// count and the pairs themselves checked, and the package's version.
#include <broadphase/broadphase.hpp>

#include <cstdio>
#include <cstring>
#include <vector>

int main() {
    // minx miny minz maxx maxy maxz per row.
    const float rows[] = {
        0,    0,    0,    1,  1,  1,   // 0
        0.5f, 0.5f, 0.5f, 2,  2,  2,   // 1: overlaps 0
        1,    1,    1,    3,  3,  3,   // 2: touches 0 at a corner (counts), overlaps 1
        10,   10,   10,   11, 11, 11,  // 3: alone
        2.5f, 0,    0,    4,  1,  1,   // 4: touches 2 along an edge (counts)
    };
    broadphase::Boxes boxes;
    boxes.assign_rows(rows, sizeof(rows) / sizeof(rows[0]) / 6);

    const std::vector<broadphase::Pair> expected = {{0, 1}, {0, 2}, {1, 2}, {2, 4}};

    int failures = 0;
    std::vector<broadphase::Pair> pairs;

    // The one-shot front door, algorithm chosen automatically.
    broadphase::Report r = broadphase::find_pairs(boxes, pairs);
    broadphase::sort_pairs(pairs);
    if (!r.ok() || r.pairs != expected.size() || pairs != expected) {
        std::printf("find_pairs (automatic): %zu pairs, expected %zu\n", pairs.size(), expected.size());
        ++failures;
    }

    // Every algorithm by name, through a reused PairFinder.
    broadphase::PairFinder finder;
    for (const char* name : {"brute_force", "sweep_and_prune", "uniform_grid", "hybrid_grid", "adaptive_grid", "cluster_pairs", "automatic"}) {
        broadphase::Options options;
        if (!broadphase::parse_algorithm(name, options.algorithm)) {
            std::printf("unknown algorithm name %s\n", name);
            ++failures;
            continue;
        }
        options.sorted = true;
        r = finder.find_pairs(boxes, pairs, options);
        if (!r.ok() || pairs != expected) {
            std::printf("%s: %zu pairs, expected %zu\n", name, pairs.size(), expected.size());
            ++failures;
        }
    }

    // find_package's version is the installed header's.
    if (std::strcmp(BROADPHASE_PACKAGE_VERSION, BROADPHASE_VERSION_STRING) != 0) {
        std::printf("the package says version %s, version.hpp %s\n", BROADPHASE_PACKAGE_VERSION,
                    BROADPHASE_VERSION_STRING);
        ++failures;
    }

    if (failures != 0) {
        std::printf("broadphase consumer: %d failure(s)\n", failures);
        return 1;
    }
    std::printf("broadphase consumer: ok (%zu pairs)\n", pairs.size());
    return 0;
}
