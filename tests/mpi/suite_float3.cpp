// float 3-D cases of the MPI test: the built-in scenes (scenes.hpp) at small
// sizes, the adversarial scenes, two sets, every local algorithm, the pair
// budget, frames, and the one-shot function.
#include "suite.hpp"

namespace mpitest {

namespace {

// The one-shot function and the float 3-D alias.
void one_shot() {
    const bp::Boxes s = broadphase_fixtures::uniform(800, 31);
    std::vector<bp::Pair> orc;
    if (me == 0) orc = oracle(s);
    const std::uint64_t total = bcast(orc.size());
    const Assign as = distribute(s, Dist::contiguous, P, 1);
    const Problem<float, 3> p = one_set_problem(s, Ids{&as, {}}, orc, total);
    std::vector<bm::IdPair> out;
    tally().where = "float3 one-shot broadphase::mpi::find_pairs";
    check(p.e, Spec{}, bm::find_pairs(comm, p.a, out), out);
    bm::DistributedPairFinder f(comm);
    tally().where = "float3 DistributedPairFinder";
    check(p.e, Spec{}, f.find_pairs(p.a, out), out);
}

// The options that shape the exchange come from rank 0: the other ranks
// pass others (keep, to_holders, a root out of range, no samples) and get
// rank 0's delivery. A root out of range means 0.
void shared_options() {
    const bp::Boxes s = broadphase_fixtures::mixed(1000, 32);
    std::vector<bp::Pair> orc;
    if (me == 0) orc = oracle(s);
    const std::uint64_t total = bcast(orc.size());
    const Assign as = distribute(s, Dist::random, P, 2);
    const Problem<float, 3> p = one_set_problem(s, Ids{&as, {}}, orc, total);
    for (int root : {P - 1, P, -1}) {
        Spec spec;
        spec.delivery = bm::Delivery::gather;
        spec.root = root;
        Spec mine = spec;
        if (me != 0) {
            mine.delivery = me % 2 ? bm::Delivery::keep : bm::Delivery::to_holders;
            mine.root = me;
            mine.samples = 0;
            mine.rebalance = 1e300;
        }
        tally().where = cat("float3 options from rank 0: ", name_of(spec), ", other ranks pass others");
        std::vector<bm::IdPair> out;
        bm::DistributedPairFinder f(comm);
        check(p.e, spec, call(f, p, mine, out), out);
    }
}

// The finder's messages never meet the caller's: every rank has a message
// for the root pending on the same communicator, with the tag and the size
// of the gather's, while the finder gathers pairs on that root.
void pending_messages() {
    const bp::Boxes s = broadphase_fixtures::uniform(1200, 33);
    std::vector<bp::Pair> orc;
    if (me == 0) orc = oracle(s);
    const std::uint64_t total = bcast(orc.size());
    const Assign as = distribute(s, Dist::contiguous, P, 3);
    const Problem<float, 3> p = one_set_problem(s, Ids{&as, {}}, orc, total);
    Spec spec;
    spec.delivery = bm::Delivery::gather;
    spec.root = P - 1;
    bm::DistributedPairFinder f(comm);
    const bm::IdPair mine{~std::uint64_t(0), static_cast<std::uint64_t>(me)};
    std::vector<bm::IdPair> theirs(P);
    std::vector<MPI_Request> reqs;
    if (me != spec.root) {
        reqs.emplace_back();
        MPI_Isend(&mine, sizeof mine, MPI_BYTE, spec.root, 7, comm, &reqs.back());
    }
    tally().where = cat("float3 gather with the caller's messages pending, ", name_of(spec));
    std::vector<bm::IdPair> out;
    check(p.e, spec, call(f, p, spec, out), out);
    if (me == spec.root)
        for (int q = 0; q < P; ++q) {
            if (q == me) continue;
            MPI_Recv(&theirs[q], sizeof mine, MPI_BYTE, q, 7, comm, MPI_STATUS_IGNORE);
            EXPECT(theirs[q].a == ~std::uint64_t(0) && theirs[q].b == static_cast<std::uint64_t>(q),
                   "the caller's message from rank ", q, " was changed");
        }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

}  // namespace

void run_float3() {
    namespace sc = broadphase_fixtures;
    one_set<float, 3>("scenes::uniform", sc::uniform(2000));
    one_set<float, 3>("scenes::mixed", sc::mixed(1500));
    one_set<float, 3>("scenes::slabs_and_outliers", sc::slabs_and_outliers(800));
    one_set<float, 3>("scenes::identical", sc::identical(300), {Dist::contiguous, Dist::random, Dist::rank0});
    one_set<float, 3>("scenes::with_invalid", sc::with_invalid(1000));
    one_set<float, 3>("scenes::lattice", sc::lattice(10), {Dist::contiguous, Dist::spatial, Dist::random});
    one_set<float, 3>("scenes::points", sc::points(800), {Dist::random, Dist::last});
    one_set<float, 3>("scenes::random_boxes 1e7", sc::random_boxes(1500, 12, 1e7, 100, 0, 10),
                      {Dist::contiguous, Dist::random});
    one_set<float, 3>("scenes::uniform 20k", sc::uniform(20000, 13), {Dist::random}, false);
    generic_scenes<float, 3>();
    const bp::Boxes a = sc::mixed(800, 40);
    bp::Boxes mc = a;
    append(mc, clusters<float, 3>(800, 41));
    one_set<float, 3>("mixed + clusters", mc, {Dist::spatial});
    two_sets<float, 3>("A empty everywhere", bp::Boxes(), a);
    two_sets<float, 3>("B empty everywhere", a, bp::Boxes());
    two_sets<float, 3>("both empty", bp::Boxes(), bp::Boxes());
    two_sets<float, 3>("A = B", a, a);
    two_sets<float, 3>("slabs x identical", slabs<float, 3>(300, 42), identical<float, 3>(40));
    algorithms<float, 3>("scenes::mixed", sc::mixed(3000, 50));
    budget<float, 3>("dense random", random_scene<float, 3>(1500, 60, 0, 20, 0, 6));
    frames<float, 3>();
    one_shot();
    shared_options();
    pending_messages();
}

}  // namespace mpitest
