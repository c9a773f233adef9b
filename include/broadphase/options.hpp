// Options shared by every query: which algorithm, output order, pair
// budget, threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#if defined(BROADPHASE_THREADS) && !defined(BROADPHASE_NO_THREADS)
#include <thread>
#endif

#include "pairs.hpp"

namespace broadphase {

/// The pair-finding algorithms. `automatic` picks one from cheap statistics
/// of the input (see choose_algorithm in broadphase.hpp).
enum class Algorithm {
    automatic,
    brute_force,
    sweep_and_prune,
    uniform_grid,
    hybrid_grid,
    adaptive_grid,
    cluster_pairs,
};

/// Every concrete algorithm (all but `automatic`), in the order the docs list them.
inline constexpr Algorithm concrete_algorithms[] = {Algorithm::brute_force, Algorithm::sweep_and_prune,
                                                    Algorithm::uniform_grid, Algorithm::hybrid_grid,
                                                    Algorithm::adaptive_grid, Algorithm::cluster_pairs};

/// The name of an algorithm: the enumerator's name ("automatic",
/// "brute_force", ...), as the CLI, Python and the docs spell it.
inline const char* to_string(Algorithm a) {
    switch (a) {
        case Algorithm::automatic: return "automatic";
        case Algorithm::brute_force: return "brute_force";
        case Algorithm::sweep_and_prune: return "sweep_and_prune";
        case Algorithm::uniform_grid: return "uniform_grid";
        case Algorithm::hybrid_grid: return "hybrid_grid";
        case Algorithm::adaptive_grid: return "adaptive_grid";
        case Algorithm::cluster_pairs: return "cluster_pairs";
    }
    return "unknown";
}

/// Parses a name from to_string; false if unknown ("auto" included: the
/// automatic choice is spelt "automatic").
inline bool parse_algorithm(const std::string& name, Algorithm& out) {
    if (name == to_string(Algorithm::automatic)) {
        out = Algorithm::automatic;
        return true;
    }
    for (Algorithm a : concrete_algorithms) {
        if (name == to_string(a)) {
            out = a;
            return true;
        }
    }
    return false;
}

/// True when this build can run more than one thread.
constexpr bool threads_enabled() {
#if defined(BROADPHASE_THREADS) && !defined(BROADPHASE_NO_THREADS)
    return true;
#else
    return false;
#endif
}

namespace detail {

/// A thread count from the environment variable `name` (its first
/// comma-separated number, as OMP_NUM_THREADS takes it); 0 when unset or
/// not a positive number.
inline unsigned threads_from_env(const char* name) {
    const char* e = std::getenv(name);
    if (!e) return 0;
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    return end != e && v > 0 && v < 65536 ? static_cast<unsigned>(v) : 0u;
}

}  // namespace detail

/// The thread count Options::threads = 0 stands for: BROADPHASE_NUM_THREADS,
/// else OMP_NUM_THREADS, else all hardware threads (read once); 1 in a
/// build without threads (BROADPHASE_THREADS undefined).
inline unsigned default_threads() {
#if defined(BROADPHASE_THREADS) && !defined(BROADPHASE_NO_THREADS)
    static const unsigned t = [] {
        unsigned n = detail::threads_from_env("BROADPHASE_NUM_THREADS");
        if (!n) n = detail::threads_from_env("OMP_NUM_THREADS");
        if (!n) n = std::thread::hardware_concurrency();
        return std::max(n, 1u);
    }();
    return t;
#else
    return 1u;
#endif
}

/// Boxes' worth of work a thread gets at least, when Options does not say:
/// Options::min_boxes_per_thread's default (the threads rule, threads.hpp).
constexpr std::size_t default_min_boxes_per_thread = 4096;

struct Options {
    Algorithm algorithm = Algorithm::automatic;
    /// Sort the output by (a, b). Without it the order is still the same on every run.
    bool sorted = false;
    /// Stop with Status::pair_budget_exceeded after this many pairs.
    std::uint64_t max_pairs = no_budget;
    /// Threads to use: 0 (the default) = default_threads(): all hardware
    /// threads, or BROADPHASE_NUM_THREADS / OMP_NUM_THREADS when set; 1 =
    /// the calling thread only, no thread started. Without threads in the
    /// build (detail/parallel.hpp), always 1.
    /// The pairs, and their order, are the same for every thread count.
    unsigned threads = 0;
    /// The threads rule's minimum (threads.hpp): fewer threads are used
    /// when each would get less than this many boxes' worth of work (a box
    /// in a search; other passes weigh their items, Work). Below it,
    /// starting threads costs more than it saves. 1 uses every requested
    /// thread for all but the smallest passes (tests do).
    std::size_t min_boxes_per_thread = default_min_boxes_per_thread;
};

}  // namespace broadphase
