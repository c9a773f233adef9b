// The large boxes of a grid among themselves: the boxes HybridGridCore and
// UniformGridCore keep out of their cells (they touch too many) are sorted by
// min on axis 0 into struct-of-arrays of their own and swept once. Both
// grids did this the same way; this class is that one way, each grid
// holding one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <broadphase/detail/buffers.hpp>
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
class LargeBoxSweep {
public:
    /// Copies the boxes ids (indices into v) sorted by min on axis 0 (ties
    /// in the order of ids) into arrays padded by simd::width for the sweep,
    /// sorting with the caller's scratch. Fewer than two: nothing to sweep.
    /// O(m) for float (a radix sort); no allocation once warm.
    void prepare(const SoaView<T, D>& v, const std::vector<std::uint32_t>& ids, SortScratch& sort) {
        const std::size_t m = ids.size();
        view_ = SoaView<T, D>{};
        if (m < 2) return;
        resize_buffer(mins_, m);
        for (std::size_t t = 0; t < m; ++t) mins_[t] = v.lo[0][ids[t]];
        sort_by_value(mins_.data(), m, rank_, sort);
        resize_buffer(order_, m);
        for (std::size_t t = 0; t < m; ++t) order_[t] = ids[rank_[t]];
        for (int k = 0; k < D; ++k) {
            resize_buffer(lo_[k], m + simd::width);
            resize_buffer(hi_[k], m + simd::width);
        }
        for (int k = 0; k < D; ++k) {
            for (std::size_t t = 0; t < m; ++t) {
                lo_[k][t] = v.lo[k][order_[t]];
                hi_[k][t] = v.hi[k][order_[t]];
            }
            view_.lo[k] = lo_[k].data();
            view_.hi[k] = hi_[k].data();
        }
        view_.n = m;
    }

    /// Every overlapping pair of the prepared boxes, once: sink(a, b) with
    /// a < b, indices into the prepared view. A sweep on axis 0.
    template <class Sink>
    void pairs(Sink& sink) const {
        if (view_.n < 2) return;
        sweep_pairs(view_, 0, view_.n, [&](std::size_t i, std::size_t j) {
            const std::uint32_t a = order_[i], b = order_[j];
            if (a < b) sink(a, b);
            else sink(b, a);
        });
    }

private:
    std::vector<std::uint32_t> order_, rank_;  // the boxes in sweep order; their ranks while sorting
    std::vector<T> mins_, lo_[D], hi_[D];      // their mins on axis 0 while sorting; the boxes, sorted
    SoaView<T, D> view_{};
};

}  // namespace detail
}  // namespace broadphase
