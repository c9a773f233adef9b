// The distributed broad phase: every overlapping pair among the boxes of all
// ranks of an MPI communicator, each pair reported once, the same pairs as
// one process would find.
//
//   #include <broadphase/mpi/distributed.hpp>     // link broadphase::mpi
//
//   broadphase::mpi::DistributedPairFinder finder(MPI_COMM_WORLD);
//   std::vector<broadphase::mpi::IdPair> pairs;   // global ids
//   broadphase::mpi::DistributedReport r = finder.find_pairs(my_boxes, pairs);
//
// How (docs/distributed.md has the details and the measurements):
// 1. Partition: each rank samples the centres of its boxes; the samples are
//    gathered on every rank, which all build the same Partition (recursive
//    coordinate bisection balanced by box count; partition.hpp). A finder
//    keeps its partition frame after frame while the largest rank holds at
//    most `rebalance` times the mean number of boxes.
// 2. Exchange: one pass over the boxes sends each valid box to every region
//    it overlaps, point to point after an MPI_Alltoall of counts; a rank's
//    own copies skip MPI (a copy outside its home region is a ghost).
// 3. Local find: the single-process PairFinder on the boxes each rank holds.
// 4. Ownership: a pair is kept by the rank whose region holds the max of
//    the two min corners: a point inside both boxes, so exactly one rank
//    holds both and keeps the pair. A pair with a box lying inside this
//    rank's region alone needs no test.
// 5. Delivery: pairs stay where they were found, go to the ranks that
//    passed either box (for a simulation's narrow phase), or are gathered on
//    one rank.
//
// Invalid boxes (NaN, min > max) take part in no pair and are reported by
// global id on the rank that passed them. Every call is collective: every
// rank of the communicator must make it, with one set or two on every rank;
// the options that shape the exchange (delivery, root, rebalance, samples)
// are taken from rank 0.
//
// The files: this header holds the finder (steps 1, 3 and 4, and the order
// of a call) and includes the others: types.hpp (IdPair, Delivery, the
// options and the report), partition.hpp (the Partition of step 1) and
// exchange.hpp (the communication layer: the boxes' exchange of step 2 and
// the pairs' delivery of step 5).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/exceptions.hpp>
#include "exchange.hpp"   // the communication layer (and <mpi.h>): boxes to regions, pairs to ranks
#include "partition.hpp"
#include "types.hpp"      // IdPair, Delivery, DistributedOptions, FrameStats, DistributedReport

namespace broadphase {
namespace mpi {

/// Finds pairs across all ranks of a communicator, frame after frame,
/// keeping its partition and its buffers between calls. One per
/// communicator; not thread-safe. Every call is collective.
template <class T, int D>
class BasicDistributedPairFinder {
public:
    using boxes_type = BasicBoxes<T, D>;

    /// Works on a duplicate of `comm` (MPI_Comm_dup), so its messages never
    /// meet the caller's. Collective over `comm`, like every call.
    explicit BasicDistributedPairFinder(MPI_Comm comm) {
        MPI_Comm_dup(comm, &comm_);
        MPI_Comm_rank(comm_, &rank_);
        MPI_Comm_size(comm_, &size_);
    }

    /// Frees the duplicate communicator (not after MPI_Finalize: MPI freed it).
    ~BasicDistributedPairFinder() {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Comm_free(&comm_);
    }
    BasicDistributedPairFinder(const BasicDistributedPairFinder&) = delete;
    BasicDistributedPairFinder& operator=(const BasicDistributedPairFinder&) = delete;

    /// All pairs within the union of every rank's `boxes`, as global ids
    /// (rank offset + local index: ranks in order, each rank's boxes in
    /// order). Into `out` (replaced) per options.delivery. Collective.
    /// Cost per rank, for n boxes over P ranks: O(n/P) to pack and unpack,
    /// the boxes crossing regions on the network, the local find on the
    /// boxes held, O(log P) per pair between two ghosts.
    DistributedReport find_pairs(const boxes_type& boxes, std::vector<IdPair>& out, const DistributedOptions& options = {}) {
        return run(&boxes, nullptr, nullptr, nullptr, out, options);
    }

    /// Same, with the caller's global ids (ids[i] for box i; unique over
    /// all ranks, or pairs of boxes sharing an id come out as (id, id)).
    DistributedReport find_pairs(const boxes_type& boxes, const std::uint64_t* ids, std::vector<IdPair>& out,
                      const DistributedOptions& options = {}) {
        return run(&boxes, ids, nullptr, nullptr, out, options);
    }

    /// All pairs between the union of every rank's `a` and the union of
    /// every rank's `b` (either may be empty on any rank), as (id in a, id
    /// in b). Ids of each set default to rank offset + local index within
    /// that set; pass ids_a / ids_b (or null) to choose them. Collective.
    DistributedReport find_pairs(const boxes_type& a, const std::uint64_t* ids_a, const boxes_type& b,
                      const std::uint64_t* ids_b, std::vector<IdPair>& out, const DistributedOptions& options = {}) {
        return run(&a, ids_a, &b, ids_b, out, options);
    }

    /// Builds a new partition on the next call, whatever the balance.
    void invalidate_partition() { have_partition_ = false; }

    /// The partition the last call used (the same on every rank).
    const Partition<D>& partition() const { return partition_; }

    int rank() const { return rank_; }
    int size() const { return size_; }
    MPI_Comm communicator() const { return comm_; }

private:
    using Input = detail_mpi::Input<T, D>;
    using Holders = detail_mpi::Holders;

    DistributedReport run(const boxes_type* a, const std::uint64_t* ids_a, const boxes_type* b, const std::uint64_t* ids_b,
               std::vector<IdPair>& out, const DistributedOptions& caller) {
        using namespace detail_mpi;
        const DistributedOptions opt = shared_options(caller);
        DistributedReport report;
        FrameStats& st = report.stats;
        const double t0 = now_ms();
        out.clear();
        const bool two = b != nullptr;
        st.ranks = size_;

        // Default ids: each set numbered across ranks in rank order.
        std::uint64_t counts[2] = {a->size(), two ? b->size() : 0};
        std::uint64_t offsets[2] = {0, 0};
        MPI_Exscan(counts, offsets, 2, MPI_UINT64_T, MPI_SUM, comm_);
        if (rank_ == 0) offsets[0] = offsets[1] = 0;  // MPI_Exscan leaves rank 0's undefined
        Input inputs[2] = {{a, ids_a, offsets[0], &report.invalid_a},
                           {two ? b : a, ids_b, offsets[1], &report.invalid_b}};
        const int n_inputs = two ? 2 : 1;

        // One rank: no partition and no exchange; the local find runs on the
        // caller's boxes as they are (it skips the invalid ones itself).
        if (size_ == 1) {
            if (agree(report, scan_valid(inputs, n_inputs, st))) return finish(report, t0);
            totals(report);
            const double t3 = now_ms();
            st.boxes_held = st.boxes_in;
            st.max_held = st.boxes_in;
            st.mean_held = static_cast<double>(st.boxes_in);
            Status fs = find_alone(inputs, two, opt, st, out);
            if (fs == Status::ok && opt.local.sorted) std::sort(out.begin(), out.end());
            st.ms_find = now_ms() - t3;
            if (agree(report, fs)) return finish(report, t0);
            report.total_pairs = st.pairs_owned;
            report.pairs = out.size();
            return finish(report, t0);
        }

        // 1. Partition (kept while balanced), then one pass over the boxes:
        //    validity, the regions each overlaps, copies for this rank into
        //    the held sets and for the others into their outboxes. If the
        //    largest rank would hold too many, re-partition and pass again.
        const double t1 = now_ms();
        if (!have_partition_ || partition_.regions() != size_) {
            if (agree(report, repartition(inputs, n_inputs, opt))) return finish(report, t0);
            st.repartitioned = true;
        }
        for (;;) {
            const double ts = now_ms();
            if (agree(report, boxes_.scatter(partition_, rank_, size_, inputs, n_inputs, st))) return finish(report, t0);
            st.ms_exchange += now_ms() - ts;
            std::uint64_t held = boxes_.count(comm_, rank_, size_);
            held_by_.resize(static_cast<std::size_t>(size_));
            MPI_Allgather(&held, 1, MPI_UINT64_T, held_by_.data(), 1, MPI_UINT64_T, comm_);
            std::uint64_t sum = 0, max = 0;
            for (std::uint64_t h : held_by_) {
                sum += h;
                max = std::max(max, h);
            }
            st.max_held = max;
            st.mean_held = static_cast<double>(sum) / size_;
            if (st.repartitioned || static_cast<double>(max) <= opt.rebalance * st.mean_held || sum == 0) break;
            if (agree(report, repartition(inputs, n_inputs, opt))) return finish(report, t0);
            st.repartitioned = true;
        }
        totals(report);
        st.ms_partition = now_ms() - t1 - st.ms_exchange;

        // 2. Exchange.
        const double t2 = now_ms();
        if (agree(report, boxes_.exchange(partition_, comm_, rank_, size_, st))) return finish(report, t0);
        st.ms_exchange += now_ms() - t2;

        // 3. Local find and the ownership filter.
        const double t3 = now_ms();
        if (agree(report, find_local(two, opt, st, out))) return finish(report, t0);
        st.ms_find = now_ms() - t3;

        // 4. Delivery.
        const double t4 = now_ms();
        Status ds = Status::ok;
        if (opt.delivery == Delivery::to_holders)
            ds = delivery_.to_holders(comm_, rank_, size_, holders_, out, st);
        else if (opt.delivery == Delivery::gather)
            ds = delivery_.gather(comm_, rank_, size_, out, opt.root, st);
        if (ds == Status::ok && opt.local.sorted) std::sort(out.begin(), out.end());
        if (agree(report, ds)) return finish(report, t0);
        st.ms_delivery = now_ms() - t4;

        std::uint64_t owned = st.pairs_owned;
        MPI_Allreduce(&owned, &report.total_pairs, 1, MPI_UINT64_T, MPI_SUM, comm_);
        report.pairs = out.size();
        return finish(report, t0);
    }

    // Invalid and valid boxes over all ranks.
    void totals(DistributedReport& report) {
        const std::uint64_t mine[2] = {report.invalid_a.size() + report.invalid_b.size(), report.stats.boxes_in};
        std::uint64_t all[2] = {0, 0};
        MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, comm_);
        report.total_invalid = all[0];
        report.stats.total_boxes = all[1];
    }

    // The one-rank path's validity check: counts the valid boxes and lists the invalid ones.
    Status scan_valid(const Input* inputs, int n_inputs, FrameStats& st) {
        Status status = Status::ok;
        const Status escaped = detail_mpi::guarded_status([&] {
            for (int s = 0; s < n_inputs; ++s) {
                const boxes_type& bx = *inputs[s].boxes;
                if (!fits_indices(bx.size())) {
                    status = Status::too_many_boxes;
                    return;
                }
                for (std::size_t i = 0; i < bx.size(); ++i) {
                    if (valid_box(bx, i))
                        ++st.boxes_in;
                    else
                        inputs[s].invalid->push_back(detail_mpi::id_of(inputs[s], i));
                }
            }
        });
        return escaped != Status::ok ? escaped : status;
    }

    // The options every rank must agree on (delivery, root, rebalance,
    // samples), taken from rank 0: ranks passing different ones would
    // otherwise wait in different collectives. The local ones (algorithm,
    // threads, sorted, max_pairs) stay each rank's own.
    DistributedOptions shared_options(const DistributedOptions& mine) {
        DistributedOptions o = mine;
        double v[4] = {static_cast<double>(static_cast<int>(mine.delivery)), static_cast<double>(mine.root),
                       mine.rebalance, static_cast<double>(mine.samples_per_rank)};
        MPI_Bcast(v, 4, MPI_DOUBLE, 0, comm_);
        o.delivery = static_cast<Delivery>(static_cast<int>(v[0]));
        o.root = static_cast<int>(v[1]);
        if (o.root < 0 || o.root >= size_) o.root = 0;
        o.rebalance = v[2];
        o.samples_per_rank = static_cast<std::size_t>(v[3]);
        return o;
    }

    static bool valid_box(const boxes_type& bx, std::size_t i) {
        for (int k = 0; k < D; ++k)
            if (!detail::valid_interval(bx.min(k)[i], bx.max(k)[i])) return false;
        return true;
    }

    // Combines the ranks' statuses (the worst wins); true when the call must stop.
    bool agree(DistributedReport& report, Status local) {
        int mine = detail_mpi::status_code(local), all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, comm_);
        // A budget overrun is reported but does not stop the call.
        if (all == detail_mpi::status_code(Status::pair_budget_exceeded)) {
            report.status = Status::pair_budget_exceeded;
            return false;
        }
        if (all != detail_mpi::status_code(Status::ok)) report.status = static_cast<Status>(all);
        return all != detail_mpi::status_code(Status::ok);
    }

    DistributedReport& finish(DistributedReport& report, double t0) {
        report.stats.ms_total = detail_mpi::now_ms() - t0;
        if (!report.ok() && report.status != Status::pair_budget_exceeded) {
            report.pairs = 0;
        }
        return report;
    }

    // Samples box centres, gathers them on every rank and builds the partition.
    Status repartition(const Input* inputs, int n_inputs, const DistributedOptions& opt) {
        Status s = Status::ok;
        std::size_t per_rank = opt.samples_per_rank ? opt.samples_per_rank : 1;
        const std::size_t cap = std::size_t(1) << 18;
        if (per_rank * static_cast<std::size_t>(size_) > cap) per_rank = std::max<std::size_t>(16, cap / size_);
        std::vector<Sample<D>> mine;
        const Status escaped = detail_mpi::guarded_status([&] {
            for (int si = 0; si < n_inputs; ++si) {
                // Evenly spaced, deterministic. A sample stands for n/m boxes;
                // one that lands on an invalid box (or an infinite slab) is
                // dropped with the boxes it stands for.
                const std::size_t n = inputs[si].boxes->size();
                if (n == 0) continue;
                const std::size_t m = std::min(n, per_rank);
                const double w = static_cast<double>(n) / static_cast<double>(m);
                for (std::size_t j = 0; j < m; ++j) {
                    const std::size_t i = static_cast<std::size_t>((j * 2 + 1) * static_cast<double>(n) / (2 * m));
                    Sample<D> smp;
                    if (!sample_point(*inputs[si].boxes, i, smp.at)) continue;
                    smp.weight = w;
                    mine.push_back(smp);
                }
            }
        });
        if (escaped != Status::ok) {
            s = escaped;
            mine.clear();
        }
        const detail_mpi::ByteType sample_type(sizeof(Sample<D>));
        int count = static_cast<int>(mine.size());
        std::vector<int> counts(size_), displs(size_);
        MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
        int total = 0;
        for (int r = 0; r < size_; ++r) {
            displs[r] = total;
            total += counts[r];
        }
        std::vector<Sample<D>> all(static_cast<std::size_t>(total));
        MPI_Allgatherv(mine.data(), count, sample_type.get(), all.data(), counts.data(), displs.data(),
                       sample_type.get(), comm_);
        partition_ = Partition<D>::build(all, size_);
        have_partition_ = true;
        return s;
    }

    // The one-rank path: every pair is this rank's; indices map to ids.
    Status find_alone(const Input* inputs, bool two, const DistributedOptions& opt, FrameStats& st,
                      std::vector<IdPair>& out) {
        Options o = opt.local;
        o.sorted = false;
        o.max_pairs = no_budget;
        broadphase::Report r = two ? finder_.find_pairs(*inputs[0].boxes, *inputs[1].boxes, local_, o)
                                   : finder_.find_pairs(*inputs[0].boxes, local_, o);
        if (!r.ok()) return r.status;
        st.pairs_found = local_.size();
        st.pairs_owned = local_.size();
        const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(local_.size(), opt.local.max_pairs));
        if (!detail_mpi::try_resize(out, keep)) return Status::out_of_memory;
        const Input& ia = inputs[0];
        const Input& ib = inputs[two ? 1 : 0];
        for (std::size_t i = 0; i < keep; ++i) {
            IdPair q{detail_mpi::id_of(ia, local_[i].a), detail_mpi::id_of(ib, local_[i].b)};
            if (!two && q.b < q.a) std::swap(q.a, q.b);
            out[i] = q;
        }
        return keep < local_.size() ? Status::pair_budget_exceeded : Status::ok;
    }

    // The local find on the held boxes and the ownership filter (step 4 of
    // the overview); for Delivery::to_holders it also notes, in holders_,
    // the ranks that passed the boxes of each pair kept.
    Status find_local(bool two, const DistributedOptions& opt, FrameStats& st, std::vector<IdPair>& out) {
        Options o = opt.local;
        o.sorted = false;
        o.max_pairs = no_budget;
        broadphase::Report r;
        if (two)
            r = finder_.find_pairs(boxes_.held(0), boxes_.held(1), local_, o);
        else
            r = finder_.find_pairs(boxes_.held(0), local_, o);
        if (!r.ok()) return r.status;
        st.pairs_found = local_.size();
        const int sb = two ? 1 : 0;
        const boxes_type& ha = boxes_.held(0);
        const boxes_type& hb = boxes_.held(sb);
        const std::vector<std::uint8_t>& in_a = boxes_.interior(0);
        const std::vector<std::uint8_t>& in_b = boxes_.interior(sb);
        Status s = Status::ok;
        const bool holders = opt.delivery == Delivery::to_holders;
        holders_.clear();
        const Status escaped = detail_mpi::guarded_status([&] {
            out.reserve(std::min<std::uint64_t>(local_.size(), opt.local.max_pairs));
            if (holders) holders_.reserve(out.capacity());
            for (const Pair& p : local_) {
                if (!in_a[p.a] && !in_b[p.b]) {
                    // Both straddle regions: the owner holds the max of the min corners.
                    T m[D];
                    for (int k = 0; k < D; ++k) m[k] = std::max(ha.min(k)[p.a], hb.min(k)[p.b]);
                    if (partition_.rank_of(m) != rank_) continue;
                }
                if (out.size() >= opt.local.max_pairs) {
                    s = Status::pair_budget_exceeded;
                    ++st.pairs_owned;
                    continue;
                }
                IdPair q{boxes_.ids(0)[p.a], boxes_.ids(sb)[p.b]};
                if (!two && q.b < q.a) std::swap(q.a, q.b);
                out.push_back(q);
                if (holders) holders_.emplace_back(boxes_.source_of(0, p.a), boxes_.source_of(sb, p.b));
                ++st.pairs_owned;
            }
        });
        return escaped != Status::ok ? escaped : s;
    }

    MPI_Comm comm_;
    int rank_ = 0;
    int size_ = 1;
    bool have_partition_ = false;
    Partition<D> partition_;
    std::vector<std::uint64_t> held_by_;         // boxes each rank would hold
    detail_mpi::BoxExchange<T, D> boxes_;        // the boxes held, in rank order, and their ids
    detail_mpi::PairDelivery delivery_;
    std::vector<Pair> local_;
    std::vector<Holders> holders_;               // [i]: the ranks that passed the boxes of out[i]
    BasicPairFinder<T, D> finder_;
};

using DistributedPairFinder = BasicDistributedPairFinder<float, 3>;

/// One-shot: all pairs within the union of every rank's boxes (see
/// BasicDistributedPairFinder::find_pairs). Keep a finder between frames
/// to reuse its partition and memory. Collective.
template <class T, int D>
DistributedReport find_pairs(MPI_Comm comm, const BasicBoxes<T, D>& boxes, std::vector<IdPair>& out,
                  const DistributedOptions& options = {}) {
    BasicDistributedPairFinder<T, D> finder(comm);
    return finder.find_pairs(boxes, out, options);
}

}  // namespace mpi
}  // namespace broadphase
