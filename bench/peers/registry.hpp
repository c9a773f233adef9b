// The factories of the peers this build has (each defined in its own source
// file, compiled only when CMake found its library; peers.cpp lists them).
#pragma once

#include <memory>
#include <string>

#include "peers.hpp"

namespace broadphase_peers {

std::unique_ptr<Peer> make_cgal_peer();
std::string cgal_version();

std::unique_ptr<Peer> make_fcl_peer();
std::string fcl_version();

std::unique_ptr<Peer> make_bullet_dbvt_peer();
std::string bullet_version();

/// Whether box i of `boxes` takes part in pairs (min <= max on every axis). O(1).
inline bool usable(const broadphase::Boxes& boxes, std::size_t i) { return boxes[i].valid(); }

/// The pair (i, j) with the smaller index first.
inline broadphase::Pair ordered_pair(std::uint32_t i, std::uint32_t j) {
    return i < j ? broadphase::Pair{i, j} : broadphase::Pair{j, i};
}

}  // namespace broadphase_peers
