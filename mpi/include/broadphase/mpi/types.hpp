// The distributed broad phase's value types: the global-id pair, where the
// pairs go, the options and what a call reports. No MPI here; include
// <broadphase/mpi/distributed.hpp>, which includes this header, for the
// finder itself.
#pragma once

#include <cstdint>
#include <vector>

#include <broadphase/broadphase.hpp>

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

}  // namespace mpi
}  // namespace broadphase
