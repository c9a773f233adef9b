// The body of <broadphase/brute_force.hpp>. Compiled once in the library
// (src/brute_force/brute_force.cpp); the single header (single_include/) holds it too. A file that uses other scalar types or dimensions with the compiled library (BasicBruteForce<float, 1>) includes it (src/ on its include path).
#pragma once

#include <broadphase/brute_force.hpp>

#include <algorithm>
#include <cmath>

#include <broadphase/boxes.hpp>
#include "core/algorithm_base.hpp"
#include "core/algorithm_front_impl.hpp"
#include "simd/dispatch.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
class BruteForceImpl : public AlgorithmBase<BruteForceImpl<T, D>, T, D> {
    friend class AlgorithmBase<BruteForceImpl<T, D>, T, D>;
    using View = detail::SoaView<T, D>;

    /// Rows [begin, end) of the triangle: box i against every box after it.
    template <class Sink>
    static void self_rows(const View& v, std::size_t begin, std::size_t end, Sink& sink) {
        for (std::size_t i = begin; i < end && i + 1 < v.n && !sink.stopped(); ++i) {
            const auto a = static_cast<std::uint32_t>(i);
            detail::scan_overlaps(v, i + 1, v.n, detail::box_at(v, i),
                                  [&](std::size_t j) { sink(a, static_cast<std::uint32_t>(j)); });
        }
    }

    /// Start of the t-th of `parts` runs of rows of equal cost: row i
    /// costs n - i tests, so the rows before the bound hold t/parts of them.
    static std::size_t triangle_bound(std::size_t n, std::size_t parts, std::size_t t) {
        if (t >= parts) return n;
        const double total = 0.5 * static_cast<double>(n) * static_cast<double>(n);
        const double left = total * (1.0 - static_cast<double>(t) / static_cast<double>(parts));  // tests after the bound
        const double i = static_cast<double>(n) - std::sqrt(2.0 * left);
        return std::min(n, static_cast<std::size_t>(std::max(0.0, i)));
    }

    template <class Sink>
    void self_impl(const View& v, Sink& sink) {
        const unsigned threads = this->threads_for(v.n);
        if (threads <= 1) {
            self_rows(v, 0, v.n, sink);
            return;
        }
        const std::size_t nt = detail::task_count(threads, v.n, 64);
        tasks_.run(threads, nt, sink, [&](std::size_t t, PairSink& s, unsigned) {
            self_rows(v, triangle_bound(v.n, nt, t), triangle_bound(v.n, nt, t + 1), s);
        });
    }

    template <class Sink>
    static void cross_rows(const View& va, const View& vb, std::size_t begin, std::size_t end, Sink& sink) {
        for (std::size_t i = begin; i < end && !sink.stopped(); ++i) {
            const auto ia = static_cast<std::uint32_t>(i);
            detail::scan_overlaps(vb, 0, vb.n, detail::box_at(va, i),
                                  [&](std::size_t j) { sink(ia, static_cast<std::uint32_t>(j)); });
        }
    }

    template <class Sink>
    void cross_impl(const View& va, const View& vb, Sink& sink) {
        const unsigned threads = this->threads_for(std::max(va.n, vb.n));
        if (threads <= 1 || va.n < 2) {
            cross_rows(va, vb, 0, va.n, sink);
            return;
        }
        const std::size_t nt = detail::task_count(threads, va.n, 16);
        tasks_.run(threads, nt, sink, [&](std::size_t t, PairSink& s, unsigned) {
            cross_rows(va, vb, detail::even_bound(va.n, nt, t), detail::even_bound(va.n, nt, t + 1), s);
        });
    }

    void build_impl(const View& v) { built_.assign(detail::public_view(v)); }

    template <class Emit>
    void query_impl(const BasicBox<T, D>& q, Emit&& emit) const {
        detail::scan_overlaps(View::of(built_), 0, built_.size(), q,
                              [&](std::size_t j) { emit(static_cast<std::uint32_t>(j)); });
    }

    BasicBoxes<T, D> built_;
    detail::TaskPairs tasks_;
};

}  // namespace detail

}  // namespace broadphase

// Compiled once, in brute_force/brute_force.cpp, for float and double in 2-D and 3-D; the
// library's other files use those. (The single header leaves out every
// `extern template` line: there each file compiles what it uses.)
namespace broadphase {
extern template class detail::AlgorithmBase<detail::BruteForceImpl<float, 2>, float, 2>;
extern template class detail::BruteForceImpl<float, 2>;
extern template class BasicBruteForce<float, 2>;
extern template class detail::AlgorithmBase<detail::BruteForceImpl<float, 3>, float, 3>;
extern template class detail::BruteForceImpl<float, 3>;
extern template class BasicBruteForce<float, 3>;
extern template class detail::AlgorithmBase<detail::BruteForceImpl<double, 2>, double, 2>;
extern template class detail::BruteForceImpl<double, 2>;
extern template class BasicBruteForce<double, 2>;
extern template class detail::AlgorithmBase<detail::BruteForceImpl<double, 3>, double, 3>;
extern template class detail::BruteForceImpl<double, 3>;
extern template class BasicBruteForce<double, 3>;
}  // namespace broadphase
