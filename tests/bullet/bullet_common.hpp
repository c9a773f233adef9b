// What both Bullet adapter test files read off Bullet's objects: body
// indices (each collision object's user index), closed-box overlap, and a
// pair cache as a set of index pairs.
#pragma once

#include <set>
#include <utility>

#include <gtest/gtest.h>

#include <btBulletCollisionCommon.h>

namespace bullet_test {

using IndexPair = std::pair<int, int>;
using PairSet = std::set<IndexPair>;

inline int index_of(const btCollisionObject* o) { return o->getUserIndex(); }
inline int index_of(const btBroadphaseProxy* p) { return index_of(static_cast<const btCollisionObject*>(p->m_clientObject)); }

/// Closed boxes: touching counts.
inline bool boxes_overlap(const btVector3& amin, const btVector3& amax, const btVector3& bmin, const btVector3& bmax) {
    for (int k = 0; k < 3; ++k)
        if (amax[k] < bmin[k] || bmax[k] < amin[k]) return false;
    return true;
}

inline IndexPair ordered(int a, int b) { return a < b ? IndexPair{a, b} : IndexPair{b, a}; }

/// The cache's pairs as body index pairs, each once (a pair twice fails the test).
inline PairSet pairs_of(const btOverlappingPairCache* cache) {
    PairSet out;
    const btBroadphasePair* p = cache->getOverlappingPairArrayPtr();
    for (int i = 0; i < cache->getNumOverlappingPairs(); ++i) {
        const bool fresh = out.insert(ordered(index_of(p[i].m_pProxy0), index_of(p[i].m_pProxy1))).second;
        EXPECT_TRUE(fresh) << "a pair twice in the cache";
    }
    return out;
}

}  // namespace bullet_test
