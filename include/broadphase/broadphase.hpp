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
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "boxes.hpp"
#include "options.hpp"
#include "pairs.hpp"
#include "version.hpp"

// The declarations; the bodies (the algorithms behind them) are in
// src/core/pair_finder_impl.hpp: compiled once in the library (src/core/pair_finder.cpp),
// or, header-only, included at the end of this file.

namespace broadphase {
namespace detail {
/// One of each algorithm over T, D boxes and the scratch of the automatic
/// choice: what a PairFinder or an Index holds, behind a pointer.
/// Defined with the bodies (src/core/pair_finder_impl.hpp).
template <class T, int D>
struct AlgorithmSet;
}  // namespace detail

/// Picks the algorithm for one set from its size and a sample of it.
/// O(1) past a fixed-size sample (allocates the sample's memory; a
/// PairFinder keeps it between calls).
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
Algorithm choose_algorithm(const BasicBoxesView<T, D>& boxes);

/// Same, for BasicBoxes, with its own scratch memory (allocates).
template <class T, int D>
Algorithm choose_algorithm(const BasicBoxes<T, D>& boxes) {
    return choose_algorithm(boxes.view());
}

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

    /// Allocates its algorithms (one allocation, their memory empty).
    BasicPairFinder();
    ~BasicPairFinder();
    BasicPairFinder(const BasicPairFinder&);
    /// The moved-from finder stays usable (it allocates again on its next call).
    BasicPairFinder(BasicPairFinder&&) noexcept;
    BasicPairFinder& operator=(const BasicPairFinder&);
    BasicPairFinder& operator=(BasicPairFinder&&) noexcept;

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
        return stream_pairs(boxes, pair_callback_ref(f), options);
    }

    /// Streams pairs between two sets to f(a_index, b_index), as above.
    template <class F>
    Report for_each_pair(view_type a, view_type b, F&& f, const Options& options = {}) {
        return stream_pairs(a, b, pair_callback_ref(f), options);
    }

    /// The algorithm the last call used.
    Algorithm last_algorithm() const { return last_; }

private:
    // What for_each_pair compiles to, whatever f's type: f erased (pairs
    // reach it in blocks, PairSink), the algorithm run out of line.
    Report stream_pairs(view_type boxes, PairCallbackRef f, const Options& options);
    Report stream_pairs(view_type a, view_type b, PairCallbackRef f, const Options& options);
    /// The algorithms, allocated again after a move; false (and r's status
    /// out_of_memory) when that failed.
    bool ready(Report& r);

    Algorithm last_ = Algorithm::automatic;
    std::unique_ptr<detail::AlgorithmSet<T, D>> algorithms_;
};

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

    /// Allocates its algorithms (one allocation, their memory empty).
    BasicIndex();
    ~BasicIndex();
    BasicIndex(const BasicIndex&);
    /// The moved-from index is empty (built again, it allocates again).
    BasicIndex(BasicIndex&&) noexcept;
    BasicIndex& operator=(const BasicIndex&);
    BasicIndex& operator=(BasicIndex&&) noexcept;

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
        return overlaps(q, hit_callback_ref(f));
    }

    /// Pairs (query index, built index) for every query box into `out`
    /// (replaced), on options.threads threads (same pairs, same order).
    Report query_batch(view_type queries, std::vector<Pair>& out, const Options& options = {}) const;

    /// Streams (query index, built index) pairs of a batch to f(q, i); f may
    /// return false to stop.
    template <class F>
    Report for_each_overlap_batch(view_type queries, F&& f) const {
        return stream_batch(queries, pair_callback_ref(f));
    }

    /// The algorithm the index was built with.
    Algorithm algorithm() const { return algo_; }

private:
    // What the callback calls compile to, whatever f's type (as PairFinder's).
    bool overlaps(const BasicBox<T, D>& q, HitCallbackRef f) const;
    Report stream_batch(view_type queries, PairCallbackRef f) const;
    /// The algorithms; an empty set after a move.
    const detail::AlgorithmSet<T, D>& set() const;

    Algorithm algo_ = Algorithm::brute_force;
    std::unique_ptr<detail::AlgorithmSet<T, D>> algorithms_;
};

using Index = BasicIndex<float, 3>;

// Compiled in the library, src/core/pair_finder.cpp, for float and double in 2-D and 3-D.

}  // namespace broadphase
