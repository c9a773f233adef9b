// FCL's DynamicAABBTreeCollisionManager as a peer (bench/peers/peers.hpp).
// One CollisionObject per box, made when the boxes are loaded (untimed: a
// user of FCL holds its objects already): an fcl::Box of the box's size,
// translated to its centre, in double. Timed: registerObjects (FCL's bulk
// build of its tree), setup() and collide() with a callback that records the
// pair and runs no narrow phase.
//
// FCL's tree holds each object's AABB, which FCL computes from the shape and
// the transform: centre -/+ half the size, in double. That is not always the
// float box: when one end is far smaller in magnitude than the other (a mesh
// face reaching 1e-8 from 0 and ending at 3), (lo + hi) / 2 rounds, and on
// torus-mesh:100000 FCL's pairs differed (77 extra, 2 missing). So each
// object's AABB is then overwritten with the exact box (ExactBoxObject): the
// same objects and calls, exact input; FCL's overlap test is closed, so its
// pairs are the exact ones (--verify and tests/peers check it).
// An infinite coordinate has no centre (inf - inf is NaN, and FCL's tree
// crashes on it), so load() refuses such boxes.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include <fcl/config.h>
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision_object.h>

#include "registry.hpp"

namespace broadphase_peers {
namespace {

using Object = fcl::CollisionObject<double>;
using Manager = fcl::DynamicAABBTreeCollisionManager<double>;

/// A collision object whose AABB is the given box exactly (FCL keeps the
/// AABB in a protected member, computed once at construction).
class ExactBoxObject : public Object {
public:
    ExactBoxObject(const std::shared_ptr<fcl::Boxd>& shape, const fcl::Transform3d& at, const fcl::Vector3d& lo,
                   const fcl::Vector3d& hi)
        : Object(shape, at) {
        aabb.min_ = lo;
        aabb.max_ = hi;
    }
};

/// Our index travels in the object's user data as index + 1 (never null).
std::uint32_t index_of(const Object* o) {
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(o->getUserData()) - 1);
}

/// FCL's broad-phase callback: records the pair, asks for no narrow phase,
/// and returns false (do not stop).
bool record_pair(Object* a, Object* b, void* data) {
    static_cast<std::vector<broadphase::Pair>*>(data)->push_back(ordered_pair(index_of(a), index_of(b)));
    return false;
}

class FclPeer : public Peer {
public:
    void load(const broadphase::Boxes& boxes) override {
        clear();
        objects_.clear();
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            if (!usable(boxes, i)) continue;
            const broadphase::Box b = boxes[i];
            for (int k = 0; k < 3; ++k)
                if (!std::isfinite(b.min[k]) || !std::isfinite(b.max[k]))
                    throw std::invalid_argument("fcl: box " + std::to_string(i) +
                                                " has an infinite coordinate (an FCL box needs a centre)");
            fcl::Vector3d lo(b.min[0], b.min[1], b.min[2]), hi(b.max[0], b.max[1], b.max[2]);
            auto shape = std::make_shared<fcl::Boxd>(hi - lo);
            fcl::Transform3d at = fcl::Transform3d::Identity();
            at.translation() = (lo + hi) / 2;
            objects_.push_back(std::make_unique<ExactBoxObject>(shape, at, lo, hi));
            objects_.back()->setUserData(reinterpret_cast<void*>(static_cast<std::uintptr_t>(i) + 1));
        }
        pointers_.clear();
        for (const auto& o : objects_) pointers_.push_back(o.get());
    }

    void find_pairs(std::vector<broadphase::Pair>& out) override {
        out.clear();
        manager_ = std::make_unique<Manager>();
        manager_->registerObjects(pointers_);
        manager_->setup();
        manager_->collide(&out, record_pair);
    }

    void clear() override { manager_.reset(); }

private:
    std::vector<std::unique_ptr<Object>> objects_;
    std::vector<Object*> pointers_;
    std::unique_ptr<Manager> manager_;
};

}  // namespace

std::unique_ptr<Peer> make_fcl_peer() { return std::make_unique<FclPeer>(); }

std::string fcl_version() { return std::string("FCL ") + FCL_VERSION; }

}  // namespace broadphase_peers
