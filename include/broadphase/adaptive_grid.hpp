// Sparse linear adaptive grid (after the article "Simple Fast Adaptive Grid
// to Accelerate Collision Detection between AABB of Particles", CodeProject,
// 2022): a tree of 4x4x4 cells over the
// data's bounds, split only where boxes are, kept in flat arrays built
// level by level, with a 64-bit occupancy mask per node.
//
// Where a uniform grid needs one cell size for the whole scene, this one
// refines where boxes crowd and stays coarse where they are few, so
// clustered scenes and "teapot in stadium" outliers cost no tuning. Boxes
// too big for a node's children stay in the node (residents) instead of
// being copied into many small cells. Each pair is reported once, in the
// cell holding the max of the two min corners (see detail/adaptive_grid_core.hpp).
//
// Cost: build O(n * levels) by counting sorts; all pairs: the instances of
// each leaf among themselves (at most leaf_capacity of them, SIMD), plus
// each resident against the part of the tree it covers. A query visits the
// nodes the query box touches, skipping empty children by one AND.
// Best for box queries (a built Index) and for scenes whose density varies.
#pragma once

#include <cstdint>
#include <string>

#include "detail/adaptive_grid_core.hpp"
#include "detail/algorithm_base.hpp"

namespace broadphase {

template <class T, int D>
class BasicAdaptiveGrid : public detail::AlgorithmBase<BasicAdaptiveGrid<T, D>, T, D> {
    friend class detail::AlgorithmBase<BasicAdaptiveGrid<T, D>, T, D>;
    using Tree = detail::AdaptiveGridCore<T, D>;
    using View = detail::SoaView<T, D>;

public:
    using Params = typename Tree::Params;

    /// Tuning: leaf capacity and the resident threshold (see Params). The
    /// defaults are the measured best on the built-in scenes.
    void set_params(const Params& p) { params_ = p; }
    const Params& params() const { return params_; }

    /// The tree of the last build() (for inspection and tests).
    const Tree& built_tree() const { return built_; }
    /// The tree of the last pair search.
    const Tree& last_tree() const { return tree_; }

private:
    template <class Sink>
    void self_impl(const View& v, Sink& sink) {
        const unsigned threads = this->threads_for(v.n);
        tree_.build(v, params_, threads);
        tree_.self_pairs(sink, threads);
    }

    /// Two sets: build over the larger, query it with the smaller as one
    /// batch (Morton order, see AdaptiveGridCore::query_batch).
    template <class Sink>
    void cross_impl(const View& a, const View& b, Sink& sink) {
        if (a.n == 0 || b.n == 0) return;
        const bool build_a = a.n >= b.n;
        const unsigned threads = this->threads_for(a.n + b.n);
        tree_.build(build_a ? a : b, params_, threads);
        if (build_a) {
            Swapped<Sink> swapped{sink};
            tree_.query_batch(b, swapped, threads, &cross_buffers_);
        } else {
            tree_.query_batch(a, sink, threads, &cross_buffers_);
        }
    }

    /// A sink that receives (query, built) and passes on (built, query).
    template <class Sink>
    struct Swapped {
        Sink& sink;
        void operator()(std::uint32_t q, std::uint32_t i) { sink(i, q); }
        bool stopped() const { return sink.stopped(); }
        std::uint64_t budget_left() const { return sink.budget_left(); }
        void exceed() { sink.exceed(); }
    };

    void build_impl(const View& v) { built_.build(v, params_, this->threads_for(v.n)); }

    template <class Emit>
    void query_impl(const BasicBox<T, D>& q, Emit&& emit) const {
        built_.query(q, emit);
    }

    /// Batches run in spatial order (see AdaptiveGridCore::query_batch).
    template <class Sink>
    void query_batch_impl(const View& queries, Sink& sink, unsigned threads) const {
        built_.query_batch(queries, sink, threads);
    }

    Params params_;
    Tree tree_, built_;
    detail::TaskPairs cross_buffers_;  // two-set searches' per-task pairs, kept between frames
};

/// Adaptive grid over 3-D float boxes.
using AdaptiveGrid = BasicAdaptiveGrid<float, 3>;

// Compiled once in the library, src/adaptive_grid.cpp (detail/extern_templates.hpp).
#if BROADPHASE_EXTERN_TEMPLATES
BROADPHASE_COMPILED_TYPES(BROADPHASE_ALGORITHM_TEMPLATES, extern, BasicAdaptiveGrid)
#endif

}  // namespace broadphase
