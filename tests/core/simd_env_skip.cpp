// Under the ctest entries core.simd_env.<level> (BROADPHASE_SIMD set to a
// level): when the suites would run at the level the plain run (no
// BROADPHASE_SIMD) already used, the best this CPU has, every test is
// skipped instead of run a second time, and the ctest entry reports it
// skipped. That is the best level itself, and a level the CPU lacks (the
// library falls back to the best one; core.simd_env.<level>.check, in
// simd_test.cpp, checks that fallback).
#include <gtest/gtest.h>

#include <broadphase/simd.hpp>

#include <cstdio>
#include <cstdlib>

namespace bptest {
namespace {

class SimdEnvSkip : public ::testing::Environment {
public:
    void SetUp() override {
        const char* env = std::getenv("BROADPHASE_SIMD");
        broadphase::SimdLevel want;
        if (!env || !broadphase::parse_simd_level(env, want)) return;
        const broadphase::SimdLevel best = broadphase::best_simd_level();
        if (broadphase::simd_level_supported(want) && want != best) return;
        std::printf("BROADPHASE_SIMD=%s: the plain run already ran at this level (%s), the best of this CPU\n",
                    env, broadphase::simd_level_name(best));
        GTEST_SKIP();
    }
};

[[maybe_unused]] ::testing::Environment* const simd_env_skip = ::testing::AddGlobalTestEnvironment(new SimdEnvSkip);

}  // namespace
}  // namespace bptest
