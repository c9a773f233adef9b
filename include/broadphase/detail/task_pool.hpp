// A pool of helper threads kept for the process, on which a call runs its
// tasks without ever waiting for a helper that has not started.
//
// Why not an OpenMP parallel region: a region ends in a barrier that waits
// for every thread of the team. On a machine whose other cores are busy
// (the user's other work, a second process), a team thread may wait a
// scheduler time slice, milliseconds, for a core, at every phase; two
// threads then take longer than one. Here the caller claims tasks from a
// shared counter like every helper, so when no helper gets a core the
// caller runs every task itself and waits only for tasks a helper has
// already claimed (measured: docs/measured-in-code.md#threads,
// docs/threading.md).
//
// Costs: the first call that asks for k threads starts the k - 1 helpers
// missing (a thread start each, once a process); after that a call posts its job under one
// mutex and wakes the helpers (a futex wake each), and allocates nothing
// once a few calls have run (jobs are recycled). Helpers sleep on a
// condition variable between jobs: nothing spins.
//
// Several callers (threads of the user's program) may run jobs at once;
// helpers serve the most recently posted job and each caller finishes its
// own, so every call completes whatever the helpers do.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "exceptions.hpp"

namespace broadphase {
namespace detail {

class TaskPool {
public:
    /// Runs f(task, slot) for every task in [0, tasks) on up to `threads`
    /// threads, the caller's included; `slot` in [0, threads) names the
    /// thread for per-thread scratch (the caller is slot 0; each slot is
    /// used by one thread at a time). Returns when every task has run. The
    /// first exception a task throws is rethrown once all have ended.
    template <class F>
    static void run(unsigned threads, std::size_t tasks, F&& f) {
        if (threads <= 1 || tasks <= 1) {
            for (std::size_t t = 0; t < tasks; ++t) f(t, 0u);
            return;
        }
        using Fn = std::remove_reference_t<F>;
        run_erased(threads, tasks, [](void* ctx, std::size_t t, unsigned slot) { (*static_cast<Fn*>(ctx))(t, slot); },
                   const_cast<void*>(static_cast<const void*>(&f)));
    }

    /// Helper threads started so far (tests).
    static std::size_t helpers_started() {
        TaskPool& pool = instance();
        std::lock_guard<std::mutex> lock(pool.m_);
        return pool.started_;
    }

private:
    /// run() on more than one thread, with f erased: one copy of the job's
    /// setup and wait for every caller, not one per task type.
    static void run_erased(unsigned threads, std::size_t tasks, void (*call)(void*, std::size_t, unsigned), void* ctx) {
        const unsigned team = static_cast<unsigned>(std::min<std::size_t>(threads, tasks));
        TaskPool& pool = instance();
        std::shared_ptr<Job> job = pool.take_job();
        job->call = call;
        job->ctx = ctx;
        job->tasks = tasks;
        job->team = team;
        job->next.store(0, std::memory_order_relaxed);
        job->joined.store(1, std::memory_order_relaxed);  // slot 0: the caller
        job->done = 0;
        job->error = nullptr;
        pool.post(job, team - 1);
        work(*job, 0);
        {
            std::unique_lock<std::mutex> lock(job->m);
            job->all_done.wait(lock, [&] { return job->done == job->tasks; });
        }
        std::exception_ptr error = job->error;
        pool.give_back(std::move(job));
        if (error) std::rethrow_exception(error);
    }

    struct Job {
        void (*call)(void*, std::size_t, unsigned) = nullptr;
        void* ctx = nullptr;  // the caller's f: valid while the caller waits, called only for claimed tasks
        std::size_t tasks = 0;
        unsigned team = 1;
        std::atomic<std::size_t> next{0};   // the next task to claim
        std::atomic<unsigned> joined{0};    // slots handed out
        std::size_t done = 0;               // under m
        std::exception_ptr error;           // under m
        std::mutex m;
        std::condition_variable all_done;
    };

    static TaskPool& instance() {
        static TaskPool* pool = new TaskPool;  // never destroyed: helpers may outlive static destruction
        return *pool;
    }

    /// A job nobody else holds (recycled), or a new one (jobs_made_ counts
    /// them: the free list's capacity stays above it, so give_back never
    /// allocates).
    std::shared_ptr<Job> take_job() {
        {
            std::lock_guard<std::mutex> lock(m_);
            for (std::size_t i = 0; i < free_.size(); ++i) {
                // Held only by the free list: no helper can still reach it
                // (job_ no longer points to it, see give_back).
                if (free_[i].use_count() == 1) {
                    std::shared_ptr<Job> job = std::move(free_[i]);
                    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
                    return job;
                }
            }
        }
        std::lock_guard<std::mutex> lock(m_);
        ++jobs_made_;
        return std::make_shared<Job>();
    }

    void give_back(std::shared_ptr<Job> job) {
        std::lock_guard<std::mutex> lock(m_);
        if (job_ == job) job_.reset();
        free_.push_back(std::move(job));
    }

    /// Hands the job to the helpers, starting any missing up to `helpers`.
    void post(const std::shared_ptr<Job>& job, std::size_t helpers) {
        std::lock_guard<std::mutex> lock(m_);
        while (started_ < helpers) {
            // No room for another thread (its stack): the caller and the
            // helpers there are run every task.
            const bool started = on_throw<std::system_error>(
                [this] {
                    std::thread([this] { serve(); }).detach();
                    return true;
                },
                [] { return false; });
            if (!started) break;
            ++started_;
        }
        // A helper holds at most one job (briefly, after it ends), so with
        // one job more than helpers a caller always finds a free one: after
        // the first call with this many threads, none allocates (unless
        // several callers run at once: then one job more each, once).
        while (jobs_made_ < started_ + 1) {
            free_.push_back(std::make_shared<Job>());
            ++jobs_made_;
        }
        if (free_.capacity() < jobs_made_) free_.reserve(2 * jobs_made_);
        job_ = job;
        ++generation_;
        wake_.notify_all();
    }

    /// A helper: waits for a new job, works on it, again.
    void serve() {
        std::uint64_t seen = 0;
        for (;;) {
            std::shared_ptr<Job> job;
            {
                std::unique_lock<std::mutex> lock(m_);
                wake_.wait(lock, [&] { return generation_ != seen; });
                seen = generation_;
                job = job_;
            }
            if (!job) continue;
            const unsigned slot = job->joined.fetch_add(1, std::memory_order_relaxed);
            if (slot < job->team) work(*job, slot);
            // Let go under the mutex: take_job reads use_count() under it,
            // so whoever reuses the job sees all of this helper's accesses.
            std::lock_guard<std::mutex> lock(m_);
            job.reset();
        }
    }

    /// Claims and runs tasks until none is left.
    static void work(Job& job, unsigned slot) {
        for (;;) {
            const std::size_t t = job.next.fetch_add(1, std::memory_order_relaxed);
            if (t >= job.tasks) return;
            const std::exception_ptr error = caught([&] { job.call(job.ctx, t, slot); });
            // The mutex orders the task's writes before the caller's wake-up.
            std::lock_guard<std::mutex> lock(job.m);
            if (error && !job.error) job.error = error;
            if (++job.done == job.tasks) job.all_done.notify_all();
        }
    }

    std::mutex m_;
    std::condition_variable wake_;
    std::shared_ptr<Job> job_;                // the job helpers join; under m_
    std::vector<std::shared_ptr<Job>> free_;  // finished jobs to reuse; under m_
    std::uint64_t generation_ = 0;
    std::size_t started_ = 0;
    std::size_t jobs_made_ = 0;
};

}  // namespace detail
}  // namespace broadphase
