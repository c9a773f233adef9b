// CellList's wrap, bin and sort (the class and its members' contracts are in
// cell_list.hpp, which includes this file at its end): the survey of the
// particles, the bins and stencil reach planned from it, and the counting
// or radix sort by bin with the gather of the wrapped centres. Apart from
// the traversals (cell_list_traversal.hpp) so that neither file outgrows a
// reading; both are one class's members.
//
// Member functions are defined `inline` as they were when written in the
// class body (and must be: the class is not a template).
#pragma once

#include "cell_list/cell_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <broadphase/detail/cell_frame.hpp>
#include <broadphase/detail/parallel.hpp>
#include <broadphase/detail/prefetch.hpp>
#include "core/radix_sort.hpp"

namespace broadphase {
namespace detail {

// ---- wrap, bin and sort -----------------------------------------------------

template <class V>
inline bool CellList::sort(const V& v, const CellFrame& frame, double extra, unsigned threads, Work cost,
                           std::size_t min_boxes_per_thread, std::vector<std::uint32_t>& invalid,
                           double max_coarsening) {
    frame_ = frame;
    threads_ = plan_threads(threads, v.n, cost, min_boxes_per_thread);
    one_ = v.radii == nullptr;
    survey(v, invalid);
    if (sum_.infinite_radius || !(sum_.rmax < std::numeric_limits<double>::infinity())) return false;
    if (!std::isfinite(extra) || extra < 0) return false;
    extra_ = extra;
    reach_ = (sum_.rmax + sum_.rmax) + extra;
    if (!std::isfinite(reach_)) return false;
    if (!plan(max_coarsening)) return false;
    bin_and_sort(v);
    return true;
}

template <class V>
inline void CellList::survey(const V& v, std::vector<std::uint32_t>& invalid) {
    const std::size_t n = v.n;
    const std::size_t parts = threads_ <= 1 ? 1 : threads_ * 4;
    if (parts_.size() < parts) parts_.resize(parts);
    where_.resize(n);
    wrapped_.resize(n);
    run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
        Part& s = parts_[p];
        s.reset();
        const std::size_t b = even_bound(n, parts, p), e = even_bound(n, parts, p + 1);
        for (std::size_t i = b; i < e; ++i) {
            const double x[3] = {static_cast<double>(v.coord(i, 0)), static_cast<double>(v.coord(i, 1)),
                                 static_cast<double>(v.coord(i, 2))};
            const double r = static_cast<double>(v.r(i));
            where_[i] = not_sorted;
            if (std::isnan(x[0]) || std::isnan(x[1]) || std::isnan(x[2]) || !(r >= 0)) {
                s.invalid.push_back(static_cast<std::uint32_t>(i));
                continue;
            }
            ++s.s.valid;
            if (std::isinf(r)) s.s.infinite_radius = true;
            s.s.rmax = std::max(s.s.rmax, r);
            s.s.rsum += r;
            if (!(std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]))) continue;
            ++s.s.gridded;
            where_[i] = 0;  // sorted later
            for (int k = 0; k < 3; ++k) s.lo[k] = std::min(s.lo[k], x[k]), s.hi[k] = std::max(s.hi[k], x[k]);
            Wrapped& h = wrapped_[i];
            double im[3];
            frame_.wrap(x, h.w, im);
            h.r = r;
        }
    });
    sum_ = Summary{};
    for (int k = 0; k < 3; ++k) lo_[k] = std::numeric_limits<double>::infinity(), hi_[k] = -lo_[k];
    invalid.clear();
    for (std::size_t p = 0; p < parts; ++p) {
        const Part& s = parts_[p];
        for (int k = 0; k < 3; ++k) lo_[k] = std::min(lo_[k], s.lo[k]), hi_[k] = std::max(hi_[k], s.hi[k]);
        sum_.gridded += s.s.gridded, sum_.valid += s.s.valid, sum_.rsum += s.s.rsum;
        sum_.rmax = std::max(sum_.rmax, s.s.rmax);
        sum_.infinite_radius = sum_.infinite_radius || s.s.infinite_radius;
        invalid.insert(invalid.end(), s.invalid.begin(), s.invalid.end());
    }
}

inline bool CellList::plan(double max_coarsening) {
    double big = 0;  // the largest magnitude in play, for the rounding margin
    for (int k = 0; k < 3; ++k) {
        if (sum_.gridded) big = std::max({big, std::fabs(lo_[k]), std::fabs(hi_[k])});
        for (int r = 0; r < 3; ++r) big = std::max(big, std::fabs(frame_.h[r][k]));
    }
    // Rounding in wrapping and binning is a few units of 2^-52 of the
    // magnitudes; the margin is far above it.
    const double reach = reach_ * (1 + 0x1p-20) + big * 0x1p-40;
    const double q = std::max(bins_per_reach, 1);
    const double max_bins = std::min(std::max(8.0 * static_cast<double>(sum_.gridded), 65536.0), 2.0e9);
    double extent[3];
    for (int k = 0; k < 3; ++k) extent[k] = frame_.periodic[k] ? frame_.width(k) : std::max(hi_[k] - lo_[k], 0.0);
    if (sum_.gridded == 0) for (int k = 0; k < 3; ++k) extent[k] = frame_.periodic[k] ? extent[k] : 0;
    double target = reach / q;
    if (!(target > 0)) {  // a zero reach at the origin: any positive width holds coincident points together
        const double e = std::max({extent[0], extent[1], extent[2]});
        target = e > 0 ? e / std::cbrt(max_bins) : 1.0;
    }
    for (int attempt = 0;; ++attempt) {
        if (attempt > 200) return false;
        double total = 1;
        for (int k = 0; k < 3; ++k) {
            double b = target > 0 ? std::floor(extent[k] / target) : max_bins;
            if (!(b >= 1)) b = 1;
            b = std::min(b, max_bins);
            bins_[k] = static_cast<std::uint64_t>(b);
            total *= b;
        }
        if (total <= max_bins) break;
        target *= std::max(1.01, std::cbrt(total / max_bins));
    }
    for (int k = 0; k < 3; ++k) {
        const double width = extent[k] / static_cast<double>(bins_[k]);  // across the axis
        if (!frame_.periodic[k] && bins_[k] > 1 && width > max_coarsening * reach) return false;
        if (!frame_.periodic[k] && bins_[k] == 1 && extent[k] > max_coarsening * reach) return false;
        double m = width > 0 ? std::ceil(reach / width) : 1;
        if (!frame_.periodic[k]) m = std::min<double>(m, static_cast<double>(bins_[k] - 1));
        if (!(m <= 127)) return false;
        m_[k] = static_cast<int>(std::max(m, frame_.periodic[k] ? 1.0 : 0.0));
        scale_[k] = frame_.periodic[k] ? static_cast<double>(bins_[k])
                                       : (extent[k] > 0 ? static_cast<double>(bins_[k]) / extent[k] : 0);
    }
    return true;
}

inline std::uint32_t CellList::bin_of(const double w[3]) const {
    std::uint64_t key = 0;
    for (int k = 2; k >= 0; --k) {
        const double s = frame_.periodic[k] ? frame_.frac(w, k) * scale_[k] : (w[k] - lo_[k]) * scale_[k];
        std::uint64_t b = s > 0 ? static_cast<std::uint64_t>(std::min(s, 4.0e9)) : 0;
        b = std::min(b, bins_[k] - 1);
        key = key * bins_[k] + b;
    }
    return static_cast<std::uint32_t>(key);
}

template <class V>
inline void CellList::bin_and_sort(const V& v) {
    const std::size_t bins = static_cast<std::size_t>(bins_[0] * bins_[1] * bins_[2]);
    if (bins >= (std::size_t(1) << 18) && sum_.gridded >= 65536) radix_by_bin(v);
    else count_by_bin(v);
    gather(v);
}

template <class V>
inline void CellList::radix_by_bin(const V& v) {
    const std::size_t n = v.n, m = sum_.gridded;
    const std::size_t bins = static_cast<std::size_t>(bins_[0] * bins_[1] * bins_[2]);
    keys_.resize(m);
    ids_.resize(m);
    // (bin, index) of the gridded particles in input order: each part
    // counts its own, then writes from its offset.
    const std::size_t parts = threads_ <= 1 ? 1 : threads_ * 4;
    at_.assign(parts + 1, 0);
    run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
        std::size_t c = 0;
        for (std::size_t i = even_bound(n, parts, p); i < even_bound(n, parts, p + 1); ++i) c += where_[i] != not_sorted;
        at_[p + 1] = c;
    });
    for (std::size_t p = 0; p < parts; ++p) at_[p + 1] += at_[p];
    run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
        std::size_t c = at_[p];
        for (std::size_t i = even_bound(n, parts, p); i < even_bound(n, parts, p + 1); ++i) {
            if (where_[i] == not_sorted) continue;
            keys_[c] = bin_of(wrapped_[i].w);
            ids_[c++] = static_cast<std::uint32_t>(i);
        }
    });
    radix_sort(keys_, ids_, radix_, threads_);
    table_.resize(bins + 2);
    start_ = table_.data();
    std::size_t b = 0;
    for (std::size_t t = 0; t < m; ++t)
        for (const std::size_t k = keys_[t]; b <= k;) start_[b++] = static_cast<std::uint32_t>(t);
    while (b <= bins) start_[b++] = static_cast<std::uint32_t>(m);
    run_parts(threads_, m, [&](std::size_t, std::size_t b, std::size_t e) {
        for (std::size_t t = b; t < e; ++t) where_[ids_[t]] = static_cast<std::uint32_t>(t);
    });
}

template <class V>
inline void CellList::count_by_bin(const V& v) {
    const std::size_t n = v.n, m = sum_.gridded;
    const std::size_t bins = static_cast<std::size_t>(bins_[0] * bins_[1] * bins_[2]);
    const std::size_t parts = threads_ <= 1 ? 1 : std::min<std::size_t>(threads_ * 2, 4);
    const std::size_t row = bins + 1;  // part p's counts: table_[p * row + 1 + b]
    bin_.resize(n);
    table_.resize(parts * row);
    run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
        std::uint32_t* count = table_.data() + p * row + 1;
        std::fill(count - 1, count + bins, 0u);
        for (std::size_t i = even_bound(n, parts, p); i < even_bound(n, parts, p + 1); ++i) {
            if (where_[i] == not_sorted) continue;
            const std::uint32_t b = bin_of(wrapped_[i].w);
            bin_[i] = b;
            ++count[b];
        }
    });
    // Where each part's particles of each bin go: bin by bin, part by part.
    std::uint32_t sum = 0;
    for (std::size_t b = 1; b <= bins; ++b)
        for (std::size_t p = 0; p < parts; ++p) {
            std::uint32_t& k = table_[p * row + b];
            const std::uint32_t here = k;
            k = sum;
            sum += here;
        }
    ids_.resize(m);
    keys_.resize(m);
    run_tasks(threads_, parts, [&](std::size_t p, unsigned) {
        std::uint32_t* next = table_.data() + p * row + 1;
        for (std::size_t i = even_bound(n, parts, p); i < even_bound(n, parts, p + 1); ++i) {
            if (where_[i] == not_sorted) continue;
            const std::uint32_t b = bin_[i];
            const std::uint32_t at = next[b]++;
            ids_[at] = static_cast<std::uint32_t>(i);
            keys_[at] = b;
            where_[i] = at;
        }
    });
    // The last part's row now holds each bin's end, that is the next
    // bin's start: shifted by one, it is the start table.
    start_ = table_.data() + (parts - 1) * row;
    start_[0] = 0;
}

template <class V>
inline void CellList::gather(const V& v) {
    const std::size_t m = sum_.gridded;
    ids_.resize(m + pad);
    for (int k = 0; k < 3; ++k) pos_[k].resize(m + pad);
    rad_.resize(one_ ? 0 : m + pad);
    for (std::size_t t = m; t < m + pad; ++t) {
        ids_[t] = 0;
        for (int k = 0; k < 3; ++k) pos_[k][t] = 0;
        if (!one_) rad_[t] = 0;
    }
    const std::size_t gparts = threads_ <= 1 ? 1 : threads_ * 4;
    run_tasks(threads_, gparts, [&](std::size_t p, unsigned) {
        const std::size_t end = even_bound(m, gparts, p + 1);
        for (std::size_t t = even_bound(m, gparts, p); t < end; ++t) {
            // The reads follow the bin order, random in the input: ask
            // for the line a few particles ahead (one line a particle:
            // the survey's copy, half a line each).
            if (t + prefetch_ahead < end) prefetch_read(&wrapped_[ids_[t + prefetch_ahead]]);
            const Wrapped& h = wrapped_[ids_[t]];
            for (int k = 0; k < 3; ++k) pos_[k][t] = h.w[k];
            if (!one_) rad_[t] = h.r;
        }
    });
    radius_ = one_ ? static_cast<double>(v.radius) : 0;
    plan_stencil();
}

}  // namespace detail
}  // namespace broadphase
