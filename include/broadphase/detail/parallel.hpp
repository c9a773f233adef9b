// Threads, kept behind three small functions so algorithms never see the
// threading layer: run tasks on threads, cut a range into parts, and collect
// the pairs tasks find in an order that does not depend on the thread count.
// How many threads a pass gets is decided in one place, by one rule:
// plan_threads (../threads.hpp).
//
// The layer is the library's task pool (task_pool.hpp: std::thread helpers
// kept for the process; the caller runs tasks too and never waits for a
// helper that has not started). It replaced OpenMP, whose parallel regions
// end in a barrier that waits for every team thread: with another program
// busy on the other core, two threads took longer than one (measured:
// docs/measured-in-code.md#threads, docs/threading.md). Threads are on when
// BROADPHASE_THREADS is defined (CMake's broadphase::broadphase target
// defines it and links the platform's threads); BROADPHASE_NO_THREADS
// forces them off. Otherwise everything here runs on the calling thread,
// and no header needs more than the C++17 standard library.
//
// Determinism: each algorithm cuts its work into tasks whose pairs, in task
// order, are exactly the pairs one thread finds, in the same order. Tasks
// write into their own buffers (no locks, no atomics on the hot path) and
// the buffers are concatenated in task order. So the output is identical
// for every thread count, and the task cut may depend on the thread count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <type_traits>
#include <vector>

#include "../threads.hpp"  // plan_threads, default_threads
#if defined(BROADPHASE_THREADS) && !defined(BROADPHASE_NO_THREADS)
#include <thread>

#include "task_pool.hpp"
// Measurement only (bench/threads_bench.cpp): with BROADPHASE_OPENMP_LAYER
// defined and OpenMP on, use_pool_layer() = false runs tasks through OpenMP
// as before, so both layers can be timed in one process.
#if defined(BROADPHASE_OPENMP_LAYER) && defined(_OPENMP)
#include <omp.h>
#endif
#endif

#include "../pairs.hpp"
#include "buffers.hpp"
#include "exceptions.hpp"

namespace broadphase {
namespace detail {

/// Measurement only: whether run_tasks uses the pool (true, the default)
/// or OpenMP, in builds with BROADPHASE_OPENMP_LAYER (see above).
inline bool& use_pool_layer() {
    static bool pool = true;
    return pool;
}

/// Runs f(task, thread) for every task in [0, tasks) on up to `threads`
/// threads, the caller's included, tasks claimed one at a time from a
/// shared counter; `thread` in [0, threads) names a slot for per-thread
/// scratch, used by one thread at a time. With one thread, or one task,
/// runs in order on the calling thread and starts none. The first
/// exception a task throws is rethrown here once all tasks have ended.
/// Costs a mutex and a wake-up per helper on top of the tasks (the first
/// call with k threads also starts the helpers missing).
template <class F>
void run_tasks(unsigned threads, std::size_t tasks, F&& f) {
    if (threads <= 1 || tasks <= 1) {
        for (std::size_t t = 0; t < tasks; ++t) f(t, 0u);
        return;
    }
#if defined(BROADPHASE_THREADS) && !defined(BROADPHASE_NO_THREADS) && defined(BROADPHASE_OPENMP_LAYER) && \
    defined(_OPENMP)
    if (!use_pool_layer()) {
        std::exception_ptr error;
        const auto n = static_cast<std::ptrdiff_t>(tasks);
        const int nt = static_cast<int>(std::min<std::size_t>(threads, tasks));
#pragma omp parallel num_threads(nt)
        {
            const auto me = static_cast<unsigned>(omp_get_thread_num());
#pragma omp for schedule(dynamic, 1)
            for (std::ptrdiff_t t = 0; t < n; ++t) {
                if (std::exception_ptr e = caught([&] { f(static_cast<std::size_t>(t), me); })) {
#pragma omp critical(broadphase_task_error)
                    if (!error) error = e;
                }
            }
        }
        if (error) std::rethrow_exception(error);
        return;
    }
#endif
#if defined(BROADPHASE_THREADS) && !defined(BROADPHASE_NO_THREADS)
    TaskPool::run(threads, tasks, f);
#else
    for (std::size_t t = 0; t < tasks; ++t) f(t, 0u);
#endif
}

/// Parts run_parts cuts n items into for `threads` threads.
inline std::size_t part_count(unsigned threads, std::size_t n) {
    return std::max<std::size_t>(1, std::min<std::size_t>(threads, n));
}

/// Splits [0, n) into `parts` contiguous ranges of equal size: range p is
/// [bound(p), bound(p + 1)).
inline std::size_t even_bound(std::size_t n, std::size_t parts, std::size_t p) {
    return static_cast<std::size_t>(static_cast<std::uint64_t>(n) * p / parts);  // n < 2^33, parts < 2^20
}

/// Runs f(part, begin, end) over at most `threads` contiguous, equal parts
/// of [0, n), one task each. For passes whose cost is the same per item,
/// such as binning boxes; per-part results go in slots indexed by part.
template <class F>
void run_parts(unsigned threads, std::size_t n, F&& f) {
    const std::size_t parts = part_count(threads, n);
    run_tasks(static_cast<unsigned>(parts), parts,
              [&](std::size_t p, unsigned) { f(p, even_bound(n, parts, p), even_bound(n, parts, p + 1)); });
}

/// How many tasks to cut work into for `threads` threads: enough that
/// dynamic scheduling evens out tasks of uneven cost (clusters, one dense
/// region), few enough that each is worth handing out.
inline std::size_t task_count(unsigned threads, std::size_t items, std::size_t min_items_per_task = 256) {
    if (threads <= 1) return 1;
    const std::size_t most = std::max<std::size_t>(items / std::max<std::size_t>(min_items_per_task, 1), 1);
    return std::min<std::size_t>(std::size_t(threads) * 16, most);
}

/// Per-task pair buffers, kept between calls so frames after the first
/// allocate nothing. Tasks fill their buffers in parallel; deliver() then
/// hands the pairs to the caller's sink in task order.
class TaskPairs {
public:
    /// Runs emit(task, PairSink&, thread) for each task on `threads`
    /// threads, then passes every pair, in task order, to `sink` (a PairSink,
    /// or an adapter over one with its budget_left() and exceed()). Each
    /// task's buffer is capped at the sink's remaining budget, so a scene
    /// with too many pairs stops as the single-threaded search would, with
    /// the same first pairs.
    template <class Sink, class Emit>
    void run(unsigned threads, std::size_t tasks, Sink& sink, Emit&& emit) {
        if (buffers_.size() < tasks) buffers_.resize(tasks);
        over_.assign(tasks, 0);
        const std::uint64_t budget = sink.budget_left();
        undo_on_throw(
            [&] {
                run_tasks(threads, tasks, [&](std::size_t t, unsigned thread) {
                    buffers_[t].clear();
                    PairSink s(buffers_[t], budget);
                    emit(t, s, thread);
                    over_[t] = s.stopped() ? 1 : 0;
                });
                deliver(threads, tasks, sink);
            },
            [&] {
                // An allocation failed: let go of the pairs held so far (they
                // may be most of the memory), so that the next call has it.
                for (std::vector<Pair>& b : buffers_) std::vector<Pair>().swap(b);
            });
        // Headroom for the next frame, whose tasks find a few more or fewer
        // pairs (moving boxes): then it allocates nothing.
        // (Grown to a quarter more when less than an eighth is left.)
        for (std::size_t t = 0; t < tasks; ++t) {
            std::vector<Pair>& b = buffers_[t];
            if (b.capacity() < b.size() + b.size() / 8 + 64) b.reserve(b.size() + b.size() / 4 + 256);
        }
        // A task that hit the budget had more pairs than it kept: the whole
        // search has more than the budget, even if the kept ones fit.
        if (std::find(over_.begin(), over_.end(), 1) != over_.end()) sink.exceed();
    }

private:
    template <class Sink>
    void deliver(unsigned threads, std::size_t tasks, Sink& sink) {
        if constexpr (std::is_same_v<Sink, PairSink>) {
            if (!sink.streams()) return copy_into(threads, tasks, sink);
        }
        for (std::size_t t = 0; t < tasks && !sink.stopped(); ++t)
            for (const Pair& p : buffers_[t]) sink(p.a, p.b);
    }

    void copy_into(unsigned threads, std::size_t tasks, PairSink& sink) {
        // Straight into the output vector, every task's block copied in parallel.
        offsets_.resize(tasks + 1);
        offsets_[0] = 0;
        for (std::size_t t = 0; t < tasks; ++t) offsets_[t + 1] = offsets_[t] + buffers_[t].size();
        std::size_t granted = 0;
        Pair* out = sink.extend(offsets_[tasks], granted);
        undo_on_throw(
            [&] {
                run_tasks(threads, tasks, [&](std::size_t t, unsigned) {
                    const std::size_t from = offsets_[t];
                    if (from >= granted) return;
                    const std::size_t m = std::min(buffers_[t].size(), granted - from);
                    std::copy(buffers_[t].begin(), buffers_[t].begin() + static_cast<std::ptrdiff_t>(m), out + from);
                });
            },
            // A thread could not start: some blocks were never copied, and
            // their slots hold zeros, which are not pairs found.
            [&] { sink.retract(granted); });
    }

    std::vector<std::vector<Pair>> buffers_;
    std::vector<char> over_;  // per task: stopped by the budget
    std::vector<std::size_t> offsets_;
};

/// Per-thread scratch of any kind, grown to the thread count on demand.
template <class Scratch>
class PerThread {
public:
    void ensure(unsigned threads) {
        if (items_.size() < threads) items_.resize(threads);
    }
    Scratch& operator[](unsigned thread) { return items_[thread]; }

private:
    std::vector<Scratch> items_;
};

}  // namespace detail
}  // namespace broadphase
