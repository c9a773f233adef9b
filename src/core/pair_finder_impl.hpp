// The bodies of <broadphase/broadphase.hpp>: PairFinder, Index and
// choose_algorithm, with the algorithms behind them. Compiled once in the
// library (src/core/pair_finder.cpp) for the types BROADPHASE_COMPILED_TYPES
// lists; header-only, broadphase.hpp includes this file at its end. A file
// that uses other scalar types or dimensions with the compiled library
// (BasicPairFinder<float, 1>, say) includes it after broadphase.hpp, as the
// files that need the PairFinder for every T and D do
// (src/periodic/periodic_impl.hpp, the Scene's detail/scene/engines.hpp and
// static_set.hpp).
//
// It comes after broadphase.hpp and does not include it back: no file
// includes the file that includes it (detail/extern_templates.hpp).
#pragma once

#include <broadphase/broadphase.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include <broadphase/adaptive_grid.hpp>
#include <broadphase/brute_force.hpp>
#include <broadphase/cluster_pairs.hpp>
#include <broadphase/hybrid_grid.hpp>
#include <broadphase/simd.hpp>
#include <broadphase/sweep_and_prune.hpp>
#include <broadphase/uniform_grid.hpp>
#include "grid/adaptive_grid_impl.hpp"
#include "brute_force/brute_force_impl.hpp"
#include <broadphase/detail/buffers.hpp>
#include "cluster_pairs/cluster_pairs_impl.hpp"
#include "grid/hybrid_grid_impl.hpp"
#include "sweep_and_prune/sweep_and_prune_impl.hpp"
#include "grid/uniform_grid_impl.hpp"
#include "grid/uniform_grid_core.hpp"
#include "core/stats.hpp"

namespace broadphase {
namespace detail {

/// One of each algorithm over T, D boxes, and the one switch that picks
/// one: PairFinder and Index hold these. `automatic` is resolved before
/// (choose_algorithm; Index::build); here it means the hybrid grid.
template <class T, int D>
struct AlgorithmSet {
    // The algorithms themselves, not their fronts (BasicBruteForce, ...):
    // held here by value, they need no allocation of their own.
    BruteForceImpl<T, D> brute_force;
    SweepAndPruneImpl<T, D> sweep_and_prune;
    GridAlgorithmImpl<T, D, UniformGridPolicy> uniform_grid;
    GridAlgorithmImpl<T, D, HybridGridPolicy> hybrid_grid;
    AdaptiveGridImpl<T, D> adaptive_grid;
    ClusterPairsImpl<T, D> cluster_pairs;
    StatsScratch stats_scratch;  ///< PairFinder's automatic choice (choose_algorithm)

    /// f(the algorithm a names), const or not as `set` is. O(1).
    template <class Set, class F>
    static auto visit(Set& set, Algorithm a, F&& f) {
        switch (a) {
            case Algorithm::brute_force: return f(set.brute_force);
            case Algorithm::sweep_and_prune: return f(set.sweep_and_prune);
            case Algorithm::uniform_grid: return f(set.uniform_grid);
            case Algorithm::adaptive_grid: return f(set.adaptive_grid);
            case Algorithm::cluster_pairs: return f(set.cluster_pairs);
            case Algorithm::hybrid_grid:
            case Algorithm::automatic: break;
        }
        return f(set.hybrid_grid);
    }
};

}  // namespace detail

namespace detail {

/// choose_algorithm with the sample's memory kept by the caller (PairFinder):
/// the rule is written beside the public call's declaration (broadphase.hpp).
template <class T, int D>
Algorithm choose_algorithm(const BasicBoxesView<T, D>& boxes, StatsScratch& scratch) {
    const std::size_t n = boxes.size();
    if (n < 192) return Algorithm::brute_force;
    if (n < 4096) return Algorithm::sweep_and_prune;
    const detail::SceneStats<D> s = detail::scene_stats(boxes, scratch);
    bool alike = true, one_size = true, within_8x = true;
    for (int k = 0; k < D; ++k) {
        alike = alike && s.extent_p99[k] <= 4 * s.extent_median[k];
        one_size = one_size && s.extent_p99[k] <= 1.25 * s.extent_median[k];
        within_8x = within_8x && s.extent_p99[k] <= 8 * s.extent_median[k];
    }
    const double fill = detail::UniformGridCore<T, D>::estimated_plan(s).fill();
    if (std::is_same_v<T, float> && n >= 45000 && within_8x && fill >= 0.5 && simd_level() >= SimdLevel::avx2) {
        const double solid = detail::volume_fraction(s);
        if (solid >= 0.003 && solid <= 0.25) return Algorithm::cluster_pairs;
    }
    const double dense = n < (std::size_t(1) << 19) ? 0.75 : one_size ? 0.5 : 0.9;
    if (alike && fill >= dense) return Algorithm::uniform_grid;
    return Algorithm::hybrid_grid;
}

}  // namespace detail

template <class T, int D>
Algorithm choose_algorithm(const BasicBoxesView<T, D>& boxes) {
    detail::StatsScratch scratch;
    return detail::choose_algorithm(boxes, scratch);
}

// --- BasicPairFinder ---------------------------------------------------------

template <class T, int D>
BasicPairFinder<T, D>::BasicPairFinder() : algorithms_(std::make_unique<detail::AlgorithmSet<T, D>>()) {}

template <class T, int D>
BasicPairFinder<T, D>::~BasicPairFinder() = default;

template <class T, int D>
BasicPairFinder<T, D>::BasicPairFinder(const BasicPairFinder& other)
    : last_(other.last_),
      algorithms_(other.algorithms_ ? std::make_unique<detail::AlgorithmSet<T, D>>(*other.algorithms_)
                                    : std::make_unique<detail::AlgorithmSet<T, D>>()) {}

template <class T, int D>
BasicPairFinder<T, D>::BasicPairFinder(BasicPairFinder&&) noexcept = default;

template <class T, int D>
BasicPairFinder<T, D>& BasicPairFinder<T, D>::operator=(const BasicPairFinder& other) {
    if (this == &other) return *this;
    if (!other.algorithms_)
        algorithms_ = std::make_unique<detail::AlgorithmSet<T, D>>();
    else if (algorithms_)
        *algorithms_ = *other.algorithms_;  // reuses this finder's memory
    else
        algorithms_ = std::make_unique<detail::AlgorithmSet<T, D>>(*other.algorithms_);
    last_ = other.last_;
    return *this;
}

template <class T, int D>
BasicPairFinder<T, D>& BasicPairFinder<T, D>::operator=(BasicPairFinder&&) noexcept = default;

template <class T, int D>
bool BasicPairFinder<T, D>::ready(Report& r) {
    return algorithms_ || detail::guarded(r, [&] { algorithms_ = std::make_unique<detail::AlgorithmSet<T, D>>(); });
}

template <class T, int D>
Report BasicPairFinder<T, D>::find_pairs(view_type boxes, std::vector<Pair>& out, const Options& options) {
    Report r;
    if (!ready(r)) return out.clear(), r;
    auto& set = *algorithms_;
    last_ = options.algorithm == Algorithm::automatic ? detail::choose_algorithm(boxes, set.stats_scratch) : options.algorithm;
    return set.visit(set, last_, [&](auto& algo) { return algo.find_pairs(boxes, out, options); });
}

template <class T, int D>
Report BasicPairFinder<T, D>::find_pairs(view_type a, view_type b, std::vector<Pair>& out, const Options& options) {
    Report r;
    if (!ready(r)) return out.clear(), r;
    auto& set = *algorithms_;
    last_ = options.algorithm == Algorithm::automatic ? choose_algorithm(a, b) : options.algorithm;
    return set.visit(set, last_, [&](auto& algo) { return algo.find_pairs(a, b, out, options); });
}

template <class T, int D>
Report BasicPairFinder<T, D>::stream_pairs(view_type boxes, PairCallbackRef f, const Options& options) {
    Report r;
    if (!ready(r)) return r;
    auto& set = *algorithms_;
    last_ = options.algorithm == Algorithm::automatic ? detail::choose_algorithm(boxes, set.stats_scratch) : options.algorithm;
    return set.visit(set, last_, [&](auto& algo) { return algo.stream_self(boxes, f, options.max_pairs); });
}

template <class T, int D>
Report BasicPairFinder<T, D>::stream_pairs(view_type a, view_type b, PairCallbackRef f,
                                           const Options& options) {
    Report r;
    if (!ready(r)) return r;
    auto& set = *algorithms_;
    last_ = options.algorithm == Algorithm::automatic ? choose_algorithm(a, b) : options.algorithm;
    return set.visit(set, last_, [&](auto& algo) { return algo.stream_cross(a, b, f, options.max_pairs); });
}

// --- BasicIndex --------------------------------------------------------------

template <class T, int D>
BasicIndex<T, D>::BasicIndex() : algorithms_(std::make_unique<detail::AlgorithmSet<T, D>>()) {}

template <class T, int D>
BasicIndex<T, D>::~BasicIndex() = default;

template <class T, int D>
BasicIndex<T, D>::BasicIndex(const BasicIndex& other)
    : algo_(other.algo_), algorithms_(std::make_unique<detail::AlgorithmSet<T, D>>(other.set())) {}

template <class T, int D>
BasicIndex<T, D>::BasicIndex(BasicIndex&& other) noexcept
    : algo_(other.algo_), algorithms_(std::move(other.algorithms_)) {
    other.algo_ = Algorithm::brute_force;
}

template <class T, int D>
BasicIndex<T, D>& BasicIndex<T, D>::operator=(const BasicIndex& other) {
    if (this == &other) return *this;
    if (algorithms_)
        *algorithms_ = other.set();  // reuses this index's memory
    else
        algorithms_ = std::make_unique<detail::AlgorithmSet<T, D>>(other.set());
    algo_ = other.algo_;
    return *this;
}

template <class T, int D>
BasicIndex<T, D>& BasicIndex<T, D>::operator=(BasicIndex&& other) noexcept {
    if (this == &other) return *this;
    algorithms_ = std::move(other.algorithms_);
    algo_ = other.algo_;
    other.algo_ = Algorithm::brute_force;
    return *this;
}

template <class T, int D>
const detail::AlgorithmSet<T, D>& BasicIndex<T, D>::set() const {
    if (algorithms_) return *algorithms_;
    static const detail::AlgorithmSet<T, D> empty{};  // never built: every query finds nothing
    return empty;
}

template <class T, int D>
Report BasicIndex<T, D>::build(view_type boxes, const Options& options) {
    Report r;
    if (!algorithms_ && !detail::guarded(r, [&] { algorithms_ = std::make_unique<detail::AlgorithmSet<T, D>>(); }))
        return r;
    algo_ = options.algorithm == Algorithm::automatic
                ? (boxes.size() < 64 ? Algorithm::brute_force : Algorithm::uniform_grid)
                : options.algorithm;
    auto& set = *algorithms_;
    return set.visit(set, algo_, [&](auto& a) { return a.build(boxes, options); });
}

template <class T, int D>
std::size_t BasicIndex<T, D>::query(const BasicBox<T, D>& q, std::vector<std::uint32_t>& out) const {
    const auto& s = set();
    return s.visit(s, algo_, [&](const auto& a) { return a.query(q, out); });
}

template <class T, int D>
Report BasicIndex<T, D>::query_batch(view_type queries, std::vector<Pair>& out, const Options& options) const {
    const auto& s = set();
    return s.visit(s, algo_, [&](const auto& a) { return a.query_batch(queries, out, options); });
}

template <class T, int D>
bool BasicIndex<T, D>::overlaps(const BasicBox<T, D>& q, HitCallbackRef f) const {
    const auto& s = set();
    return s.visit(s, algo_, [&](const auto& a) { return a.overlaps(q, f); });
}

template <class T, int D>
Report BasicIndex<T, D>::stream_batch(view_type queries, PairCallbackRef f) const {
    const auto& s = set();
    return s.visit(s, algo_, [&](const auto& a) { return a.stream_batch(queries, f, no_budget); });
}

}  // namespace broadphase

// Compiled once, in core/pair_finder.cpp, for float and double in 2-D and 3-D; the
// library's other files use those. (The single header leaves out every
// `extern template` line: there each file compiles what it uses.)
namespace broadphase {
extern template Algorithm detail::choose_algorithm(const BasicBoxesView<float, 2>&, detail::StatsScratch&);
extern template Algorithm choose_algorithm(const BasicBoxesView<float, 2>&);
extern template class BasicPairFinder<float, 2>;
extern template class BasicIndex<float, 2>;
extern template Algorithm detail::choose_algorithm(const BasicBoxesView<float, 3>&, detail::StatsScratch&);
extern template Algorithm choose_algorithm(const BasicBoxesView<float, 3>&);
extern template class BasicPairFinder<float, 3>;
extern template class BasicIndex<float, 3>;
extern template Algorithm detail::choose_algorithm(const BasicBoxesView<double, 2>&, detail::StatsScratch&);
extern template Algorithm choose_algorithm(const BasicBoxesView<double, 2>&);
extern template class BasicPairFinder<double, 2>;
extern template class BasicIndex<double, 2>;
extern template Algorithm detail::choose_algorithm(const BasicBoxesView<double, 3>&, detail::StatsScratch&);
extern template Algorithm choose_algorithm(const BasicBoxesView<double, 3>&);
extern template class BasicPairFinder<double, 3>;
extern template class BasicIndex<double, 3>;
}  // namespace broadphase
