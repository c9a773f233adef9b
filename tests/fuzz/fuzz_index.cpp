// Fuzz target: Index queries against the scalar reference. A set of up to
// 250 boxes is built with every algorithm (and `automatic`); up to 60 query
// boxes are asked one by one (query and for_each_overlap) and as a batch
// (query_batch under decoded Options, for_each_overlap_batch), float and double,
// 3-D and 2-D.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <broadphase/broadphase.hpp>

#include "fuzz_checks.hpp"
#include "reference.hpp"

namespace {

using broadphase::Algorithm;
using broadphase::Pair;

template <class T, int D>
void run(FuzzedDataProvider& in) {
    const T off = bpfuzz::offset<T>(in);
    broadphase::Options opt = bpfuzz::options(in);
    const auto built = bpfuzz::boxes<T, D>(in, off, 250);
    const auto queries = bpfuzz::boxes<T, D>(in, off, 60);
    const auto ref_built = bptest::ref_boxes(built);
    const std::vector<Pair> ref_batch = bptest::ref_cross(queries, built);

    static const Algorithm algorithms[] = {Algorithm::automatic,    Algorithm::brute_force,
                                           Algorithm::sweep_and_prune, Algorithm::uniform_grid,
                                           Algorithm::hybrid_grid,  Algorithm::adaptive_grid,
                                           Algorithm::cluster_pairs};
    for (Algorithm algo : algorithms) {
        broadphase::BasicIndex<T, D> index;
        opt.algorithm = algo;
        BPFUZZ_CHECK(index.build(built, opt).ok());

        std::vector<std::uint32_t> hits, each;
        for (std::size_t q = 0; q < queries.size(); ++q) {
            const std::vector<std::uint32_t> want = bptest::ref_query(ref_built, queries[q]);
            BPFUZZ_CHECK(index.query(queries[q], hits) == hits.size());
            std::sort(hits.begin(), hits.end());
            BPFUZZ_CHECK(hits == want);
            each.clear();
            index.for_each_overlap(queries[q], [&](std::uint32_t i) { each.push_back(i); });
            std::sort(each.begin(), each.end());
            BPFUZZ_CHECK(each == want);
        }

        std::vector<Pair> batch;
        const broadphase::Report r = index.query_batch(queries, batch, opt);
        bpfuzz::check_pairs(r, batch, ref_batch, opt.max_pairs, opt.sorted);
        if (r.ok() && opt.threads > 1) {  // the same pairs in the same order on one thread
            broadphase::Options one = opt;
            one.threads = 1;
            std::vector<Pair> single;
            BPFUZZ_CHECK(index.query_batch(queries, single, one).ok());
            BPFUZZ_CHECK(single == batch);
        }

        std::vector<Pair> streamed;
        const broadphase::Report rs =
            index.for_each_overlap_batch(queries, [&](std::uint32_t q, std::uint32_t i) { streamed.push_back({q, i}); });
        bpfuzz::check_pairs(rs, streamed, ref_batch, broadphase::no_budget, false);
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
