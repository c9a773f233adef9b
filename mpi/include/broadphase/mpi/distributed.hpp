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
#pragma once

// The C API only: OpenMPI's and MPICH's deprecated C++ bindings are not used.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/exceptions.hpp>
#include "partition.hpp"

namespace broadphase {
namespace mpi {

/// A pair of global ids. Within one set a < b; between two sets a is an id
/// of the first set and b of the second.
struct IdPair {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
};
inline bool operator==(const IdPair& x, const IdPair& y) { return x.a == y.a && x.b == y.b; }
inline bool operator!=(const IdPair& x, const IdPair& y) { return !(x == y); }
inline bool operator<(const IdPair& x, const IdPair& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; }

/// Where the pairs end up.
enum class Delivery {
    keep,        ///< on the rank that found (owns) them: each pair on exactly one rank
    to_holders,  ///< on each rank that passed one of the two boxes (once if it passed both)
    gather,      ///< all on DistributedOptions::root, none elsewhere
};

/// Name used by the CLI and the docs ("keep", "to_holders", "gather").
inline const char* to_string(Delivery d) {
    switch (d) {
        case Delivery::keep: return "keep";
        case Delivery::to_holders: return "to_holders";
        case Delivery::gather: return "gather";
    }
    return "unknown";
}

struct DistributedOptions {
    /// The single-process options each rank uses for its local find
    /// (algorithm, threads). `sorted` sorts each rank's output by (a, b);
    /// `max_pairs` caps the pairs each rank keeps (before delivery).
    Options local;
    Delivery delivery = Delivery::keep;
    /// The rank that receives every pair with Delivery::gather (0 when out of range).
    int root = 0;
    /// Re-partition when the largest rank would hold more than this many
    /// times the mean number of boxes (ghosts included).
    double rebalance = 1.3;
    /// Box centres each rank samples for the partition; fewer per rank on
    /// large communicators so that the gathered sample stays under 2^18.
    std::size_t samples_per_rank = 1024;
};

/// What one call cost this rank, and the partition's balance.
struct FrameStats {
    std::uint64_t boxes_in = 0;        ///< valid boxes this rank passed
    std::uint64_t boxes_held = 0;      ///< boxes held after the exchange (ghosts included)
    std::uint64_t ghosts = 0;          ///< held boxes whose home (min corner) is another region
                                       ///< (rank 0, lowest on every cut, has none)
    std::uint64_t pairs_found = 0;     ///< pairs the local find reported (owned or not)
    std::uint64_t pairs_owned = 0;     ///< of those, the pairs this rank owns
    std::uint64_t bytes_sent = 0;      ///< sent to other ranks (exchange and delivery)
    std::uint64_t bytes_received = 0;  ///< received from other ranks
    std::uint64_t total_boxes = 0;     ///< valid boxes over all ranks (each once)
    std::uint64_t max_held = 0;        ///< largest boxes_held over all ranks
    double mean_held = 0;              ///< mean boxes_held over all ranks
    /// Ghost copies over all ranks per valid box: mean_held * P / total_boxes - 1.
    double ghost_fraction() const {
        return total_boxes ? mean_held * static_cast<double>(ranks) / static_cast<double>(total_boxes) - 1 : 0;
    }
    int ranks = 1;                     ///< the communicator's size
    bool repartitioned = false;        ///< this call built a new partition
    double ms_partition = 0;           ///< sampling, gathering, building, balance check
    double ms_exchange = 0;            ///< packing, MPI_Alltoallv, unpacking
    double ms_find = 0;                ///< local find and ownership filter
    double ms_delivery = 0;            ///< moving pairs to where they are delivered
    double ms_total = 0;
};

/// What a call did. `status` is the same on every rank: the worst of all
/// ranks' (an allocation failing on one rank fails the call everywhere).
struct DistributedReport {
    Status status = Status::ok;
    std::uint64_t pairs = 0;                ///< pairs in this rank's output
    std::uint64_t total_pairs = 0;          ///< pairs owned over all ranks (each pair once)
    std::vector<std::uint64_t> invalid_a;   ///< global ids of this rank's invalid boxes (first set)
    std::vector<std::uint64_t> invalid_b;   ///< same for the second set of a two-set call
    std::uint64_t total_invalid = 0;        ///< invalid boxes over all ranks and sets
    FrameStats stats;
    bool ok() const { return status == Status::ok; }
};

namespace detail_mpi {

// One box on the wire.
template <class T, int D>
struct Record {
    T lo[D];
    T hi[D];
    std::uint64_t id;
};

inline double now_ms() { return MPI_Wtime() * 1000.0; }

// A contiguous MPI datatype of `bytes` bytes, freed with the object.
class ByteType {
public:
    explicit ByteType(std::size_t bytes) {
        MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type_);
        MPI_Type_commit(&type_);
    }
    // A finder may outlive MPI_Finalize (destroyed at the end of main):
    // then the type is gone with MPI and must not be freed.
    ~ByteType() {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized) MPI_Type_free(&type_);
    }
    ByteType(const ByteType&) = delete;
    ByteType& operator=(const ByteType&) = delete;
    MPI_Datatype get() const { return type_; }

private:
    MPI_Datatype type_;
};

inline int status_code(Status s) { return static_cast<int>(s); }

// The library's status boundary (detail::guarded) for a body that returns
// nothing: Status::ok, or what escaped it (out_of_memory, too_many_boxes).
template <class Body>
Status guarded_status(Body&& body) {
    Report r;
    return detail::guarded(r, std::forward<Body>(body)) ? Status::ok : r.status;
}

// Grows a vector without throwing: false (and the vector unchanged) on failure.
template <class V>
bool try_resize(V& v, std::size_t n) {
    return guarded_status([&] { v.resize(n); }) == Status::ok;
}

}  // namespace detail_mpi

/// Finds pairs across all ranks of a communicator, frame after frame,
/// keeping its partition and its buffers between calls. One per
/// communicator; not thread-safe. Every call is collective.
template <class T, int D>
class BasicDistributedPairFinder {
public:
    using boxes_type = BasicBoxes<T, D>;

    /// Works on a duplicate of `comm` (MPI_Comm_dup), so its messages never
    /// meet the caller's. Collective over `comm`, like every call.
    explicit BasicDistributedPairFinder(MPI_Comm comm) : record_type_(sizeof(Rec)), pair_type_(sizeof(IdPair)) {
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
    using Rec = detail_mpi::Record<T, D>;

    struct Input {
        const boxes_type* boxes;
        const std::uint64_t* ids;
        std::uint64_t offset;  // default ids: offset + index
        std::vector<std::uint64_t>* invalid;
    };

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
            if (agree(report, scatter(inputs, n_inputs, st))) return finish(report, t0);
            st.ms_exchange += now_ms() - ts;
            // Two counts per peer: its boxes of the first set, then of the second.
            for (int r = 0; r < size_; ++r)
                for (int s = 0; s < 2; ++s)
                    send_counts_[2 * r + s] = r == rank_ ? self_n_[s] : outbox_[2 * r + s].size();
            MPI_Alltoall(send_counts_.data(), 2, MPI_UINT64_T, recv_counts_.data(), 2, MPI_UINT64_T, comm_);
            std::uint64_t held = 0;
            for (std::uint64_t c : recv_counts_) held += c;
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
        if (agree(report, exchange(st))) return finish(report, t0);
        st.ms_exchange += now_ms() - t2;

        // 3. Local find and the ownership filter.
        const double t3 = now_ms();
        if (agree(report, find_local(two, opt, st, out))) return finish(report, t0);
        st.ms_find = now_ms() - t3;

        // 4. Delivery.
        const double t4 = now_ms();
        Status ds = Status::ok;
        if (opt.delivery == Delivery::to_holders)
            ds = deliver_to_holders(out, st);
        else if (opt.delivery == Delivery::gather)
            ds = gather(out, opt.root, st);
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
                        inputs[s].invalid->push_back(id_of(inputs[s], i));
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

    static std::uint64_t id_of(const Input& in, std::size_t i) { return in.ids ? in.ids[i] : in.offset + i; }

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

    // One pass over the caller's boxes: invalid ones listed, each valid one
    // walked down the partition; copies for this rank go straight into the
    // held sets (self_n_[s] of them, first), copies for rank r into
    // outbox_[2r + s]. Outboxes and held sets keep their memory between frames.
    Status scatter(const Input* inputs, int n_inputs, FrameStats& st) {
        const int me = rank_;
        st.boxes_in = 0;
        st.ghosts = 0;
        self_n_[0] = self_n_[1] = 0;
        outbox_.resize(2 * static_cast<std::size_t>(size_));
        for (auto& o : outbox_) o.clear();
        send_counts_.assign(2 * static_cast<std::size_t>(size_), 0);
        recv_counts_.assign(2 * static_cast<std::size_t>(size_), 0);
        Status status = Status::ok;
        const Status escaped = detail_mpi::guarded_status([&] {
            int dest[256];
            for (int si = 0; si < n_inputs; ++si) {
                const Input& in = inputs[si];
                in.invalid->clear();
                const boxes_type& bx = *in.boxes;
                const std::size_t n = bx.size();
                if (!fits_indices(n)) {
                    status = Status::too_many_boxes;
                    return;
                }
                boxes_type& held = held_[si];
                held.resize(n);
                ids_[si].resize(n);
                interior_[si].resize(n);
                std::size_t self = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    Rec rec;
                    bool ok = true;
                    for (int k = 0; k < D; ++k) {
                        rec.lo[k] = bx.min(k)[i];
                        rec.hi[k] = bx.max(k)[i];
                        ok = ok && detail::valid_interval(rec.lo[k], rec.hi[k]);
                    }
                    rec.id = id_of(in, i);
                    if (!ok) {
                        in.invalid->push_back(rec.id);
                        continue;
                    }
                    ++st.boxes_in;
                    bool alone = false;
                    const int home = partition_.home(rec.lo, rec.hi, alone);
                    int nd = 1;
                    bool many = false;
                    dest[0] = home;
                    if (!alone) {
                        nd = 0;
                        partition_.for_each_rank(rec.lo, rec.hi, [&](int r) {
                            if (nd < 256)
                                dest[nd++] = r;
                            else
                                many = true;
                        });
                    }
                    const auto put = [&](int r) {
                        if (r != me) {
                            outbox_[2 * static_cast<std::size_t>(r) + si].push_back(rec);
                            return;
                        }
                        for (int k = 0; k < D; ++k) {
                            held.min(k)[self] = rec.lo[k];
                            held.max(k)[self] = rec.hi[k];
                        }
                        ids_[si][self] = rec.id;
                        interior_[si][self] = alone;
                        if (home != me) ++st.ghosts;
                        ++self;
                    };
                    for (int d = 0; d < nd; ++d) put(dest[d]);
                    if (many) {
                        // A box over more than 256 regions: walk again past those.
                        int seen = 0;
                        partition_.for_each_rank(rec.lo, rec.hi, [&](int r) {
                            if (seen++ >= nd) put(r);
                        });
                    }
                }
                self_n_[si] = self;
            }
        });
        return escaped != Status::ok ? escaped : status;
    }

    // Moves the outboxes to their ranks (point to point: each peer's set-A
    // records, then its set-B ones) and appends what arrives to the held
    // sets after this rank's own copies, peers in rank order.
    Status exchange(FrameStats& st) {
        using namespace detail_mpi;
        const int P = size_, me = rank_;
        std::uint64_t recv_total = 0, grown[2] = {self_n_[0], self_n_[1]};
        Status s = Status::ok;
        for (int r = 0; r < P; ++r) {
            if (r == me) continue;
            for (int h = 0; h < 2; ++h) {
                const std::uint64_t in = recv_counts_[2 * r + h];
                if (in > INT_MAX || outbox_[2 * r + h].size() > INT_MAX) s = Status::too_many_boxes;
                grown[h] += in;
                recv_total += in;
            }
        }
        if (!fits_indices(grown[0]) || !fits_indices(grown[1])) s = Status::too_many_boxes;
        if (s == Status::ok) {
            s = guarded_status([&] {
                for (int h = 0; h < 2; ++h) {
                    held_[h].resize(static_cast<std::size_t>(grown[h]));
                    ids_[h].resize(static_cast<std::size_t>(grown[h]));
                    interior_[h].resize(static_cast<std::size_t>(grown[h]));
                }
                recv_.resize(static_cast<std::size_t>(recv_total));
            });
        }
        st.boxes_held = grown[0] + grown[1];
        // Every rank learns whether all can go on before any message moves.
        int mine = status_code(s), worst = 0;
        MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm_);
        if (worst != status_code(Status::ok)) return static_cast<Status>(worst);

        requests_.clear();
        std::size_t at = 0;
        for (int r = 0; r < P; ++r) {
            if (r == me) continue;
            for (int h = 0; h < 2; ++h) {
                const int n = static_cast<int>(recv_counts_[2 * r + h]);
                if (n == 0) continue;
                requests_.emplace_back();
                MPI_Irecv(recv_.data() + at, n, record_type_.get(), r, 11 + h, comm_, &requests_.back());
                at += static_cast<std::size_t>(n);
                st.bytes_received += static_cast<std::uint64_t>(n) * sizeof(Rec);
            }
        }
        for (int r = 0; r < P; ++r) {
            if (r == me) continue;
            for (int h = 0; h < 2; ++h) {
                const std::vector<Rec>& o = outbox_[2 * r + h];
                if (o.empty()) continue;
                requests_.emplace_back();
                MPI_Isend(o.data(), static_cast<int>(o.size()), record_type_.get(), r, 11 + h, comm_, &requests_.back());
                st.bytes_sent += static_cast<std::uint64_t>(o.size()) * sizeof(Rec);
            }
        }
        MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);

        // Unpack, and note where each rank's boxes start (for source_of).
        at = 0;
        std::size_t to[2] = {static_cast<std::size_t>(self_n_[0]), static_cast<std::size_t>(self_n_[1])};
        for (int h = 0; h < 2; ++h) {
            seg_start_[h].assign(1, 0);
            seg_rank_[h].assign(1, me);
        }
        for (int r = 0; r < P; ++r) {
            if (r == me) continue;
            for (int h = 0; h < 2; ++h) {
                seg_start_[h].push_back(to[h]);
                seg_rank_[h].push_back(r);
                boxes_type& held = held_[h];
                const std::size_t n = static_cast<std::size_t>(recv_counts_[2 * r + h]);
                for (std::size_t j = 0; j < n; ++j, ++at, ++to[h]) {
                    const Rec& rec = recv_[at];
                    for (int k = 0; k < D; ++k) {
                        held.min(k)[to[h]] = rec.lo[k];
                        held.max(k)[to[h]] = rec.hi[k];
                    }
                    ids_[h][to[h]] = rec.id;
                    bool alone = false;
                    if (partition_.home(rec.lo, rec.hi, alone) != me) ++st.ghosts;
                    interior_[h][to[h]] = alone;
                }
            }
        }
        return Status::ok;
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
            IdPair q{id_of(ia, local_[i].a), id_of(ib, local_[i].b)};
            if (!two && q.b < q.a) std::swap(q.a, q.b);
            out[i] = q;
        }
        return keep < local_.size() ? Status::pair_budget_exceeded : Status::ok;
    }

    // The rank that passed held box j of set s: this rank's own copies come
    // first, then each peer's in rank order (exchange()).
    int source_of(int s, std::size_t j) const {
        const auto& start = seg_start_[s];
        const std::size_t seg = static_cast<std::size_t>(std::upper_bound(start.begin(), start.end(), j) - start.begin()) - 1;
        return seg_rank_[s][seg];
    }

    Status find_local(bool two, const DistributedOptions& opt, FrameStats& st, std::vector<IdPair>& out) {
        Options o = opt.local;
        o.sorted = false;
        o.max_pairs = no_budget;
        broadphase::Report r;
        if (two)
            r = finder_.find_pairs(held_[0], held_[1], local_, o);
        else
            r = finder_.find_pairs(held_[0], local_, o);
        if (!r.ok()) return r.status;
        st.pairs_found = local_.size();
        const int sb = two ? 1 : 0;
        const boxes_type& ha = held_[0];
        const boxes_type& hb = held_[sb];
        Status s = Status::ok;
        const bool holders = opt.delivery == Delivery::to_holders;
        holders_.clear();
        const Status escaped = detail_mpi::guarded_status([&] {
            out.reserve(std::min<std::uint64_t>(local_.size(), opt.local.max_pairs));
            if (holders) holders_.reserve(out.capacity());
            for (const Pair& p : local_) {
                if (!interior_[0][p.a] && !interior_[sb][p.b]) {
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
                IdPair q{ids_[0][p.a], ids_[sb][p.b]};
                if (!two && q.b < q.a) std::swap(q.a, q.b);
                out.push_back(q);
                if (holders) holders_.emplace_back(source_of(0, p.a), source_of(sb, p.b));
                ++st.pairs_owned;
            }
        });
        return escaped != Status::ok ? escaped : s;
    }

    // Sends each pair to the ranks that passed its boxes.
    Status deliver_to_holders(std::vector<IdPair>& out, FrameStats& st) {
        using namespace detail_mpi;
        // holders_[i]: the ranks that passed the boxes of out[i] (find_local).
        Status s = Status::ok;
        std::vector<std::uint64_t> counts(size_, 0);
        for (const Holders& h : holders_) {
            ++counts[h.first];
            if (h.second != h.first) ++counts[h.second];
        }
        std::vector<std::uint64_t> rcounts(size_, 0);
        MPI_Alltoall(counts.data(), 1, MPI_UINT64_T, rcounts.data(), 1, MPI_UINT64_T, comm_);
        std::uint64_t st_total = 0, rt_total = 0;
        for (int r = 0; r < size_; ++r) {
            st_total += counts[r];
            rt_total += rcounts[r];
        }
        if (st_total > INT_MAX || rt_total > INT_MAX) s = Status::too_many_boxes;
        std::vector<IdPair> sendbuf, recvbuf;
        if (s == Status::ok && (!try_resize(sendbuf, st_total) || !try_resize(recvbuf, rt_total)))
            s = Status::out_of_memory;
        int bad = s == Status::ok ? 0 : 1, any = 0;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm_);
        if (any) return s == Status::ok ? Status::out_of_memory : s;
        std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
        int at = 0, rat = 0;
        for (int r = 0; r < size_; ++r) {
            sc[r] = static_cast<int>(counts[r]);
            sd[r] = at;
            at += sc[r];
            rc[r] = static_cast<int>(rcounts[r]);
            rd[r] = rat;
            rat += rc[r];
        }
        std::vector<int> fill = sd;
        for (std::size_t i = 0; i < out.size(); ++i) {
            const Holders& h = holders_[i];
            sendbuf[fill[h.first]++] = out[i];
            if (h.second != h.first) sendbuf[fill[h.second]++] = out[i];
        }
        MPI_Alltoallv(sendbuf.data(), sc.data(), sd.data(), pair_type_.get(), recvbuf.data(), rc.data(), rd.data(),
                      pair_type_.get(), comm_);
        for (int r = 0; r < size_; ++r) {
            if (r == rank_) continue;
            st.bytes_sent += static_cast<std::uint64_t>(sc[r]) * sizeof(IdPair);
            st.bytes_received += static_cast<std::uint64_t>(rc[r]) * sizeof(IdPair);
        }
        out.swap(recvbuf);
        return Status::ok;
    }

    // Moves every pair to `root`, in rank order, in chunks (no int limit on the total).
    Status gather(std::vector<IdPair>& out, int root, FrameStats& st) {
        if (root < 0 || root >= size_) root = 0;
        std::uint64_t n = out.size();
        std::vector<std::uint64_t> counts(rank_ == root ? size_ : 0);
        MPI_Gather(&n, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, root, comm_);
        const std::uint64_t chunk = std::uint64_t(1) << 26;
        Status s = Status::ok;
        std::vector<IdPair> all;
        if (rank_ == root) {
            std::uint64_t total = 0;
            for (std::uint64_t c : counts) total += c;
            if (!detail_mpi::try_resize(all, total)) s = Status::out_of_memory;
        }
        int bad = s == Status::ok ? 0 : 1, any = 0;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm_);
        if (any) return Status::out_of_memory;
        if (rank_ == root) {
            std::uint64_t at = 0;
            for (int r = 0; r < size_; ++r) {
                if (r == root) {
                    std::copy(out.begin(), out.end(), all.begin() + static_cast<std::ptrdiff_t>(at));
                } else {
                    for (std::uint64_t done = 0; done < counts[r];) {
                        const int m = static_cast<int>(std::min(chunk, counts[r] - done));
                        MPI_Recv(all.data() + at + done, m, pair_type_.get(), r, 7, comm_, MPI_STATUS_IGNORE);
                        done += m;
                    }
                    st.bytes_received += counts[r] * sizeof(IdPair);
                }
                at += counts[r];
            }
            out.swap(all);
        } else {
            for (std::uint64_t done = 0; done < n;) {
                const int m = static_cast<int>(std::min(chunk, n - done));
                MPI_Send(out.data() + done, m, pair_type_.get(), root, 7, comm_);
                done += m;
            }
            st.bytes_sent += n * sizeof(IdPair);
            out.clear();
        }
        return Status::ok;
    }

    using Holders = std::pair<int, int>;

    MPI_Comm comm_;
    int rank_ = 0;
    int size_ = 1;
    detail_mpi::ByteType record_type_;
    detail_mpi::ByteType pair_type_;
    bool have_partition_ = false;
    Partition<D> partition_;
    std::vector<std::uint64_t> send_counts_, recv_counts_;  // 2 per peer: first set, second set
    std::vector<std::uint64_t> held_by_;                    // boxes each rank would hold
    std::vector<Rec> recv_;
    boxes_type held_[2];                         // the boxes held, per set, in rank order
    std::vector<std::uint64_t> ids_[2];          // their ids
    std::vector<std::uint8_t> interior_[2];      // 1: the box lies in this rank's region only
    std::uint64_t self_n_[2] = {0, 0};           // this rank's own copies, first in held_
    std::vector<std::size_t> seg_start_[2];      // where each rank's boxes start in held_
    std::vector<int> seg_rank_[2];               // and which rank that is
    std::vector<std::vector<Rec>> outbox_;       // [2r + s]: set-s records for rank r
    std::vector<MPI_Request> requests_;
    std::vector<Pair> local_;
    std::vector<Holders> holders_;
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
