// The boxes an algorithm actually works on: the caller's arrays when all are
// valid and laid out as struct of arrays (no copy), else a compacted copy of
// the valid ones (gathered, for a strided view) plus the map back to the
// caller's indices. The map is increasing, so i < j survives it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/detail/parallel.hpp>
#include "simd/dispatch.hpp"

namespace broadphase {
namespace detail {

// all_valid(): src/simd/dispatch.hpp, a kernel picked at run time like the others.

template <class T, int D>
class WorkingSet {
public:
    /// Looks at `in` (parts of it on up to `threads` threads). A struct-of-
    /// arrays view whose boxes are all valid is used in place (no copy);
    /// otherwise the valid boxes are copied (gathered, for a strided view)
    /// into memory kept between calls. O(n); allocates only while that
    /// memory grows.
    void prepare(const BasicBoxesView<T, D>& in, unsigned threads = 1) {
        invalid_.clear();
        map_.clear();
        if (in.contiguous()) {
            const SoaView<T, D> v = SoaView<T, D>::of(in);
            bool valid = true;
            if (threads <= 1) {
                valid = all_valid(v, 0, in.size());
            } else {
                char part_valid[64];
                const unsigned parts = std::min(threads, 64u);
                run_parts(parts, in.size(), [&](std::size_t p, std::size_t first, std::size_t last) {
                    part_valid[p] = all_valid(v, first, last) ? 1 : 0;
                });
                for (std::size_t p = 0; p < part_count(parts, in.size()); ++p) valid = valid && part_valid[p];
            }
            if (valid) {
                view_ = v;
                return;
            }
        }
        // Copy the valid boxes, in order; a strided view is gathered here.
        const std::size_t n = in.size();
        compact_.resize(n);
        std::size_t m = 0;
        for (std::size_t i = 0; i < n; ++i) {
            bool ok = true;
            for (int k = 0; k < D; ++k) {
                const T lo = in.min(k, i), hi = in.max(k, i);
                compact_.min(k)[m] = lo;
                compact_.max(k)[m] = hi;
                ok = ok && valid_interval(lo, hi);
            }
            if (ok) {
                map_.push_back(static_cast<std::uint32_t>(i));
                ++m;
            } else {
                invalid_.push_back(static_cast<std::uint32_t>(i));
            }
        }
        compact_.resize(m);
        if (invalid_.empty()) map_.clear();  // all valid (a gathered strided view): identity
        view_ = SoaView<T, D>::of(compact_);
    }

    /// The valid boxes, struct of arrays (valid until the caller's boxes change).
    const SoaView<T, D>& boxes() const { return view_; }
    /// True when indices need no mapping.
    bool identity() const { return invalid_.empty(); }
    /// Caller's index of working index i.
    std::uint32_t original(std::uint32_t i) const { return invalid_.empty() ? i : map_[i]; }
    const std::vector<std::uint32_t>& map() const { return map_; }
    /// Caller's indices of the invalid boxes, increasing.
    const std::vector<std::uint32_t>& invalid() const { return invalid_; }

private:
    SoaView<T, D> view_{};
    BasicBoxes<T, D> compact_;
    std::vector<std::uint32_t> map_;
    std::vector<std::uint32_t> invalid_;
};

}  // namespace detail
}  // namespace broadphase
