// The SIMD level (broadphase/simd.hpp) switched by one thread while others
// find pairs: every answer stays exact, and ThreadSanitizer (the threads
// label) sees no race on the cached level. A small executable of its own so
// that the sanitizer stage compiles little.
#include <atomic>
#include <iterator>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <broadphase/broadphase.hpp>
#include <broadphase_fixtures/scenes.hpp>
#include <broadphase/simd.hpp>

namespace {

using broadphase::SimdLevel;

TEST(SimdThreads, SwitchWhileRunning) {
    const SimdLevel saved = broadphase::simd_level();
    const broadphase::Boxes b = broadphase_fixtures::random_boxes(3000, 7, 0, 60);
    std::vector<broadphase::Pair> want;
    broadphase::set_simd_level(SimdLevel::scalar);
    broadphase::Options brute;
    brute.algorithm = broadphase::Algorithm::brute_force;
    brute.sorted = true;
    broadphase::find_pairs(b, want, brute);
    ASSERT_FALSE(want.empty());

    // A call reads the level once, at its start; the arrays are padded for
    // the widest level, so any mix of levels between calls is exact.
    std::atomic<int> failures{0};
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < 2; ++t) {
        workers.emplace_back([&, t] {
            broadphase::PairFinder finder;
            std::vector<broadphase::Pair> out;
            for (unsigned round = 0; round < 10; ++round) {
                broadphase::Options o;
                o.algorithm = broadphase::concrete_algorithms[(round + t) % std::size(broadphase::concrete_algorithms)];
                o.sorted = true;
                o.threads = 1;
                finder.find_pairs(b, out, o);
                if (out != want) failures.fetch_add(1);
            }
        });
    }
    const SimdLevel levels[] = {SimdLevel::avx512, SimdLevel::scalar, SimdLevel::avx2, SimdLevel::sse2};
    for (int i = 0; i < 2000; ++i) broadphase::set_simd_level(levels[i % 4]);
    for (auto& w : workers) w.join();
    broadphase::set_simd_level(saved);
    EXPECT_EQ(failures.load(), 0);
}

}  // namespace
