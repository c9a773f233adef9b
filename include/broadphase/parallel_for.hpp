// parallel_for: a loop of the caller's on the library's threads, planned
// by the library's rule (threads.hpp). For front ends with passes of their
// own over large arrays: the Python module's copies, the demo's particle
// steps. The library's algorithms use detail/parallel.hpp directly.
#pragma once

#include <cstddef>

#include "detail/parallel.hpp"
#include "threads.hpp"

namespace broadphase {

/// Calls f(begin, end) on contiguous, equal parts of [0, n) that together
/// cover it once, on up to `threads` threads (0: default_threads()), the
/// caller's included: as many as plan_threads(threads, n, cost) gives, so
/// small loops stay on the calling thread and start none. The parts run in
/// no set order; f must not care. The first exception f throws is
/// rethrown once every part has ended. O(n) calls' worth of f, plus a
/// wake-up per helper thread.
template <class F>
void parallel_for(std::size_t n, unsigned threads, Work cost, F&& f) {
    detail::run_parts(plan_threads(threads, n, cost), n,
                      [&](std::size_t, std::size_t begin, std::size_t end) { f(begin, end); });
}

}  // namespace broadphase
