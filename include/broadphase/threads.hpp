// How many threads: the one place the library decides it.
//
// The rule. A thread is given at least Options::min_boxes_per_thread
// boxes' worth of work (4,096 by default), where one box's worth is what
// a box costs in a search: binned or sorted, then tested against its
// neighbours. Every pass that may run on threads states its work as a
// count of items and what one item costs in boxes (Work, below), and gets
//
//   threads = min(requested, items x cost / min_boxes_per_thread), at least 1
//
// (requested: Options::threads, 0 for default_threads(), which options.hpp
// defines beside Options). Under that,
// starting and waking threads costs more than the work they take over.
// The costs, with the default minimum (docs/threading.md#how-many-threads):
//
//   Work::four_boxes  a changed Scene object (moved in its engine,    1,024 a thread
//                     its neighbours queried, its partners compared)
//   Work::box         a box in a search or a build (binning and the    4,096
//                     passes of the search included); a batch query
//   Work::half        a particle's neighbour-list row; a particle       8,192
//                     stepped (the demo)
//   Work::quarter     an item of a radix sort (three passes of counts  16,384
//                     and scatters); a box quantised (adaptive grid)
//   Work::eighth      an item of a pass that touches it once: a copy,  32,768
//                     a gather, keys, a validity scan, a sphere's box,
//                     a candidate pair's exact test; a sphere of the
//                     sphere finder's cell list
//
// How a thread's work is then cut into tasks (about 16 a thread, so that
// dynamic claiming evens out uneven tasks) is each algorithm's own
// (detail/parallel.hpp: task_count); the pairs and their order never depend
// on either count.
//
// Threads are on when BROADPHASE_THREADS is defined (CMake's
// broadphase::broadphase target defines it and links the platform's
// threads) and BROADPHASE_NO_THREADS is not; otherwise every count here is
// 1 and no header needs more than the C++17 standard library.
#pragma once

#include <algorithm>
#include <cstddef>

#include "options.hpp"  // default_threads, default_min_boxes_per_thread

namespace broadphase {

/// What one item of a pass costs, in sixteenths of a box in a search: the
/// unit threads are planned in (see the rule above).
enum class Work : std::size_t {
    eighth = 2,      ///< a pass touching each item once: copy, gather, keys, validity
    quarter = 4,     ///< an item of a radix sort; a box quantised to cells
    half = 8,        ///< a particle's neighbour-list row; a particle stepped (the demo)
    box = 16,        ///< a box in a search or a build; a batch query
    four_boxes = 64  ///< a changed Scene object
};

/// The threads for `items` items costing `cost` each: `requested` (0 = the
/// default_threads()), but no more than one per `min_boxes_per_thread`
/// boxes' worth of work (0 counts as 1), at least 1, and 1 without threads.
/// The library's only rule for it (above). O(1).
inline unsigned plan_threads(unsigned requested, std::size_t items, Work cost,
                            std::size_t min_boxes_per_thread = default_min_boxes_per_thread) {
    if (!threads_enabled()) return 1;
    unsigned t = requested ? requested : default_threads();
    // floor(items x cost / 16 / min), the two divisions apart: no overflow.
    const std::size_t boxes = items / 16 * static_cast<std::size_t>(cost) +
                              items % 16 * static_cast<std::size_t>(cost) / 16;
    const std::size_t cap = std::max<std::size_t>(boxes / std::max<std::size_t>(min_boxes_per_thread, 1), 1);
    if (t > cap) t = static_cast<unsigned>(cap);
    return std::max(t, 1u);
}

}  // namespace broadphase
