// The MPI test's cases (tests/mpi/distributed_test.cpp has main and the
// checks): templates over the scalar type and the dimension, instantiated
// by suite_float3.cpp, suite_double3.cpp and suite_float2.cpp (one
// translation unit each, so that they compile side by side).
#pragma once

#include <functional>
#include <iterator>

#include "harness.hpp"

namespace mpitest {

extern MPI_Comm comm;
extern int P;   // ranks
extern int me;  // this rank

template <class T, int D>
const char* type_name() {
    return sizeof(T) == 4 ? (D == 3 ? "float3" : "float2") : (D == 3 ? "double3" : "double2");
}

struct Spec {
    bm::Delivery delivery = bm::Delivery::keep;
    int root = 0;
    bool sorted = false;
    bp::Algorithm algorithm = bp::Algorithm::automatic;
    std::uint64_t budget = bp::no_budget;
    double rebalance = 1.3;
    std::size_t samples = 1024;  // DistributedOptions::samples_per_rank
};

// In distributed_test.cpp.
std::string name_of(const Spec& s);
std::vector<Spec> deliveries();
std::uint64_t bcast(std::uint64_t v);
bm::DistributedOptions options_of(const Spec& spec);
void check(const Expected& e, const Spec& spec, const bm::DistributedReport& r, const std::vector<bm::IdPair>& out);

template <class T, int D>
struct Problem {
    Boxes<T, D> a, b;
    std::vector<std::uint64_t> ids_a, ids_b;  // empty: default ids
    bool two = false;
    Expected e;
};

template <class T, int D>
bm::DistributedReport call(bm::BasicDistributedPairFinder<T, D>& f, const Problem<T, D>& p, const Spec& spec,
                           std::vector<bm::IdPair>& out) {
    const bm::DistributedOptions o = options_of(spec);
    if (p.two)
        return f.find_pairs(p.a, p.ids_a.empty() ? nullptr : p.ids_a.data(), p.b,
                            p.ids_b.empty() ? nullptr : p.ids_b.data(), out, o);
    if (!p.ids_a.empty()) return f.find_pairs(p.a, p.ids_a.data(), out, o);
    return f.find_pairs(p.a, out, o);
}

// One call with a fresh finder, checked; with `twice`, a second fresh
// finder must give every rank the same output in the same order.
template <class T, int D>
void run_checked(const Problem<T, D>& p, const Spec& spec, bool twice) {
    std::vector<bm::IdPair> out;
    bm::DistributedReport r;
    {
        bm::BasicDistributedPairFinder<T, D> f(comm);
        r = call(f, p, spec, out);
    }
    check(p.e, spec, r, out);
    if (!twice) return;
    std::vector<bm::IdPair> again;
    bm::BasicDistributedPairFinder<T, D> f(comm);
    call(f, p, spec, again);
    EXPECT(again == out, "second run with the same P: ", again.size(), " pairs vs ", out.size(),
           again.size() == out.size() ? " (same count, another order or other pairs)" : "");
}

template <class T, int D>
Problem<T, D> one_set_problem(const Boxes<T, D>& s, const Ids& ids, const std::vector<bp::Pair>& orc,
                              std::uint64_t total) {
    Problem<T, D> p;
    p.a = local_boxes(s, ids.as->lists[me]);
    p.ids_a = ids.local(me);
    p.e = expect_one(s, ids, orc, total, me);
    return p;
}

// One scene: every distribution with every delivery (default ids, checked
// twice under keep and to_holders), plus custom ids and sorted output on
// some distributions.
template <class T, int D>
void one_set(const std::string& name, const Boxes<T, D>& s, std::vector<Dist> dists = {}, bool custom = true) {
    if (dists.empty()) dists.assign(std::begin(all_dists), std::end(all_dists));
    std::vector<bp::Pair> orc;
    if (me == 0) orc = oracle(s);
    const std::uint64_t total = bcast(orc.size());
    const std::uint64_t seed = std::hash<std::string>()(name) & 0xffff;
    for (Dist d : dists) {
        const Assign as = distribute(s, d, P, seed);
        for (int with_ids = 0; with_ids < 2; ++with_ids) {
            if (with_ids && (!custom || (d != Dist::random && d != Dist::last))) continue;
            Ids ids{&as, {}};
            if (with_ids)
                for (std::size_t i = 0; i < s.size(); ++i) ids.custom.push_back(custom_id(i, s.size()));
            const Problem<T, D> p = one_set_problem(s, ids, orc, total);
            for (Spec spec : deliveries()) {
                spec.sorted = with_ids;
                tally().where = cat(type_name<T, D>(), " ", name, " [", s.size(), " boxes, ", to_string(d),
                                    with_ids ? ", custom ids" : "", "] ", name_of(spec));
                run_checked(p, spec, !with_ids && spec.delivery != bm::Delivery::gather);
            }
        }
    }
}

// Every local algorithm (options.local.algorithm) under keep.
template <class T, int D>
void algorithms(const std::string& name, const Boxes<T, D>& s) {
    std::vector<bp::Pair> orc;
    if (me == 0) orc = oracle(s);
    const std::uint64_t total = bcast(orc.size());
    const Assign as = distribute(s, Dist::random, P, 3);
    const Ids ids{&as, {}};
    const Problem<T, D> p = one_set_problem(s, ids, orc, total);
    for (bp::Algorithm a : bp::concrete_algorithms) {
        Spec spec;
        spec.algorithm = a;
        tally().where = cat(type_name<T, D>(), " ", name, " [random] ", name_of(spec));
        run_checked(p, spec, false);
    }
}

// Two sets: A and B spread differently (some ranks passing only A, some only
// B, some neither), against the single-process two-set oracle.
template <class T, int D>
void two_sets(const std::string& name, const Boxes<T, D>& a, const Boxes<T, D>& b) {
    std::vector<bp::Pair> orc;
    if (me == 0) orc = oracle(a, b);
    const std::uint64_t total = bcast(orc.size());
    std::vector<int> even, odd, first_half;
    for (int r = 0; r < P; ++r) (r % 2 ? odd : even).push_back(r);
    if (odd.empty()) odd.push_back(0);
    for (int r = 0; r < (P + 1) / 2; ++r) first_half.push_back(r);
    struct Layout {
        const char* name;
        Dist da;
        std::vector<int> only_a;
        Dist db;
        std::vector<int> only_b;
        bool custom_a;
    };
    const Layout layouts[] = {
        {"A, B contiguous", Dist::contiguous, {}, Dist::contiguous, {}, false},
        {"A on even ranks, B on odd", Dist::random, even, Dist::random, odd, false},
        {"A on rank 0, B on the last", Dist::rank0, {}, Dist::last, {}, true},
        {"A on the first half, B spatial", Dist::contiguous, first_half, Dist::spatial, {}, false},
        {"A random with custom ids, B on the last", Dist::random, {}, Dist::last, {}, true},
    };
    for (const Layout& l : layouts) {
        const Assign aa = distribute(a, l.da, P, 11, l.only_a);
        const Assign ab = distribute(b, l.db, P, 12, l.only_b);
        Ids ida{&aa, {}}, idb{&ab, {}};
        if (l.custom_a)
            for (std::size_t i = 0; i < a.size(); ++i) ida.custom.push_back(custom_id(i, a.size(), 7));
        Problem<T, D> p;
        p.two = true;
        p.a = local_boxes(a, aa.lists[me]);
        p.b = local_boxes(b, ab.lists[me]);
        p.ids_a = ida.local(me);
        p.ids_b = idb.local(me);
        p.e = expect_two(a, ida, b, idb, orc, total, me);
        for (Spec spec : deliveries()) {
            spec.sorted = l.custom_a;
            tally().where = cat(type_name<T, D>(), " two sets ", name, " [", a.size(), " x ", b.size(), ", ", l.name,
                                "] ", name_of(spec));
            run_checked(p, spec, spec.delivery == bm::Delivery::keep);
        }
    }
}

// The pair budget: each rank keeps at most max_pairs; the status says so on
// every rank; what is kept is still a set of true pairs.
template <class T, int D>
void budget(const std::string& name, const Boxes<T, D>& s) {
    std::vector<bp::Pair> orc;
    if (me == 0) orc = oracle(s);
    const std::uint64_t total = bcast(orc.size());
    const Assign as = distribute(s, Dist::random, P, 5);
    const Ids ids{&as, {}};
    const Problem<T, D> p = one_set_problem(s, ids, orc, total);
    // A budget between the fewest and the most pairs a rank owns: exceeded
    // on some ranks only, and the status must still say so on all.
    std::uint64_t owned = 0, fewest = 0;
    {
        std::vector<bm::IdPair> out;
        bm::BasicDistributedPairFinder<T, D> f(comm);
        owned = call(f, p, Spec{}, out).stats.pairs_owned;
        MPI_Allreduce(&owned, &fewest, 1, MPI_UINT64_T, MPI_MIN, comm);
    }
    int mixed = fewest < owned ? 1 : 0, some = 0;
    MPI_Allreduce(&mixed, &some, 1, MPI_INT, MPI_MAX, comm);
    EXPECT(P == 1 || some, "every rank owns ", owned, " pairs: the budget cannot be exceeded on some only");
    for (std::uint64_t cap : {std::uint64_t(0), std::uint64_t(5), fewest, total}) {
        for (Spec spec : deliveries()) {
            spec.budget = cap;
            tally().where = cat(type_name<T, D>(), " ", name, " [", s.size(), " boxes, random] ", name_of(spec));
            std::vector<bm::IdPair> out;
            bm::BasicDistributedPairFinder<T, D> f(comm);
            const bm::DistributedReport r = call(f, p, spec, out);
            check(p.e, spec, r, out);
            if (cap == 5) {
                // A tight budget must be exceeded (the scene has many pairs on every rank).
                EXPECT(r.status == bp::Status::pair_budget_exceeded, "status ", bp::to_string(r.status));
            }
        }
    }
}

// Boxes exactly on the partition's cuts: a finder builds its partition on a
// random scene, then boxes whose min, max or centre lies on a cut (and on
// two cuts at once) are added, and the same finder (the same cuts: the
// rebalance threshold is lifted) must find every pair.
template <class T, int D>
void boundaries(std::uint64_t seed) {
    const Boxes<T, D> base = random_scene<T, D>(1200, seed, 0, 100, 0, 8);
    bm::BasicDistributedPairFinder<T, D> f(comm);
    {
        const Assign as = distribute(base, Dist::contiguous, P, seed);
        std::vector<bp::Pair> orc;
        if (me == 0) orc = oracle(base);
        const std::uint64_t total = bcast(orc.size());
        const Problem<T, D> p = one_set_problem(base, Ids{&as, {}}, orc, total);
        tally().where = cat(type_name<T, D>(), " boundaries: the base scene");
        std::vector<bm::IdPair> out;
        const bm::DistributedReport r = call(f, p, Spec{}, out);
        check(p.e, Spec{}, r, out);
        // (One rank needs no partition: its finder runs the local find directly.)
        EXPECT(r.stats.repartitioned || P == 1, "a new finder's first call must build a partition");
    }
    // Every rank built the same partition.
    const bm::Partition<D> part = f.partition();
    using Node = typename bm::Partition<D>::Node;
    std::vector<Node> nodes = part.nodes();
    EXPECT(part.regions() == P, "partition has ", part.regions(), " regions for ", P, " ranks");
    std::uint64_t count = bcast(nodes.size());
    EXPECT(count == nodes.size(), "partition size differs from rank 0's");
    std::vector<Node> root_nodes = nodes;
    root_nodes.resize(count);
    MPI_Bcast(root_nodes.data(), static_cast<int>(count * sizeof(Node)), MPI_BYTE, 0, comm);
    bool same = count == nodes.size();
    for (std::size_t i = 0; same && i < count; ++i)
        same = root_nodes[i].axis == nodes[i].axis && root_nodes[i].cut == nodes[i].cut &&
               root_nodes[i].left == nodes[i].left && root_nodes[i].right == nodes[i].right &&
               root_nodes[i].rank == nodes[i].rank;
    EXPECT(same, "partition differs from rank 0's");
    nodes = root_nodes;  // from here every rank builds the same scene

    Boxes<T, D> s = base;
    const T inf = std::numeric_limits<T>::infinity();
    const double places[3] = {-20, 0, 25};  // shared places on the other axes, so that boundary boxes meet
    std::vector<std::pair<int, double>> cuts;
    for (const Node& n : nodes)
        if (n.rank < 0) cuts.emplace_back(n.axis, n.cut);
    cuts.emplace_back(0, 0.0);  // one more at 0 (P = 1 has no cut)
    auto values = [&](double c) {
        // The cut itself when T holds it, else the nearest T; and the T on either side.
        const T v = static_cast<T>(c);
        return std::vector<T>{v, std::nextafter(v, -inf), std::nextafter(v, inf)};
    };
    for (const auto& kc : cuts) {
        const int k = kc.first;
        for (T v : values(kc.second)) {
            // Bars and a sheet across all other axes: they cross the other
            // cuts, so a pair of them is tested for ownership (a box inside
            // one region is not), at a point exactly on this cut.
            Box<T, D> bar;
            for (int j = 0; j < D; ++j) bar.min[j] = T(-300), bar.max[j] = T(300);
            bar.min[k] = v, bar.max[k] = v + T(2);
            s.push_back(bar);
            bar.min[k] = v - T(2), bar.max[k] = v;
            s.push_back(bar);
            bar.min[k] = v, bar.max[k] = v;
            s.push_back(bar);
            for (double place : places) {
                const T w = T(3);
                Box<T, D> b;
                for (int j = 0; j < D; ++j) {
                    b.min[j] = static_cast<T>(place) - w;
                    b.max[j] = static_cast<T>(place) + w;
                }
                Box<T, D> x = b;
                x.min[k] = v, x.max[k] = v + w;  // min on the cut
                s.push_back(x);
                x.min[k] = v - w, x.max[k] = v;  // max on the cut: touches the one before
                s.push_back(x);
                x.min[k] = v - w, x.max[k] = v + w;  // centred on the cut
                s.push_back(x);
                x.min[k] = v, x.max[k] = v;  // flat, lying in the cut
                s.push_back(x);
                for (int j = 0; j < D; ++j) x.min[j] = x.max[j] = j == k ? v : static_cast<T>(place);  // a point
                s.push_back(x);
            }
        }
    }
    // Corners: min or max on two cuts (different axes) at once.
    for (std::size_t i = 0; i < cuts.size(); ++i)
        for (std::size_t j = 0; j < cuts.size(); ++j) {
            const int k1 = cuts[i].first, k2 = cuts[j].first;
            if (k1 == k2) continue;
            const T c1 = static_cast<T>(cuts[i].second), c2 = static_cast<T>(cuts[j].second);
            Box<T, D> x;
            for (int q = 0; q < D; ++q) x.min[q] = T(-1), x.max[q] = T(1);
            x.min[k1] = c1, x.max[k1] = c1 + T(2), x.min[k2] = c2, x.max[k2] = c2 + T(2);
            s.push_back(x);
            x.min[k1] = c1 - T(2), x.max[k1] = c1, x.min[k2] = c2 - T(2), x.max[k2] = c2;
            s.push_back(x);
            x.min[k1] = x.max[k1] = c1, x.min[k2] = x.max[k2] = c2;
            s.push_back(x);
        }

    std::vector<bp::Pair> orc;
    if (me == 0) orc = oracle(s);
    const std::uint64_t total = bcast(orc.size());
    for (Dist d : all_dists) {
        const Assign as = distribute(s, d, P, seed + 1);
        const Problem<T, D> p = one_set_problem(s, Ids{&as, {}}, orc, total);
        for (Spec spec : deliveries()) {
            spec.rebalance = 1e300;  // keep the cuts the boxes were made for
            tally().where = cat(type_name<T, D>(), " boundaries [", s.size(), " boxes, ", cuts.size(), " cuts, ",
                                to_string(d), "] ", name_of(spec));
            std::vector<bm::IdPair> out;
            const bm::DistributedReport r = call(f, p, spec, out);
            check(p.e, spec, r, out);
            EXPECT(!r.stats.repartitioned && f.partition() == part, "the partition changed");
        }
    }
}

// One finder frame after frame: boxes moved slightly each frame (the
// partition kept while balanced), then a drastic change (all boxes in one
// far corner: the old partition would put them all on one rank, so the
// finder must build a new one), then small moves again. Every frame is
// checked, and a second finder given the same frames must give the same
// output in the same order.
template <class T, int D>
void frames() {
    Boxes<T, D> s = convert<T, D>(broadphase_fixtures::uniform(3000, 21));
    const Assign as = distribute(s, Dist::contiguous, P, 4);
    bm::BasicDistributedPairFinder<T, D> f1(comm), f2(comm);
    const int n_frames = 9, drastic = 5;
    double balance0 = 0;
    for (int frame = 0; frame < n_frames; ++frame) {
        Random r(1000 + frame);
        for (std::size_t i = 0; i < s.size(); ++i)
            for (int k = 0; k < D; ++k) {
                double lo = s.min(k)[i], hi = s.max(k)[i];
                if (frame == drastic) {
                    lo = 5000 + lo * 0.02;
                    hi = 5000 + hi * 0.02;
                } else if (frame > 0) {
                    const double dx = r.uniform(-0.5, 0.5);
                    lo += dx;
                    hi += dx;
                }
                s.min(k)[i] = static_cast<T>(lo);
                s.max(k)[i] = static_cast<T>(hi);
            }
        std::vector<bp::Pair> orc;
        if (me == 0) orc = oracle(s);
        const std::uint64_t total = bcast(orc.size());
        const Problem<T, D> p = one_set_problem(s, Ids{&as, {}}, orc, total);
        for (Spec spec : {Spec{}, Spec{bm::Delivery::to_holders}}) {
            tally().where = cat(type_name<T, D>(), " frames [", s.size(), " boxes, frame ", frame, "] ", name_of(spec));
            bm::BasicDistributedPairFinder<T, D>& f = spec.delivery == bm::Delivery::keep ? f1 : f2;
            std::vector<bm::IdPair> out;
            const bm::DistributedReport r = call(f, p, spec, out);
            check(p.e, spec, r, out);
            if (frame == 0) {
                EXPECT(r.stats.repartitioned || P == 1, "the first frame must build a partition");
                balance0 = r.stats.max_held / std::max(1.0, r.stats.mean_held);
            } else if (frame == drastic) {
                if (P > 1) EXPECT(r.stats.repartitioned, "a drastic change must re-partition");
            } else if (frame < drastic && balance0 <= 1.2) {
                EXPECT(!r.stats.repartitioned, "small moves re-partitioned (first frame's balance ", balance0, ")");
            }
            // The same frames through another finder: the same output, in the same order.
            if (frame == 0) {
                std::vector<bm::IdPair> again;
                bm::BasicDistributedPairFinder<T, D> fresh(comm);
                call(fresh, p, spec, again);
                EXPECT(again == out, "a fresh finder's first frame differs");
            }
        }
    }
    // Two finders fed the same frames agree frame by frame.
    Boxes<T, D> t = convert<T, D>(broadphase_fixtures::uniform(1500, 22));
    const Assign at = distribute(t, Dist::random, P, 9);
    const Problem<T, D> base = one_set_problem(t, Ids{&at, {}}, {}, 0);
    bm::BasicDistributedPairFinder<T, D> g1(comm), g2(comm);
    for (int frame = 0; frame < 4; ++frame) {
        Problem<T, D> p = base;
        for (std::size_t i = 0; i < p.a.size(); ++i)
            for (int k = 0; k < D; ++k) {
                p.a.min(k)[i] += static_cast<T>(frame * (frame == 3 ? 500 : 0.3));
                p.a.max(k)[i] += static_cast<T>(frame * (frame == 3 ? 500 : 0.3));
            }
        std::vector<bm::IdPair> o1, o2;
        const Spec spec{bm::Delivery::to_holders};
        g1.find_pairs(p.a, o1, options_of(spec));
        g2.find_pairs(p.a, o2, options_of(spec));
        tally().where = cat(type_name<T, D>(), " frames, two finders [frame ", frame, "]");
        EXPECT(o1 == o2, "two finders given the same frames differ: ", o1.size(), " vs ", o2.size(), " pairs");
    }
    // The number of boxes changes from frame to frame (3000, 400, none,
    // 2200, spread afresh each time), and invalidate_partition() forces a
    // new partition on the next call.
    const Boxes<T, D> big = convert<T, D>(broadphase_fixtures::mixed(3000, 23));
    bm::BasicDistributedPairFinder<T, D> h(comm);
    const std::size_t sizes[] = {3000, 400, 0, 2200, 2200};
    for (int frame = 0; frame < 5; ++frame) {
        Boxes<T, D> u;
        for (std::size_t i = 0; i < sizes[frame]; ++i) u.push_back(big[i]);
        std::vector<bp::Pair> orc;
        if (me == 0) orc = oracle(u);
        const std::uint64_t total = bcast(orc.size());
        const Assign au = distribute(u, frame % 2 ? Dist::random : Dist::contiguous, P, 30 + frame);
        const Problem<T, D> p = one_set_problem(u, Ids{&au, {}}, orc, total);
        const Spec spec{frame % 2 ? bm::Delivery::to_holders : bm::Delivery::keep};
        if (frame == 4) h.invalidate_partition();
        tally().where = cat(type_name<T, D>(), " frames of changing size [frame ", frame, ", ", u.size(), " boxes] ",
                            name_of(spec));
        std::vector<bm::IdPair> out;
        const bm::DistributedReport r = call(h, p, spec, out);
        check(p.e, spec, r, out);
        if (frame == 4) EXPECT(r.stats.repartitioned || P == 1, "invalidate_partition() did not re-partition");
    }
}

// Many small random scenes, each with its own size (0 to 600 boxes),
// spread, offset, box sizes, share of invalid and infinite boxes,
// distribution, delivery, ids, sorting, rebalance threshold and sample
// count; a third of them two-set calls. Each goes to a fresh finder (twice,
// but for gather) and to one finder kept through all the trials, whose
// partition was built for another scene. Drawn from `seed`, the same on
// every rank.
template <class T, int D>
Boxes<T, D> sweep_scene(Random& r, std::size_t n, double& spread, double& offset, std::size_t& odd) {
    const double spreads[] = {1, 10, 100, 1e4};
    const double offsets[] = {0, -1e4, 1e6};
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    spread = spreads[r.below(4)];
    offset = offsets[r.below(3)];
    const double size = spread * r.uniform(0, 0.3);
    Boxes<T, D> s = random_scene<T, D>(n, r.next(), offset, spread, 0, size);
    odd = r.below(3) == 0 ? r.below(n / 10 + 2) : 0;  // invalid or infinite boxes
    for (std::size_t j = 0; j < odd && n > 0; ++j) {
        Box<T, D> b = s[r.below(n)];
        const int k = static_cast<int>(r.below(D));
        switch (r.below(4)) {
            case 0: b.min[k] = nan; break;
            case 1: std::swap(b.min[k], b.max[k]), b.max[k] -= T(1); break;
            case 2: b.min[k] = -inf, b.max[k] = inf; break;
            default: b.max[k] = inf;
        }
        s.set(r.below(n), b);
    }
    return s;
}

template <class T, int D>
void random_sweep(int trials, std::uint64_t seed) {
    Random r(seed);
    bm::BasicDistributedPairFinder<T, D> kept(comm);
    for (int t = 0; t < trials; ++t) {
        const bool two = r.below(3) == 0;
        auto size = [&] { return r.below(4) == 0 ? r.below(8) : r.below(600); };
        double spread = 0, offset = 0, spread_b = 0, offset_b = 0;
        std::size_t odd = 0, odd_b = 0;
        const Boxes<T, D> s = sweep_scene<T, D>(r, size(), spread, offset, odd);
        const Boxes<T, D> sb = two ? sweep_scene<T, D>(r, size(), spread_b, offset_b, odd_b) : Boxes<T, D>();
        const Dist d = all_dists[r.below(5)], db = all_dists[r.below(5)];
        const std::vector<Spec> specs = deliveries();
        Spec spec = specs[r.below(specs.size())];
        spec.sorted = r.below(2);
        const double rebalance[] = {1.0, 1.3, 2.0, 1e300};
        spec.rebalance = rebalance[r.below(4)];
        const std::size_t samples[] = {0, 1, 16, 1024};
        spec.samples = samples[r.below(4)];
        const bool custom = r.below(2);
        std::vector<bp::Pair> orc;
        if (me == 0) orc = two ? oracle(s, sb) : oracle(s);
        const std::uint64_t total = bcast(orc.size());
        const Assign as = distribute(s, d, P, r.next()), asb = distribute(sb, db, P, r.next());
        Ids ids{&as, {}}, ids_b{&asb, {}};
        if (custom)
            for (std::size_t i = 0; i < s.size(); ++i) ids.custom.push_back(custom_id(i, s.size(), t));
        Problem<T, D> p;
        if (two) {
            p.two = true;
            p.a = local_boxes(s, as.lists[me]);
            p.b = local_boxes(sb, asb.lists[me]);
            p.ids_a = ids.local(me);
            p.e = expect_two(s, ids, sb, ids_b, orc, total, me);
        } else {
            p = one_set_problem(s, ids, orc, total);
        }
        tally().where = cat(type_name<T, D>(), " random sweep ", t, " [", s.size(), " boxes, spread ", spread,
                            ", offset ", offset, ", ", odd, " odd, ", to_string(d),
                            two ? cat("; B: ", sb.size(), " boxes, spread ", spread_b, ", offset ", offset_b, ", ",
                                      odd_b, " odd, ", to_string(db))
                                : std::string(),
                            custom ? ", custom ids" : "", ", rebalance ", spec.rebalance, ", ", spec.samples,
                            " samples] ", name_of(spec));
        run_checked(p, spec, spec.delivery != bm::Delivery::gather);
        std::vector<bm::IdPair> out;
        tally().where += " (kept finder)";
        check(p.e, spec, call(kept, p, spec, out), out);
    }
}

template <class T, int D>
void generic_scenes() {
    one_set<T, D>("random", random_scene<T, D>(1500, 101));
    one_set<T, D>("clusters", clusters<T, D>(2000, 102));
    one_set<T, D>("plane (zero thickness)", plane<T, D>(1200, 103));
    one_set<T, D>("far outliers", outliers<T, D>(1000, 104));
    one_set<T, D>("one box covering all", cover<T, D>(1000, 105));
    one_set<T, D>("infinite slabs", slabs<T, D>(800, 106));
    one_set<T, D>("NaN and inverted", with_invalid<T, D>(1200, 107));
    one_set<T, D>("identical", identical<T, D>(250), {Dist::contiguous, Dist::random, Dist::last});
    one_set<T, D>("points", points<T, D>(600, 108), {Dist::contiguous, Dist::random, Dist::spatial});
    one_set<T, D>("negative", random_scene<T, D>(1200, 109, -5000, 100, 0, 10), {Dist::spatial, Dist::rank0});
    one_set<T, D>("1e7 offset", random_scene<T, D>(1200, 110, 1e7, 100, 0, 10),
                  {Dist::contiguous, Dist::random, Dist::last});
    one_set<T, D>("-1e7 offset", random_scene<T, D>(1200, 111, -1e7, 100, 0, 10), {Dist::random});
    one_set<T, D>("empty everywhere", Boxes<T, D>());
    one_set<T, D>("one box", random_scene<T, D>(1, 112), {Dist::rank0, Dist::last});
    two_sets<T, D>("random", random_scene<T, D>(900, 120, 0, 60, 0, 8), with_invalid<T, D>(700, 121));
    boundaries<T, D>(130);
    random_sweep<T, D>(80, 150);
}

void run_float3();
void run_double3();
void run_float2();

}  // namespace mpitest
