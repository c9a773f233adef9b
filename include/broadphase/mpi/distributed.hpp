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
// 2. Exchange: one MPI_Alltoallv sends each valid box to every region it
//    overlaps (a copy to a region other than its home is a ghost).
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

#include "../broadphase.hpp"
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
    std::int32_t source;  // the rank that passed it
    std::uint32_t flags;  // bit 0: second set; bit 1: lies in one region only
};
constexpr std::uint32_t second_set = 1u;
constexpr std::uint32_t interior = 2u;

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

// Grows a vector without throwing: false (and the vector unchanged) on failure.
template <class V>
bool try_resize(V& v, std::size_t n) {
    try {
        v.resize(n);
        return true;
    } catch (const std::bad_alloc&) {
        return false;
    } catch (const std::length_error&) {
        return false;
    }
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
        std::uint32_t flag;
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

        // Default ids: each set numbered across ranks in rank order.
        std::uint64_t counts[2] = {a->size(), two ? b->size() : 0};
        std::uint64_t offsets[2] = {0, 0};
        MPI_Exscan(counts, offsets, 2, MPI_UINT64_T, MPI_SUM, comm_);
        if (rank_ == 0) offsets[0] = offsets[1] = 0;  // MPI_Exscan leaves rank 0's undefined
        Input inputs[2] = {{a, ids_a, offsets[0], 0, &report.invalid_a},
                           {two ? b : a, ids_b, offsets[1], second_set, &report.invalid_b}};
        const int n_inputs = two ? 2 : 1;

        Status local = Status::ok;
        valid_.clear();
        valid_b_.clear();
        try {
            for (int s = 0; s < n_inputs; ++s) {
                std::vector<std::uint32_t>& v = s == 0 ? valid_ : valid_b_;
                const boxes_type& bx = *inputs[s].boxes;
                if (!fits_indices(bx.size())) {
                    local = Status::too_many_boxes;
                    break;
                }
                v.reserve(bx.size());
                for (std::size_t i = 0; i < bx.size(); ++i) {
                    if (valid_box(bx, i))
                        v.push_back(static_cast<std::uint32_t>(i));
                    else
                        inputs[s].invalid->push_back(id_of(inputs[s], i));
                }
            }
        } catch (const std::bad_alloc&) {
            local = Status::out_of_memory;
        }
        st.boxes_in = valid_.size() + valid_b_.size();
        {
            const std::uint64_t mine[2] = {report.invalid_a.size() + report.invalid_b.size(), st.boxes_in};
            std::uint64_t all[2] = {0, 0};
            MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, comm_);
            report.total_invalid = all[0];
            st.total_boxes = all[1];
            st.ranks = size_;
        }
        if (agree(report, local)) return finish(report, t0);

        // One rank: no partition and no exchange; the local find runs on the
        // caller's boxes as they are (it skips the invalid ones itself).
        if (size_ == 1) {
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

        // 1. Partition (kept while balanced) and the send counts it gives.
        const double t1 = now_ms();
        if (!have_partition_ || partition_.regions() != size_) {
            if (agree(report, repartition(inputs, n_inputs, opt))) return finish(report, t0);
            st.repartitioned = true;
        }
        for (;;) {
            count_destinations(inputs, n_inputs);
            MPI_Alltoall(send_counts_.data(), 1, MPI_UINT64_T, recv_counts_.data(), 1, MPI_UINT64_T, comm_);
            std::uint64_t held = 0;
            for (int r = 0; r < size_; ++r) held += recv_counts_[r];
            std::uint64_t sum = 0, max = 0;
            MPI_Allreduce(&held, &sum, 1, MPI_UINT64_T, MPI_SUM, comm_);
            MPI_Allreduce(&held, &max, 1, MPI_UINT64_T, MPI_MAX, comm_);
            st.max_held = max;
            st.mean_held = static_cast<double>(sum) / size_;
            if (st.repartitioned || static_cast<double>(max) <= opt.rebalance * st.mean_held || sum == 0) break;
            if (agree(report, repartition(inputs, n_inputs, opt))) return finish(report, t0);
            st.repartitioned = true;
        }
        st.ms_partition = now_ms() - t1;

        // 2. Exchange.
        const double t2 = now_ms();
        if (agree(report, exchange(inputs, n_inputs, st))) return finish(report, t0);
        st.ms_exchange = now_ms() - t2;

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
            if (!(bx.min(k)[i] <= bx.max(k)[i])) return false;
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
        try {
            for (int si = 0; si < n_inputs; ++si) {
                const std::vector<std::uint32_t>& v = si == 0 ? valid_ : valid_b_;
                const std::size_t n = v.size();
                if (n == 0) continue;
                const std::size_t m = std::min(n, per_rank);
                const double w = static_cast<double>(n) / static_cast<double>(m);
                for (std::size_t j = 0; j < m; ++j) {
                    // Evenly spaced, deterministic.
                    const std::size_t i = v[static_cast<std::size_t>((j * 2 + 1) * static_cast<double>(n) / (2 * m))];
                    Sample<D> smp;
                    if (!sample_point(*inputs[si].boxes, i, smp.at)) continue;
                    smp.weight = w;
                    mine.push_back(smp);
                }
            }
        } catch (const std::bad_alloc&) {
            s = Status::out_of_memory;
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

    // send_counts_[r]: records for rank r (the same walk as pack()).
    void count_destinations(const Input* inputs, int n_inputs) {
        send_counts_.assign(size_, 0);
        recv_counts_.assign(size_, 0);
        for (int si = 0; si < n_inputs; ++si) {
            const boxes_type& bx = *inputs[si].boxes;
            for (std::uint32_t i : si == 0 ? valid_ : valid_b_) {
                T lo[D], hi[D];
                for (int k = 0; k < D; ++k) {
                    lo[k] = bx.min(k)[i];
                    hi[k] = bx.max(k)[i];
                }
                partition_.for_each_rank(lo, hi, [&](int r) { ++send_counts_[r]; });
            }
        }
    }

    Status exchange(const Input* inputs, int n_inputs, FrameStats& st) {
        using namespace detail_mpi;
        // Counts fit MPI's int (records per peer and in all).
        std::uint64_t send_total = 0, recv_total = 0;
        for (int r = 0; r < size_; ++r) {
            send_total += send_counts_[r];
            recv_total += recv_counts_[r];
        }
        const bool fits = send_total <= INT_MAX && recv_total <= INT_MAX && fits_indices(recv_total);
        if (!fits) {
            return Status::too_many_boxes;
        }
        Status s = Status::ok;
        // Copies a rank sends itself go straight into the receive buffer:
        // at 2 ranks that is most boxes, and MPI would copy them once more.
        const std::uint64_t self = send_counts_[rank_];
        if (!try_resize(send_, send_total - self) || !try_resize(recv_, recv_total)) {
            send_.clear();
            recv_.clear();
            s = Status::out_of_memory;
        }
        // Every rank takes part in the Alltoallv below, sending nothing if it failed.
        sc_.assign(size_, 0);
        rc_.assign(size_, 0);
        sd_.assign(size_, 0);
        rd_.assign(size_, 0);
        if (s == Status::ok) {
            int at = 0;
            for (int r = 0; r < size_; ++r) {
                sc_[r] = r == rank_ ? 0 : static_cast<int>(send_counts_[r]);
                sd_[r] = at;
                at += sc_[r];
            }
            at = 0;
            for (int r = 0; r < size_; ++r) {
                rc_[r] = static_cast<int>(recv_counts_[r]);
                rd_[r] = at;
                at += rc_[r];
            }
            rc_[rank_] = 0;  // filled below, not by MPI
            int self_at = rd_[rank_];
            // Pack: each box's copies, flagged interior when it has one.
            std::vector<int>& fill = fill_;
            fill = sd_;
            int dest[64 * 4];
            for (int si = 0; si < n_inputs; ++si) {
                const boxes_type& bx = *inputs[si].boxes;
                for (std::uint32_t i : si == 0 ? valid_ : valid_b_) {
                    Rec rec;
                    for (int k = 0; k < D; ++k) {
                        rec.lo[k] = bx.min(k)[i];
                        rec.hi[k] = bx.max(k)[i];
                    }
                    rec.id = id_of(inputs[si], i);
                    rec.source = rank_;
                    int nd = 0;
                    bool many = false;
                    partition_.for_each_rank(rec.lo, rec.hi, [&](int r) {
                        if (nd < static_cast<int>(sizeof(dest) / sizeof(dest[0])))
                            dest[nd++] = r;
                        else
                            many = true;
                    });
                    rec.flags = inputs[si].flag | (nd == 1 ? interior : 0u);
                    const auto put = [&](int r) {
                        if (r == rank_)
                            recv_[self_at++] = rec;
                        else
                            send_[fill[r]++] = rec;
                    };
                    for (int d = 0; d < nd; ++d) put(dest[d]);
                    if (many) {
                        // A box over more regions than the buffer: walk again past them.
                        int seen = 0;
                        partition_.for_each_rank(rec.lo, rec.hi, [&](int r) {
                            if (seen++ >= nd) put(r);
                        });
                    }
                }
            }
        }
        if (s != Status::ok) {
            std::fill(sc_.begin(), sc_.end(), 0);
            std::fill(rc_.begin(), rc_.end(), 0);
        }
        // A failed rank sends and receives nothing; the others still expect its
        // records, so every rank first learns whether all can go on.
        int mine = s == Status::ok ? 0 : 1, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm_);
        if (any) return s == Status::ok ? Status::out_of_memory : s;
        MPI_Alltoallv(send_.data(), sc_.data(), sd_.data(), record_type_.get(), recv_.data(), rc_.data(), rd_.data(),
                      record_type_.get(), comm_);
        for (int r = 0; r < size_; ++r) {
            if (r == rank_) continue;
            st.bytes_sent += static_cast<std::uint64_t>(sc_[r]) * sizeof(Rec);
            st.bytes_received += static_cast<std::uint64_t>(rc_[r]) * sizeof(Rec);
        }
        // Unpack into the held sets (first and second).
        st.boxes_held = recv_total;
        try {
            std::size_t na = 0, nb = 0;
            for (const Rec& rec : recv_) (rec.flags & second_set ? nb : na)++;
            held_a_.resize(na);
            held_b_.resize(nb);
            meta_a_.resize(na);
            meta_b_.resize(nb);
            std::size_t ia = 0, ib = 0;
            for (const Rec& rec : recv_) {
                const bool sb = rec.flags & second_set;
                boxes_type& h = sb ? held_b_ : held_a_;
                const std::size_t j = sb ? ib++ : ia++;
                for (int k = 0; k < D; ++k) {
                    h.min(k)[j] = rec.lo[k];
                    h.max(k)[j] = rec.hi[k];
                }
                (sb ? meta_b_ : meta_a_)[j] = Meta{rec.id, rec.source, (rec.flags & interior) != 0};
                if (partition_.rank_of(rec.lo) != rank_) ++st.ghosts;
            }
        } catch (const std::bad_alloc&) {
            return Status::out_of_memory;
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

    Status find_local(bool two, const DistributedOptions& opt, FrameStats& st, std::vector<IdPair>& out) {
        Options o = opt.local;
        o.sorted = false;
        o.max_pairs = no_budget;
        broadphase::Report r;
        if (two)
            r = finder_.find_pairs(held_a_, held_b_, local_, o);
        else
            r = finder_.find_pairs(held_a_, local_, o);
        if (!r.ok()) return r.status;
        st.pairs_found = local_.size();
        const std::vector<Meta>& mb = two ? meta_b_ : meta_a_;
        const boxes_type& hb = two ? held_b_ : held_a_;
        Status s = Status::ok;
        const bool holders = opt.delivery == Delivery::to_holders;
        holders_.clear();
        try {
            out.reserve(std::min<std::uint64_t>(local_.size(), opt.local.max_pairs));
            if (holders) holders_.reserve(out.capacity());
            for (const Pair& p : local_) {
                const Meta& x = meta_a_[p.a];
                const Meta& y = mb[p.b];
                if (!x.interior && !y.interior) {
                    // Both are ghosts here or straddle regions: the owner holds
                    // the max of the min corners.
                    T m[D];
                    for (int k = 0; k < D; ++k) m[k] = std::max(held_a_.min(k)[p.a], hb.min(k)[p.b]);
                    if (partition_.rank_of(m) != rank_) continue;
                }
                if (out.size() >= opt.local.max_pairs) {
                    s = Status::pair_budget_exceeded;
                    ++st.pairs_owned;
                    continue;
                }
                IdPair q{x.id, y.id};
                if (!two && q.b < q.a) std::swap(q.a, q.b);
                out.push_back(q);
                if (holders) holders_.emplace_back(x.source, y.source);
                ++st.pairs_owned;
            }
        } catch (const std::bad_alloc&) {
            return Status::out_of_memory;
        }
        return s;
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

    struct Meta {
        std::uint64_t id;
        std::int32_t source;
        bool interior;
    };
    using Holders = std::pair<int, int>;

    MPI_Comm comm_;
    int rank_ = 0;
    int size_ = 1;
    detail_mpi::ByteType record_type_;
    detail_mpi::ByteType pair_type_;
    bool have_partition_ = false;
    Partition<D> partition_;
    std::vector<std::uint32_t> valid_, valid_b_;
    std::vector<std::uint64_t> send_counts_, recv_counts_;
    std::vector<int> sc_, rc_, sd_, rd_, fill_;
    std::vector<Rec> send_, recv_;
    boxes_type held_a_, held_b_;
    std::vector<Meta> meta_a_, meta_b_;
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
