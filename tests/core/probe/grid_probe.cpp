// Compiled at build time (see probe_grids.cmake) to learn whether a grid
// algorithm instantiates for a scalar type and dimension, every public
// method included. Not a test: only whether it compiles matters.
#include <cstdint>
#include <vector>

#if BPTEST_PROBE_ALGO == 1
#include <broadphase/uniform_grid.hpp>
#define BPTEST_ALGO broadphase::BasicUniformGrid
#else
#include <broadphase/hybrid_grid.hpp>
#define BPTEST_ALGO broadphase::BasicHybridGrid
#endif

#if BPTEST_PROBE_DOUBLE
using Scalar = double;
#else
using Scalar = float;
#endif

int main() {
    BPTEST_ALGO<Scalar, BPTEST_PROBE_D> algo;
    broadphase::BasicBoxes<Scalar, BPTEST_PROBE_D> boxes(3);
    std::vector<broadphase::Pair> out;
    std::vector<std::uint32_t> hits;
    algo.find_pairs(boxes, out);
    algo.find_pairs(boxes, boxes, out);
    algo.for_each_pair(boxes, [](std::uint32_t, std::uint32_t) { return true; });
    algo.for_each_pair(boxes, boxes, [](std::uint32_t, std::uint32_t) {});
    algo.build(boxes);
    algo.query(boxes[0], hits);
    algo.for_each_hit(boxes[0], [](std::uint32_t) {});
    algo.query_batch(boxes, out);
    algo.for_each_batch_hit(boxes, [](std::uint32_t, std::uint32_t) { return true; });
    return static_cast<int>(out.size() + hits.size());
}
