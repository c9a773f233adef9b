// What every algorithm shares, written once: the checks, the working set
// and the sink around an algorithm's search. The public classes
// (BasicBruteForce, ...) are fronts (algorithm_front.hpp) that hold
// such an algorithm behind a pointer and hand each call to it; PairFinder
// and Index hold the algorithms themselves (src/core/pair_finder_impl.hpp).
// Only the algorithms' -inl files include this file.
//
// An algorithm derives from AlgorithmBase<Derived, T, D> and provides, for
// valid boxes only (the base removes invalid ones and maps indices back):
//   template <class Sink> void self_impl(const SoaView<T,D>&, Sink&);
//   template <class Sink> void cross_impl(const SoaView<T,D>& a, const SoaView<T,D>& b, Sink&);
//   void build_impl(const SoaView<T,D>&);
//   template <class Emit> void query_impl(const BasicBox<T,D>&, Emit&&) const;  // emit(index)
// and may override query_batch_impl when it has a faster batch path.
// The public calls take a BasicBoxesView (BasicBoxes converts to it); the
// SoaView the *_impl functions get is the caller's arrays when they are
// struct of arrays and all valid, else the working set's compact copy.
// threads_for(items, cost) tells an algorithm how many threads the current
// call may use (the rule: broadphase/threads.hpp); the pairs must not depend
// on it.
#pragma once

#include <new>
#include <utility>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/options.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/exceptions.hpp>
#include <broadphase/detail/parallel.hpp>
#include "core/working_set.hpp"

namespace broadphase {
namespace detail {

template <class Derived, class T, int D>
class AlgorithmBase {
public:
    using boxes_type = BasicBoxes<T, D>;
    /// What every call below takes: BasicBoxes converts to it implicitly
    /// (zero copy), and a view over the caller's own arrays needs no
    /// BasicBoxes at all (see BasicBoxesView for what each layout costs).
    using view_type = BasicBoxesView<T, D>;
    using box_type = BasicBox<T, D>;

    // The calls of AlgorithmFront (algorithm_front.hpp, where their
    // contracts are written), which hands each one to these; PairFinder and
    // Index call them directly. The callback calls take f erased.
    Report find_pairs(view_type boxes, std::vector<Pair>& out, const Options& options = {});
    Report find_pairs(view_type a, view_type b, std::vector<Pair>& out, const Options& options = {});
    Report build(view_type boxes, const Options& options = {});
    bool built() const { return built_; }
    std::size_t query(const box_type& q, std::vector<std::uint32_t>& out) const;
    Report query_batch(view_type queries, std::vector<Pair>& out, const Options& options = {}) const;
    Report stream_self(view_type boxes, PairCallbackRef f, std::uint64_t max_pairs);
    Report stream_cross(view_type a, view_type b, PairCallbackRef f, std::uint64_t max_pairs);
    Report stream_batch(view_type queries, PairCallbackRef f, std::uint64_t max_pairs) const;
    bool overlaps(const box_type& q, HitCallbackRef f) const;

protected:
    /// Threads the current find_pairs or build may use for `items` items of
    /// `cost` each (threads.hpp: the rule, with this call's Options).
    unsigned threads_for(std::size_t items, Work cost = Work::box) const {
        return plan_threads(threads_requested_, items, cost, min_boxes_per_thread_);
    }
    /// The current call's Options::min_boxes_per_thread, for the passes of
    /// its parts (sorts, copies) to plan by.
    std::size_t min_boxes_per_thread() const { return min_boxes_per_thread_; }

    /// Default batch path: one query per box, in query order; with threads,
    /// contiguous runs of queries as tasks. Algorithms may do better.
    template <class Sink>
    void query_batch_impl(const SoaView<T, D>& v, Sink& sink, unsigned threads) const {
        auto run = [&](std::size_t begin, std::size_t end, auto& s) {
            for (std::size_t i = begin; i < end && !s.stopped(); ++i) {
                const auto qi = static_cast<std::uint32_t>(i);
                derived().query_impl(box_at(v, i), [&](std::uint32_t j) { s(qi, j); });
            }
        };
        if (threads <= 1) {
            run(0, v.n, sink);
            return;
        }
        // Per calling thread: const batches may run on many threads at once,
        // and each thread's later batches allocate nothing.
        static thread_local TaskPairs tasks;
        const std::size_t nt = task_count(threads, v.n, 64);
        tasks.run(threads, nt, sink, [&](std::size_t t, PairSink& s, unsigned) {
            run(even_bound(v.n, nt, t), even_bound(v.n, nt, t + 1), s);
        });
    }

private:
    using View = SoaView<T, D>;

    /// Sets the thread request for one call, and back to one thread after
    /// (so for_each_pair, which streams to a callback, never starts threads).
    struct ThreadScope {
        ThreadScope(AlgorithmBase& b, const Options& o) : base(b) {
            b.threads_requested_ = o.threads;
            b.min_boxes_per_thread_ = o.min_boxes_per_thread;
        }
        ~ThreadScope() { base.threads_requested_ = 1; }
        AlgorithmBase& base;
    };

    Derived& derived() { return static_cast<Derived&>(*this); }
    const Derived& derived() const { return static_cast<const Derived&>(*this); }

    static void finish(Report& r, const PairSink& sink) {
        r.pairs = sink.count();
        if (r.status == Status::ok) r.status = sink.status();
    }

    Report run_self(view_type boxes, PairSink& sink) {
        Report r;
        if (!fits_indices(boxes.size())) {
            r.status = Status::too_many_boxes;
            return r;
        }
        guarded(r, [&] {
            set_a_.prepare(boxes, threads_for(boxes.size(), Work::eighth));
            r.invalid_a = set_a_.invalid();
            const PairSink::Mapping mapping(sink, set_a_.identity() ? nullptr : &set_a_.map(),
                                            set_a_.identity() ? nullptr : &set_a_.map());
            derived().self_impl(set_a_.boxes(), sink);
            sink.flush();
        });
        finish(r, sink);
        return r;
    }

    Report run_cross(view_type a, view_type b, PairSink& sink) {
        Report r;
        if (!fits_indices(a.size()) || !fits_indices(b.size())) {
            r.status = Status::too_many_boxes;
            return r;
        }
        guarded(r, [&] {
            set_a_.prepare(a, threads_for(a.size(), Work::eighth));
            set_b_.prepare(b, threads_for(b.size(), Work::eighth));
            r.invalid_a = set_a_.invalid();
            r.invalid_b = set_b_.invalid();
            const PairSink::Mapping mapping(sink, set_a_.identity() ? nullptr : &set_a_.map(),
                                            set_b_.identity() ? nullptr : &set_b_.map());
            derived().cross_impl(set_a_.boxes(), set_b_.boxes(), sink);
            sink.flush();
        });
        finish(r, sink);
        return r;
    }

    Report run_batch(view_type queries, PairSink& sink, unsigned threads) const {
        Report r;
        if (!fits_indices(queries.size())) {
            r.status = Status::too_many_boxes;
            return r;
        }
        guarded(r, [&] {
            WorkingSet<T, D> qs;  // local: const queries may run on many threads
            qs.prepare(queries);
            r.invalid_a = qs.invalid();
            if (!built_) return;  // nothing to hit
            const PairSink::Mapping mapping(sink, qs.identity() ? nullptr : &qs.map(),
                                            built_set_.identity() ? nullptr : &built_set_.map());
            derived().query_batch_impl(qs.boxes(), sink, threads);
            sink.flush();
        });
        finish(r, sink);
        return r;
    }

    WorkingSet<T, D> set_a_, set_b_, built_set_;
    PairSortScratch sort_scratch_;
    bool built_ = false;
    unsigned threads_requested_ = 1;
    std::size_t min_boxes_per_thread_ = default_min_boxes_per_thread;
};

// The calls that store pairs, out of the class body, so not inline: the
// library's files that declare a specialisation `extern template` compile a
// call to it, not the algorithm again.

template <class Derived, class T, int D>
Report AlgorithmBase<Derived, T, D>::find_pairs(view_type boxes, std::vector<Pair>& out, const Options& options) {
    out.clear();
    PairSink sink(out, options.max_pairs);
    const ThreadScope scope(*this, options);
    Report r = run_self(boxes, sink);
    sink.flush();
    if (options.sorted) sort_pairs(out, boxes.size(), sort_scratch_);
    return r;
}

template <class Derived, class T, int D>
Report AlgorithmBase<Derived, T, D>::find_pairs(view_type a, view_type b, std::vector<Pair>& out,
                                                const Options& options) {
    out.clear();
    PairSink sink(out, options.max_pairs);
    const ThreadScope scope(*this, options);
    Report r = run_cross(a, b, sink);
    sink.flush();
    if (options.sorted) sort_pairs(out, a.size(), sort_scratch_);
    return r;
}

template <class Derived, class T, int D>
Report AlgorithmBase<Derived, T, D>::build(view_type boxes, const Options& options) {
    const ThreadScope scope(*this, options);
    Report r;
    built_ = false;
    if (!fits_indices(boxes.size())) {
        r.status = Status::too_many_boxes;
        return r;
    }
    const bool done = guarded(r, [&] {
        built_set_.prepare(boxes, threads_for(boxes.size(), Work::eighth));
        r.invalid_a = built_set_.invalid();
        derived().build_impl(built_set_.boxes());
    });
    built_ = done;
    return r;
}

template <class Derived, class T, int D>
std::size_t AlgorithmBase<Derived, T, D>::query(const box_type& q, std::vector<std::uint32_t>& out) const {
    out.clear();
    auto push = [&](std::uint32_t i) { out.push_back(i); };
    overlaps(q, hit_callback_ref(push));
    return out.size();
}

template <class Derived, class T, int D>
Report AlgorithmBase<Derived, T, D>::query_batch(view_type queries, std::vector<Pair>& out,
                                                 const Options& options) const {
    out.clear();
    PairSink sink(out, options.max_pairs);
    Report r = run_batch(queries, sink, plan_threads(options.threads, queries.size(), Work::box, options.min_boxes_per_thread));
    sink.flush();
    if (options.sorted) {  // const: may run on many threads at once, so scratch of its own
        PairSortScratch scratch;
        sort_pairs(out, queries.size(), scratch);
    }
    return r;
}

template <class Derived, class T, int D>
Report AlgorithmBase<Derived, T, D>::stream_self(view_type boxes, PairCallbackRef f, std::uint64_t max_pairs) {
    PairSink sink(f, max_pairs);
    return run_self(boxes, sink);
}

template <class Derived, class T, int D>
Report AlgorithmBase<Derived, T, D>::stream_cross(view_type a, view_type b, PairCallbackRef f,
                                                 std::uint64_t max_pairs) {
    PairSink sink(f, max_pairs);
    return run_cross(a, b, sink);
}

template <class Derived, class T, int D>
Report AlgorithmBase<Derived, T, D>::stream_batch(view_type queries, PairCallbackRef f,
                                                 std::uint64_t max_pairs) const {
    PairSink sink(f, max_pairs);
    return run_batch(queries, sink, 1);
}

template <class Derived, class T, int D>
bool AlgorithmBase<Derived, T, D>::overlaps(const box_type& q, HitCallbackRef f) const {
    if (!built_ || !q.valid()) return true;
    // Hits go to f a block at a time, as streamed pairs do (PairSink).
    // After f says stop, the search runs on and its hits are dropped (the
    // algorithms' queries have no exit of their own).
    constexpr std::size_t block = 64;
    std::uint32_t hits[block];
    std::size_t held = 0;
    bool go_on = true;
    const bool identity = built_set_.identity();
    derived().query_impl(q, [&](std::uint32_t i) {
        if (!go_on) return;
        hits[held++] = identity ? i : built_set_.original(i);
        if (held == block) go_on = f.deliver(f.f, hits, block), held = 0;
    });
    if (held && go_on) go_on = f.deliver(f.f, hits, held);
    return go_on;
}

}  // namespace detail
}  // namespace broadphase

