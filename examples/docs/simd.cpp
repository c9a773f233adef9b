// The SIMD level: what this CPU and build can run, what is in use, forcing one.
#include <broadphase/broadphase.hpp>
#include <broadphase/simd.hpp>
#include <cstdio>
#include <vector>

int main() {
    const broadphase::SimdLevel best = broadphase::best_simd_level();  // avx512, avx2, sse2 or scalar
    std::printf("best %s, in use %s\n", broadphase::simd_level_name(best),
                broadphase::simd_level_name(broadphase::simd_level()));

    std::vector<float> rows;                   // 2,000 boxes on a line, each touching the next
    for (int i = 0; i < 2000; ++i) rows.insert(rows.end(), {float(i), 0, 0, float(i + 1), 1, 1});
    broadphase::Boxes boxes;
    boxes.assign_rows(rows.data(), 2000);
    broadphase::PairFinder finder;
    broadphase::Options options;
    options.algorithm = broadphase::Algorithm::brute_force;   // the kernel-heaviest algorithm
    options.sorted = true;

    std::vector<broadphase::Pair> wide, narrow;
    finder.find_pairs(boxes, wide, options);
    broadphase::set_simd_level(broadphase::SimdLevel::scalar);  // force one; returns the level set
    finder.find_pairs(boxes, narrow, options);                    // answers never depend on the level
    broadphase::set_simd_level(best);
    std::printf("%zu pairs with %s and with scalar code\n", wide.size(), broadphase::simd_level_name(best));
    return wide == narrow && wide.size() == 1999 ? 0 : 1;
}
