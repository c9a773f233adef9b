// What the Bullet adapters share (bench/peers/bullet_dbvt_peer.cpp, the
// one-shot peer, and tools/broadphase/bullet_peers.cpp, the motion-sequence
// modes): our box index carried in a proxy's user pointer, and the pairs of
// an overlapping pair cache read back as index pairs. Needs Bullet's headers.
#pragma once

#include <cstdint>
#include <vector>

#include <btBulletCollisionCommon.h>

#include <broadphase/pairs.hpp>

namespace broadphase_peers {

/// Box index i as a proxy's user pointer: i + 1, so that it is never null.
inline void* user_pointer(std::uint32_t i) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(i) + 1); }

/// The box index a proxy was created with through user_pointer().
inline std::uint32_t index_of(const btBroadphaseProxy* proxy) {
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(proxy->m_clientObject) - 1);
}

/// Every pair in `cache` as (a, b), a < b, in the cache's order, into `out`
/// (replacing its contents). O(pairs).
inline void read_pairs(btOverlappingPairCache& cache, std::vector<broadphase::Pair>& out) {
    const int count = cache.getNumOverlappingPairs();
    const btBroadphasePair* pairs = cache.getOverlappingPairArrayPtr();
    out.resize(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) {
        const std::uint32_t a = index_of(pairs[k].m_pProxy0), b = index_of(pairs[k].m_pProxy1);
        out[static_cast<std::size_t>(k)] = a < b ? broadphase::Pair{a, b} : broadphase::Pair{b, a};
    }
}

}  // namespace broadphase_peers
