// Threads, kept behind three small functions so algorithms never see the
// threading layer: how many threads to use, run tasks on them, and collect
// the pairs tasks find in an order that does not depend on the thread count.
//
// The layer is OpenMP, when the user's compiler has it switched on
// (-fopenmp; CMake's broadphase::broadphase target does it when OpenMP is
// found). Without it everything here runs on the calling thread and the
// library is single-threaded; no header needs OpenMP to compile.
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
#include <exception>
#include <type_traits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../pairs.hpp"
#include "buffers.hpp"

namespace broadphase {
namespace detail {

/// Threads a request of 0 means: OpenMP's default (all hardware threads,
/// or OMP_NUM_THREADS); 1 without OpenMP.
inline unsigned default_threads() {
#ifdef _OPENMP
    const int t = omp_get_max_threads();
    return t > 0 ? static_cast<unsigned>(t) : 1u;
#else
    return 1u;
#endif
}

/// True when this build can run more than one thread.
inline bool threads_enabled() {
#ifdef _OPENMP
    return true;
#else
    return false;
#endif
}

/// The threads to use for `items` units of work: `requested` (0 = the
/// default), but no more than one per `min_items_per_thread`, and 1
/// without OpenMP. Small inputs stay on the calling thread, where starting
/// threads would cost more than it saves.
inline unsigned plan_threads(unsigned requested, std::size_t items, std::size_t min_items_per_thread) {
    if (!threads_enabled()) return 1;
    unsigned t = requested ? requested : default_threads();
    const std::size_t per = std::max<std::size_t>(min_items_per_thread, 1);
    const std::size_t cap = std::max<std::size_t>(items / per, 1);
    if (t > cap) t = static_cast<unsigned>(cap);
    return std::max(t, 1u);
}

/// Runs f(task, thread) for every task in [0, tasks) on up to `threads`
/// threads, tasks handed out one at a time (dynamic schedule), `thread` in
/// [0, threads). With one thread, or one task, runs in order on the calling
/// thread and starts none. The first exception a task throws is rethrown
/// here once all tasks have ended.
template <class F>
void run_tasks(unsigned threads, std::size_t tasks, F&& f) {
    if (threads <= 1 || tasks <= 1) {
        for (std::size_t t = 0; t < tasks; ++t) f(t, 0u);
        return;
    }
#ifdef _OPENMP
    std::exception_ptr error;
    const auto n = static_cast<std::ptrdiff_t>(tasks);
    const int nt = static_cast<int>(std::min<std::size_t>(threads, tasks));
#pragma omp parallel num_threads(nt)
    {
        const auto me = static_cast<unsigned>(omp_get_thread_num());
#pragma omp for schedule(dynamic, 1)
        for (std::ptrdiff_t t = 0; t < n; ++t) {
            try {
                f(static_cast<std::size_t>(t), me);
            } catch (...) {
#pragma omp critical(broadphase_task_error)
                if (!error) error = std::current_exception();
            }
        }
    }
    if (error) std::rethrow_exception(error);
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

/// Pairs budget left in a sink: VectorSink and RemapSink over one say;
/// other sinks have none.
template <class Sink, class = void>
struct HasBudgetLeft : std::false_type {};
template <class Sink>
struct HasBudgetLeft<Sink, std::void_t<decltype(std::declval<const Sink&>().budget_left())>> : std::true_type {};

template <class Sink>
std::uint64_t budget_left(const Sink& sink) {
    if constexpr (HasBudgetLeft<Sink>::value) return sink.budget_left();
    else return no_budget;
}

/// Per-task pair buffers, kept between calls so frames after the first
/// allocate nothing. Tasks fill their buffers in parallel; deliver() then
/// hands the pairs to the caller's sink in task order.
class TaskPairs {
public:
    /// Runs emit(task, VectorSink&, thread) for each task on `threads`
    /// threads, then passes every pair, in task order, to `sink`. Each
    /// task's buffer is capped at the sink's remaining budget, so a scene
    /// with too many pairs stops as the single-threaded search would, with
    /// the same first pairs.
    template <class Sink, class Emit>
    void run(unsigned threads, std::size_t tasks, Sink& sink, Emit&& emit) {
        if (buffers_.size() < tasks) buffers_.resize(tasks);
        over_.assign(tasks, 0);
        const std::uint64_t budget = budget_left(sink);
        run_tasks(threads, tasks, [&](std::size_t t, unsigned thread) {
            buffers_[t].clear();
            VectorSink s(buffers_[t], budget);
            emit(t, s, thread);
            over_[t] = s.stopped() ? 1 : 0;
        });
        deliver(threads, tasks, sink);
        // Headroom for the next frame, whose tasks find a few more or fewer
        // pairs (moving boxes): then it allocates nothing.
        // (Grown to a quarter more when less than an eighth is left.)
        for (std::size_t t = 0; t < tasks; ++t) {
            std::vector<Pair>& b = buffers_[t];
            if (b.capacity() < b.size() + b.size() / 8 + 64) b.reserve(b.size() + b.size() / 4 + 256);
        }
        // A task that hit the budget had more pairs than it kept: the whole
        // search has more than the budget, even if the kept ones fit.
        if (std::find(over_.begin(), over_.end(), 1) != over_.end()) exceed(sink);
    }

private:
    template <class Sink>
    void deliver(unsigned threads, std::size_t tasks, Sink& sink) {
        if constexpr (std::is_same_v<Sink, VectorSink>) {
            // Straight into the output vector, every task's block copied in parallel.
            offsets_.resize(tasks + 1);
            offsets_[0] = 0;
            for (std::size_t t = 0; t < tasks; ++t) offsets_[t + 1] = offsets_[t] + buffers_[t].size();
            std::size_t granted = 0;
            Pair* out = sink.extend(offsets_[tasks], granted);
            run_tasks(threads, tasks, [&](std::size_t t, unsigned) {
                const std::size_t from = offsets_[t];
                if (from >= granted) return;
                const std::size_t m = std::min(buffers_[t].size(), granted - from);
                std::copy(buffers_[t].begin(), buffers_[t].begin() + static_cast<std::ptrdiff_t>(m), out + from);
            });
        } else {
            for (std::size_t t = 0; t < tasks && !sink.stopped(); ++t)
                for (const Pair& p : buffers_[t]) sink(p.a, p.b);
        }
    }

    /// Marks the sink as over budget (it is full: budget_left() == 0).
    template <class Sink>
    static void exceed(Sink& sink) {
        if constexpr (std::is_same_v<Sink, VectorSink>) {
            sink.exceed();
        } else if (!sink.stopped() && budget_left(sink) == 0) {
            sink(0, 0);  // refused by the full sink, which then reports the budget exceeded
        }
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
