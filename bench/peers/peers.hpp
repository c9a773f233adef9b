// Other libraries' broad phases, used one-shot as peers of find_pairs: one
// static set of boxes in, every overlapping pair out, the peer's structure
// built from nothing each time (what `broadphase bench SCENE` times for ours;
// `broadphase-lab bench SCENE` times both).
//
//   cgal         CGAL::box_self_intersection_d (libcgal-dev, header-only):
//                streamed segment tree over float boxes with an index as info
//   fcl          fcl::DynamicAABBTreeCollisionManager<double> (libfcl-dev):
//                one CollisionObject per box (an fcl::Box of the box's size,
//                translated to its centre), registerObjects + setup +
//                collide with a callback that records the pair (no narrow phase)
//   bullet-dbvt  btDbvtBroadphase (libbullet-dev): a proxy per box, then
//                calculateOverlappingPairs; the pairs read from its pair cache
//
// Each is compiled only when CMake finds its package (bench/peers/
// CMakeLists.txt); peer_names() lists the ones this build has, possibly none.
// Not part of the library: the lab (bench/lab/, broadphase-lab) links this,
// built with the CLI.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>

namespace broadphase_peers {

/// One peer library's broad phase, kept between runs so that a benchmark
/// times only what a user pays per one-shot query.
class Peer {
public:
    virtual ~Peer() = default;
    /// Converts `boxes` into the peer's own input (CGAL boxes, FCL collision
    /// objects; nothing for Bullet): what a user of that library already
    /// holds, so not timed. Invalid boxes (NaN, min > max) are left out, as
    /// find_pairs leaves them out of every pair. Throws
    /// std::invalid_argument when the peer cannot take these boxes (fcl: an
    /// infinite coordinate). O(n).
    virtual void load(const broadphase::Boxes& boxes) = 0;
    /// The timed part: builds the peer's structure from the loaded boxes and
    /// finds every overlapping pair, written to `out` (replacing its
    /// contents; each pair once with a < b, indices into the loaded boxes, in
    /// the peer's order). Cost: the peer's (n log n and more; see docs/peers.md).
    virtual void find_pairs(std::vector<broadphase::Pair>& out) = 0;
    /// Frees the structure find_pairs built (untimed; the next find_pairs
    /// builds it again). The loaded boxes stay.
    virtual void clear() = 0;
};

/// The peers this build has, in the order benchmarks run them: a subset of
/// "cgal", "fcl", "bullet-dbvt". O(1).
std::vector<std::string> peer_names();

/// Whether `name` is one of the peers any build can have (built here or not). O(1).
bool is_peer_name(const std::string& name);

/// A new peer by name; nullptr when this build does not have it. O(1).
std::unique_ptr<Peer> make_peer(const std::string& name);

/// The peer's library and version, e.g. "CGAL 5.5.1"; "" when not built. O(1).
std::string peer_version(const std::string& name);

/// The most pairs a benchmark should ask of the peer, for memory: Bullet
/// keeps every pair in its hashed pair cache (a 32-byte pair record plus hash
/// links, doubled while it grows), so bullet-dbvt stops at 20 million pairs
/// (about 1 GB); the others return into a vector of pairs like ours and have
/// no cap (SIZE_MAX). O(1).
std::size_t peer_pair_limit(const std::string& name);

/// One shot: load, find_pairs, clear. False when this build lacks the peer;
/// throws what load() throws. O(peer).
bool run_peer(const std::string& name, const broadphase::Boxes& boxes, std::vector<broadphase::Pair>& pairs_out);

}  // namespace broadphase_peers
