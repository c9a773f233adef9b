// Fuzz target: every algorithm, one set and two sets, against the scalar
// O(n^2) reference (tests/core/reference.hpp, written from the definition
// only). Float and double, 3-D and 2-D; Options decoded from the bytes.
//
// Checked for each algorithm (and `automatic`), through find_pairs and
// for_each_pair:
// - within the budget: exactly the reference's pairs, each once, sorted
//   when asked; the invalid boxes reported, by index;
// - over the budget: pair_budget_exceeded, no more pairs than the budget,
//   each a true pair, none twice;
// - the same pairs in the same order on 1 thread as on several;
// - a callback that stops early: stopped_by_callback after that many pairs.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <broadphase/broadphase.hpp>

#include "fuzz_checks.hpp"
#include "reference.hpp"

namespace {

using broadphase::Algorithm;
using broadphase::Pair;
using broadphase::Status;

template <class T, int D>
void run(FuzzedDataProvider& in) {
    const T off = bpfuzz::offset<T>(in);
    broadphase::Options opt = bpfuzz::options(in);
    const bool two_sets = in.ConsumeBool();
    const auto a = bpfuzz::boxes<T, D>(in, off, 300);
    const auto b = two_sets ? bpfuzz::boxes<T, D>(in, off, 150) : broadphase::BasicBoxes<T, D>{};

    const std::vector<Pair> ref = two_sets ? bptest::ref_cross(a, b) : bptest::ref_self(a);
    const std::vector<std::uint32_t> invalid_a = bptest::ref_invalid(a);
    const std::vector<std::uint32_t> invalid_b = two_sets ? bptest::ref_invalid(b) : std::vector<std::uint32_t>{};
    const std::uint64_t stop_after = in.ConsumeIntegralInRange<std::uint64_t>(1, 64);

    static const Algorithm algorithms[] = {Algorithm::automatic,    Algorithm::brute_force,
                                           Algorithm::sweep_and_prune, Algorithm::uniform_grid,
                                           Algorithm::hybrid_grid,  Algorithm::adaptive_grid,
                                           Algorithm::cluster_pairs};
    broadphase::BasicPairFinder<T, D> finder;  // reused across the algorithms, as a program would
    for (Algorithm algo : algorithms) {
        opt.algorithm = algo;
        std::vector<Pair> out;
        const broadphase::Report r = two_sets ? finder.find_pairs(a, b, out, opt) : finder.find_pairs(a, out, opt);
        bpfuzz::check_pairs(r, out, ref, opt.max_pairs, opt.sorted);
        if (r.ok()) {
            BPFUZZ_CHECK(r.pairs == out.size());
            BPFUZZ_CHECK(r.invalid_a == invalid_a);
            BPFUZZ_CHECK(r.invalid_b == invalid_b);
        }

        // Deterministic across thread counts: the same pairs in the same order.
        if (opt.threads > 1 && r.ok()) {
            broadphase::Options one = opt;
            one.threads = 1;
            std::vector<Pair> single;
            const broadphase::Report r1 =
                two_sets ? finder.find_pairs(a, b, single, one) : finder.find_pairs(a, single, one);
            BPFUZZ_CHECK(r1.ok());
            BPFUZZ_CHECK(single == out);
        }

        // Streamed: the same pairs under the same budget.
        std::vector<Pair> streamed;
        auto keep = [&](std::uint32_t i, std::uint32_t j) { streamed.push_back({i, j}); };
        const broadphase::Report rs =
            two_sets ? finder.for_each_pair(a, b, keep, opt) : finder.for_each_pair(a, keep, opt);
        bpfuzz::check_pairs(rs, streamed, ref, opt.max_pairs, false);

        // A callback that stops after `stop_after` pairs.
        std::uint64_t seen = 0;
        auto stop = [&](std::uint32_t, std::uint32_t) { return ++seen < stop_after; };
        broadphase::Options unlimited = opt;
        unlimited.max_pairs = broadphase::no_budget;
        const broadphase::Report rc =
            two_sets ? finder.for_each_pair(a, b, stop, unlimited) : finder.for_each_pair(a, stop, unlimited);
        if (ref.size() < stop_after) {
            BPFUZZ_CHECK(rc.status == Status::ok && seen == ref.size());
        } else {
            BPFUZZ_CHECK(rc.status == Status::stopped_by_callback && seen == stop_after);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    switch (in.ConsumeIntegral<std::uint8_t>() % 4) {
        case 0: run<float, 3>(in); break;
        case 1: run<double, 3>(in); break;
        case 2: run<float, 2>(in); break;
        default: run<double, 2>(in); break;
    }
    return 0;
}
