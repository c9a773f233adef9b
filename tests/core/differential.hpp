// The differential harness, written once and used by every core test.
//
// An "ops" object wraps one way of calling the library (an algorithm class,
// the find_pairs front door, an Index) behind the same method names:
//   self, self_stream, cross, cross_stream                 (pair finders)
//   build, query, for_each_overlap, query_batch, batch_stream  (indexes)
// The check_* templates run one query several ways (plain, sorted, twice for
// determinism, streamed) and compare the full pair sets with the scalar
// reference of reference.hpp and with the library's BruteForce. They put the
// ops object behind a virtual interface (BasicPairSubject / BasicIndexSubject)
// first, so that their long bodies are compiled once per scalar type and
// dimension, not once per way of calling the library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <broadphase/adaptive_grid.hpp>
#include <broadphase/broadphase.hpp>
#include <broadphase/brute_force.hpp>  // the library's reference the checks compare with
#include <broadphase/cluster_pairs.hpp>
#include <broadphase/hybrid_grid.hpp>
#include <broadphase/sweep_and_prune.hpp>
#include <broadphase/uniform_grid.hpp>

#include "reference.hpp"

namespace bptest {

using broadphase::Algorithm;
using broadphase::Options;
using broadphase::Report;
using broadphase::Status;

using PairCallback = std::function<bool(std::uint32_t, std::uint32_t)>;
using HitCallback = std::function<void(std::uint32_t)>;

/// What the expected pairs come from: the scalar reference (small inputs),
/// or the library's BruteForce (large inputs; itself checked elsewhere).
enum class Oracle { scalar, brute_force };

// ---------------------------------------------------------------------------
// Comparing results

std::string pair_string(Pair p);
std::string status_string(Status s);
std::string index_list(const std::vector<std::uint32_t>& v, std::size_t limit = 20);

/// got and want as sets: no duplicate in got, nothing missing, nothing extra.
/// Prints counts and the first few differences, never whole vectors.
::testing::AssertionResult same_pair_set(std::vector<Pair> got, std::vector<Pair> want);
/// got has no duplicates and holds only pairs of want (an incomplete result).
::testing::AssertionResult subset_of_pairs(std::vector<Pair> got, std::vector<Pair> want);
/// Exactly the same vector, order included.
::testing::AssertionResult identical_pairs(const std::vector<Pair>& first, const std::vector<Pair>& second);
::testing::AssertionResult sorted_pairs(const std::vector<Pair>& v);
/// Within one set: a < b < n for every pair.
::testing::AssertionResult well_formed_self(const std::vector<Pair>& v, std::size_t n);
/// Between sets: a < na, b < nb for every pair.
::testing::AssertionResult well_formed_cross(const std::vector<Pair>& v, std::size_t na, std::size_t nb);
/// Indices as a set: no duplicates, equal to want (increasing).
::testing::AssertionResult same_index_set(std::vector<std::uint32_t> got, const std::vector<std::uint32_t>& want);

/// A junk pair put into output vectors before a call, to check they are replaced.
inline Pair junk_pair() { return Pair{0xDEADu, 0xBEEFu}; }

// ---------------------------------------------------------------------------
// Oracles

/// Up to this many box tests, every scalar-reference check also runs the
/// library's BruteForce against the reference.
constexpr std::size_t kOracleCrossCheckLimit = 1000000;

/// The pairs one call should give. Oracle::scalar: the scalar reference,
/// reference(), compared with the library's BruteForce, brute(out, options),
/// when `cross_check` (on big inputs that is left to the brute_force
/// subjects, which are compared with the same reference in the same tests);
/// otherwise BruteForce's sorted answer alone. `what` names the input.
template <class Reference, class Brute>
std::vector<Pair> expected_pairs(Oracle oracle, Reference&& reference, Brute&& brute, bool cross_check,
                                 const std::string& what) {
    if (oracle == Oracle::scalar) {
        std::vector<Pair> ref = reference();
        if (!cross_check) return ref;
        std::vector<Pair> lib;
        brute(lib, Options{});
        EXPECT_TRUE(same_pair_set(lib, ref)) << "library BruteForce (" << what << ") differs from the scalar reference";
        return ref;
    }
    std::vector<Pair> lib;
    Options o;
    o.sorted = true;
    const Report r = brute(lib, o);
    EXPECT_EQ(r.status, Status::ok);
    return lib;
}

template <class T, int D>
std::vector<Pair> expected_self(const broadphase::BasicBoxes<T, D>& boxes, Oracle oracle) {
    broadphase::BasicBruteForce<T, D> brute;
    return expected_pairs(
        oracle, [&] { return ref_self(boxes); },
        [&](std::vector<Pair>& out, const Options& o) { return brute.find_pairs(boxes, out, o); },
        boxes.size() * boxes.size() <= 2 * kOracleCrossCheckLimit, "self pairs, n=" + std::to_string(boxes.size()));
}

template <class T, int D>
std::vector<Pair> expected_cross(const broadphase::BasicBoxes<T, D>& a, const broadphase::BasicBoxes<T, D>& b,
                                 Oracle oracle) {
    broadphase::BasicBruteForce<T, D> brute;
    return expected_pairs(
        oracle, [&] { return ref_cross(a, b); },
        [&](std::vector<Pair>& out, const Options& o) { return brute.find_pairs(a, b, out, o); },
        a.size() * b.size() <= kOracleCrossCheckLimit,
        "two sets, " + std::to_string(a.size()) + " x " + std::to_string(b.size()));
}

// ---------------------------------------------------------------------------
// Subjects: any ops object behind a virtual interface

template <class T, int D>
class BasicPairSubject {
public:
    using boxes_type = broadphase::BasicBoxes<T, D>;
    virtual ~BasicPairSubject() = default;
    virtual Report self(const boxes_type& b, std::vector<Pair>& out, const Options& o) = 0;
    virtual Report self_stream(const boxes_type& b, const PairCallback& f) = 0;
    virtual Report cross(const boxes_type& a, const boxes_type& b, std::vector<Pair>& out, const Options& o) = 0;
    virtual Report cross_stream(const boxes_type& a, const boxes_type& b, const PairCallback& f) = 0;
};

template <class T, int D>
class BasicIndexSubject {
public:
    using boxes_type = broadphase::BasicBoxes<T, D>;
    using box_type = broadphase::BasicBox<T, D>;
    virtual ~BasicIndexSubject() = default;
    virtual Report build(const boxes_type& b) = 0;
    virtual std::size_t query(const box_type& q, std::vector<std::uint32_t>& out) const = 0;
    virtual void for_each_overlap(const box_type& q, const HitCallback& f) const = 0;
    virtual Report query_batch(const boxes_type& q, std::vector<Pair>& out, const Options& o) const = 0;
    virtual Report batch_stream(const boxes_type& q, const PairCallback& f) const = 0;
};

/// A pair-finding ops object as a subject: held by value (Hold = Ops) or by
/// reference (Hold = Ops&).
template <class Hold, class T, int D>
class PairAdapter final : public BasicPairSubject<T, D> {
public:
    using boxes_type = broadphase::BasicBoxes<T, D>;
    explicit PairAdapter(Hold ops) : ops_(std::forward<Hold>(ops)) {}
    Report self(const boxes_type& b, std::vector<Pair>& out, const Options& o) override { return ops_.self(b, out, o); }
    Report self_stream(const boxes_type& b, const PairCallback& f) override { return ops_.self_stream(b, f); }
    Report cross(const boxes_type& a, const boxes_type& b, std::vector<Pair>& out, const Options& o) override {
        return ops_.cross(a, b, out, o);
    }
    Report cross_stream(const boxes_type& a, const boxes_type& b, const PairCallback& f) override {
        return ops_.cross_stream(a, b, f);
    }

private:
    Hold ops_;
};

/// An index ops object as a subject, by value or by reference.
template <class Hold, class T, int D>
class IndexAdapter final : public BasicIndexSubject<T, D> {
public:
    using boxes_type = broadphase::BasicBoxes<T, D>;
    using box_type = broadphase::BasicBox<T, D>;
    explicit IndexAdapter(Hold ops) : ops_(std::forward<Hold>(ops)) {}
    Report build(const boxes_type& b) override { return ops_.build(b); }
    std::size_t query(const box_type& q, std::vector<std::uint32_t>& out) const override {
        return ops_.query(q, out);
    }
    void for_each_overlap(const box_type& q, const HitCallback& f) const override { ops_.for_each_overlap(q, f); }
    Report query_batch(const boxes_type& q, std::vector<Pair>& out, const Options& o) const override {
        return ops_.query_batch(q, out, o);
    }
    Report batch_stream(const boxes_type& q, const PairCallback& f) const override { return ops_.batch_stream(q, f); }

private:
    Hold ops_;
};

/// Calls f(subject): ops itself where it is a Subject already, else ops
/// behind a reference Adapter.
template <class Subject, class Adapter, class Ops, class F>
void as_subject(Ops& ops, F&& f) {
    if constexpr (std::is_base_of_v<Subject, Ops>) {
        f(static_cast<Subject&>(ops));
    } else {
        Adapter subject(ops);
        f(static_cast<Subject&>(subject));
    }
}

template <class T, int D, class Ops, class F>
void as_pair_subject(Ops& ops, F&& f) {
    as_subject<BasicPairSubject<T, D>, PairAdapter<Ops&, T, D>>(ops, f);
}

template <class T, int D, class Ops, class F>
void as_index_subject(Ops& ops, F&& f) {
    as_subject<BasicIndexSubject<T, D>, IndexAdapter<Ops&, T, D>>(ops, f);
}

// ---------------------------------------------------------------------------
// Checks

// The bodies, one per scalar type and dimension (namespace detail), then the
// entry points for any ops object.

namespace detail {

/// The checks every way of producing pairs gets, whatever it pairs (one set,
/// two sets, an index's batch): find(out, options) plain (status, count,
/// invalid lists, well_formed(pairs), the expected set), again (the same
/// pairs in the same order), with Options::sorted, and stream(callback) (the
/// same set through a callback). `what` names the call in failures.
template <class Find, class Stream, class WellFormed>
void check_pair_outputs(const std::string& what, Find&& find, Stream&& stream, WellFormed&& well_formed,
                        const std::vector<Pair>& want, const std::vector<std::uint32_t>& inv_a,
                        const std::vector<std::uint32_t>& inv_b) {
    std::vector<Pair> first{junk_pair()};
    const Report r = find(first, Options{});
    EXPECT_EQ(r.status, Status::ok) << what << ": " << status_string(r.status);
    EXPECT_EQ(r.pairs, first.size()) << what;
    EXPECT_EQ(r.invalid_a, inv_a) << what << " invalid_a: " << index_list(r.invalid_a) << " want " << index_list(inv_a);
    EXPECT_EQ(r.invalid_b, inv_b) << what << " invalid_b: " << index_list(r.invalid_b) << " want " << index_list(inv_b);
    EXPECT_TRUE(well_formed(first)) << what;
    EXPECT_TRUE(same_pair_set(first, want)) << what;

    std::vector<Pair> second{junk_pair()};
    find(second, Options{});
    EXPECT_TRUE(identical_pairs(first, second)) << what << ", second identical call";

    Options sorted;
    sorted.sorted = true;
    std::vector<Pair> in_order{junk_pair()};
    const Report rs = find(in_order, sorted);
    EXPECT_EQ(rs.status, Status::ok) << what << " with Options::sorted: " << status_string(rs.status);
    EXPECT_EQ(rs.pairs, in_order.size()) << what << " with Options::sorted";
    EXPECT_TRUE(sorted_pairs(in_order)) << what << " with Options::sorted";
    EXPECT_TRUE(same_pair_set(in_order, want)) << what << " with Options::sorted";

    std::vector<Pair> streamed;
    const Report rc = stream(PairCallback([&](std::uint32_t x, std::uint32_t y) {
        streamed.push_back(Pair{x, y});
        return true;
    }));
    EXPECT_EQ(rc.status, Status::ok) << what << " streamed: " << status_string(rc.status);
    EXPECT_EQ(rc.pairs, streamed.size()) << what << " streamed";
    EXPECT_EQ(rc.invalid_a, inv_a) << what << " streamed";
    EXPECT_EQ(rc.invalid_b, inv_b) << what << " streamed";
    EXPECT_TRUE(well_formed(streamed)) << what << " streamed";
    EXPECT_TRUE(same_pair_set(streamed, want)) << what << " streamed";
}

template <class T, int D>
void check_self(BasicPairSubject<T, D>& ops, const broadphase::BasicBoxes<T, D>& boxes, Oracle oracle) {
    SCOPED_TRACE("self pairs of " + std::to_string(boxes.size()) + " boxes");
    check_pair_outputs(
        "find_pairs (one set)", [&](std::vector<Pair>& out, const Options& o) { return ops.self(boxes, out, o); },
        [&](const PairCallback& f) { return ops.self_stream(boxes, f); },
        [&](const std::vector<Pair>& v) { return well_formed_self(v, boxes.size()); }, expected_self(boxes, oracle),
        ref_invalid(boxes), {});
}

template <class T, int D>
void check_cross(BasicPairSubject<T, D>& ops, const broadphase::BasicBoxes<T, D>& a,
                 const broadphase::BasicBoxes<T, D>& b, Oracle oracle) {
    SCOPED_TRACE("pairs between " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " boxes" +
                 (&a == &b ? " (same object)" : ""));
    check_pair_outputs(
        "find_pairs (two sets)", [&](std::vector<Pair>& out, const Options& o) { return ops.cross(a, b, out, o); },
        [&](const PairCallback& f) { return ops.cross_stream(a, b, f); },
        [&](const std::vector<Pair>& v) { return well_formed_cross(v, a.size(), b.size()); },
        expected_cross(a, b, oracle), ref_invalid(a), ref_invalid(b));
}

template <class T, int D>
void check_index(BasicIndexSubject<T, D>& ops, const broadphase::BasicBoxes<T, D>& built,
                 const broadphase::BasicBoxes<T, D>& queries, Oracle oracle, std::size_t max_single) {
    SCOPED_TRACE("index over " + std::to_string(built.size()) + " boxes, " + std::to_string(queries.size()) +
                 " query boxes");
    const Report rb = ops.build(built);
    EXPECT_EQ(rb.status, Status::ok) << status_string(rb.status);
    const std::vector<std::uint32_t> inv_built = ref_invalid(built);
    EXPECT_EQ(rb.invalid_a, inv_built) << "build invalid_a: " << index_list(rb.invalid_a) << " want "
                                       << index_list(inv_built);
    EXPECT_TRUE(rb.invalid_b.empty());

    // Single-box queries, against the scalar reference always.
    const auto ref_built = ref_boxes(built);
    const std::size_t nq = queries.size();
    const std::size_t step = nq <= max_single ? 1 : (nq + max_single - 1) / max_single;
    for (std::size_t i = 0; i < nq; i += step) {
        const broadphase::BasicBox<T, D> q = queries[i];
        const std::vector<std::uint32_t> want = ref_query(ref_built, q);
        std::vector<std::uint32_t> got{0xFFFFu};
        const std::size_t count = ops.query(q, got);
        EXPECT_EQ(count, got.size()) << "query(box " << i << ") return value";
        std::vector<std::uint32_t> hits;
        ops.for_each_overlap(q, [&](std::uint32_t j) { hits.push_back(j); });
        const ::testing::AssertionResult by_query = same_index_set(got, want);
        const ::testing::AssertionResult by_hits = same_index_set(hits, want);
        EXPECT_TRUE(by_query) << "query(box " << i << ")";
        EXPECT_TRUE(by_hits) << "for_each_overlap(box " << i << ")";
        if (!by_query || !by_hits) break;  // keep the log short: one failing box is enough
    }

    // The batch (invalid built boxes were reported by the build).
    check_pair_outputs(
        "query_batch", [&](std::vector<Pair>& out, const Options& o) { return ops.query_batch(queries, out, o); },
        [&](const PairCallback& f) { return ops.batch_stream(queries, f); },
        [&](const std::vector<Pair>& v) { return well_formed_cross(v, queries.size(), built.size()); },
        expected_cross(queries, built, oracle), ref_invalid(queries), {});
}

}  // namespace detail

/// Self pairs of `boxes`: plain, again (same order), sorted, streamed.
template <class Ops, class T, int D>
void check_self(Ops& ops, const broadphase::BasicBoxes<T, D>& boxes, Oracle oracle = Oracle::scalar) {
    as_pair_subject<T, D>(ops, [&](BasicPairSubject<T, D>& s) { detail::check_self(s, boxes, oracle); });
}

/// Pairs between a and b: plain, again (same order), sorted, streamed.
template <class Ops, class T, int D>
void check_cross(Ops& ops, const broadphase::BasicBoxes<T, D>& a, const broadphase::BasicBoxes<T, D>& b,
                 Oracle oracle = Oracle::scalar) {
    as_pair_subject<T, D>(ops, [&](BasicPairSubject<T, D>& s) { detail::check_cross(s, a, b, oracle); });
}

/// Self pairs of a and b, pairs a x b, b x a, and a x a (the same object twice).
template <class Ops, class T, int D>
void check_pairs(Ops& ops, const broadphase::BasicBoxes<T, D>& a, const broadphase::BasicBoxes<T, D>& b,
                 Oracle oracle = Oracle::scalar) {
    as_pair_subject<T, D>(ops, [&](BasicPairSubject<T, D>& s) {
        detail::check_self(s, a, oracle);
        detail::check_self(s, b, oracle);
        detail::check_cross(s, a, b, oracle);
        detail::check_cross(s, b, a, oracle);
        detail::check_cross(s, a, a, oracle);
    });
}

/// Builds over `built`, then single queries (query and for_each_overlap) with up
/// to `max_single` of the query boxes, then the whole batch (plain, again,
/// sorted, streamed). Query pairs are (query index, built index).
template <class Ops, class T, int D>
void check_index(Ops& ops, const broadphase::BasicBoxes<T, D>& built, const broadphase::BasicBoxes<T, D>& queries,
                 Oracle oracle = Oracle::scalar, std::size_t max_single = 400) {
    as_index_subject<T, D>(ops, [&](BasicIndexSubject<T, D>& s) {
        detail::check_index(s, built, queries, oracle, max_single);
    });
}

/// Index over a queried by b, over b queried by a, and over a queried by itself.
template <class Ops, class T, int D>
void check_indexes(Ops& ops, const broadphase::BasicBoxes<T, D>& a, const broadphase::BasicBoxes<T, D>& b,
                   Oracle oracle = Oracle::scalar) {
    as_index_subject<T, D>(ops, [&](BasicIndexSubject<T, D>& s) {
        detail::check_index(s, a, b, oracle, 400);
        detail::check_index(s, b, a, oracle, 400);
        detail::check_index(s, a, a, oracle, 400);
    });
}

/// Runs run(out, options) with Options::max_pairs below, at and above the
/// number of pairs, unsorted and sorted: a budget below it must stop with
/// pair_budget_exceeded and a subset of the pairs, at or above it all pairs.
template <class Run>
void check_budgets(const std::vector<Pair>& all, Run&& run) {
    const std::uint64_t k = all.size();
    ASSERT_GT(k, 20u);
    for (const std::uint64_t budget : {std::uint64_t(0), std::uint64_t(1), k / 2, k - 1, k, k + 1, broadphase::no_budget}) {
        for (const bool sorted : {false, true}) {
            SCOPED_TRACE("max_pairs=" + std::to_string(budget) + (sorted ? " sorted" : ""));
            Options o;
            o.max_pairs = budget;
            o.sorted = sorted;
            std::vector<Pair> out{junk_pair()};
            const Report r = run(out, o);
            EXPECT_EQ(r.pairs, out.size());
            if (budget < k) {
                EXPECT_EQ(r.status, Status::pair_budget_exceeded) << status_string(r.status);
                EXPECT_LE(out.size(), budget);
                EXPECT_TRUE(subset_of_pairs(out, all));
            } else {
                EXPECT_EQ(r.status, Status::ok) << status_string(r.status);
                EXPECT_TRUE(same_pair_set(out, all));
            }
            if (sorted) {
                EXPECT_TRUE(sorted_pairs(out));
            }
        }
    }
}

/// Streams with a callback that returns false at pair `stop_at`: f must not
/// be called again, and the status says why.
template <class Stream>
void check_stops(const std::vector<Pair>& all, Stream&& stream) {
    const std::uint64_t k = all.size();
    ASSERT_GT(k, 20u);
    for (const std::uint64_t stop_at : {std::uint64_t(1), std::uint64_t(2), k / 3, k - 1, k, k + 5}) {
        SCOPED_TRACE("callback returns false at pair " + std::to_string(stop_at));
        std::vector<Pair> seen;
        std::uint64_t calls_after_false = 0;
        bool said_stop = false;
        const Report r = stream([&](std::uint32_t a, std::uint32_t b) {
            if (said_stop) {
                ++calls_after_false;
                return false;
            }
            seen.push_back(Pair{a, b});
            if (seen.size() >= stop_at) said_stop = true;
            return !said_stop;
        });
        EXPECT_EQ(calls_after_false, 0u) << "the callback was called after it returned false";
        EXPECT_TRUE(subset_of_pairs(seen, all));
        if (stop_at <= k) {
            EXPECT_EQ(r.status, Status::stopped_by_callback) << status_string(r.status);
            EXPECT_EQ(seen.size(), stop_at);
        } else {
            EXPECT_EQ(r.status, Status::ok) << status_string(r.status);
            EXPECT_TRUE(same_pair_set(seen, all));
        }
        EXPECT_EQ(r.pairs, seen.size());
    }
}

// ---------------------------------------------------------------------------
// Ways of calling the library, for any scalar type and dimension

/// An algorithm class used directly (BasicSweepAndPrune<T, D>, ...).
template <class Algo>
struct DirectOps {
    using boxes_type = typename Algo::boxes_type;
    using box_type = typename Algo::box_type;
    Algo algo;

    Report self(const boxes_type& b, std::vector<Pair>& out, const Options& o) { return algo.find_pairs(b, out, o); }
    Report self_stream(const boxes_type& b, const PairCallback& f) { return algo.for_each_pair(b, f); }
    Report cross(const boxes_type& a, const boxes_type& b, std::vector<Pair>& out, const Options& o) {
        return algo.find_pairs(a, b, out, o);
    }
    Report cross_stream(const boxes_type& a, const boxes_type& b, const PairCallback& f) {
        return algo.for_each_pair(a, b, f);
    }
    Report build(const boxes_type& b) { return algo.build(b); }
    std::size_t query(const box_type& q, std::vector<std::uint32_t>& out) const { return algo.query(q, out); }
    void for_each_overlap(const box_type& q, const HitCallback& f) const { algo.for_each_overlap(q, f); }
    Report query_batch(const boxes_type& q, std::vector<Pair>& out, const Options& o) const {
        return algo.query_batch(q, out, o);
    }
    Report batch_stream(const boxes_type& q, const PairCallback& f) const { return algo.for_each_overlap_batch(q, f); }
};

/// A PairFinder with Options::algorithm fixed, kept for streaming. With
/// `fresh_per_call`, find_pairs goes through the free functions instead (a
/// fresh PairFinder per call); without, through the kept finder.
template <class T, int D, bool fresh_per_call>
struct PairFinderOps {
    using boxes_type = broadphase::BasicBoxes<T, D>;
    Algorithm algorithm = Algorithm::automatic;
    broadphase::BasicPairFinder<T, D> finder;

    Options with(Options o) const {
        o.algorithm = algorithm;
        return o;
    }
    Report self(const boxes_type& b, std::vector<Pair>& out, const Options& o) {
        if constexpr (fresh_per_call) return broadphase::find_pairs(b, out, with(o));
        else return finder.find_pairs(b, out, with(o));
    }
    Report self_stream(const boxes_type& b, const PairCallback& f) {
        return finder.for_each_pair(b, f, with(Options{}));
    }
    Report cross(const boxes_type& a, const boxes_type& b, std::vector<Pair>& out, const Options& o) {
        if constexpr (fresh_per_call) return broadphase::find_pairs(a, b, out, with(o));
        else return finder.find_pairs(a, b, out, with(o));
    }
    Report cross_stream(const boxes_type& a, const boxes_type& b, const PairCallback& f) {
        return finder.for_each_pair(a, b, f, with(Options{}));
    }
};

/// The front door: the free find_pairs functions (a fresh PairFinder per
/// call) with Options::algorithm, and a kept PairFinder for streaming.
template <class T, int D>
using FrontDoorOps = PairFinderOps<T, D, true>;

/// A PairFinder kept across every call (frames of any size, self and cross).
template <class T, int D>
using FinderOps = PairFinderOps<T, D, false>;

/// Whether X has for_each_overlap_batch(const B&, f) (the algorithm classes and
/// the Index do; IndexApi checks it).
template <class X, class B, class = void>
struct has_for_each_overlap_batch : std::false_type {};
template <class X, class B>
struct has_for_each_overlap_batch<X, B,
                              std::void_t<decltype(std::declval<const X&>().for_each_overlap_batch(
                                  std::declval<const B&>(), std::declval<PairCallback&>()))>> : std::true_type {};

/// An Index built with one algorithm (or automatic).
template <class T, int D>
struct IndexOps {
    using boxes_type = broadphase::BasicBoxes<T, D>;
    using box_type = broadphase::BasicBox<T, D>;
    Algorithm algorithm = Algorithm::automatic;
    broadphase::BasicIndex<T, D> index;

    Report build(const boxes_type& b) {
        const Report r = index.build(b, algorithm);
        if (algorithm != Algorithm::automatic) EXPECT_EQ(index.algorithm(), algorithm);
        else EXPECT_NE(index.algorithm(), Algorithm::automatic);
        return r;
    }
    std::size_t query(const box_type& q, std::vector<std::uint32_t>& out) const { return index.query(q, out); }
    void for_each_overlap(const box_type& q, const HitCallback& f) const { index.for_each_overlap(q, f); }
    Report query_batch(const boxes_type& q, std::vector<Pair>& out, const Options& o) const {
        return index.query_batch(q, out, o);
    }
    Report batch_stream(const boxes_type& q, const PairCallback& f) const { return index.for_each_overlap_batch(q, f); }
};

// ---------------------------------------------------------------------------
// Float 3-D subjects, for the value-parameterised suites

using broadphase::Box;
using broadphase::Boxes;

using PairSubject = BasicPairSubject<float, 3>;
using IndexSubject = BasicIndexSubject<float, 3>;

struct PairSubjectInfo {
    std::string name;  ///< test-name suffix: "sweep_and_prune", "front_door_auto", ...
    std::function<std::unique_ptr<PairSubject>()> make;
};
struct IndexSubjectInfo {
    std::string name;  ///< test-name suffix: "brute_force", "index_hybrid_grid", ...
    std::function<std::unique_ptr<IndexSubject>()> make;
};

inline void PrintTo(const PairSubjectInfo& s, std::ostream* os) { *os << s.name; }
inline void PrintTo(const IndexSubjectInfo& s, std::ostream* os) { *os << s.name; }

/// The test-name suffix of a parameter: its name, for every parameter type
/// of the core suites. Pass `ParamName()` to each INSTANTIATE_TEST_SUITE_P.
inline std::string param_name(const PairSubjectInfo& s) { return s.name; }
inline std::string param_name(const IndexSubjectInfo& s) { return s.name; }
inline std::string param_name(Algorithm a) { return broadphase::to_string(a); }
inline std::string param_name(const std::string& s) { return s; }
struct ParamName {
    template <class P>
    std::string operator()(const ::testing::TestParamInfo<P>& info) const {
        return param_name(info.param);
    }
};

/// The 4 algorithm classes, then find_pairs with automatic and each
/// algorithm (subjects.cpp, linked into broadphase_core_tests only).
std::vector<PairSubjectInfo> pair_subjects();
/// The 4 algorithm classes, then Index with automatic and each algorithm (subjects.cpp).
std::vector<IndexSubjectInfo> index_subjects();
/// The four algorithms, as Options::algorithm values.
std::vector<Algorithm> all_algorithms();

}  // namespace bptest

namespace broadphase {
/// GoogleTest prints a parameter with the PrintTo it finds by ADL: without
/// this, an Algorithm parameter prints as "4-byte object <03-00 00-00>".
inline void PrintTo(Algorithm a, std::ostream* os) { *os << to_string(a); }
}  // namespace broadphase
