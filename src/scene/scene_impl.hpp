// The bodies of <broadphase/scene.hpp>: each BasicScene member is one call
// to what the scene holds behind its pointer (detail::SceneState,
// scene/scene_state.hpp: the registry, the engines, the statics' index, the
// query tree, the update's scratch). Compiled once in the library
// (src/scene/scene.cpp) for float and double, 2-D and 3-D; a file that uses
// other scalar types or dimensions with the compiled library
// (BasicScene<float, 1>, say) includes it after scene.hpp.
//
// Here: the scene's members, and the state's changes that touch every
// object; the update machinery is in scene/scene_update.hpp, the queries in
// scene/scene_queries.hpp, both included below.
//
// It comes after scene.hpp and does not include it back: no file includes
// the file that includes it (extern_templates.hpp).
#pragma once

#include <broadphase/scene.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "dynamic_tree/dynamic_tree_impl.hpp"  // the tree's mutation, for other T and D too
#include <broadphase/detail/exceptions.hpp>
#include "scene/scene_queries.hpp"
#include "scene/scene_state.hpp"
#include "scene/scene_update.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
void SceneState<T, D>::add(const box_type* boxes, std::size_t n, Id* ids_out, ObjectType type) {
    const std::size_t fresh = n > free_.size() ? n - free_.size() : 0;
    if (fresh > 0 && fits_indices(std::uint64_t(objects_.size()) + fresh)) reserve_objects(objects_.size() + fresh);
    for (std::size_t i = 0; i < n; ++i) ids_out[i] = add(boxes[i], type, 0, Filter{});
}

template <class T, int D>
bool SceneState<T, D>::set_margin(T margin) {
    Tree& tree = work_.tree;
    const T before = tree.margin();
    if (!tree.set_margin(margin)) return false;
    margin_ = tree.margin();
    if (!fat_pairs_) return true;
    detail::undo_on_throw([&] { touch_all(); },
                          [&] {
                              tree.set_margin(before);
                              margin_ = before;
                          });
    refresh_pair_boxes();
    return true;
}

template <class T, int D>
void SceneState<T, D>::set_fat_pairs(bool on) {
    if (on == fat_pairs_) return;
    touch_all();
    fat_pairs_ = on;
    refresh_pair_boxes();
}

template <class T, int D>
inline void SceneState<T, D>::refresh_pair_boxes() {
    for (Id id = 0; id < objects_.size(); ++id)
        if (objects_[id].alive) objects_[id].pair_box = pairing_box_of(objects_[id].box);
}

template <class T, int D>
inline void SceneState<T, D>::touch_all() {
    for (Id id = 0; id < objects_.size(); ++id)
        if (objects_[id].alive) touch(id);
}

template <class T, int D>
inline void SceneState<T, D>::reserve_objects(std::size_t n) {
    Work& st = work_;
    objects_.reserve(n);
    dirty_.reserve(n);
    for (auto* v : {&st.adds, &st.mark}) v->reserve(n);
    for (auto* v : {&meet_, &dirty_flag_, &tree_stale_}) v->reserve(n);
    st.partners.reserve(n);
    proxy_.reserve(n);
    tree_pending_.reserve(n);
}

}  // namespace detail

// ---- BasicScene: each member one call to the state.

template <class T, int D>
BasicScene<T, D>::BasicScene() : state_(std::make_unique<detail::SceneState<T, D>>()) {}

template <class T, int D>
BasicScene<T, D>::~BasicScene() = default;

// Objects.
template <class T, int D>
typename BasicScene<T, D>::Id BasicScene<T, D>::add(const box_type& box, ObjectType type, std::uint64_t user_value,
                                                    const Filter& filter) {
    return state_->add(box, type, user_value, filter);
}
template <class T, int D>
bool BasicScene<T, D>::remove(Id id) {
    return state_->remove(id);
}
template <class T, int D>
bool BasicScene<T, D>::move(Id id, const box_type& box) {
    return state_->move(id, box);
}
template <class T, int D>
void BasicScene<T, D>::add(const box_type* boxes, std::size_t n, Id* ids_out, ObjectType type) {
    state_->add(boxes, n, ids_out, type);
}
template <class T, int D>
std::size_t BasicScene<T, D>::move(const Id* ids, const box_type* boxes, std::size_t n) {
    detail::SceneState<T, D>& s = *state_;
    std::size_t done = 0;
    for (std::size_t i = 0; i < n; ++i) done += s.move(ids[i], boxes[i]) ? 1 : 0;
    return done;
}
template <class T, int D>
std::size_t BasicScene<T, D>::remove(const Id* ids, std::size_t n) {
    detail::SceneState<T, D>& s = *state_;
    std::size_t done = 0;
    for (std::size_t i = 0; i < n; ++i) done += s.remove(ids[i]) ? 1 : 0;
    return done;
}
template <class T, int D>
bool BasicScene<T, D>::set_type(Id id, ObjectType type) {
    return state_->set_type(id, type);
}
template <class T, int D>
bool BasicScene<T, D>::set_filter(Id id, const Filter& f) {
    return state_->set_filter(id, f);
}
template <class T, int D>
bool BasicScene<T, D>::set_user_value(Id id, std::uint64_t v) {
    return state_->set_user_value(id, v);
}
template <class T, int D>
bool BasicScene<T, D>::contains(Id id) const {
    return state_->contains(id);
}
template <class T, int D>
std::size_t BasicScene<T, D>::size() const {
    return state_->live_;
}
template <class T, int D>
const typename BasicScene<T, D>::box_type& BasicScene<T, D>::box(Id id) const {
    return state_->objects_[id].box;
}
template <class T, int D>
ObjectType BasicScene<T, D>::type(Id id) const {
    return state_->objects_[id].type;
}
template <class T, int D>
const Filter& BasicScene<T, D>::filter(Id id) const {
    return state_->objects_[id].filter;
}
template <class T, int D>
std::uint64_t BasicScene<T, D>::user_value(Id id) const {
    return state_->objects_[id].user_value;
}

// Settings.
template <class T, int D>
void BasicScene<T, D>::set_options(const Options& o) {
    state_->options_ = o;
}
template <class T, int D>
void BasicScene<T, D>::set_update_mode(UpdateMode m) {
    state_->mode_ = m;
}
template <class T, int D>
bool BasicScene<T, D>::set_margin(T margin) {
    return state_->set_margin(margin);
}
template <class T, int D>
T BasicScene<T, D>::margin() const {
    return state_->margin_;
}
template <class T, int D>
void BasicScene<T, D>::set_fat_pairs(bool on) {
    state_->set_fat_pairs(on);
}
template <class T, int D>
bool BasicScene<T, D>::fat_pairs() const {
    return state_->fat_pairs_;
}
template <class T, int D>
const typename BasicScene<T, D>::box_type& BasicScene<T, D>::pair_box(Id id) const {
    return state_->objects_[id].pair_box;
}
template <class T, int D>
bool BasicScene<T, D>::last_update_incremental() const {
    return state_->last_method_ != UpdateMode::rebuild;
}
template <class T, int D>
UpdateMode BasicScene<T, D>::last_method() const {
    return state_->last_method_;
}
template <class T, int D>
const typename BasicScene<T, D>::Tree& BasicScene<T, D>::tree() const {
    return state_->synced_tree();
}

// Pairs and events.
template <class T, int D>
Report BasicScene<T, D>::update() {
    return state_->update();
}
template <class T, int D>
const std::vector<Pair>& BasicScene<T, D>::pairs() const {
    return state_->pairs();
}
template <class T, int D>
std::size_t BasicScene<T, D>::pair_count() const {
    return state_->pair_count_;
}
template <class T, int D>
const std::vector<Pair>& BasicScene<T, D>::begun() const {
    return state_->begun_;
}
template <class T, int D>
const std::vector<Pair>& BasicScene<T, D>::ended() const {
    return state_->ended_;
}

// Queries.
template <class T, int D>
bool BasicScene<T, D>::overlaps(const box_type& q, HitCallbackRef f) const {
    return state_->overlaps(q, f);
}
template <class T, int D>
bool BasicScene<T, D>::containing(const vec_type& p, HitCallbackRef f) const {
    return state_->containing(p, f);
}
template <class T, int D>
bool BasicScene<T, D>::sphere_overlaps(const vec_type& center, T radius, HitCallbackRef f) const {
    return state_->sphere_overlaps(center, radius, f);
}
template <class T, int D>
typename BasicScene<T, D>::Hit BasicScene<T, D>::ray_cast(const vec_type& origin, const vec_type& direction,
                                                           T max_t) const {
    return state_->ray_cast(origin, direction, max_t);
}
template <class T, int D>
void BasicScene<T, D>::ray_hits(const vec_type& origin, const vec_type& direction, T max_t,
                                detail::RayHitRef<T> f) const {
    state_->ray_hits(origin, direction, max_t, f);
}
template <class T, int D>
typename BasicScene<T, D>::Hit BasicScene<T, D>::box_cast(const box_type& moving, const vec_type& displacement) const {
    return state_->box_cast(moving, displacement);
}
template <class T, int D>
typename BasicScene<T, D>::CastResult BasicScene<T, D>::ray_cast_erased(const vec_type& origin,
                                                                         const vec_type& direction, T max_t,
                                                                         detail::CastCallbackRef<T> f,
                                                                         detail::CastFilterRef filter) const {
    return state_->ray_cast_erased(origin, direction, max_t, f, filter);
}
template <class T, int D>
typename BasicScene<T, D>::CastResult BasicScene<T, D>::box_cast_erased(const box_type& moving,
                                                                         const vec_type& displacement,
                                                                         detail::CastCallbackRef<T> f,
                                                                         detail::CastFilterRef filter) const {
    return state_->box_cast_erased(moving, displacement, f, filter);
}

}  // namespace broadphase
