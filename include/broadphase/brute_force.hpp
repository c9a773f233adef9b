// Brute force: every box against every other, SIMD-width at a time.
//
// O(n^2) tests, no build cost, no memory beyond the input. It is the oracle
// every other algorithm is tested against, and it wins below a few hundred
// boxes, where any structure costs more to build than it saves.
#pragma once

#include "boxes.hpp"
#include "detail/algorithm_base.hpp"
#include "detail/simd.hpp"

namespace broadphase {

template <class T, int D>
class BasicBruteForce : public detail::AlgorithmBase<BasicBruteForce<T, D>, T, D> {
    friend class detail::AlgorithmBase<BasicBruteForce<T, D>, T, D>;
    using View = detail::SoaView<T, D>;

    template <class Sink>
    void self_impl(const BasicBoxes<T, D>& boxes, Sink& sink) {
        const View v = View::of(boxes);
        for (std::size_t i = 0; i + 1 < v.n && !sink.stopped(); ++i) {
            const auto a = static_cast<std::uint32_t>(i);
            detail::scan_overlaps(v, i + 1, v.n, detail::box_at(v, i),
                                  [&](std::size_t j) { sink(a, static_cast<std::uint32_t>(j)); });
        }
    }

    template <class Sink>
    void cross_impl(const BasicBoxes<T, D>& a, const BasicBoxes<T, D>& b, Sink& sink) {
        const View va = View::of(a), vb = View::of(b);
        for (std::size_t i = 0; i < va.n && !sink.stopped(); ++i) {
            const auto ia = static_cast<std::uint32_t>(i);
            detail::scan_overlaps(vb, 0, vb.n, detail::box_at(va, i),
                                  [&](std::size_t j) { sink(ia, static_cast<std::uint32_t>(j)); });
        }
    }

    void build_impl(const BasicBoxes<T, D>& boxes) { built_ = boxes; }

    template <class Emit>
    void query_impl(const BasicBox<T, D>& q, Emit&& emit) const {
        detail::scan_overlaps(View::of(built_), 0, built_.size(), q,
                              [&](std::size_t j) { emit(static_cast<std::uint32_t>(j)); });
    }

    BasicBoxes<T, D> built_;
};

/// Brute force over 3-D float boxes.
using BruteForce = BasicBruteForce<float, 3>;

}  // namespace broadphase
