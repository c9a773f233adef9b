// Differential test of the distributed broad phase (mpi/include/broadphase/mpi/)
// against one process's brute force: run it under `mpirun -n P` (ctest runs
// P = 1, 2, 3, 4 and 7 as mpi.pairs.nP). For every scene and every way of
// spreading its boxes over the ranks, every delivery mode must give exactly
// the single-process pair set, each pair once:
//   keep        the union of the ranks' outputs (gathered on rank 0 here)
//   gather      all on the root (0, then P-1), nothing elsewhere
//   to_holders  each rank: exactly the pairs with a box it passed, each once
// Pair SETS are compared (sorted), not counts. Also: invalid boxes reported
// by global id on the rank that passed them, custom 64-bit ids, two-set
// calls, float and double, 2-D, boxes exactly on the partition's cuts, a
// finder reused across frames (and re-partitioning after a drastic change),
// the same output twice for the same P, sorted output, the pair budget.
//
// Exits non-zero when any check fails on any rank; rank 0 prints a summary.
// This file: main and the checks. The cases: suite.hpp (templates) and
// suite_float3.cpp, suite_double3.cpp, suite_float2.cpp; scenes, ways of
// spreading boxes over ranks and the oracle's pairs as ids: harness.hpp.
#include <cstdio>

#include "suite.hpp"

namespace mpitest {

MPI_Comm comm = MPI_COMM_WORLD;
int P = 1;     // ranks
int me = 0;    // this rank

std::string name_of(const Spec& s) {
    std::string n = bm::to_string(s.delivery);
    if (s.delivery == bm::Delivery::gather) n += cat("(root ", s.root, ")");
    if (s.sorted) n += " sorted";
    if (s.algorithm != bp::Algorithm::automatic) n += cat(" ", bp::to_string(s.algorithm));
    if (s.budget != bp::no_budget) n += cat(" budget ", s.budget);
    return n;
}

// The four deliveries: keep, to_holders, gather on 0 and on P-1.
std::vector<Spec> deliveries() {
    std::vector<Spec> out(3);
    out[1].delivery = bm::Delivery::to_holders;
    out[2].delivery = bm::Delivery::gather;
    if (P > 1) {
        out.push_back(out[2]);
        out.back().root = P - 1;
    }
    return out;
}

std::uint64_t bcast(std::uint64_t v) {
    MPI_Bcast(&v, 1, MPI_UINT64_T, 0, comm);
    return v;
}

// Every rank's output, on rank 0 (empty elsewhere).
static std::vector<std::vector<bm::IdPair>> gather_outputs(const std::vector<bm::IdPair>& out) {
    const std::uint64_t n = out.size();
    std::vector<std::uint64_t> counts(P);
    MPI_Gather(&n, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, 0, comm);
    std::vector<int> bytes(P), displs(P);
    std::size_t total = 0;
    for (int r = 0; r < P; ++r) {
        bytes[r] = static_cast<int>(counts[r] * sizeof(bm::IdPair));
        displs[r] = static_cast<int>(total * sizeof(bm::IdPair));
        total += counts[r];
    }
    std::vector<bm::IdPair> all(me == 0 ? total : 0);
    MPI_Gatherv(out.data(), static_cast<int>(n * sizeof(bm::IdPair)), MPI_BYTE, all.data(), bytes.data(),
                displs.data(), MPI_BYTE, 0, comm);
    std::vector<std::vector<bm::IdPair>> per(me == 0 ? P : 0);
    if (me == 0) {
        std::size_t at = 0;
        for (int r = 0; r < P; ++r) {
            per[r].assign(all.begin() + at, all.begin() + at + counts[r]);
            at += counts[r];
        }
    }
    return per;
}

// got (any order) against want (sorted): the same set, no pair twice. With
// `subset`, only that every pair of got is in want (the budget's partial output).
static void compare(std::vector<bm::IdPair> got, const std::vector<bm::IdPair>& want, const std::string& label,
             bool subset = false) {
    std::sort(got.begin(), got.end());
    const auto dup = std::adjacent_find(got.begin(), got.end());
    EXPECT(dup == got.end(), label, ": pair ", dup == got.end() ? std::string() : str(*dup), " more than once");
    if (subset) {
        for (const bm::IdPair& p : got)
            if (!std::binary_search(want.begin(), want.end(), p)) {
                EXPECT(false, label, ": pair ", str(p), " not in the oracle's set");
                break;
            }
        return;
    }
    if (got == want) {
        ++tally().checks;
        return;
    }
    std::vector<bm::IdPair> missing, extra;
    std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
    std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
    EXPECT(false, label, ": ", got.size(), " pairs, expected ", want.size(), "; ", missing.size(), " missing",
           missing.empty() ? std::string() : " e.g. " + str(missing[0]), ", ", extra.size(), " extra",
           extra.empty() ? std::string() : " e.g. " + str(extra[0]));
}

// Checks one call's report and output on every rank, and the pairs of all
// ranks together on rank 0.
void check(const Expected& e, const Spec& spec, const bm::DistributedReport& r, const std::vector<bm::IdPair>& out) {
    ++tally().calls;
    const bool budget = spec.budget != bp::no_budget;
    // The status is the same on every rank: the budget's when any rank owns more pairs than it.
    std::uint64_t owned = r.stats.pairs_owned, max_owned = 0, sum_owned = 0;
    MPI_Allreduce(&owned, &max_owned, 1, MPI_UINT64_T, MPI_MAX, comm);
    MPI_Allreduce(&owned, &sum_owned, 1, MPI_UINT64_T, MPI_SUM, comm);
    const bp::Status want_status = budget && max_owned > spec.budget ? bp::Status::pair_budget_exceeded : bp::Status::ok;
    EXPECT(r.status == want_status, "status ", bp::to_string(r.status), ", expected ", bp::to_string(want_status));
    int st[2] = {static_cast<int>(r.status), -static_cast<int>(r.status)}, st_all[2];
    MPI_Allreduce(st, st_all, 2, MPI_INT, MPI_MAX, comm);
    EXPECT(st_all[0] == -st_all[1], "status differs between ranks");

    EXPECT(r.pairs == out.size(), "report.pairs ", r.pairs, " vs ", out.size(), " in the output");
    EXPECT(r.total_pairs == e.total_pairs, "total_pairs ", r.total_pairs, ", oracle ", e.total_pairs);
    EXPECT(sum_owned == e.total_pairs, "pairs_owned sums to ", sum_owned, ", oracle ", e.total_pairs);
    std::vector<std::uint64_t> ia = r.invalid_a, ib = r.invalid_b;
    std::sort(ia.begin(), ia.end());
    std::sort(ib.begin(), ib.end());
    EXPECT(ia == e.invalid_a, "invalid_a: ", ia.size(), " ids, expected ", e.invalid_a.size());
    EXPECT(ib == e.invalid_b, "invalid_b: ", ib.size(), " ids, expected ", e.invalid_b.size());
    EXPECT(r.total_invalid == e.total_invalid, "total_invalid ", r.total_invalid, ", expected ", e.total_invalid);
    EXPECT(r.stats.total_boxes == e.total_valid, "stats.total_boxes ", r.stats.total_boxes, ", expected ",
           e.total_valid);
    EXPECT(r.stats.boxes_in == e.my_valid, "stats.boxes_in ", r.stats.boxes_in, ", expected ", e.my_valid);
    EXPECT(r.stats.ranks == P, "stats.ranks ", r.stats.ranks);
    std::uint64_t held = r.stats.boxes_held, held_sum = 0, held_max = 0;
    MPI_Allreduce(&held, &held_sum, 1, MPI_UINT64_T, MPI_SUM, comm);
    MPI_Allreduce(&held, &held_max, 1, MPI_UINT64_T, MPI_MAX, comm);
    EXPECT(r.stats.max_held == held_max, "stats.max_held ", r.stats.max_held, " vs ", held_max);
    EXPECT(std::abs(r.stats.mean_held * P - static_cast<double>(held_sum)) < 0.5, "stats.mean_held ",
           r.stats.mean_held);
    int rep[2] = {r.stats.repartitioned ? 1 : 0, r.stats.repartitioned ? 0 : 1}, rep_all[2];
    MPI_Allreduce(rep, rep_all, 2, MPI_INT, MPI_MIN, comm);
    EXPECT(rep_all[0] == 1 || rep_all[1] == 1, "stats.repartitioned differs between ranks");
    if (spec.sorted) EXPECT(std::is_sorted(out.begin(), out.end()), "options.local.sorted: output not sorted");
    if (!e.two)
        for (const bm::IdPair& p : out)
            if (!(p.a < p.b)) {
                EXPECT(false, "pair ", str(p), " not (smaller id, larger id)");
                break;
            }
    if (budget && spec.delivery == bm::Delivery::keep)
        EXPECT(out.size() <= spec.budget, out.size(), " pairs kept past a budget of ", spec.budget);

    const std::vector<std::vector<bm::IdPair>> all = gather_outputs(out);
    if (me != 0) return;
    switch (spec.delivery) {
        case bm::Delivery::keep: {
            std::vector<bm::IdPair> u;
            for (const auto& o : all) u.insert(u.end(), o.begin(), o.end());
            compare(u, e.pairs, "union over ranks (keep)", budget);
            break;
        }
        case bm::Delivery::gather: {
            const int root = spec.root < 0 || spec.root >= P ? 0 : spec.root;  // 0 when out of range
            for (int q = 0; q < P; ++q) {
                if (q == root)
                    compare(all[q], e.pairs, cat("root ", q, " (gather)"), budget);
                else
                    EXPECT(all[q].empty(), "rank ", q, " holds ", all[q].size(), " pairs; the root is ", root);
            }
            break;
        }
        case bm::Delivery::to_holders:
            for (int q = 0; q < P; ++q) {
                std::vector<bm::IdPair> want;
                for (std::size_t i = 0; i < e.pairs.size(); ++i)
                    if (e.holder_a[i] == q || e.holder_b[i] == q) want.push_back(e.pairs[i]);
                compare(all[q], want, cat("rank ", q, " (to_holders)"), budget);
            }
            break;
    }
}

// The boxes one rank passes, and their ids.
bm::DistributedOptions options_of(const Spec& spec) {
    bm::DistributedOptions o;
    o.delivery = spec.delivery;
    o.root = spec.root;
    o.local.sorted = spec.sorted;
    o.local.algorithm = spec.algorithm;
    o.local.max_pairs = spec.budget;
    o.rebalance = spec.rebalance;
    o.samples_per_rank = spec.samples;
    return o;
}

}  // namespace mpitest

using namespace mpitest;

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    tally().rank = me;
    tally().size = P;
    const double t0 = MPI_Wtime();
    run_float3();
#ifndef BP_MPI_TEST_FLOAT3_ONLY
    run_double3();
    run_float2();
#endif
    // Each rank names its failing cases (the messages above stop at 25).
    const std::vector<std::string>& bad = tally().failed_cases;
    if (!bad.empty()) {
        std::string list;
        for (std::size_t i = 0; i < bad.size() && i < 40; ++i) list += "\n  " + bad[i];
        std::fprintf(stderr, "[rank %d] %zu failing cases:%s%s\n", me, bad.size(), list.c_str(),
                     bad.size() > 40 ? "\n  ..." : "");
    }
    long mine[2] = {tally().failures, tally().checks}, all[2] = {0, 0};
    MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, comm);
    long failed = tally().failures, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_LONG, MPI_SUM, comm);
    if (me == 0)
        std::printf("mpi.pairs: %d ranks, %ld distributed calls checked, %ld checks, %ld failures, %.1f s: %s\n", P,
                    tally().calls, all[1], all[0], MPI_Wtime() - t0, any ? "FAILED" : "passed");
    MPI_Finalize();
    return any ? 1 : 0;
}

