// Bullet's broad phases as peers in `broadphase-lab bench SEQUENCE` (built only
// when CMake finds Debian's libbullet-dev: BROADPHASE_WITH_BULLET). Our own
// glue around Bullet's public API; Bullet itself is only linked.
//
//   bullet-dbvt  btDbvtBroadphase (two dynamic AABB trees, Bullet's default)
//   bullet-sap   bt32BitAxisSweep3 (incremental sweep and prune on three
//                axes, 32-bit quantised over the sequence's world bounds;
//                the 16-bit btAxisSweep3 holds at most 65,535 objects), its
//                internal raycast tree disabled (we time pairs only)
//
// Each object is a proxy (static ones in Bullet's StaticFilter group, so
// that static-static pairs are never made, as btCollisionWorld does); a move
// is one setAabb, a frame ends with calculateOverlappingPairs. The pairs are
// Bullet's overlapping pair cache: fat boxes in the tree, quantised boxes in
// the sweep, and pairs dropped lazily, so a superset of the exact pairs.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/BroadphaseCollision/btAxisSweep3.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>

#include <bullet_glue.hpp>  // bench/peers/: index <-> user pointer, the pair cache read back

#include "errors.hpp"
#include "motion_bench.hpp"

namespace broadphase_cli {
namespace {

namespace motion = broadphase_fixtures::motion;

btVector3 lo(const broadphase::Box& b) { return btVector3(b.min[0], b.min[1], b.min[2]); }
btVector3 hi(const broadphase::Box& b) { return btVector3(b.max[0], b.max[1], b.max[2]); }

class BulletRunner : public MotionRunner {
public:
    explicit BulletRunner(std::string mode) : mode_(std::move(mode)) {}
    ~BulletRunner() override {
        if (broadphase_)
            for (btBroadphaseProxy* p : proxies_) broadphase_->destroyProxy(p, &dispatcher_);
        delete broadphase_;
    }

    std::string name() const override { return mode_; }
    bool exact() const override { return false; }

    void setup(const motion::Sequence& seq) override {
        const std::size_t n = seq.size();
        if (mode_ == "bullet-dbvt") {
            broadphase_ = new btDbvtBroadphase();
        } else {
            broadphase_ = new bt32BitAxisSweep3(lo(seq.bounds()), hi(seq.bounds()), static_cast<unsigned>(n + 2),
                                                nullptr, /*disableRaycastAccelerator*/ true);
        }
        proxies_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const bool fixed = seq.types()[i] == broadphase::ObjectType::static_object;
            const int group = fixed ? btBroadphaseProxy::StaticFilter : btBroadphaseProxy::DefaultFilter;
            const int mask = fixed ? btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter
                                   : btBroadphaseProxy::AllFilter;
            proxies_[i] = broadphase_->createProxy(lo(seq.initial()[i]), hi(seq.initial()[i]), BOX_SHAPE_PROXYTYPE,
                                                   broadphase_peers::user_pointer(static_cast<std::uint32_t>(i)), group,
                                                   mask, &dispatcher_);
            if (!proxies_[i]) throw CliError(mode_ + ": Bullet refused a proxy (too many objects?)");
        }
        broadphase_->calculateOverlappingPairs(&dispatcher_);
    }

    void frame(const motion::Moves& moves) override {
        for (std::size_t k = 0; k < moves.size(); ++k)
            broadphase_->setAabb(proxies_[moves.index[k]], lo(moves.box[k]), hi(moves.box[k]), &dispatcher_);
        broadphase_->calculateOverlappingPairs(&dispatcher_);
    }

    std::size_t pairs() const override {
        return static_cast<std::size_t>(broadphase_->getOverlappingPairCache()->getNumOverlappingPairs());
    }

    bool covers(const std::vector<broadphase::Pair>& exact) const override {
        std::vector<broadphase::Pair> mine;
        broadphase_peers::read_pairs(*broadphase_->getOverlappingPairCache(), mine);
        std::sort(mine.begin(), mine.end());
        return std::includes(mine.begin(), mine.end(), exact.begin(), exact.end());
    }

private:
    std::string mode_;
    btDefaultCollisionConfiguration configuration_;
    btCollisionDispatcher dispatcher_{&configuration_};
    btBroadphaseInterface* broadphase_ = nullptr;
    std::vector<btBroadphaseProxy*> proxies_;
};

}  // namespace

std::vector<std::string> bullet_mode_names() { return {"bullet-dbvt", "bullet-sap"}; }

std::unique_ptr<MotionRunner> make_bullet_runner(const std::string& mode) {
    return std::make_unique<BulletRunner>(mode);
}

std::string bullet_version() {
    const int v = btGetVersion();
    return "Bullet " + std::to_string(v / 100) + "." + std::to_string(v % 100);
}

}  // namespace broadphase_cli
