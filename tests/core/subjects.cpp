// The float 3-D subjects the value-parameterised Differential suites run
// over (pairs_test.cpp, index_test.cpp). A file of its own, built with the
// test executable rather than the harness library, so that it compiles in
// parallel with the tests instead of before them.
#include "differential.hpp"

namespace bptest {

namespace {

template <class T>
struct type_tag {
    using type = T;
};

/// One kind of subject (Info: PairSubjectInfo or IndexSubjectInfo; Adapter:
/// PairAdapter or IndexAdapter): each algorithm class used directly, named
/// after it, then `Front` (the front door's ops, which take an Algorithm)
/// with automatic and with each algorithm, named front_prefix + algorithm.
template <class Info, template <class, class, int> class Adapter, class Front>
std::vector<Info> subjects(const std::string& front_prefix) {
    using Subject = typename decltype(std::declval<Info>().make())::element_type;
    auto direct = [](const char* name, auto algo) -> Info {
        using Ops = DirectOps<typename decltype(algo)::type>;
        return {name, [] { return std::unique_ptr<Subject>(new Adapter<Ops, float, 3>({})); }};
    };
    std::vector<Info> out = {
        direct("brute_force", type_tag<broadphase::BruteForce>{}),
        direct("sweep_and_prune", type_tag<broadphase::SweepAndPrune>{}),
        direct("uniform_grid", type_tag<broadphase::UniformGrid>{}),
        direct("hybrid_grid", type_tag<broadphase::HybridGrid>{}),
        direct("adaptive_grid", type_tag<broadphase::AdaptiveGrid>{}),
        direct("cluster_pairs", type_tag<broadphase::ClusterPairs>{}),
    };
    std::vector<Algorithm> front = {Algorithm::automatic};
    for (Algorithm a : all_algorithms()) front.push_back(a);
    for (Algorithm a : front) {
        out.push_back({front_prefix + broadphase::to_string(a), [a] {
                           Front ops;
                           ops.algorithm = a;
                           return std::unique_ptr<Subject>(new Adapter<Front, float, 3>(std::move(ops)));
                       }});
    }
    return out;
}

}  // namespace

std::vector<PairSubjectInfo> pair_subjects() {
    return subjects<PairSubjectInfo, PairAdapter, FrontDoorOps<float, 3>>("front_door_");
}

std::vector<IndexSubjectInfo> index_subjects() {
    return subjects<IndexSubjectInfo, IndexAdapter, IndexOps<float, 3>>("index_");
}

}  // namespace bptest
