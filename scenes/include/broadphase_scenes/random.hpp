// The built-in scenes' random numbers (scenes.hpp, real_scenes.hpp, and the
// tests and the particle simulation that draw their own): a header of its own
// so that all of them can use it.
#pragma once

#include <cstdint>

namespace broadphase_scenes {

/// Small deterministic generator (splitmix64): same numbers everywhere,
/// unlike the standard distributions.
class Random {
public:
    explicit Random(std::uint64_t seed) : s_(seed) {}
    /// The next 64 random bits. O(1).
    std::uint64_t next() {
        std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1). O(1).
    double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
    /// Uniform in [lo, hi). O(1).
    double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
    /// Uniform integer in [0, n). O(1).
    std::uint64_t below(std::uint64_t n) { return next() % n; }

private:
    std::uint64_t s_;
};

}  // namespace broadphase_scenes
