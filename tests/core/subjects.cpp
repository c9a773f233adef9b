// The float 3-D subjects the value-parameterised Differential suites run
// over (pairs_test.cpp, index_test.cpp). A file of its own, built with the
// test executable rather than the harness library, so that it compiles in
// parallel with the tests instead of before them.
#include "differential.hpp"

namespace bptest {

namespace {

template <class Algo>
PairSubjectInfo direct_pairs(const char* name) {
    return {name, [] { return std::unique_ptr<PairSubject>(new PairAdapter<DirectOps<Algo>, float, 3>({})); }};
}

template <class Algo>
IndexSubjectInfo direct_index(const char* name) {
    return {name, [] { return std::unique_ptr<IndexSubject>(new IndexAdapter<DirectOps<Algo>, float, 3>({})); }};
}

}  // namespace

std::vector<PairSubjectInfo> pair_subjects() {
    std::vector<PairSubjectInfo> out = {
        direct_pairs<broadphase::BruteForce>("brute_force"),
        direct_pairs<broadphase::SweepAndPrune>("sweep_and_prune"),
        direct_pairs<broadphase::UniformGrid>("uniform_grid"),
        direct_pairs<broadphase::HybridGrid>("hybrid_grid"),
        direct_pairs<broadphase::AdaptiveGrid>("adaptive_grid"),
    };
    std::vector<Algorithm> front = {Algorithm::automatic};
    for (Algorithm a : all_algorithms()) front.push_back(a);
    for (Algorithm a : front) {
        out.push_back({std::string("front_door_") + broadphase::to_string(a), [a] {
                           FrontDoorOps<float, 3> ops;
                           ops.algorithm = a;
                           using Adapter = PairAdapter<FrontDoorOps<float, 3>, float, 3>;
                           return std::unique_ptr<PairSubject>(new Adapter(std::move(ops)));
                       }});
    }
    return out;
}

std::vector<IndexSubjectInfo> index_subjects() {
    std::vector<IndexSubjectInfo> out = {
        direct_index<broadphase::BruteForce>("brute_force"),
        direct_index<broadphase::SweepAndPrune>("sweep_and_prune"),
        direct_index<broadphase::UniformGrid>("uniform_grid"),
        direct_index<broadphase::HybridGrid>("hybrid_grid"),
        direct_index<broadphase::AdaptiveGrid>("adaptive_grid"),
    };
    std::vector<Algorithm> kinds = {Algorithm::automatic};
    for (Algorithm a : all_algorithms()) kinds.push_back(a);
    for (Algorithm a : kinds) {
        out.push_back({std::string("index_") + broadphase::to_string(a), [a] {
                           IndexOps<float, 3> ops;
                           ops.algorithm = a;
                           using Adapter = IndexAdapter<IndexOps<float, 3>, float, 3>;
                           return std::unique_ptr<IndexSubject>(new Adapter(std::move(ops)));
                       }});
    }
    return out;
}

}  // namespace bptest
