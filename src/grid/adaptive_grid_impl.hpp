// The body of <broadphase/adaptive_grid.hpp>. Compiled once in the library
// (src/grid/adaptive_grid.cpp); the single header (single_include/) holds it too. A file that uses other scalar types or dimensions with the compiled library (BasicAdaptiveGrid<float, 1>) includes it (src/ on its include path).
#pragma once

#include <broadphase/adaptive_grid.hpp>

#include <cstdint>
#include <string>

#include "grid/adaptive_grid_core_build.hpp"
#include "grid/adaptive_grid_core_queries.hpp"
#include "core/algorithm_base.hpp"
#include "core/algorithm_front_impl.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
class AdaptiveGridImpl : public AlgorithmBase<AdaptiveGridImpl<T, D>, T, D> {
    friend class AlgorithmBase<AdaptiveGridImpl<T, D>, T, D>;
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
        tree_.build(v, params_, threads, this->min_boxes_per_thread());
        tree_.self_pairs(sink, threads);
    }

    /// Two sets: build over the larger, query it with the smaller as one
    /// batch (Morton order, see AdaptiveGridCore::query_batch).
    template <class Sink>
    void cross_impl(const View& a, const View& b, Sink& sink) {
        if (a.n == 0 || b.n == 0) return;
        const bool build_a = a.n >= b.n;
        const unsigned threads = this->threads_for(a.n + b.n);
        tree_.build(build_a ? a : b, params_, threads, this->min_boxes_per_thread());
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

    void build_impl(const View& v) {
        built_.build(v, params_, this->threads_for(v.n), this->min_boxes_per_thread());
    }

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

}  // namespace detail

template <class T, int D>
void BasicAdaptiveGrid<T, D>::set_params(const Params& p) {
    this->impl().set_params(p);
}

template <class T, int D>
const typename BasicAdaptiveGrid<T, D>::Params& BasicAdaptiveGrid<T, D>::params() const {
    static const Params defaults;  // after a move
    const auto* a = this->impl_if_any();
    return a ? a->params() : defaults;
}

template <class T, int D>
const detail::AdaptiveGridCore<T, D>& BasicAdaptiveGrid<T, D>::built_tree() const {
    static const detail::AdaptiveGridCore<T, D> empty;  // after a move
    const auto* a = this->impl_if_any();
    return a ? a->built_tree() : empty;
}

template <class T, int D>
const detail::AdaptiveGridCore<T, D>& BasicAdaptiveGrid<T, D>::last_tree() const {
    static const detail::AdaptiveGridCore<T, D> empty;
    const auto* a = this->impl_if_any();
    return a ? a->last_tree() : empty;
}

namespace detail {

/// The trees of an adaptive grid, for the tests (tests/core/adaptive_grid_test.cpp):
/// the tree of the last build() and of the last pair search.
struct AdaptiveGridInspect {
    template <class T, int D>
    static const AdaptiveGridCore<T, D>& built_tree(const BasicAdaptiveGrid<T, D>& g) {
        return g.built_tree();
    }
    template <class T, int D>
    static const AdaptiveGridCore<T, D>& last_tree(const BasicAdaptiveGrid<T, D>& g) {
        return g.last_tree();
    }
};

}  // namespace detail

}  // namespace broadphase

// Compiled once, in grid/adaptive_grid.cpp, for float and double in 2-D and 3-D; the
// library's other files use those. (The single header leaves out every
// `extern template` line: there each file compiles what it uses.)
namespace broadphase {
extern template class detail::AlgorithmBase<detail::AdaptiveGridImpl<float, 2>, float, 2>;
extern template class detail::AdaptiveGridImpl<float, 2>;
extern template class BasicAdaptiveGrid<float, 2>;
extern template class detail::AlgorithmBase<detail::AdaptiveGridImpl<float, 3>, float, 3>;
extern template class detail::AdaptiveGridImpl<float, 3>;
extern template class BasicAdaptiveGrid<float, 3>;
extern template class detail::AlgorithmBase<detail::AdaptiveGridImpl<double, 2>, double, 2>;
extern template class detail::AdaptiveGridImpl<double, 2>;
extern template class BasicAdaptiveGrid<double, 2>;
extern template class detail::AlgorithmBase<detail::AdaptiveGridImpl<double, 3>, double, 3>;
extern template class detail::AdaptiveGridImpl<double, 3>;
extern template class BasicAdaptiveGrid<double, 3>;
}  // namespace broadphase
