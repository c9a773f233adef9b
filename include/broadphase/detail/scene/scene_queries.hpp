// BasicScene's queries (declared, with their contracts, in ../../scene.hpp,
// which includes this file at its end): box, point, sphere, ray and box-cast
// queries on the objects, answered by the dynamic AABB tree, and the lazy
// sync that brings the tree up to date with the objects first. See
// scene_update.hpp for update().
//
// Member functions are defined `inline` as they were when written in the
// class body.
#pragma once

// A body file: it comes after the header that declares what it defines,
// which includes it at its end, and does not include that header back.
#ifndef BROADPHASE_DECLARED_SCENE
#error "include <broadphase/scene.hpp> before <broadphase/detail/scene/scene_queries.hpp>"
#endif

#include <atomic>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "../../dynamic_tree.hpp"
#include "../../pairs.hpp"

namespace broadphase {

template <class T, int D>
template <class F>
inline bool BasicScene<T, D>::for_each_overlap(const box_type& q, F&& f) const {
    return synced_tree().for_each_overlap(q, [&](std::uint32_t proxy) { return call(f, object_of(proxy)); });
}

template <class T, int D>
template <class F>
inline bool BasicScene<T, D>::for_each_containing(const vec_type& p, F&& f) const {
    return synced_tree().for_each_containing(p, [&](std::uint32_t proxy) { return call(f, object_of(proxy)); });
}

template <class T, int D>
template <class F>
inline bool BasicScene<T, D>::for_each_overlapping_sphere(const vec_type& center, T radius, F&& f) const {
    return synced_tree().for_each_overlapping_sphere(center, radius, [&](std::uint32_t proxy) { return call(f, object_of(proxy)); });
}

template <class T, int D>
inline typename BasicScene<T, D>::Hit BasicScene<T, D>::ray_cast(const vec_type& origin, const vec_type& direction,
                                                                  T max_t) const {
    return hit_of(synced_tree().ray_cast(origin, direction, max_t));
}

template <class T, int D>
template <class F>
inline void BasicScene<T, D>::for_each_ray_hit(const vec_type& origin, const vec_type& direction, T max_t, F&& f) const {
    synced_tree().for_each_ray_hit(origin, direction, max_t, [&](std::uint32_t proxy, T t) { return call(f, object_of(proxy), t); });
}

template <class T, int D>
inline typename BasicScene<T, D>::Hit BasicScene<T, D>::box_cast(const box_type& moving,
                                                                  const vec_type& displacement) const {
    return hit_of(synced_tree().box_cast(moving, displacement));
}

template <class T, int D>
template <class F, class Q>
inline typename BasicScene<T, D>::CastResult BasicScene<T, D>::ray_cast_clipped(const vec_type& origin,
                                                                                 const vec_type& direction, T max_t,
                                                                                 F&& f, Q&& filter) const {
    return synced_tree().ray_cast_clipped(
        origin, direction, max_t,
        [&](std::uint32_t proxy, T t) -> decltype(auto) { return f(object_of(proxy), t); },
        [&](std::uint32_t proxy) { return passes(filter, object_of(proxy)); });
}

template <class T, int D>
template <class F, class Q>
inline typename BasicScene<T, D>::CastResult BasicScene<T, D>::box_cast_clipped(const box_type& moving,
                                                                                 const vec_type& displacement, F&& f,
                                                                                 Q&& filter) const {
    return synced_tree().box_cast_clipped(
        moving, displacement,
        [&](std::uint32_t proxy, T t) -> decltype(auto) { return f(object_of(proxy), t); },
        [&](std::uint32_t proxy) { return passes(filter, object_of(proxy)); });
}

// The tree's sync is defined out of the class and not inline, as update()
// is (see scene_update.hpp): compiled once where the class is extern.
template <class T, int D>
const typename BasicScene<T, D>::Tree& BasicScene<T, D>::synced_tree() const {
    if (tree_behind_.load(std::memory_order_acquire)) {
        std::lock_guard<std::mutex> lock(tree_mutex_);
        if (tree_behind_.load(std::memory_order_relaxed)) {
            for (Id id : tree_pending_) {
                tree_stale_[id] = 0;
                const Object& o = objects_[id];
                std::uint32_t& proxy = proxy_[id];
                if (!o.alive || !o.box.valid()) {
                    if (proxy != Tree::null) tree_.remove(proxy), proxy = Tree::null;
                } else if (proxy == Tree::null) {
                    proxy = tree_.insert(o.box, id);
                    ++tree_churn_;
                } else {
                    tree_churn_ += tree_.move(proxy, o.box) ? 1 : 0;
                }
            }
            tree_pending_.clear();
            // Leaves placed one at a time make a worse tree than a bulk
            // build (slower rays; measured: docs/measured-in-code.md#scene):
            // rebuilt, O(n log n), once half as many leaves as it holds went
            // in since the last rebuild (the first fill included), so
            // O(log n) a leaf amortised.
            if (tree_churn_ > 1024 && 2 * tree_churn_ > tree_.size()) tree_.rebuild(), tree_churn_ = 0;
            tree_behind_.store(false, std::memory_order_release);
        }
    }
    return tree_;
}

}  // namespace broadphase
