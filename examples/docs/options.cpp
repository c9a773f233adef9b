// Options, two sets, streaming and the algorithm actually used.
#include <broadphase/broadphase.hpp>
#include <cstdio>
#include <vector>

int main() {
    // A 10 x 10 x 10 lattice of unit boxes, one unit apart: each touches its neighbours' faces.
    std::vector<float> rows;
    for (int i = 0; i < 1000; ++i) {
        const float x = float(i % 10), y = float(i / 10 % 10), z = float(i / 100);
        rows.insert(rows.end(), {x, y, z, x + 1, y + 1, z + 1});
    }
    broadphase::Boxes boxes;
    boxes.assign_rows(rows.data(), 1000);

    broadphase::PairFinder finder;
    std::vector<broadphase::Pair> pairs;
    broadphase::Options options;
    options.sorted = true;        // pairs in (a, b) order
    options.threads = 2;          // 0 (the default): all hardware threads; same pairs, same order
    options.max_pairs = 100000;   // a budget: Status::pair_budget_exceeded beyond it
    broadphase::Report report = finder.find_pairs(boxes, pairs, options);
    std::printf("%zu pairs by %s: %s\n", pairs.size(), broadphase::to_string(finder.last_algorithm()),
                broadphase::to_string(report.status));

    // One algorithm by name.
    options.algorithm = broadphase::Algorithm::sweep_and_prune;
    std::vector<broadphase::Pair> swept;
    finder.find_pairs(boxes, swept, options);

    // Pairs streamed to a callback, nothing stored; return false to stop early.
    std::size_t streamed = 0;
    finder.for_each_pair(boxes, [&](std::uint32_t, std::uint32_t) { return ++streamed < 10; });

    // Pairs between two sets: (index in a, index in b).
    broadphase::Boxes probe;
    const float one[] = {4.5f, 4.5f, 4.5f, 5.5f, 5.5f, 5.5f};
    probe.assign_rows(one, 1);
    std::vector<broadphase::Pair> across;
    finder.find_pairs(boxes, probe, across);

    std::printf("sweep and prune: %zu pairs; streamed %zu; the probe meets %zu boxes\n", swept.size(), streamed,
                across.size());
    // Touching counts: 2,700 pairs share a face, 4,860 an edge, 2,916 a corner.
    const bool right = pairs.size() == 10476 && swept == pairs && streamed == 10 && across.size() == 8;
    return report.ok() && right ? 0 : 1;
}
