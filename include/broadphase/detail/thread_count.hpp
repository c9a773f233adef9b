// How many threads: whether this build runs more than one, and the count
// a request of 0 stands for. Apart from parallel.hpp (the layer that runs
// tasks, with the task pool) so that the front door's default_threads()
// takes only this. Threads are on when BROADPHASE_THREADS is defined and
// BROADPHASE_NO_THREADS is not (see parallel.hpp).
#pragma once

#include <algorithm>
#include <cstdlib>

#if defined(BROADPHASE_THREADS) && !defined(BROADPHASE_NO_THREADS)
#define BROADPHASE_DETAIL_THREADS 1
#include <thread>
#endif

namespace broadphase {
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

/// Threads a request of 0 means: BROADPHASE_NUM_THREADS, else
/// OMP_NUM_THREADS (still honoured), else the hardware threads; read once.
/// 1 without threads.
inline unsigned default_threads() {
#ifdef BROADPHASE_DETAIL_THREADS
    static const unsigned t = [] {
        unsigned n = threads_from_env("BROADPHASE_NUM_THREADS");
        if (!n) n = threads_from_env("OMP_NUM_THREADS");
        if (!n) n = std::thread::hardware_concurrency();
        return std::max(n, 1u);
    }();
    return t;
#else
    return 1u;
#endif
}

/// True when this build can run more than one thread.
inline bool threads_enabled() {
#ifdef BROADPHASE_DETAIL_THREADS
    return true;
#else
    return false;
#endif
}

}  // namespace detail
}  // namespace broadphase
