// Timing shared by the commands that measure (bench, demo, bench particles:N):
// the clock, milliseconds between two readings, the median, and the loop
// that repeats a timed call within a time budget.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace broadphase_cli {

using clock_type = std::chrono::steady_clock;

inline double elapsed_ms(clock_type::time_point t0, clock_type::time_point t1) {
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

/// The median of v; 0 for none.
inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/// Calls run() up to max_reps times, each call timed on its own, stopping
/// early once the timed calls add up to budget_ms (the first always runs).
/// Returns the milliseconds of each call, in order.
template <class Run>
std::vector<double> time_repeated(int max_reps, double budget_ms, Run&& run) {
    std::vector<double> times;
    double total = 0;
    for (int k = 0; k < max_reps && (k == 0 || total < budget_ms); ++k) {
        const auto t0 = clock_type::now();
        run();
        times.push_back(elapsed_ms(t0, clock_type::now()));
        total += times.back();
    }
    return times;
}

}  // namespace broadphase_cli
