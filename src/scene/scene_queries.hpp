// The Scene's queries: SceneState's box, point, sphere, ray and box-cast
// queries (scene_state.hpp; their contracts are BasicScene's, in
// <broadphase/scene.hpp>), answered by the dynamic AABB tree with the
// caller's callback erased (scene.hpp), and the lazy sync that brings the
// tree up to date with the objects first. See scene_update.hpp for
// update().
#pragma once

#include <broadphase/scene.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include <broadphase/dynamic_tree.hpp>
#include <broadphase/pairs.hpp>
#include "scene/scene_state.hpp"

namespace broadphase {
namespace detail {

/// Runs walk(hit), a tree query calling hit(proxy) for each proxy it finds
/// and stopping when hit returns false, and hands the objects' ids to f a
/// block at a time (as AlgorithmBase::overlaps does): one indirect call a
/// block, not a hit. False when f stopped it.
template <class T, int D, class Walk>
bool scene_hits_in_blocks(const BasicDynamicTree<T, D>& tree, HitCallbackRef f, Walk&& walk) {
    constexpr std::size_t block = 64;
    std::uint32_t hits[block];
    std::size_t held = 0;
    const bool whole = walk([&](std::uint32_t proxy) {
        hits[held++] = static_cast<std::uint32_t>(tree.user_value(proxy));
        if (held < block) return true;
        held = 0;
        return f.deliver(f.f, hits, block);
    });
    return whole && (held == 0 || f.deliver(f.f, hits, held));
}

template <class T, int D>
bool SceneState<T, D>::overlaps(const box_type& q, HitCallbackRef f) {
    const Tree& tree = synced_tree();
    return scene_hits_in_blocks(tree, f, [&](auto&& hit) { return tree.for_each_overlap(q, hit); });
}

template <class T, int D>
bool SceneState<T, D>::containing(const vec_type& p, HitCallbackRef f) {
    const Tree& tree = synced_tree();
    return scene_hits_in_blocks(tree, f, [&](auto&& hit) { return tree.for_each_containing(p, hit); });
}

template <class T, int D>
bool SceneState<T, D>::sphere_overlaps(const vec_type& center, T radius, HitCallbackRef f) {
    const Tree& tree = synced_tree();
    return scene_hits_in_blocks(
        tree, f, [&](auto&& hit) { return tree.for_each_overlapping_sphere(center, radius, hit); });
}

template <class T, int D>
typename SceneState<T, D>::Hit SceneState<T, D>::hit_of(const typename Tree::Hit& h) const {
    Hit out;
    if (h.proxy != Tree::null) out.id = object_of(h.proxy), out.t = h.t;
    return out;
}

template <class T, int D>
typename SceneState<T, D>::Hit SceneState<T, D>::ray_cast(const vec_type& origin, const vec_type& direction,
                                                           T max_t) {
    return hit_of(synced_tree().ray_cast(origin, direction, max_t));
}

template <class T, int D>
void SceneState<T, D>::ray_hits(const vec_type& origin, const vec_type& direction, T max_t,
                                RayHitRef<T> f) {
    synced_tree().for_each_ray_hit(origin, direction, max_t,
                                   [&](std::uint32_t proxy, T t) { return f.call(f.f, object_of(proxy), t); });
}

template <class T, int D>
typename SceneState<T, D>::Hit SceneState<T, D>::box_cast(const box_type& moving, const vec_type& displacement) {
    return hit_of(synced_tree().box_cast(moving, displacement));
}

// The clipped casts: one walk per kind of filter, so that the default
// (every object) tests nothing and a Filter is tested without a call.
template <class T, int D>
typename SceneState<T, D>::CastResult SceneState<T, D>::ray_cast_erased(const vec_type& origin,
                                                                         const vec_type& direction, T max_t,
                                                                         CastCallbackRef<T> f,
                                                                         CastFilterRef filter) {
    const Tree& tree = synced_tree();
    auto steer = [&](std::uint32_t proxy, T t) { return f.call(f.f, object_of(proxy), t); };
    if (filter.filter)
        return tree.ray_cast_clipped(origin, direction, max_t, steer, [&](std::uint32_t proxy) {
            return Filter::may_meet(*filter.filter, objects_[object_of(proxy)].filter);
        });
    if (filter.test)
        return tree.ray_cast_clipped(origin, direction, max_t, steer,
                                     [&](std::uint32_t proxy) { return filter.test(filter.pred, object_of(proxy)); });
    return tree.ray_cast_clipped(origin, direction, max_t, steer);
}

template <class T, int D>
typename SceneState<T, D>::CastResult SceneState<T, D>::box_cast_erased(const box_type& moving,
                                                                         const vec_type& displacement,
                                                                         CastCallbackRef<T> f,
                                                                         CastFilterRef filter) {
    const Tree& tree = synced_tree();
    auto steer = [&](std::uint32_t proxy, T t) { return f.call(f.f, object_of(proxy), t); };
    if (filter.filter)
        return tree.box_cast_clipped(moving, displacement, steer, [&](std::uint32_t proxy) {
            return Filter::may_meet(*filter.filter, objects_[object_of(proxy)].filter);
        });
    if (filter.test)
        return tree.box_cast_clipped(moving, displacement, steer,
                                     [&](std::uint32_t proxy) { return filter.test(filter.pred, object_of(proxy)); });
    return tree.box_cast_clipped(moving, displacement, steer);
}

template <class T, int D>
const typename SceneState<T, D>::Tree& SceneState<T, D>::synced_tree() {
    Work& st = work_;
    if (tree_behind_.load(std::memory_order_acquire)) {
        std::lock_guard<std::mutex> lock(st.tree_mutex);
        if (tree_behind_.load(std::memory_order_relaxed)) {
            for (Id id : tree_pending_) {
                tree_stale_[id] = 0;
                const Object& o = objects_[id];
                std::uint32_t& proxy = proxy_[id];
                if (!o.alive || !o.box.valid()) {
                    if (proxy != Tree::null) st.tree.remove(proxy), proxy = Tree::null;
                } else if (proxy == Tree::null) {
                    proxy = st.tree.insert(o.box, id);
                    ++st.tree_churn;
                } else {
                    st.tree_churn += st.tree.move(proxy, o.box) ? 1 : 0;
                }
            }
            tree_pending_.clear();
            // Leaves placed one at a time make a worse tree than a bulk
            // build (slower rays; measured: docs/measured-in-code.md#scene):
            // rebuilt, O(n log n), once half as many leaves as it holds went
            // in since the last rebuild (the first fill included), so
            // O(log n) a leaf amortised.
            if (st.tree_churn > 1024 && 2 * st.tree_churn > st.tree.size()) st.tree.rebuild(), st.tree_churn = 0;
            tree_behind_.store(false, std::memory_order_release);
        }
    }
    return st.tree;
}

}  // namespace detail
}  // namespace broadphase
