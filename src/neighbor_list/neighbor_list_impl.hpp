// The bodies of <broadphase/neighbor_list.hpp>: BasicNeighborList's
// builds over the cell list (src/cell_list/cell_list.hpp) and what it keeps
// between them. Compiled once in the library (src/neighbor_list/neighbor_list.cpp) for
// float and double; header-only, neighbor_list.hpp includes this file at
// its end.
//
// It comes after neighbor_list.hpp and does not include it back: no file
// includes the file that includes it (detail/extern_templates.hpp).
#pragma once

#include <broadphase/neighbor_list.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/cell_frame.hpp>
#include "cell_list/cell_list_build.hpp"
#include "cell_list/cell_list_traversal.hpp"
#include <broadphase/detail/large_pages.hpp>
#include <broadphase/detail/parallel.hpp>
#include <broadphase/detail/prefetch.hpp>

namespace broadphase {
namespace detail {

template <class T>
struct NeighborListWork {
    CellList grid;
    LargeVector<double> held, image;  // positions as of the last build (the skin test); image counts
    std::vector<T> finite_radii;
    struct RowAt {
        const std::uint32_t* cols;
        std::uint64_t count;
    };
    LargeVector<RowAt> rows_at;               // per sorted position: its row in the grid's output
    LargeVector<const std::uint32_t*> from;  // per particle: its row in the grid's output
};

}  // namespace detail

template <class T>
BasicNeighborList<T>::BasicNeighborList(const NeighborListOptions& options, Allocate)
    : options_(options), work_(std::make_unique<detail::NeighborListWork<T>>()) {}

// Compiled in neighbor_list/neighbor_list.cpp. Declared before the
// defaulted definitions below: g++ 12 refuses an explicit instantiation of a
// member defaulted out of its class unless one was declared first.
extern template BasicNeighborList<float>::~BasicNeighborList();
extern template BasicNeighborList<float>::BasicNeighborList(BasicNeighborList<float>&&) noexcept;
extern template BasicNeighborList<float>& BasicNeighborList<float>::operator=(BasicNeighborList<float>&&) noexcept;
extern template BasicNeighborList<double>::~BasicNeighborList();
extern template BasicNeighborList<double>::BasicNeighborList(BasicNeighborList<double>&&) noexcept;
extern template BasicNeighborList<double>& BasicNeighborList<double>::operator=(BasicNeighborList<double>&&) noexcept;

template <class T>
BasicNeighborList<T>::~BasicNeighborList() = default;

template <class T>
BasicNeighborList<T>::BasicNeighborList(BasicNeighborList&&) noexcept = default;

template <class T>
BasicNeighborList<T>& BasicNeighborList<T>::operator=(BasicNeighborList&&) noexcept = default;

template <class T>
bool BasicNeighborList<T>::update(const SphereView<T>& particles) {
    if (stale_ || particles.n != n_ || moved_too_far(particles)) {
        build(particles);
        return true;
    }
    return false;
}

template <class T>
Report BasicNeighborList<T>::build(const SphereView<T>& v) {
    report_ = Report{};
    stale_ = false, binned_ = false;
    n_ = v.n;
    ++builds_;
    // The arrays keep their size until the new list's is known: a
    // list rebuilt at the same size is not written twice (zeroed,
    // then filled).
    if (bad_cell_ || bad_options_ || v.n > max_boxes) {
        report_.status = v.n > max_boxes ? Status::too_many_boxes : Status::invalid_argument;
        empty_list();
        return report_;
    }
    const bool done = detail::guarded(report_, [&] {
        if (!work_) work_ = std::make_unique<detail::NeighborListWork<T>>();  // after a move
        if (!build_now(v)) report_.status = Status::out_of_memory;
    });
    if (!done || report_.status == Status::out_of_memory) empty_list();
    report_.pairs = indices_.size();
    return report_;
}

template <class T>
std::vector<std::uint32_t> BasicNeighborList<T>::spatial_order() const {
    std::vector<std::uint32_t> order;
    order.reserve(n_);
    // Nothing sorted, or moved from (no cell list): the identity.
    if (!work_ || !binned_ || work_->grid.where().size() != n_) {
        for (std::size_t i = 0; i < n_; ++i) order.push_back(static_cast<std::uint32_t>(i));
        return order;
    }
    const detail::CellList& grid = work_->grid;
    const auto& where = grid.where();
    const auto& ids = grid.ids();
    order.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(grid.gridded()));
    for (std::size_t i = 0; i < n_; ++i)
        if (where[i] == ~std::uint32_t(0)) order.push_back(static_cast<std::uint32_t>(i));
    return order;
}

template <class T>
bool BasicNeighborList<T>::same(double x, double h) {
    return x == h || (std::isnan(x) && std::isnan(h));
}

template <class T>
bool BasicNeighborList<T>::moved_too_far(const SphereView<T>& v) const {
    if (!work_ || work_->held.size() != 3 * v.n) return true;
    const double limit = 0.5 * options_.skin;
    const double lim2 = limit * limit;
    const double* held = work_->held.data();
    bool far = false;
    if (frame_.diagonal) {
        double L[3], inv[3];
        for (int k = 0; k < 3; ++k) L[k] = frame_.periodic[k] ? std::fabs(frame_.h[k][k]) : 0, inv[k] = L[k] ? 1 / L[k] : 0;
        for (std::size_t i = 0; i < v.n; ++i) {
            double d2 = 0;
            for (int k = 0; k < 3; ++k) {
                const double x = static_cast<double>(v.coord(i, k)), h = held[3 * i + k];
                double d = x - h;
                if (!std::isfinite(d)) d = same(x, h) ? 0.0 : std::numeric_limits<double>::infinity();
                else d -= L[k] * std::nearbyint(d * inv[k]);
                d2 += d * d;
            }
            far |= !(d2 <= lim2);
        }
    } else {
        for (std::size_t i = 0; i < v.n; ++i) {
            double d[3], s[3];
            bool odd = false, unchanged = true;
            for (int k = 0; k < 3; ++k) {
                const double x = static_cast<double>(v.coord(i, k)), h = held[3 * i + k];
                d[k] = x - h;
                odd = odd || !std::isfinite(d[k]);
                unchanged = unchanged && same(x, h);
            }
            if (odd) {  // a NaN or infinite coordinate: moved unless it is as it was
                far |= !unchanged;
                continue;
            }
            for (int k = 0; k < 3; ++k) s[k] = std::nearbyint(frame_.frac(d, k));
            double d2 = 0;
            for (int k = 0; k < 3; ++k) {
                const double e = d[k] - ((s[0] * frame_.h[0][k] + s[1] * frame_.h[1][k]) + s[2] * frame_.h[2][k]);
                d2 += e * e;
            }
            far |= !(d2 <= lim2);
        }
    }
    return far;
}

template <class T>
void BasicNeighborList<T>::empty_list() {
    offsets_.assign(n_ + 1, 0);
    indices_.clear(), vectors_.clear(), shifts_.clear();
    stale_ = true;
}

template <class T>
bool BasicNeighborList<T>::build_now(const SphereView<T>& v) {
    auto& work = *work_;
    using RowAt = typename detail::NeighborListWork<T>::RowAt;
    const std::size_t n = v.n;
    // Positions as of this build, for the skin test.
    work.held.resize(3 * n);
    const unsigned copy_threads = plan_threads(options_.threads, n, Work::eighth);
    detail::run_parts(copy_threads, n, [&](std::size_t, std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i)
            for (int k = 0; k < 3; ++k) work.held[3 * i + k] = static_cast<double>(v.coord(i, k));
    });
    const double extra = options_.cutoff + options_.skin;
    // Infinite radii are invalid here (their list would be infinite).
    SphereView<T> use = v;
    const bool checked = work.grid.sort(use, frame_, extra, options_.threads, Work::half, default_min_boxes_per_thread,
                            report_.invalid_a);
    if (!checked) {
        // Infinite radius somewhere, or a reach over ~60 cells: the
        // particles with an infinite radius become invalid and the rest
        // go through again; a reach too large is out of memory.
        if (work.grid.summary().infinite_radius) {
            work.finite_radii.assign(n, T(0));
            for (std::size_t i = 0; i < n; ++i) {
                const T r = v.r(i);
                work.finite_radii[i] = std::isinf(r) ? std::numeric_limits<T>::quiet_NaN() : r;
            }
            use.radii = work.finite_radii.data();
            if (!work.grid.sort(use, frame_, extra, options_.threads, Work::half, default_min_boxes_per_thread,
                                report_.invalid_a))
                return false;
        } else {
            return false;
        }
    }
    binned_ = true;
    bool exceeded = false;
    const bool images = options_.shifts || options_.vectors;
    work.grid.rows(!options_.full, images, options_.max_entries, exceeded);
    if (exceeded) {  // rows missing here and there would look complete: none
        report_.status = Status::pair_budget_exceeded;
        empty_list();
        return true;
    }
    // Offsets in input order, then each row moved to its place. The
    // rows come out in bin order, random in the input: the passes go
    // in input order, so that the writes stream, and read each row's
    // count and place (one line, fetched a few particles ahead) and
    // then its entries (fetched ahead too): two random lines a
    // particle (measured: docs/measured-in-code.md#cell-list-and-neighbour-lists).
    const auto& ids = work.grid.ids();
    const auto& where = work.grid.where();
    constexpr std::uint32_t none = ~std::uint32_t(0);
    constexpr std::size_t ahead = 16;
    work.rows_at.resize(work.grid.gridded());
    work.grid.for_each_row(true, [&](std::size_t s, const std::uint32_t* cols, const std::uint32_t*, std::uint32_t c) {
        work.rows_at[s] = RowAt{cols, c};
    });
    detail::reserve_large(offsets_, n + 1);
    offsets_.resize(n + 1);
    offsets_[0] = 0;
    work.from.resize(n);
    const unsigned threads = plan_threads(options_.threads, n, Work::half);  // a row a particle, as the search
    detail::run_parts(threads, n, [&](std::size_t, std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
            if (i + ahead < e && where[i + ahead] != none) detail::prefetch_read(&work.rows_at[where[i + ahead]]);
            const std::uint32_t s = where[i];
            const RowAt r = s == none ? RowAt{nullptr, 0} : work.rows_at[s];
            offsets_[i + 1] = r.count;
            work.from[i] = r.cols;
        }
    });
    for (std::size_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
    const std::size_t total = static_cast<std::size_t>(offsets_[n]);
    // The caller's arrays: sized once, on huge pages when new.
    detail::reserve_large(indices_, total);
    indices_.resize(total);
    if (options_.vectors) detail::reserve_large(vectors_, 3 * total), vectors_.resize(3 * total);
    if (options_.shifts) detail::reserve_large(shifts_, 3 * total), shifts_.resize(3 * total);
    if (images) work.image.resize(n * 3);
    if (images) {
        // Each particle's image count n_i (for S) from its wrap.
        detail::run_parts(threads, n, [&](std::size_t, std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) {
                if (work.grid.where()[i] == ~std::uint32_t(0)) continue;
                const double x[3] = {static_cast<double>(use.coord(i, 0)), static_cast<double>(use.coord(i, 1)),
                                     static_cast<double>(use.coord(i, 2))};
                double w[3], m[3];
                frame_.wrap(x, w, m);
                for (int k = 0; k < 3; ++k) work.image[3 * i + k] = m[k];
            }
        });
    }
    if (!options_.sorted && !images) {  // the common case: each row as found
        detail::run_parts(threads, n, [&](std::size_t, std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) {
                if (i + ahead < e) detail::prefetch_read(work.from[i + ahead]);
                const std::uint32_t* from = work.from[i];
                std::uint32_t* to = indices_.data() + offsets_[i];
                for (std::uint64_t c = offsets_[i + 1] - offsets_[i]; c--;) *to++ = *from++;
            }
        });
        return true;
    }
    const double* X[3] = {work.grid.x(0), work.grid.x(1), work.grid.x(2)};
    work.grid.for_each_row(true, [&](std::size_t s, const std::uint32_t* cols, const std::uint32_t* codes, std::uint32_t c) {
        const std::uint32_t i = ids[s];
        const std::size_t at = static_cast<std::size_t>(offsets_[i]);
        // The row's order: as found, or (sorted) by j then by image (P
        // and S differ by a constant for one j, so this is by (j, S)).
        thread_local std::vector<std::uint32_t> order;
        order.resize(c);
        for (std::uint32_t e = 0; e < c; ++e) order[e] = e;
        if (options_.sorted)
            std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
                if (cols[x] != cols[y]) return cols[x] < cols[y];
                if (!codes) return x < y;
                int px[3], py[3];
                detail::unpack_image(codes[x], px), detail::unpack_image(codes[y], py);
                return std::lexicographical_compare(px, px + 3, py, py + 3);
            });
        for (std::uint32_t e = 0; e < c; ++e) indices_[at + e] = cols[order[e]];
        if (!codes) return;
        for (std::uint32_t e = 0; e < c; ++e) {
            const std::uint32_t from = order[e];
            int p[3];
            detail::unpack_image(codes[from], p);
            const std::uint32_t j = cols[from], sj = where[j];
            if (options_.vectors) {
                for (int k = 0; k < 3; ++k)
                    vectors_[3 * (at + e) + k] = (X[k][sj] - X[k][s]) + frame_.shift(p, k);
            }
            if (options_.shifts) {
                for (int k = 0; k < 3; ++k)
                    shifts_[3 * (at + e) + k] =
                        static_cast<std::int32_t>(p[k] + work.image[3 * i + k] - work.image[3 * j + k]);
            }
        }
    });
    return true;
}

}  // namespace broadphase
