// The calls every algorithm class has, declared once with their contracts:
// BasicBruteForce, BasicSweepAndPrune, BasicClusterPairs, BasicAdaptiveGrid
// and the two grids (through GridFront, grid_front.hpp) derive from
// AlgorithmFront<T, D, Impl> and add their own settings. The front holds its
// algorithm (the Impl: the data structure and the search, in
// src/<component>/) behind a pointer, so a file that uses an algorithm reads
// this header and the algorithm's, not its bodies; the bodies are compiled
// once in the library (src/<component>/<algorithm>.cpp).
//
// The callback calls (for_each_pair, for_each_overlap, ...) erase the
// callback here and call one compiled member: pairs and hits reach the
// callback in blocks (PairCallbackRef, pairs.hpp), as PairFinder's do.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "boxes.hpp"
#include "options.hpp"
#include "pairs.hpp"

namespace broadphase {

/// The calls every algorithm class has (brute_force.hpp, ...): one-shot
/// pairs within a set and between two sets, a build, and box queries and
/// batches against it. Impl is the algorithm, held behind a pointer.
template <class T, int D, class Impl>
class AlgorithmFront {
public:
    using boxes_type = BasicBoxes<T, D>;
    /// What every call below takes: BasicBoxes converts to it implicitly
    /// (zero copy), and a view over the caller's own arrays needs no
    /// BasicBoxes at all (see BasicBoxesView for what each layout costs).
    using view_type = BasicBoxesView<T, D>;
    using box_type = BasicBox<T, D>;

    /// Allocates the algorithm (one allocation; its memory empty until the
    /// first call).
    AlgorithmFront();
    ~AlgorithmFront();
    /// Copies the algorithm with its built structure.
    AlgorithmFront(const AlgorithmFront&);
    /// The moved-from algorithm stays usable: empty, not built (it
    /// allocates again on its next call).
    AlgorithmFront(AlgorithmFront&&) noexcept;
    AlgorithmFront& operator=(const AlgorithmFront&);
    AlgorithmFront& operator=(AlgorithmFront&&) noexcept;

    /// All overlapping pairs (a < b) within `boxes`, replacing `out`'s
    /// contents. The cost is the algorithm's (its header says it).
    Report find_pairs(view_type boxes, std::vector<Pair>& out, const Options& options = {});

    /// Streams every pair within `boxes` to f(a, b) (return false to stop),
    /// at most max_pairs of them. Nothing is stored. Runs on the calling
    /// thread (f is never called concurrently).
    template <class F>
    Report for_each_pair(view_type boxes, F&& f, std::uint64_t max_pairs = no_budget) {
        return stream_self(boxes, pair_callback_ref(f), max_pairs);
    }

    /// All pairs (index in a, index in b) between two sets, replacing `out`.
    Report find_pairs(view_type a, view_type b, std::vector<Pair>& out, const Options& options = {});

    /// Streams every pair between two sets to f(a_index, b_index), at most
    /// max_pairs of them, on the calling thread.
    template <class F>
    Report for_each_pair(view_type a, view_type b, F&& f, std::uint64_t max_pairs = no_budget) {
        return stream_cross(a, b, pair_callback_ref(f), max_pairs);
    }

    /// Builds the structure over `boxes` for later queries; copies what it
    /// needs, so `boxes` may change afterwards. Reuses memory between builds.
    /// Uses options.threads (other options do not apply).
    Report build(view_type boxes, const Options& options = {});

    /// True after a successful build(). O(1).
    bool built() const;

    /// Indices of the built boxes overlapping q, replacing `out`. An invalid q
    /// overlaps nothing. Safe to call from many threads at once.
    std::size_t query(const box_type& q, std::vector<std::uint32_t>& out) const;

    /// Calls f(index) for every built box overlapping the closed box q
    /// (touching counts; nothing for an invalid q), in no particular order;
    /// f returns bool (false stops) or void. False when f stopped it. Safe
    /// to call from many threads at once.
    template <class F>
    bool for_each_overlap(const box_type& q, F&& f) const {
        return overlaps(q, hit_callback_ref(f));
    }

    /// Pairs (query index, built index) for a batch of query boxes, replacing
    /// `out`. Safe to call from many threads at once; each call may itself
    /// use options.threads threads.
    Report query_batch(view_type queries, std::vector<Pair>& out, const Options& options = {}) const;

    /// Streams (query index, built index) pairs of a batch to f, at most
    /// max_pairs of them, on the calling thread.
    template <class F>
    Report for_each_overlap_batch(view_type queries, F&& f, std::uint64_t max_pairs = no_budget) const {
        return stream_batch(queries, pair_callback_ref(f), max_pairs);
    }

protected:
    /// The algorithm, allocated again after a move; nullptr (and r's
    /// status out_of_memory) when that failed.
    Impl* ready(Report& r);
    /// The algorithm, allocated again after a move (throws std::bad_alloc
    /// when that fails; for the setters).
    Impl& impl();
    /// The algorithm; nullptr after a move, until the next non-const call.
    const Impl* impl_if_any() const { return impl_.get(); }

private:
    // What the callback calls above compile to, whatever f's type: the
    // algorithm runs once per class (not per lambda), f gets blocks of
    // pairs or hits.
    Report stream_self(view_type boxes, PairCallbackRef f, std::uint64_t max_pairs);
    Report stream_cross(view_type a, view_type b, PairCallbackRef f, std::uint64_t max_pairs);
    Report stream_batch(view_type queries, PairCallbackRef f, std::uint64_t max_pairs) const;
    bool overlaps(const box_type& q, HitCallbackRef f) const;

    std::unique_ptr<Impl> impl_;
};

}  // namespace broadphase
