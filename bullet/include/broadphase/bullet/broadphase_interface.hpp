// Bullet's broad phase on broadphase::Scene: a btBroadphaseInterface that a
// Bullet world takes in place of btDbvtBroadphase.
//
//   #include <broadphase/bullet/broadphase_interface.hpp>  // link broadphase::bullet
//   broadphase::bullet::BroadphaseInterface broadphase;
//   btDiscreteDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
//
// An optional component: it needs Bullet's headers (Debian: libbullet-dev)
// and BulletCollision and LinearMath to link; the core headers never include
// it. The CMake target broadphase::bullet carries both (docs/bullet.md).
//
// How it works: each proxy is an object of a BasicScene<btScalar, 3>;
// setAabb moves it, and calculateOverlappingPairs runs the scene's update()
// and hands its events to Bullet's overlapping pair cache (by default a
// btHashedOverlappingPairCache it owns): addOverlappingPair for each pair
// that began, removeOverlappingPair for each that ended. The pair cache's own
// filter (needsBroadphaseCollision: the proxies' collision filter group and
// mask, or the overlap filter callback installed on the cache) decides, as
// with Bullet's broad phases, whether a begun pair goes in.
//
// Pairs are exact on the boxes Bullet gives (which already include Bullet's
// contact breaking threshold), unless scene().set_fat_pairs(true) is asked:
// then they are those of boxes grown by scene().margin(), as
// btDbvtBroadphase's cache holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>
#include <LinearMath/btAlignedAllocator.h>
#include <LinearMath/btVector3.h>

#include <broadphase/detail/exceptions.hpp>
#include <broadphase/scene.hpp>

namespace broadphase {
/// Bullet Physics adapters (optional component: link broadphase::bullet).
namespace bullet {

/// A btBroadphaseInterface on a broadphase::BasicScene<btScalar, 3>: hand it
/// to a Bullet collision or dynamics world in place of btDbvtBroadphase.
/// Not copyable or movable (Bullet keeps pointers to it and to its proxies).
class BroadphaseInterface : public btBroadphaseInterface {
public:
    /// The scene behind it: float boxes, or double with BT_USE_DOUBLE_PRECISION.
    using SceneType = BasicScene<btScalar, 3>;
    /// A scene object's id.
    using Id = typename SceneType::Id;

    /// A Bullet proxy that knows its scene object. Bullet sees the
    /// btBroadphaseProxy base; its m_uniqueId is unique among live proxies
    /// (a counter, as btDbvtBroadphase's).
    struct Proxy : btBroadphaseProxy {
        /// A proxy with Bullet's fields filled in; its id is set by createProxy.
        Proxy(const btVector3& aabb_min, const btVector3& aabb_max, void* user, int group, int mask)
            : btBroadphaseProxy(aabb_min, aabb_max, user, group, mask) {}
        /// The proxy's object in scene().
        Id id = SceneType::null;
        /// The filter group and mask the scene was last given for it (see set_scene_filtering).
        int scene_group = 0, scene_mask = 0;
    };

    /// A broad phase that fills `pair_cache` (not owned; it must outlive this
    /// object), or, when null (the default), a btHashedOverlappingPairCache of
    /// its own, as btDbvtBroadphase does.
    explicit BroadphaseInterface(btOverlappingPairCache* pair_cache = nullptr) : cache_(pair_cache) {
        if (!cache_) {
            cache_ = new btHashedOverlappingPairCache();  // Bullet's aligned allocator (BT_DECLARE_ALIGNED_ALLOCATOR)
            owns_cache_ = true;
        }
    }
    /// Deletes the pair cache if it is its own, then the proxies still alive.
    ~BroadphaseInterface() override {
        if (owns_cache_) delete static_cast<btHashedOverlappingPairCache*>(cache_);
        for (Proxy* p : proxies_)
            if (p) p->~Proxy();
    }
    BroadphaseInterface(const BroadphaseInterface&) = delete;
    BroadphaseInterface& operator=(const BroadphaseInterface&) = delete;

    /// Adds an object with box [aabbMin, aabbMax]; its pairs begin at the next
    /// calculateOverlappingPairs. shapeType and dispatcher are not used.
    /// Returns null only when the scene's 32-bit ids are exhausted.
    btBroadphaseProxy* createProxy(const btVector3& aabbMin, const btVector3& aabbMax, int /*shapeType*/, void* userPtr,
                                   int collisionFilterGroup, int collisionFilterMask, btDispatcher* /*dispatcher*/) override {
        // The filter is given by sync_filter, before it is needed: see set_scene_filtering.
        const Id id = scene_.add(box_of(aabbMin, aabbMax));
        if (id == SceneType::null) return nullptr;
        Proxy* p = nullptr;
        detail::undo_on_throw(
            [&] {
                if (proxies_.size() <= id) proxies_.resize(std::size_t(id) + 1, nullptr);
                p = new (slot(id)) Proxy(aabbMin, aabbMax, userPtr, collisionFilterGroup, collisionFilterMask);
                p->id = id;
                sync_filter(*p);
            },
            [&] {  // (std::bad_alloc: nothing was added)
                if (p) p->~Proxy();
                scene_.remove(id);
            });
        p->m_uniqueId = ++next_uid_;
        proxies_[id] = p;
        ++live_;
        return p;
    }

    /// Removes a proxy and, at once, every pair of the cache it is in (as
    /// btDbvtBroadphase does); the scene reports its pairs ended at the next
    /// calculateOverlappingPairs, and those reports are skipped.
    void destroyProxy(btBroadphaseProxy* proxy, btDispatcher* dispatcher) override {
        Proxy* p = static_cast<Proxy*>(proxy);
        cache_->removeOverlappingPairsContainingProxy(p, dispatcher);
        scene_.remove(p->id);
        proxies_[p->id] = nullptr;
        --live_;
        p->~Proxy();
    }

    /// Gives a proxy its new box; the scene is told only when the box changed
    /// (Bullet sets every object's box every step by default). O(1). Queries
    /// see the new box at once; its pairs change at the next
    /// calculateOverlappingPairs (btDbvtBroadphase adds new ones here already).
    void setAabb(btBroadphaseProxy* proxy, const btVector3& aabbMin, const btVector3& aabbMax, btDispatcher* /*dispatcher*/) override {
        Proxy* p = static_cast<Proxy*>(proxy);
        if (p->m_aabbMin == aabbMin && p->m_aabbMax == aabbMax) return;
        p->m_aabbMin = aabbMin;
        p->m_aabbMax = aabbMax;
        scene_.move(p->id, box_of(aabbMin, aabbMax));
    }

    /// The box last given to the proxy.
    void getAabb(btBroadphaseProxy* proxy, btVector3& aabbMin, btVector3& aabbMax) const override {
        aabbMin = proxy->m_aabbMin;
        aabbMax = proxy->m_aabbMax;
    }

    /// rayCallback.process(proxy) for each proxy whose box the segment
    /// rayFrom + lambda * dir, lambda in [0, rayCallback.m_lambda_max],
    /// touches (closed boxes), in no particular order. dir is the direction
    /// the callback holds (1 / m_rayDirectionInverse, a component of
    /// BT_LARGE_FLOAT or more read as 0), as btDbvtBroadphase reads it:
    /// btCollisionWorld's callbacks hold the unit direction and the ray's
    /// length as m_lambda_max, so the segment is rayFrom to rayTo whatever
    /// its length; rayTo itself is not read. When aabbMin or aabbMax is
    /// nonzero, the box [rayFrom + aabbMin, rayFrom + aabbMax] is swept along
    /// the segment instead (Bullet's convex sweeps; a zero-length sweep is a
    /// box query at rayFrom). The search follows the callback's m_lambda_max
    /// as process lowers it (Scene's clipped casts): boxes entered beyond it
    /// are neither reported nor visited; lowered to 0, only boxes holding the
    /// start remain. process returning false, or a NaN m_lambda_max, stops
    /// it. A negative or NaN m_lambda_max, or a NaN direction (Bullet's
    /// zero-length ray), reports nothing. Filters do not apply (as in
    /// Bullet's broad phases). Sees the boxes given since the last
    /// calculateOverlappingPairs. Cost: O(log n + k) typical (the Scene's
    /// clipped casts).
    void rayTest(const btVector3& rayFrom, const btVector3& /*rayTo*/, btBroadphaseRayCallback& rayCallback,
                 const btVector3& aabbMin = btVector3(0, 0, 0), const btVector3& aabbMax = btVector3(0, 0, 0)) override {
        const btScalar lambda_max = rayCallback.m_lambda_max;
        if (!(lambda_max >= btScalar(0))) return;  // negative or NaN: nothing
        const btVector3 dir = direction_of(rayCallback);
        if (!(dir.x() == dir.x() && dir.y() == dir.y() && dir.z() == dir.z())) return;
        // f(id, lambda) for the clipped casts: process, then the callback's
        // m_lambda_max as the new clip, in the cast's own units (`scale`
        // lambdas a unit of t), or stop.
        auto steer = [&](Id id, btScalar lambda, btScalar scale) -> btScalar {
            if (lambda > rayCallback.m_lambda_max) return SceneType::cast_ignore;  // (a tie at the clip)
            if (!rayCallback.process(proxies_[id])) return SceneType::cast_stop;
            const btScalar now = rayCallback.m_lambda_max;
            if (now != now) return SceneType::cast_stop;
            if (!(scale > btScalar(0))) return SceneType::cast_continue;  // a zero-length cast: every hit is at 0
            // Lowered to 0 (or below): a clip of the smallest positive t keeps only the boxes holding the start.
            if (!(now > btScalar(0))) return std::numeric_limits<btScalar>::denorm_min();
            return now / scale;
        };
        if (aabbMin.isZero() && aabbMax.isZero()) {
            scene_.ray_cast_clipped(vec_of(rayFrom), vec_of(dir), lambda_max,
                                    [&](Id id, btScalar t) { return steer(id, t, btScalar(1)); });
        } else {
            // A box cast: time t in [0, 1] along dir * lambda_max, so lambda = t * lambda_max.
            scene_.box_cast_clipped(box_of(rayFrom + aabbMin, rayFrom + aabbMax), vec_of(dir * lambda_max),
                                    [&](Id id, btScalar t) { return steer(id, t * lambda_max, lambda_max); });
        }
    }

    /// callback.process(proxy) for each proxy whose box overlaps the closed
    /// box [aabbMin, aabbMax] (touching counts), in no particular order. All
    /// are visited whatever process returns, as btDbvtBroadphase does.
    void aabbTest(const btVector3& aabbMin, const btVector3& aabbMax, btBroadphaseAabbCallback& callback) override {
        scene_.for_each_overlap(box_of(aabbMin, aabbMax), [&](Id id) { callback.process(proxies_[id]); });
    }

    /// Runs the scene's update() and brings the pair cache up to date:
    /// removeOverlappingPair for each pair that ended, then addOverlappingPair
    /// (which applies the cache's filter) for each that began. A proxy whose
    /// filter group or mask was changed since the last call has its pairs
    /// filtered again: the pairs now refused leave the cache, those now
    /// accepted enter it. Cost: the scene's update (docs/scene.md) plus
    /// O(proxies) to notice changed filters, plus the events (plus O(pairs)
    /// on a call after a filter change, when an overlap filter callback is
    /// installed or scene filtering is off). Should the update
    /// fail (out of memory), the cache is left as it was and last_report() says so.
    void calculateOverlappingPairs(btDispatcher* dispatcher) override {
        const bool filtering = scene_filtering_ && cache_->getOverlapFilterCallback() == nullptr;
        // Filters changed on the proxies since the last call: given to the
        // scene (whose events then follow), or, when the cache alone filters
        // (and for every proxy when that choice changed), the proxies'
        // current pairs asked again below.
        refiltered_.clear();
        const bool all = filtering != filtering_now_;
        filtering_now_ = filtering;
        for (Proxy* p : proxies_) {
            if (!p || !(all || p->m_collisionFilterGroup != p->scene_group || p->m_collisionFilterMask != p->scene_mask)) continue;
            sync_filter(*p);
            if (!filtering || all) refiltered_.push_back(p->id);
        }
        report_ = scene_.update();
        if (!report_.ok()) return;
        for (const Pair& e : scene_.ended()) {
            Proxy* a = e.a < proxies_.size() ? proxies_[e.a] : nullptr;
            Proxy* b = e.b < proxies_.size() ? proxies_[e.b] : nullptr;
            if (a && b) cache_->removeOverlappingPair(a, b, dispatcher);  // (a destroyed proxy's pairs went with it)
        }
        for (const Pair& e : scene_.begun()) cache_->addOverlappingPair(proxies_[e.a], proxies_[e.b]);
        if (!refiltered_.empty()) ask_again(dispatcher);
    }

    /// The pair cache this broad phase fills.
    btOverlappingPairCache* getOverlappingPairCache() override { return cache_; }
    /// The pair cache this broad phase fills.
    const btOverlappingPairCache* getOverlappingPairCache() const override { return cache_; }

    /// The smallest box holding every proxy's box (all zero when there is
    /// none, or none with a valid box). O(proxies).
    void getBroadphaseAabb(btVector3& aabbMin, btVector3& aabbMax) const override {
        bool any = false;
        aabbMin.setValue(0, 0, 0);
        aabbMax.setValue(0, 0, 0);
        for (const Proxy* p : proxies_) {
            if (!p || !box_of(p->m_aabbMin, p->m_aabbMax).valid()) continue;
            if (!any) {
                aabbMin = p->m_aabbMin, aabbMax = p->m_aabbMax, any = true;
            } else {
                aabbMin.setMin(p->m_aabbMin);
                aabbMax.setMax(p->m_aabbMax);
            }
        }
    }

    /// With no proxy left, starts the unique ids from 1 again and lets the
    /// scene forget its removed objects (as btDbvtBroadphase's resetPool).
    void resetPool(btDispatcher* /*dispatcher*/) override {
        if (live_ != 0) return;
        scene_.update();  // the removed objects' ids become free; their pairs are gone from the cache already
        proxies_.clear();
        next_uid_ = 0;
    }

    /// Prints one line: proxies, pairs in the cache, the scene's last update method.
    void printStats() override {
        std::printf("broadphase::bullet::BroadphaseInterface: %zu proxies, %d pairs in the cache, last update: %s\n",
                    live_, cache_->getNumOverlappingPairs(), to_string(scene_.last_method()));
    }

    /// The scene behind the broad phase: for its settings (set_update_mode,
    /// set_fat_pairs, set_margin, set_options) and its queries. Its objects
    /// belong to the proxies: add, move or remove none through it.
    SceneType& scene() { return scene_; }
    /// The scene behind the broad phase (const).
    const SceneType& scene() const { return scene_; }

    /// The proxy of a scene object, or null when none.
    Proxy* proxy(Id id) const { return id < proxies_.size() ? proxies_[id] : nullptr; }
    /// Live proxies.
    std::size_t proxy_count() const { return live_; }
    /// What the last calculateOverlappingPairs' scene update reported.
    const Report& last_report() const { return report_; }

    /// Filtering in the scene (on by default): while the pair cache has no
    /// overlap filter callback, the scene is given each proxy's collision
    /// filter group and mask (as a Filter: category = group, mask = mask,
    /// which is Bullet's default rule) and makes objects in StaticFilter that
    /// do not collide with StaticFilter static objects, so that filtered
    /// pairs cost no search and no events. With a callback installed, or when
    /// off, the scene reports every overlap and the cache alone filters.
    /// Turn it off for a pair cache that overrides needsBroadphaseCollision
    /// itself. Applied at the next calculateOverlappingPairs.
    void set_scene_filtering(bool on) { scene_filtering_ = on; }
    /// Whether filtering in the scene is on (see set_scene_filtering).
    bool scene_filtering() const { return scene_filtering_; }

private:
    /// The current pairs of the proxies in refiltered_, each asked of the
    /// cache's filter again: added when it now accepts them, removed when it
    /// no longer does. O(pairs), on the calls that follow a filter change.
    void ask_again(btDispatcher* dispatcher) {
        if (mark_.size() < proxies_.size()) mark_.resize(proxies_.size(), 0);
        for (Id id : refiltered_) mark_[id] = 1;
        for (const Pair& e : scene_.pairs()) {
            if (!(mark_[e.a] | mark_[e.b])) continue;
            Proxy* a = proxies_[e.a];
            Proxy* b = proxies_[e.b];
            if (cache_->needsBroadphaseCollision(a, b)) cache_->addOverlappingPair(a, b);
            else cache_->removeOverlappingPair(a, b, dispatcher);
        }
        for (Id id : refiltered_) mark_[id] = 0;
    }

    /// The scene's filter and type for proxy p, from its group and mask when
    /// filtering in the scene is on, else the default (meets everything).
    void sync_filter(Proxy& p) {
        p.scene_group = p.m_collisionFilterGroup;
        p.scene_mask = p.m_collisionFilterMask;
        Filter f;
        ObjectType type = ObjectType::dynamic_object;
        if (filtering_now_) {
            f.category = std::uint64_t(std::uint32_t(p.m_collisionFilterGroup));
            f.mask = std::uint64_t(std::uint32_t(p.m_collisionFilterMask));
            // Two such objects never meet by the mask, so the scene may treat them as static.
            const int s = btBroadphaseProxy::StaticFilter;
            if ((p.m_collisionFilterGroup & s) && !(p.m_collisionFilterMask & s)) type = ObjectType::static_object;
        }
        const Filter& now = scene_.filter(p.id);
        if (now.category != f.category || now.mask != f.mask || now.group != f.group) scene_.set_filter(p.id, f);
        if (scene_.type(p.id) != type) scene_.set_type(p.id, type);
    }

    /// The direction a ray callback's lambda is measured along: 1 /
    /// m_rayDirectionInverse per axis, 0 where the inverse is BT_LARGE_FLOAT
    /// or more (Bullet's spelling of a zero component), NaN stays NaN.
    static btVector3 direction_of(const btBroadphaseRayCallback& c) {
        btVector3 d;
        for (int k = 0; k < 3; ++k) {
            const btScalar inv = c.m_rayDirectionInverse[k];
            d[k] = (inv >= btScalar(BT_LARGE_FLOAT) || inv <= -btScalar(BT_LARGE_FLOAT)) ? btScalar(0) : btScalar(1) / inv;
        }
        return d;
    }
    static typename SceneType::vec_type vec_of(const btVector3& v) { return {v.x(), v.y(), v.z()}; }
    static typename SceneType::box_type box_of(const btVector3& lo, const btVector3& hi) {
        typename SceneType::box_type b;
        b.min = vec_of(lo);
        b.max = vec_of(hi);
        return b;
    }

    SceneType scene_;
    btOverlappingPairCache* cache_ = nullptr;
    bool owns_cache_ = false;
    /// Where proxy `id` lives: the proxies are kept in chunks by id, so
    /// that calculateOverlappingPairs' look at every proxy's filter reads
    /// memory in order (20,000 proxies allocated one by one among Bullet's
    /// bodies cost it about 2 ms a step there). May throw std::bad_alloc.
    void* slot(Id id) {
        const std::size_t chunk = id / kChunk;
        while (chunks_.size() <= chunk) {
            if (chunks_.size() == chunks_.capacity()) chunks_.reserve(2 * chunks_.size() + 4);  // first: the push cannot throw
            chunks_.emplace_back(static_cast<unsigned char*>(::operator new(sizeof(Proxy) * kChunk, std::align_val_t(alignof(Proxy)))));
        }
        return chunks_[chunk].get() + sizeof(Proxy) * (id % kChunk);
    }
    struct FreeChunk {
        void operator()(unsigned char* p) const { ::operator delete(p, std::align_val_t(alignof(Proxy))); }
    };
    static constexpr std::size_t kChunk = 256;
    std::vector<std::unique_ptr<unsigned char[], FreeChunk>> chunks_;  // proxies by id, kChunk a chunk

    std::vector<Proxy*> proxies_;  // by scene id; null for none
    std::vector<Id> refiltered_;   // proxies whose filter changed while the cache alone filters
    std::vector<std::uint8_t> mark_;  // by scene id: in refiltered_ (ask_again)
    std::size_t live_ = 0;
    int next_uid_ = 0;
    bool scene_filtering_ = true;
    bool filtering_now_ = true;  // what the scene was last given: filters (true) or the default
    Report report_;
};

}  // namespace bullet
}  // namespace broadphase
