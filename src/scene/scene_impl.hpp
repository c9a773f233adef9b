// The bodies of <broadphase/scene.hpp>: BasicScene's members that are not
// inline there, and what they reach behind the scene's pointer
// (detail::SceneState, scene/scene_state.hpp: the engines, the statics'
// index, the query tree, the update's scratch). Compiled once in the
// library (src/scene/scene.cpp) for the types BROADPHASE_COMPILED_TYPES lists;
// header-only, scene.hpp includes this file at its end. A file that uses
// other scalar types or dimensions with the compiled library
// (BasicScene<float, 1>, say) includes it after scene.hpp.
//
// Here: construction and the changes that touch every object; the update
// machinery is in scene/scene_update.hpp, the queries in
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

template <class T, int D>
BasicScene<T, D>::BasicScene() : state_(std::make_unique<State>()) {}

template <class T, int D>
BasicScene<T, D>::~BasicScene() = default;

template <class T, int D>
void BasicScene<T, D>::add(const box_type* boxes, std::size_t n, Id* ids_out, ObjectType type) {
    const std::size_t fresh = n > free_.size() ? n - free_.size() : 0;
    if (fresh > 0 && fits_indices(std::uint64_t(objects_.size()) + fresh)) reserve_objects(objects_.size() + fresh);
    for (std::size_t i = 0; i < n; ++i) ids_out[i] = add(boxes[i], type);
}

template <class T, int D>
bool BasicScene<T, D>::set_margin(T margin) {
    Tree& tree = state_->tree;
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
void BasicScene<T, D>::set_fat_pairs(bool on) {
    if (on == fat_pairs_) return;
    touch_all();
    fat_pairs_ = on;
    refresh_pair_boxes();
}

template <class T, int D>
inline void BasicScene<T, D>::refresh_pair_boxes() {
    for (Id id = 0; id < objects_.size(); ++id)
        if (objects_[id].alive) objects_[id].pair_box = pairing_box_of(objects_[id].box);
}

template <class T, int D>
inline void BasicScene<T, D>::touch_all() {
    for (Id id = 0; id < objects_.size(); ++id)
        if (objects_[id].alive) touch(id);
}

template <class T, int D>
inline void BasicScene<T, D>::reserve_objects(std::size_t n) {
    State& st = *state_;
    objects_.reserve(n);
    dirty_.reserve(n);
    for (auto* v : {&st.adds, &st.mark}) v->reserve(n);
    for (auto* v : {&meet_, &dirty_flag_, &tree_stale_}) v->reserve(n);
    st.partners.reserve(n);
    proxy_.reserve(n);
    tree_pending_.reserve(n);
}

}  // namespace broadphase
