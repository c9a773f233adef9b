// The body of grid_front.hpp, the uniform and the hybrid
// grid's one algorithm class: GridAlgorithmImpl, which a policy tells which
// axes are gridded and whether buckets are swept. Included by
// src/grid/uniform_grid_impl.hpp and src/grid/hybrid_grid_impl.hpp, and by a file
// that uses a grid of its own policy (the tests' HugeSpanPolicy).
#pragma once

#include <broadphase/grid_front.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <broadphase/boxes.hpp>
#include "core/algorithm_base.hpp"
#include "core/algorithm_front_impl.hpp"
#include "grid/hybrid_grid_core_build.hpp"
#include "grid/hybrid_grid_core_pairs.hpp"
#include "core/stats.hpp"
#include "grid/uniform_grid_core.hpp"

namespace broadphase {
namespace detail {

/// A policy's grid parameters: every axis gridded but the sweep axis (none
/// when sweep_axis < 0), the occupancy target, the smallest cell side in
/// median box extents and in 99th-percentile extents, and the cells past
/// which a box is large.
template <class T, int D>
typename HybridGridCore<T, D>::Params grid_params(int sweep_axis, double boxes_per_cell, double min_cell_extents,
                                            std::uint64_t max_cells, double min_cell_p99 = 0) {
    typename HybridGridCore<T, D>::Params p;
    p.sweep_axis = sweep_axis;
    p.axis_mask = ((1u << D) - 1) & ~(sweep_axis >= 0 ? 1u << sweep_axis : 0u);
    p.boxes_per_cell = boxes_per_cell;
    p.min_cell_extents = min_cell_extents;
    p.max_cells = max_cells;
    p.min_cell_p99 = min_cell_p99;
    return p;
}

/// Whether a two-set search should bin set a (and query with b's boxes)
/// rather than the reverse, from samples of both: the one that costs less,
/// counting a box binned as 1 and a query as the cells of the binned set's
/// grid that a median query box covers (cells about as wide as the binned
/// set's 99th-percentile box; at most a quarter of its boxes, past which
/// a query scans them all). Sets of alike sizes: the larger is binned. Sets
/// of different scales: the one with the larger boxes, whatever the counts
/// (small boxes binned into cells fit for large ones crowd them; measured:
/// docs/measured-in-code.md#two-sets). O(D).
template <int D>
bool bin_first_set(const SceneStats<D>& a, const SceneStats<D>& b) {
    auto cost = [](const SceneStats<D>& binned, const SceneStats<D>& queries) {
        double cells = 1;
        for (int k = 0; k < D; ++k) {
            const double r = queries.extent_median[k] / std::max(binned.extent_p99[k], 1e-300);
            cells *= (r < 1e9 ? r : 1e9) + 1;  // (NaN: 1e9)
        }
        const double per_query = std::min(cells, std::max(1.0, static_cast<double>(binned.n) / 4));
        return static_cast<double>(binned.n) + static_cast<double>(queries.n) * per_query;
    };
    const double bin_a = cost(a, b), bin_b = cost(b, a);
    if (bin_a < bin_b) return true;
    if (bin_b < bin_a) return false;
    return a.n >= b.n;
}

template <class T, int D, class Policy>
class GridAlgorithmImpl : public AlgorithmBase<GridAlgorithmImpl<T, D, Policy>, T, D> {
    friend class AlgorithmBase<GridAlgorithmImpl<T, D, Policy>, T, D>;
    using View = SoaView<T, D>;
    using Grid = HybridGridCore<T, D>;

public:
    /// Target boxes per cell; 0 (the default) keeps the policy's tuned value.
    void set_boxes_per_cell(double n) { boxes_per_cell_ = n; }
    /// Smallest cell side in median box extents; 0 keeps the policy's value.
    void set_min_cell_extents(double r) { min_cell_extents_ = r; }

    /// The cell side chosen by the last build or pair search.
    T cell_size() const { return last_cell_size_; }

private:
    /// Bins `v` into `grid` on the axes the policy picks.
    void bin(const View& v, Grid& grid, unsigned threads, bool for_pairs = false) {
        typename Grid::Params p = Policy::template params<T, D>(v, stats_scratch_);
        if (boxes_per_cell_ > 0) p.boxes_per_cell = boxes_per_cell_;
        if (min_cell_extents_ > 0) p.min_cell_extents = min_cell_extents_;
        grid.build(v, p, stats_scratch_, threads, for_pairs);
        last_cell_size_ = grid.cell_size();
    }

    template <class Sink>
    void self_impl(const View& v, Sink& sink) {
        const unsigned threads = this->threads_for(v.n);
        if constexpr (Policy::home_cells) {
            if (home_.self_pairs(v, sink, stats_scratch_, threads)) {
                last_cell_size_ = home_.cell_size();
                return;
            }
            // Cells stretched far past the boxes (UniformGridCore::min_fill):
            // the hashed cells below, as for two sets.
        }
        bin(v, grid_, threads, true);
        grid_.self_pairs(v, sink, threads);
    }

    /// Two sets: bin one, query it with each box of the other (with
    /// threads, runs of the other set as tasks); which one, bin_first_set.
    template <class Sink>
    void cross_impl(const View& va, const View& vb, Sink& sink) {
        if (va.n == 0 || vb.n == 0) return;
        const bool bin_a = bin_first_set(scene_stats(va, stats_scratch_), scene_stats(vb, stats_scratch_));
        const View& binned = bin_a ? va : vb;
        const View& queries = bin_a ? vb : va;
        const unsigned threads = this->threads_for(va.n + vb.n);
        bin(binned, grid_, threads);
        auto run = [&](std::size_t first, std::size_t last, auto& s) {
            for (std::size_t i = first; i < last && !s.stopped(); ++i) {
                const auto qi = static_cast<std::uint32_t>(i);
                grid_.query(binned, box_at(queries, i), [&](std::uint32_t j) {
                    if (bin_a) s(j, qi);
                    else s(qi, j);
                });
            }
        };
        if (threads <= 1) {
            run(0, queries.n, sink);
            return;
        }
        const std::size_t nt = task_count(threads, queries.n, 64);
        tasks_.run(threads, nt, sink, [&](std::size_t t, PairSink& s, unsigned) {
            run(even_bound(queries.n, nt, t), even_bound(queries.n, nt, t + 1), s);
        });
    }

    void build_impl(const View& v) {
        built_.assign(public_view(v));
        bin(View::of(built_), built_grid_, this->threads_for(v.n));
    }

    template <class Emit>
    void query_impl(const BasicBox<T, D>& q, Emit&& emit) const {
        built_grid_.query(View::of(built_), q, emit);
    }

    double boxes_per_cell_ = 0;
    double min_cell_extents_ = 0;
    T last_cell_size_ = T(0);
    Grid grid_, built_grid_;
    UniformGridCore<T, D> home_;  // the pair search of policies with home_cells
    BasicBoxes<T, D> built_;
    StatsScratch stats_scratch_;
    TaskPairs tasks_;
};

}  // namespace detail

template <class T, int D, class Policy>
void GridFront<T, D, Policy>::set_boxes_per_cell(double n) {
    this->impl().set_boxes_per_cell(n);
}

template <class T, int D, class Policy>
void GridFront<T, D, Policy>::set_min_cell_extents(double r) {
    this->impl().set_min_cell_extents(r);
}

template <class T, int D, class Policy>
T GridFront<T, D, Policy>::cell_size() const {
    const auto* a = this->impl_if_any();
    return a ? a->cell_size() : T(0);
}

}  // namespace broadphase

