// broadphase: every overlapping pair among axis-aligned boxes, exactly once.
//
// The front door. Include this one header:
//
//   broadphase::Boxes boxes;                  // struct of arrays
//   boxes.assign_rows(data, n);               // minx miny minz maxx maxy maxz per row
//   std::vector<broadphase::Pair> pairs;
//   broadphase::Report r = broadphase::find_pairs(boxes, pairs);
//
// find_pairs picks an algorithm from cheap statistics of the input (see
// choose_algorithm); Options::algorithm overrides it. A PairFinder kept
// between frames reuses its memory: after the first frame of a given size
// a rebuild allocates nothing. An Index answers box queries against a set.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "adaptive_grid.hpp"
#include "boxes.hpp"
#include "brute_force.hpp"
#include "cluster_pairs.hpp"
#include "hybrid_grid.hpp"
#include "options.hpp"
#include "pairs.hpp"
#include "simd.hpp"
#include "sweep_and_prune.hpp"
#include "uniform_grid.hpp"
#include "version.hpp"

namespace broadphase {

/// Picks the algorithm for one set from its size and a sample of it.
/// O(1) past a fixed-size sample; `scratch` is reused.
///
/// The rule, from measurements on this project's reference machine (see
/// docs/choosing.md):
/// - fewer than 192 boxes: brute force (no structure pays for its build);
/// - fewer than 4,096: sweep and prune (a sort and a sweep, no tuning);
/// - float boxes on a CPU with AVX2 or AVX-512, from 45,000 boxes, sizes
///   within 8x (99th percentile extent over the median on every axis),
///   spread evenly enough that the uniform grid's fill is at least 0.5,
///   and boxes filling 0.3% to 25% of the volume their centres span
///   (detail::volume_fraction: surfaces, not volumes, nor sparse clouds):
///   cluster pairs: triangle meshes at any size, scans, several meshes in
///   one list;
/// - box sizes alike (99th percentile extent within 4x the median on every
///   axis) and dense enough that the uniform grid's cells nearly fit the
///   boxes (its memory budget of 8 cells a box would not stretch them past
///   1/0.75 of the box extent, as guessed from the sample; from 2^19
///   boxes, where a grid larger than the caches costs more, 1/0.9, or 1/0.5
///   when the boxes are of one size, 99th percentile within 1.25x the
///   median: scans and particles pack the stretched cells evenly, triangle
///   meshes do not): the uniform grid: meshes, scans, piles, voxels, hair,
///   packed scenes;
/// - otherwise the hybrid grid: sparse scenes (its sweep skips the empty
///   space the uniform grid's stencil visits), meshes at 10^6 faces,
///   clustered scenes, mixed sizes (several meshes overlapping).
template <class T, int D>
Algorithm choose_algorithm(const BasicBoxesView<T, D>& boxes, detail::StatsScratch& scratch) {
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

/// Same, for BasicBoxes.
template <class T, int D>
Algorithm choose_algorithm(const BasicBoxes<T, D>& boxes, detail::StatsScratch& scratch) {
    return choose_algorithm(boxes.view(), scratch);
}

/// Same, with its own scratch memory (allocates).
template <class T, int D>
Algorithm choose_algorithm(const BasicBoxesView<T, D>& boxes) {
    detail::StatsScratch scratch;
    return choose_algorithm(boxes, scratch);
}

/// Same, for BasicBoxes, with its own scratch memory (allocates).
template <class T, int D>
Algorithm choose_algorithm(const BasicBoxes<T, D>& boxes) {
    return choose_algorithm(boxes.view());
}

/// The thread count Options::threads = 0 stands for: BROADPHASE_NUM_THREADS,
/// else OMP_NUM_THREADS, else all hardware threads; 1 in a build without
/// threads (BROADPHASE_THREADS undefined).
inline unsigned default_threads() { return detail::default_threads(); }

/// Picks the algorithm for a two-set query: brute force when either set is
/// tiny, the uniform grid (binning one set, querying with the other: the
/// set of wider boxes, or the larger set when sizes are alike; see
/// detail::bin_first_set) when both have 4,096 boxes or more, sweep and
/// prune between.
template <class T, int D>
Algorithm choose_algorithm(const BasicBoxesView<T, D>& a, const BasicBoxesView<T, D>& b) {
    const std::size_t small = std::min(a.size(), b.size());
    if (small < 16 || a.size() * b.size() < 16384) return Algorithm::brute_force;
    if (small >= 4096) return Algorithm::uniform_grid;
    return Algorithm::sweep_and_prune;
}

/// Same, for BasicBoxes.
template <class T, int D>
Algorithm choose_algorithm(const BasicBoxes<T, D>& a, const BasicBoxes<T, D>& b) {
    return choose_algorithm(a.view(), b.view());
}

namespace detail {

/// One of each algorithm over T, D boxes, and the one switch that picks
/// one: PairFinder and Index hold these. `automatic` is resolved before
/// (choose_algorithm; Index::build); here it means the hybrid grid.
template <class T, int D>
struct AlgorithmSet {
    // Declared here and defaulted below, out of the struct body (as the calls
    // that run an algorithm are), so that with the compiled library a file
    // that makes a PairFinder or an Index does not compile the five
    // algorithms' construction, copies and destruction.
    AlgorithmSet();
    ~AlgorithmSet();
    AlgorithmSet(const AlgorithmSet&);
    AlgorithmSet(AlgorithmSet&&) noexcept;
    AlgorithmSet& operator=(const AlgorithmSet&);
    AlgorithmSet& operator=(AlgorithmSet&&) noexcept;

    BasicBruteForce<T, D> brute_force;
    BasicSweepAndPrune<T, D> sweep_and_prune;
    BasicUniformGrid<T, D> uniform_grid;
    BasicHybridGrid<T, D> hybrid_grid;
    BasicAdaptiveGrid<T, D> adaptive_grid;
    BasicClusterPairs<T, D> cluster_pairs;

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

template <class T, int D>
AlgorithmSet<T, D>::AlgorithmSet() = default;
template <class T, int D>
AlgorithmSet<T, D>::~AlgorithmSet() = default;
template <class T, int D>
AlgorithmSet<T, D>::AlgorithmSet(const AlgorithmSet&) = default;
template <class T, int D>
AlgorithmSet<T, D>::AlgorithmSet(AlgorithmSet&&) noexcept = default;
template <class T, int D>
AlgorithmSet<T, D>& AlgorithmSet<T, D>::operator=(const AlgorithmSet&) = default;
template <class T, int D>
AlgorithmSet<T, D>& AlgorithmSet<T, D>::operator=(AlgorithmSet&&) noexcept = default;

}  // namespace detail

/// Finds pairs frame after frame, keeping every algorithm's memory between
/// calls. Not thread-safe: use one per thread.
///
/// Every call takes a BasicBoxesView: pass a BasicBoxes (it converts, zero
/// copy) or a view over your own arrays (BasicBoxesView::soa, zero copy;
/// BasicBoxesView::aos, gathered into reused memory each call).
template <class T, int D>
class BasicPairFinder {
public:
    using view_type = BasicBoxesView<T, D>;

    /// All pairs (a < b) within `boxes` into `out` (replaced). O(n) to O(n log n)
    /// plus the pairs for the grids and sweep; O(n^2) for brute force.
    Report find_pairs(view_type boxes, std::vector<Pair>& out, const Options& options = {});

    /// All pairs (index in a, index in b) between two sets into `out` (replaced).
    Report find_pairs(view_type a, view_type b, std::vector<Pair>& out, const Options& options = {});

    /// Streams pairs within `boxes` to f(a, b); f may return false to stop.
    /// Nothing is stored, so any number of pairs can pass through.
    /// Options::max_pairs applies; Options::sorted does not (nothing is kept).
    template <class F>
    Report for_each_pair(view_type boxes, F&& f, const Options& options = {}) {
        last_ = resolve(options.algorithm, boxes);
        return dispatch(last_, [&](auto& algo) { return algo.for_each_pair(boxes, f, options.max_pairs); });
    }

    /// Streams pairs between two sets to f(a_index, b_index), as above.
    template <class F>
    Report for_each_pair(view_type a, view_type b, F&& f, const Options& options = {}) {
        last_ = options.algorithm == Algorithm::automatic ? choose_algorithm(a, b) : options.algorithm;
        return dispatch(last_, [&](auto& algo) { return algo.for_each_pair(a, b, f, options.max_pairs); });
    }

    /// The algorithm the last call used.
    Algorithm last_algorithm() const { return last_; }

private:
    Algorithm resolve(Algorithm a, view_type boxes) {
        return a == Algorithm::automatic ? choose_algorithm(boxes, stats_scratch_) : a;
    }

    template <class F>
    Report dispatch(Algorithm a, F&& f) {
        return detail::AlgorithmSet<T, D>::visit(algorithms_, a, f);
    }

    Algorithm last_ = Algorithm::automatic;
    detail::StatsScratch stats_scratch_;
    detail::AlgorithmSet<T, D> algorithms_;
};


// Out of the class body, so not inline: where BROADPHASE_EXTERN_TEMPLATES
// declares the specialisation extern (the compiled library), a translation
// unit that calls them compiles a call, not the five algorithms behind it
// (measured: docs/measured-in-code.md#compile-times). Header-only, they are
// instantiated where used, as before.
template <class T, int D>
Report BasicPairFinder<T, D>::find_pairs(view_type boxes, std::vector<Pair>& out, const Options& options) {
    last_ = resolve(options.algorithm, boxes);
    return dispatch(last_, [&](auto& algo) { return algo.find_pairs(boxes, out, options); });
}

template <class T, int D>
Report BasicPairFinder<T, D>::find_pairs(view_type a, view_type b, std::vector<Pair>& out, const Options& options) {
    last_ = options.algorithm == Algorithm::automatic ? choose_algorithm(a, b) : options.algorithm;
    return dispatch(last_, [&](auto& algo) { return algo.find_pairs(a, b, out, options); });
}

using PairFinder = BasicPairFinder<float, 3>;

/// All pairs (a < b) within `boxes` into `out` (replaced). One-shot: keep a
/// PairFinder to reuse memory between frames.
template <class T, int D>
Report find_pairs(const BasicBoxesView<T, D>& boxes, std::vector<Pair>& out, const Options& options = {}) {
    BasicPairFinder<T, D> finder;
    return finder.find_pairs(boxes, out, options);
}

/// Same, for BasicBoxes.
template <class T, int D>
Report find_pairs(const BasicBoxes<T, D>& boxes, std::vector<Pair>& out, const Options& options = {}) {
    return find_pairs(boxes.view(), out, options);
}

/// All pairs (index in a, index in b) between two sets into `out` (replaced).
template <class T, int D>
Report find_pairs(const BasicBoxesView<T, D>& a, const BasicBoxesView<T, D>& b, std::vector<Pair>& out,
                  const Options& options = {}) {
    BasicPairFinder<T, D> finder;
    return finder.find_pairs(a, b, out, options);
}

/// Same, for BasicBoxes.
template <class T, int D>
Report find_pairs(const BasicBoxes<T, D>& a, const BasicBoxes<T, D>& b, std::vector<Pair>& out,
                  const Options& options = {}) {
    return find_pairs(a.view(), b.view(), out, options);
}

/// A built set that answers box queries: one box (the indices it overlaps)
/// or a batch (pairs of query index, built index). Const queries are safe to
/// run from many threads at once.
template <class T, int D>
class BasicIndex {
public:
    /// What build and the batch queries take: BasicBoxes converts to it
    /// implicitly; see BasicBoxesView for views over your own arrays.
    using view_type = BasicBoxesView<T, D>;

    /// Builds over `boxes` (copied). `automatic` picks brute force below 64
    /// boxes, else the uniform grid, whose queries visit only the cells the
    /// query box covers. O(n) build.
    Report build(view_type boxes, Algorithm algorithm = Algorithm::automatic) {
        Options options;
        options.algorithm = algorithm;
        return build(boxes, options);
    }

    /// As above, with options.algorithm and options.threads (the build's
    /// binning runs on that many threads; the other options do not apply).
    Report build(view_type boxes, const Options& options);

    /// Indices of the built boxes overlapping q into `out` (replaced); returns the count.
    std::size_t query(const BasicBox<T, D>& q, std::vector<std::uint32_t>& out) const;

    /// Calls f(index) for each built box overlapping the closed box q
    /// (touching counts; nothing for an invalid q), in no particular order;
    /// f returns bool (false stops) or void; false when f stopped it. The
    /// same query, callback and answer as the dynamic tree's and the
    /// Scene's for_each_overlap() (the query contract, docs/queries.md).
    template <class F>
    bool for_each_overlap(const BasicBox<T, D>& q, F&& f) const {
        return dispatch(*this, [&](const auto& a) { return a.for_each_overlap(q, f); });
    }

    /// Pairs (query index, built index) for every query box into `out`
    /// (replaced), on options.threads threads (same pairs, same order).
    Report query_batch(view_type queries, std::vector<Pair>& out, const Options& options = {}) const;

    /// Streams (query index, built index) pairs of a batch to f(q, i); f may
    /// return false to stop.
    template <class F>
    Report for_each_overlap_batch(view_type queries, F&& f) const {
        return dispatch(*this, [&](const auto& a) { return a.for_each_overlap_batch(queries, f); });
    }

    /// The algorithm the index was built with.
    Algorithm algorithm() const { return algo_; }

private:
    /// Calls f on the active algorithm (const or not, as self is).
    template <class Self, class F>
    static auto dispatch(Self& self, F&& f) {
        return detail::AlgorithmSet<T, D>::visit(self.algorithms_, self.algo_, f);
    }

    Algorithm algo_ = Algorithm::brute_force;
    detail::AlgorithmSet<T, D> algorithms_;
};


template <class T, int D>
Report BasicIndex<T, D>::build(view_type boxes, const Options& options) {
    algo_ = options.algorithm == Algorithm::automatic
                ? (boxes.size() < 64 ? Algorithm::brute_force : Algorithm::uniform_grid)
                : options.algorithm;
    return dispatch(*this, [&](auto& a) { return a.build(boxes, options); });
}

template <class T, int D>
std::size_t BasicIndex<T, D>::query(const BasicBox<T, D>& q, std::vector<std::uint32_t>& out) const {
    return dispatch(*this, [&](const auto& a) { return a.query(q, out); });
}

template <class T, int D>
Report BasicIndex<T, D>::query_batch(view_type queries, std::vector<Pair>& out, const Options& options) const {
    return dispatch(*this, [&](const auto& a) { return a.query_batch(queries, out, options); });
}

using Index = BasicIndex<float, 3>;

// Compiled once in the library, src/pair_finder.cpp (detail/extern_templates.hpp).
#define BROADPHASE_PAIR_FINDER_TEMPLATES(T, D, prefix) \
    prefix template struct detail::AlgorithmSet<T, D>; \
    prefix template class BasicPairFinder<T, D>; \
    prefix template class BasicIndex<T, D>;
#if BROADPHASE_EXTERN_TEMPLATES
BROADPHASE_COMPILED_TYPES(BROADPHASE_PAIR_FINDER_TEMPLATES, extern)
#endif

}  // namespace broadphase
