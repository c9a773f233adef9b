// Bullet's btDbvtBroadphase used one-shot as a peer (bench/peers/peers.hpp):
// timed, a new broad phase, one proxy per box (createProxy), one
// calculateOverlappingPairs, and the pairs read from its overlapping pair
// cache; untimed, the proxies destroyed and the broad phase deleted.
//
// Exact boxes: createProxy stores the box as given (the margin and velocity
// prediction that fatten a box apply only in setAabb, i.e. to boxes that
// move, which none does here), and its overlap test is closed.
//
// Deferred collide on (m_deferedcollide, a public setting): createProxy only
// inserts, and calculateOverlappingPairs finds every pair in one pass of the
// tree against itself. Bullet's default (off, as in a btCollisionWorld)
// queries the tree once per new proxy instead; same pairs, but up to
// 1.7x slower one-shot (sparse20k 20 against 12.5 ms, dense20k 31-40 against
// 21-26, clusters40k 77-88 against 60-85: one scratch program, both ways
// alternated six times, on the loaded 2-core EPYC), so the peer gets its
// faster setting.
#include <cstdint>
#include <string>
#include <vector>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>

#include "bullet_glue.hpp"
#include "registry.hpp"

namespace broadphase_peers {
namespace {

class BulletDbvtPeer : public Peer {
public:
    ~BulletDbvtPeer() override { clear(); }

    void load(const broadphase::Boxes& boxes) override {
        clear();
        lo_.clear();
        hi_.clear();
        index_.clear();
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            if (!usable(boxes, i)) continue;
            const broadphase::Box b = boxes[i];
            lo_.emplace_back(b.min[0], b.min[1], b.min[2]);
            hi_.emplace_back(b.max[0], b.max[1], b.max[2]);
            index_.push_back(static_cast<std::uint32_t>(i));
        }
    }

    void find_pairs(std::vector<broadphase::Pair>& out) override {
        clear();
        broadphase_ = new btDbvtBroadphase();
        broadphase_->m_deferedcollide = true;
        proxies_.resize(lo_.size());
        for (std::size_t k = 0; k < lo_.size(); ++k)
            proxies_[k] = broadphase_->createProxy(lo_[k], hi_[k], BOX_SHAPE_PROXYTYPE, user_pointer(index_[k]),
                                                   btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter,
                                                   &dispatcher_);
        broadphase_->calculateOverlappingPairs(&dispatcher_);
        read_pairs(*broadphase_->getOverlappingPairCache(), out);
    }

    void clear() override {
        if (!broadphase_) return;
        for (btBroadphaseProxy* p : proxies_) broadphase_->destroyProxy(p, &dispatcher_);
        proxies_.clear();
        delete broadphase_;
        broadphase_ = nullptr;
    }

private:
    std::vector<btVector3> lo_, hi_;  // 16-byte aligned: C++17 allocates over-aligned types aligned
    std::vector<std::uint32_t> index_;
    btDefaultCollisionConfiguration configuration_;
    btCollisionDispatcher dispatcher_{&configuration_};
    btDbvtBroadphase* broadphase_ = nullptr;
    std::vector<btBroadphaseProxy*> proxies_;
};

}  // namespace

std::unique_ptr<Peer> make_bullet_dbvt_peer() { return std::make_unique<BulletDbvtPeer>(); }

std::string bullet_version() {
    const int v = btGetVersion();
    return "Bullet " + std::to_string(v / 100) + "." + std::to_string(v % 100);
}

}  // namespace broadphase_peers
