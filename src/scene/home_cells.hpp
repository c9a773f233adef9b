// The layout rule of the scene's two home-cell grids (incremental_grid.hpp
// for the dynamic objects, static_set.hpp for the statics): each box no
// wider than a cell lives in the cell of its min corner, in a dense table
// over the min corners' span, so that two overlapping boxes have homes at
// most one cell apart on every axis.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace broadphase {
namespace detail {

/// The cell side h per axis and the span [lo, hi] of the table, from the
/// boxes for_each_box(f) gives (f(box) each): h is the extent that all but
/// 1 box in 512 fit under, or the largest when that is at most twice it
/// (times 1 + 1e-5), at least 1/8 of the widest side; the span is that of
/// the min corners, their 1st to 99th percentile (+-h) when the whole span
/// would need more cells than `budget` (far outliers clamp into the edge
/// cells); then the sides grow until the table (floor(span / h) + 1 +
/// spare cells an axis) fits the budget. Finite whatever the coordinates:
/// a span inside +-DBL_MAX/4, sides in [1e-300, DBL_MAX/4]. O(n).
template <int D, class ForEachBox>
void plan_home_cells(ForEachBox&& for_each_box, double budget, int spare, std::vector<double>& e, double* lo,
                     double* hi, double* h) {
    constexpr double big = std::numeric_limits<double>::max();
    double widest = 0;
    std::size_t n = 0;
    for (int k = 0; k < D; ++k) {
        e.clear();
        double mn = std::numeric_limits<double>::infinity(), mx = -mn, most = 0;
        for_each_box([&](const auto& box) {
            const double a = static_cast<double>(box.min[k]), w = static_cast<double>(box.max[k]) - a;
            if (w <= big) e.push_back(w), most = std::max(most, w);
            if (a >= -big && a <= big) mn = std::min(mn, a), mx = std::max(mx, a);
        });
        double q = 0;
        if (!e.empty()) {
            const std::size_t at = e.size() - 1 - e.size() / 512;
            std::nth_element(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(at), e.end());
            q = e[at];
        }
        h[k] = (most <= 2 * q ? most : q) * (1 + 1e-5);
        widest = std::max(widest, h[k]);
        lo[k] = mn <= mx ? mn : 0;
        hi[k] = mn <= mx ? mx : 0;
    }
    for_each_box([&](const auto&) { ++n; });
    if (!(widest > 0)) widest = 1;  // points only: any side works
    for (int k = 0; k < D; ++k) h[k] = std::max(h[k], widest / 8);
    auto cells_of = [&](const double* side) {
        double c = 1;
        for (int k = 0; k < D; ++k) c *= std::min(std::floor((hi[k] - lo[k]) / side[k]) + 1 + spare, 1e30);
        return c;
    };
    if (cells_of(h) > budget) {
        for (int k = 0; k < D; ++k) {
            if (n < 200) break;
            e.clear();
            for_each_box([&](const auto& box) { e.push_back(static_cast<double>(box.min[k])); });
            const std::size_t a = e.size() / 100, b = e.size() - 1 - e.size() / 100;
            std::nth_element(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(a), e.end());
            const double p1 = e[a];
            std::nth_element(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(b), e.end());
            const double p99 = e[b];
            if (p1 >= -big && p99 <= big) lo[k] = std::max(lo[k], p1 - h[k]), hi[k] = std::max(lo[k], std::min(hi[k], p99 + h[k]));
        }
    }
    const double m = big / 4;
    for (int k = 0; k < D; ++k) {
        lo[k] = lo[k] >= -m ? std::min(lo[k], m) : -m;
        hi[k] = hi[k] >= lo[k] ? std::min(hi[k], m) : lo[k];
        h[k] = h[k] >= 1e-300 ? std::min(h[k], m) : 1e-300;
    }
    for (int iter = 0; iter < 64 && cells_of(h) > budget; ++iter) {
        const double g = std::max(1.01, std::pow(cells_of(h) / budget, 1.0 / D));
        for (int k = 0; k < D; ++k) h[k] = std::min(h[k] * g, m);
    }
    while (cells_of(h) > budget)  // (at sides of m, a few cells an axis at most)
        for (int k = 0; k < D; ++k) h[k] = std::min(h[k] * 2, m);
}

/// The table of a plan (plan_home_cells): per axis the origin, the side and
/// its inverse, the last cell coordinate of the span (limit: floor(span /
/// h)), the widest extent a box may have to live in a cell (small_limit: h
/// less 1e-6 h, against rounding), and the stride of a dense table of
/// limit + 1 + spare cells an axis. Returns the table's cell count.
template <int D>
std::size_t home_cell_table(const double* lo, const double* hi, const double* h, int spare, double* origin,
                            double* side, double* inv_side, double* limit, double* small_limit, std::size_t* stride) {
    std::size_t cells = 1;
    for (int k = 0; k < D; ++k) {
        const std::size_t dim = static_cast<std::size_t>(std::floor((hi[k] - lo[k]) / h[k])) + 1 + std::size_t(spare);
        limit[k] = static_cast<double>(dim - 1 - std::size_t(spare));
        stride[k] = cells;
        cells *= dim;
        origin[k] = lo[k];
        side[k] = h[k];
        inv_side[k] = 1 / h[k];
        small_limit[k] = h[k] * (1 - 1e-6);
    }
    return cells;
}

}  // namespace detail
}  // namespace broadphase
