// Which instruction set the box-test kernels run on, chosen at run time.
//
// Every algorithm spends most of its time in a few kernels (src/simd/dispatch.hpp)
// that test one box against a run of boxes several at a time. On x86 with
// GCC or Clang each kernel is compiled three times, for AVX-512 (16 boxes
// an instruction), AVX2 (8) and SSE2 (4), and the first kernel call picks
// the widest one this CPU runs (cpuid), so a build without -march flags
// still gets the wide kernels. The choice is made once and cached; each
// kernel call then costs one switch on the cached level.
//
// The environment variable BROADPHASE_SIMD=avx512|avx2|sse2|scalar, read at
// the first kernel call, forces a level; set_simd_level() forces one from
// code. A forced level this CPU lacks falls back to the best it has.
// A build whose compiler flags already name a level (-march=native,
// -mavx2, -mavx512f ...) never reports less than that level as available:
// its other code needs that CPU anyway.
//
// MSVC (no cpuid dispatch here): the level the compiler targets (/arch),
// SSE2 on x64. Other CPUs: the portable scalar loops (SimdLevel::scalar).
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>

// BROADPHASE_SIMD_X86: the x86 kernel copies are compiled (src/simd/, one
// folder per instruction set). With GCC or Clang all three, SSE2, AVX2 and
// AVX-512, chosen by cpuid at run time; with MSVC (and clang-cl: no
// __builtin_cpu_supports) SSE2 and those its /arch allows (__AVX2__,
// __AVX512F__ ...). Undefined: the portable scalar loops only.
#if (defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)) || \
    (defined(_MSC_VER) && (defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)))
#define BROADPHASE_SIMD_X86 1
#endif

namespace broadphase {

/// Instruction sets the kernels can run on, narrowest first. avx2 also
/// needs BMI1 and POPCNT; avx512 needs AVX-512 F, VL, BW and DQ.
enum class SimdLevel : int { scalar = 0, sse2 = 1, avx2 = 2, avx512 = 3 };

namespace detail {
namespace simd_select {

/// The level the compiler flags already require of the CPU: the floor.
constexpr SimdLevel compiled_level() {
#if !defined(BROADPHASE_SIMD_X86)
    return SimdLevel::scalar;
#elif defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && defined(__AVX512DQ__)
    return SimdLevel::avx512;
#elif defined(__AVX2__) && defined(__BMI__) && defined(__POPCNT__)
    return SimdLevel::avx2;
#elif defined(__AVX2__) && defined(_MSC_VER)
    return SimdLevel::avx2;
#else
    return SimdLevel::sse2;
#endif
}

/// The widest level both this CPU (cpuid) and this build can run.
inline SimdLevel detect() noexcept {
    SimdLevel cpu = compiled_level();
#if defined(BROADPHASE_SIMD_X86) && defined(__GNUC__)
    __builtin_cpu_init();  // needed when called before the runtime's own constructors
    SimdLevel found = SimdLevel::scalar;
    if (__builtin_cpu_supports("sse2")) found = SimdLevel::sse2;
    if (found == SimdLevel::sse2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
        __builtin_cpu_supports("popcnt"))
        found = SimdLevel::avx2;
    if (found == SimdLevel::avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
        found = SimdLevel::avx512;
    if (found > cpu) cpu = found;
#endif
    return cpu;
}

/// Cached results; -1 until first needed. Constant-initialised atomics, so
/// reading them costs a plain load and no guard.
inline std::atomic<int> best_cache{-1};
inline std::atomic<int> active_cache{-1};

inline SimdLevel best() noexcept {
    int b = best_cache.load(std::memory_order_relaxed);
    if (b < 0) {
        b = static_cast<int>(detect());
        best_cache.store(b, std::memory_order_relaxed);
    }
    return static_cast<SimdLevel>(b);
}

inline bool parse(const char* s, SimdLevel& out) noexcept {
    if (!s) return false;
    static const struct { const char* name; SimdLevel level; } names[] = {
        {"scalar", SimdLevel::scalar}, {"sse2", SimdLevel::sse2}, {"avx2", SimdLevel::avx2},
        {"avx512", SimdLevel::avx512}};
    for (const auto& n : names)
        if (std::strcmp(s, n.name) == 0) {
            out = n.level;
            return true;
        }
    return false;
}

/// `want`, or the best level when this CPU lacks `want`.
inline SimdLevel clamp(SimdLevel want) noexcept {
    const SimdLevel b = best();
    return want > b ? b : want;
}

/// First call: BROADPHASE_SIMD if set and known, else the best level.
/// Racing first calls compute the same value, so a plain store will do.
/// Kept out of line: active() is inlined into every kernel call.
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
inline SimdLevel initialise() noexcept {
    SimdLevel level = best();
#if defined(_MSC_VER) && !defined(__clang__)
#pragma warning(suppress : 4996)  // getenv: read once, no thread writes the environment here
#endif
    const char* env = std::getenv("BROADPHASE_SIMD");
    SimdLevel want;
    if (parse(env, want)) level = clamp(want);
    active_cache.store(static_cast<int>(level), std::memory_order_relaxed);
    return level;
}

/// The level in use: a load and a predictable branch, inlined (GCC leaves
/// it a call in big callers otherwise; measured: docs/measured-in-code.md\#simd-kernels).
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline SimdLevel active() noexcept {
    const int a = active_cache.load(std::memory_order_relaxed);
    if (a >= 0) return static_cast<SimdLevel>(a);
    return initialise();
}

}  // namespace simd_select
}  // namespace detail

/// The widest kernel level this CPU and this build can run: avx512, avx2,
/// sse2, or scalar where no SIMD kernel is compiled. Runs cpuid once, then
/// a cached load.
inline SimdLevel best_simd_level() noexcept { return detail::simd_select::best(); }

/// True when the kernels can run at `level` here (level <= best_simd_level()).
inline bool simd_level_supported(SimdLevel level) noexcept { return level <= best_simd_level(); }

/// The level the kernels use now: the one last set, else BROADPHASE_SIMD
/// from the environment (read once, at the first call of this or of any
/// kernel), else best_simd_level(). A cached load.
inline SimdLevel simd_level() noexcept { return detail::simd_select::active(); }

/// Makes the kernels use `level`, or best_simd_level() where this CPU lacks
/// `level`, and returns the level now in use. Answers never change with the
/// level (every kernel is exact); only speed does. Safe from any thread:
/// kernel calls already running finish on the level they started with.
inline SimdLevel set_simd_level(SimdLevel level) noexcept {
    const SimdLevel got = detail::simd_select::clamp(level);
    detail::simd_select::active_cache.store(static_cast<int>(got), std::memory_order_relaxed);
    return got;
}

/// "scalar", "sse2", "avx2" or "avx512": the names BROADPHASE_SIMD takes.
inline const char* simd_level_name(SimdLevel level) noexcept {
    switch (level) {
    case SimdLevel::avx512: return "avx512";
    case SimdLevel::avx2: return "avx2";
    case SimdLevel::sse2: return "sse2";
    default: return "scalar";
    }
}

/// Reads a level name as simd_level_name() writes it into `out`; false
/// (and `out` unchanged) for anything else.
inline bool parse_simd_level(const char* name, SimdLevel& out) noexcept {
    return detail::simd_select::parse(name, out);
}

}  // namespace broadphase
