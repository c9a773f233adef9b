// The distributed broad phase's communication layer (namespace detail_mpi,
// not an API of its own): what BasicDistributedPairFinder (distributed.hpp)
// sends between the ranks of its communicator.
//
// - BoxExchange: one pass over the caller's boxes puts a copy of each valid
//   box in every region it overlaps (this rank's own copies straight into
//   the held sets, the others into one outbox per peer), then moves the
//   outboxes point to point and appends what arrives to the held sets.
// - PairDelivery: moves the pairs found to the ranks that passed their
//   boxes, or gathers them all on one rank.
// - The helpers both use: the box record on the wire, byte datatypes, and
//   the status boundary that turns an allocation failure into a Status.
//
// Every call that takes a communicator is collective over it.
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
#include <utility>
#include <vector>

#include <broadphase/broadphase.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/exceptions.hpp>
#include "partition.hpp"
#include "types.hpp"

namespace broadphase {
namespace mpi {
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

// One set of the caller's boxes, as a call of the finder passes it.
template <class T, int D>
struct Input {
    const BasicBoxes<T, D>* boxes;
    const std::uint64_t* ids;
    std::uint64_t offset;  // default ids: offset + index
    std::vector<std::uint64_t>* invalid;
};

// The global id of box i of a set: the caller's, or offset + i.
template <class T, int D>
std::uint64_t id_of(const Input<T, D>& in, std::size_t i) {
    return in.ids ? in.ids[i] : in.offset + i;
}

// The boxes a rank holds for its local find, per set (first, second): its
// own copies, then each peer's in rank order, with their ids and the rank
// that passed each. A frame calls scatter(), then count() (the finder may
// re-partition on the counts and scatter again), then exchange(). Keeps
// its buffers between frames.
template <class T, int D>
class BoxExchange {
public:
    using boxes_type = BasicBoxes<T, D>;
    using Rec = Record<T, D>;

    BoxExchange() : record_type_(sizeof(Rec)) {}

    // One pass over the caller's boxes: invalid ones listed, each valid one
    // walked down the partition; copies for this rank go straight into the
    // held sets (self_n_[s] of them, first), copies for rank r into
    // outbox_[2r + s]. Outboxes and held sets keep their memory between frames.
    Status scatter(const Partition<D>& partition, int me, int P, const Input<T, D>* inputs, int n_inputs,
                   FrameStats& st) {
        st.boxes_in = 0;
        st.ghosts = 0;
        self_n_[0] = self_n_[1] = 0;
        outbox_.resize(2 * static_cast<std::size_t>(P));
        for (auto& o : outbox_) o.clear();
        send_counts_.assign(2 * static_cast<std::size_t>(P), 0);
        recv_counts_.assign(2 * static_cast<std::size_t>(P), 0);
        Status status = Status::ok;
        const Status escaped = guarded_status([&] {
            int dest[256];
            for (int si = 0; si < n_inputs; ++si) {
                const Input<T, D>& in = inputs[si];
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
                    const int home = partition.home(rec.lo, rec.hi, alone);
                    int nd = 1;
                    bool many = false;
                    dest[0] = home;
                    if (!alone) {
                        nd = 0;
                        partition.for_each_rank(rec.lo, rec.hi, [&](int r) {
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
                        partition.for_each_rank(rec.lo, rec.hi, [&](int r) {
                            if (seen++ >= nd) put(r);
                        });
                    }
                }
                self_n_[si] = self;
            }
        });
        return escaped != Status::ok ? escaped : status;
    }

    // After scatter(): two counts (its boxes of the first set, then of the
    // second) to every peer; returns the boxes this rank would hold.
    std::uint64_t count(MPI_Comm comm, int me, int P) {
        for (int r = 0; r < P; ++r)
            for (int s = 0; s < 2; ++s)
                send_counts_[2 * r + s] = r == me ? self_n_[s] : outbox_[2 * r + s].size();
        MPI_Alltoall(send_counts_.data(), 2, MPI_UINT64_T, recv_counts_.data(), 2, MPI_UINT64_T, comm);
        std::uint64_t held = 0;
        for (std::uint64_t c : recv_counts_) held += c;
        return held;
    }

    // Moves the outboxes to their ranks (point to point: each peer's set-A
    // records, then its set-B ones) and appends what arrives to the held
    // sets after this rank's own copies, peers in rank order.
    Status exchange(const Partition<D>& partition, MPI_Comm comm, int me, int P, FrameStats& st) {
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
        MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
        if (worst != status_code(Status::ok)) return static_cast<Status>(worst);

        requests_.clear();
        std::size_t at = 0;
        for (int r = 0; r < P; ++r) {
            if (r == me) continue;
            for (int h = 0; h < 2; ++h) {
                const int n = static_cast<int>(recv_counts_[2 * r + h]);
                if (n == 0) continue;
                requests_.emplace_back();
                MPI_Irecv(recv_.data() + at, n, record_type_.get(), r, 11 + h, comm, &requests_.back());
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
                MPI_Isend(o.data(), static_cast<int>(o.size()), record_type_.get(), r, 11 + h, comm, &requests_.back());
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
                    if (partition.home(rec.lo, rec.hi, alone) != me) ++st.ghosts;
                    interior_[h][to[h]] = alone;
                }
            }
        }
        return Status::ok;
    }

    // The rank that passed held box j of set s: this rank's own copies come
    // first, then each peer's in rank order (exchange()).
    int source_of(int s, std::size_t j) const {
        const auto& start = seg_start_[s];
        const std::size_t seg = static_cast<std::size_t>(std::upper_bound(start.begin(), start.end(), j) - start.begin()) - 1;
        return seg_rank_[s][seg];
    }

    // After exchange(): the boxes of set s held, their ids, and 1 where the
    // box lies in this rank's region only.
    const boxes_type& held(int s) const { return held_[s]; }
    const std::vector<std::uint64_t>& ids(int s) const { return ids_[s]; }
    const std::vector<std::uint8_t>& interior(int s) const { return interior_[s]; }

private:
    ByteType record_type_;
    std::vector<std::uint64_t> send_counts_, recv_counts_;  // 2 per peer: first set, second set
    std::vector<Rec> recv_;
    boxes_type held_[2];                         // the boxes held, per set, in rank order
    std::vector<std::uint64_t> ids_[2];          // their ids
    std::vector<std::uint8_t> interior_[2];      // 1: the box lies in this rank's region only
    std::uint64_t self_n_[2] = {0, 0};           // this rank's own copies, first in held_
    std::vector<std::size_t> seg_start_[2];      // where each rank's boxes start in held_
    std::vector<int> seg_rank_[2];               // and which rank that is
    std::vector<std::vector<Rec>> outbox_;       // [2r + s]: set-s records for rank r
    std::vector<MPI_Request> requests_;
};

// The ranks that passed the two boxes of a pair.
using Holders = std::pair<int, int>;

// Moves the pairs a rank owns to where DistributedOptions::delivery puts
// them (Delivery::keep needs neither call).
class PairDelivery {
public:
    PairDelivery() : pair_type_(sizeof(IdPair)) {}

    // Sends each pair to the ranks that passed its boxes.
    Status to_holders(MPI_Comm comm, int me, int P, const std::vector<Holders>& holders, std::vector<IdPair>& out,
                      FrameStats& st) {
        // holders[i]: the ranks that passed the boxes of out[i] (find_local).
        Status s = Status::ok;
        std::vector<std::uint64_t> counts(P, 0);
        for (const Holders& h : holders) {
            ++counts[h.first];
            if (h.second != h.first) ++counts[h.second];
        }
        std::vector<std::uint64_t> rcounts(P, 0);
        MPI_Alltoall(counts.data(), 1, MPI_UINT64_T, rcounts.data(), 1, MPI_UINT64_T, comm);
        std::uint64_t st_total = 0, rt_total = 0;
        for (int r = 0; r < P; ++r) {
            st_total += counts[r];
            rt_total += rcounts[r];
        }
        if (st_total > INT_MAX || rt_total > INT_MAX) s = Status::too_many_boxes;
        std::vector<IdPair> sendbuf, recvbuf;
        if (s == Status::ok && (!try_resize(sendbuf, st_total) || !try_resize(recvbuf, rt_total)))
            s = Status::out_of_memory;
        int bad = s == Status::ok ? 0 : 1, any = 0;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
        if (any) return s == Status::ok ? Status::out_of_memory : s;
        std::vector<int> sc(P), sd(P), rc(P), rd(P);
        int at = 0, rat = 0;
        for (int r = 0; r < P; ++r) {
            sc[r] = static_cast<int>(counts[r]);
            sd[r] = at;
            at += sc[r];
            rc[r] = static_cast<int>(rcounts[r]);
            rd[r] = rat;
            rat += rc[r];
        }
        std::vector<int> fill = sd;
        for (std::size_t i = 0; i < out.size(); ++i) {
            const Holders& h = holders[i];
            sendbuf[fill[h.first]++] = out[i];
            if (h.second != h.first) sendbuf[fill[h.second]++] = out[i];
        }
        MPI_Alltoallv(sendbuf.data(), sc.data(), sd.data(), pair_type_.get(), recvbuf.data(), rc.data(), rd.data(),
                      pair_type_.get(), comm);
        for (int r = 0; r < P; ++r) {
            if (r == me) continue;
            st.bytes_sent += static_cast<std::uint64_t>(sc[r]) * sizeof(IdPair);
            st.bytes_received += static_cast<std::uint64_t>(rc[r]) * sizeof(IdPair);
        }
        out.swap(recvbuf);
        return Status::ok;
    }

    // Moves every pair to `root`, in rank order, in chunks (no int limit on the total).
    Status gather(MPI_Comm comm, int me, int P, std::vector<IdPair>& out, int root, FrameStats& st) {
        if (root < 0 || root >= P) root = 0;
        std::uint64_t n = out.size();
        std::vector<std::uint64_t> counts(me == root ? P : 0);
        MPI_Gather(&n, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, root, comm);
        const std::uint64_t chunk = std::uint64_t(1) << 26;
        Status s = Status::ok;
        std::vector<IdPair> all;
        if (me == root) {
            std::uint64_t total = 0;
            for (std::uint64_t c : counts) total += c;
            if (!try_resize(all, total)) s = Status::out_of_memory;
        }
        int bad = s == Status::ok ? 0 : 1, any = 0;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
        if (any) return Status::out_of_memory;
        if (me == root) {
            std::uint64_t at = 0;
            for (int r = 0; r < P; ++r) {
                if (r == root) {
                    std::copy(out.begin(), out.end(), all.begin() + static_cast<std::ptrdiff_t>(at));
                } else {
                    for (std::uint64_t done = 0; done < counts[r];) {
                        const int m = static_cast<int>(std::min(chunk, counts[r] - done));
                        MPI_Recv(all.data() + at + done, m, pair_type_.get(), r, 7, comm, MPI_STATUS_IGNORE);
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
                MPI_Send(out.data() + done, m, pair_type_.get(), root, 7, comm);
                done += m;
            }
            st.bytes_sent += n * sizeof(IdPair);
            out.clear();
        }
        return Status::ok;
    }

private:
    ByteType pair_type_;
};

}  // namespace detail_mpi
}  // namespace mpi
}  // namespace broadphase
