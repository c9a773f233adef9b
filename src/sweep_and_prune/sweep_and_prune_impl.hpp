// The body of <broadphase/sweep_and_prune.hpp>. Compiled once in the library
// (src/sweep_and_prune/sweep_and_prune.cpp); the single header (single_include/) holds it too. A file that uses other scalar types or dimensions with the compiled library (BasicSweepAndPrune<float, 1>) includes it (src/ on its include path).
#pragma once

#include <broadphase/sweep_and_prune.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <broadphase/boxes.hpp>
#include "core/algorithm_base.hpp"
#include "core/algorithm_front_impl.hpp"
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"
#include "core/stats.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
class SweepAndPruneImpl : public AlgorithmBase<SweepAndPruneImpl<T, D>, T, D> {
    friend class AlgorithmBase<SweepAndPruneImpl<T, D>, T, D>;
    using View = detail::SoaView<T, D>;

public:
    /// Forces the sweep axis (0..D-1); -1 (the default) picks it from the data.
    void set_axis(int axis) { forced_axis_ = axis; }

private:
    /// Boxes sorted by min on `axis`, struct of arrays, with their input ids.
    /// (The arrays hold simd::width extra boxes so SIMD loads may run past n.)
    struct Sorted {
        BasicBoxes<T, D> boxes;
        std::vector<std::uint32_t> ids;
        std::size_t n = 0;
        View view() const {
            View v = View::of(boxes);
            v.n = n;
            return v;
        }
    };

    int pick_axis(const View& v) {
        if (forced_axis_ >= 0 && forced_axis_ < D) return forced_axis_;
        return detail::scene_stats(v, stats_scratch_).sparsest_axis();
    }

    /// Sorts `in` by min on `axis` into `out`. O(n), no allocation once warm.
    void sort_into(const View& in, int axis, Sorted& out, unsigned threads = 1) {
        const std::size_t n = in.n;
        const std::size_t min_boxes = this->min_boxes_per_thread();
        detail::sort_by_value(in.lo[axis], n, out.ids, sort_, threads, min_boxes);
        out.n = n;
        out.boxes.resize(n + detail::simd::width);
        detail::run_parts(plan_threads(threads, n, Work::eighth, min_boxes), n, [&](std::size_t, std::size_t first, std::size_t last) {
            for (int k = 0; k < D; ++k) {
                T* lo = out.boxes.min(k);
                T* hi = out.boxes.max(k);
                const T* src_lo = in.lo[k];
                const T* src_hi = in.hi[k];
                for (std::size_t i = first; i < last; ++i) {
                    const std::uint32_t id = out.ids[i];
                    lo[i] = src_lo[id];
                    hi[i] = src_hi[id];
                }
            }
        });
    }

    /// The sweep is cut into slices of this many boxes, whatever the
    /// thread count (the order of pairs within a slice depends on its cut).
    static constexpr std::size_t slice = 2048;

    /// The sweep for sorted boxes in slices [first, last): each box against
    /// those after it that start before it ends.
    template <class Sink>
    void sweep_slices(int axis, std::size_t first, std::size_t last, Sink& sink) const {
        const std::uint32_t* ids = a_.ids.data();
        const View all = a_.view();
        for (std::size_t sl = first; sl < last && !sink.stopped(); ++sl) {
            const std::size_t from = sl * slice;
            if (from + 1 >= all.n) break;
            View v = all;
            for (int k = 0; k < D; ++k) v.lo[k] += from, v.hi[k] += from;
            v.n = all.n - from;
            const std::size_t stop = std::min(slice, v.n);
            detail::sweep_pairs(v, axis, stop, [&](std::size_t i, std::size_t j) {
                const std::uint32_t a = ids[from + i], b = ids[from + j];
                if (a < b) sink(a, b);
                else sink(b, a);
            });
        }
    }

    template <class Sink>
    void self_impl(const View& in, Sink& sink) {
        const int axis = pick_axis(in);
        const unsigned threads = this->threads_for(in.n);
        sort_into(in, axis, a_, threads);
        const std::size_t slices = (in.n + slice - 1) / slice;
        if (threads <= 1 || slices < 2) {
            sweep_slices(axis, 0, slices, sink);
            return;
        }
        const std::size_t nt = detail::task_count(threads, slices, 1);
        tasks_.run(threads, nt, sink, [&](std::size_t t, PairSink& s, unsigned) {
            sweep_slices(axis, detail::even_bound(slices, nt, t), detail::even_bound(slices, nt, t + 1), s);
        });
    }

    /// Pairs between sorted sets for the boxes [begin, end) of `side`'s
    /// set: each sweeps the other set from the first box that starts at (B)
    /// or after (A) it. Side 0 is set A's boxes, side 1 set B's; both sides
    /// together meet each pair once.
    template <class Sink>
    static void sweep_sets(const Sorted& sa, const Sorted& sb, int axis, int side, std::size_t begin,
                           std::size_t end, Sink& sink) {
        const View va = sa.view(), vb = sb.view();
        const T* alo = va.lo[axis];
        const T* blo = vb.lo[axis];
        if (side == 0) {
            // first b with lo >= a.lo
            std::size_t start = begin < va.n ? static_cast<std::size_t>(std::lower_bound(blo, blo + vb.n, alo[begin]) - blo) : 0;
            for (std::size_t i = begin; i < end && !sink.stopped(); ++i) {
                while (start < vb.n && blo[start] < alo[i]) ++start;
                const std::uint32_t a = sa.ids[i];
                detail::sweep_overlaps(vb, start, vb.n, axis, detail::box_at(va, i),
                                       [&](std::size_t j) { sink(a, sb.ids[j]); });
            }
        } else {
            // first a with lo > b.lo
            std::size_t start = begin < vb.n ? static_cast<std::size_t>(std::upper_bound(alo, alo + va.n, blo[begin]) - alo) : 0;
            for (std::size_t j = begin; j < end && !sink.stopped(); ++j) {
                while (start < va.n && !(blo[j] < alo[start])) ++start;
                const std::uint32_t b = sb.ids[j];
                detail::sweep_overlaps(va, start, va.n, axis, detail::box_at(vb, j),
                                       [&](std::size_t i) { sink(sa.ids[i], b); });
            }
        }
    }

    template <class Sink>
    void cross_impl(const View& va, const View& vb, Sink& sink) {
        if (va.n == 0 || vb.n == 0) return;
        const int axis = pick_axis(va.n >= vb.n ? va : vb);
        const unsigned threads = this->threads_for(va.n + vb.n);
        sort_into(va, axis, a_, threads);
        sort_into(vb, axis, b_, threads);
        if (threads <= 1) {
            sweep_sets(a_, b_, axis, 0, 0, va.n, sink);
            if (!sink.stopped()) sweep_sets(a_, b_, axis, 1, 0, vb.n, sink);
            return;
        }
        // Tasks: runs of A's boxes, then runs of B's.
        const std::size_t na = detail::task_count(threads, va.n), nb = detail::task_count(threads, vb.n);
        tasks_.run(threads, na + nb, sink, [&](std::size_t t, PairSink& s, unsigned) {
            if (t < na) sweep_sets(a_, b_, axis, 0, detail::even_bound(va.n, na, t), detail::even_bound(va.n, na, t + 1), s);
            else sweep_sets(a_, b_, axis, 1, detail::even_bound(vb.n, nb, t - na), detail::even_bound(vb.n, nb, t - na + 1), s);
        });
    }

    void build_impl(const View& in) {
        built_axis_ = pick_axis(in);
        sort_into(in, built_axis_, built_, this->threads_for(in.n));
        const std::size_t n = in.n;
        prefix_max_.resize(n);
        const T* hi = built_.boxes.max(built_axis_);
        T m = n ? hi[0] : T();
        for (std::size_t i = 0; i < n; ++i) {
            m = std::max(m, hi[i]);
            prefix_max_[i] = m;
        }
    }

    template <class Emit>
    void query_impl(const BasicBox<T, D>& q, Emit&& emit) const {
        const View v = built_.view();
        // Boxes before `first` all end before q starts on the sweep axis.
        const std::size_t first = static_cast<std::size_t>(
            std::lower_bound(prefix_max_.begin(), prefix_max_.end(), q.min[built_axis_]) - prefix_max_.begin());
        detail::sweep_overlaps(v, first, v.n, built_axis_, q, [&](std::size_t j) { emit(built_.ids[j]); });
    }

    int forced_axis_ = -1;
    int built_axis_ = 0;
    Sorted a_, b_, built_;
    std::vector<T> prefix_max_;
    detail::SortScratch sort_;
    detail::StatsScratch stats_scratch_;
    detail::TaskPairs tasks_;
};

}  // namespace detail

template <class T, int D>
void BasicSweepAndPrune<T, D>::set_axis(int axis) {
    this->impl().set_axis(axis);
}

}  // namespace broadphase

// Compiled once, in sweep_and_prune/sweep_and_prune.cpp, for float and double in 2-D and 3-D; the
// library's other files use those. (The single header leaves out every
// `extern template` line: there each file compiles what it uses.)
namespace broadphase {
extern template class detail::AlgorithmBase<detail::SweepAndPruneImpl<float, 2>, float, 2>;
extern template class detail::SweepAndPruneImpl<float, 2>;
extern template class BasicSweepAndPrune<float, 2>;
extern template class detail::AlgorithmBase<detail::SweepAndPruneImpl<float, 3>, float, 3>;
extern template class detail::SweepAndPruneImpl<float, 3>;
extern template class BasicSweepAndPrune<float, 3>;
extern template class detail::AlgorithmBase<detail::SweepAndPruneImpl<double, 2>, double, 2>;
extern template class detail::SweepAndPruneImpl<double, 2>;
extern template class BasicSweepAndPrune<double, 2>;
extern template class detail::AlgorithmBase<detail::SweepAndPruneImpl<double, 3>, double, 3>;
extern template class detail::SweepAndPruneImpl<double, 3>;
extern template class BasicSweepAndPrune<double, 3>;
}  // namespace broadphase
