// The bodies of BasicDynamicTree's settings, mutation and inspection
// (insert, remove, move, rebuild, clear, reserve, quality, validate), with
// the node storage, insertion, removal and rotations
// (dynamic_tree_structure.hpp). Compiled once in the library
// (src/dynamic_tree/dynamic_tree.cpp); header-only, ../dynamic_tree.hpp includes this
// file at its end. A file that uses other scalar types or dimensions with
// the compiled library (BasicDynamicTree<float, 1>) includes it after
// dynamic_tree.hpp. The queries stay in the caller's file
// (dynamic_tree_queries.hpp): they are templates on its callback.
//
// Not `inline`: with the compiled library, a file's `extern template`
// then keeps it from compiling these again (GCC instantiates inline
// members whatever extern template says).
#pragma once

#include <broadphase/dynamic_tree.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dynamic_tree/dynamic_tree_structure.hpp"

namespace broadphase {

// -- BasicDynamicTree: settings and mutation -----------------------------

template <class T, int D>
bool BasicDynamicTree<T, D>::set_margin(T margin) {
    if (!(margin >= T(0)) || !std::isfinite(margin)) return false;
    margin_ = margin;
    return true;
}

template <class T, int D>
bool BasicDynamicTree<T, D>::set_displacement_factor(T factor) {
    if (!(factor >= T(0)) || !std::isfinite(factor)) return false;
    factor_ = factor;
    return true;
}

template <class T, int D>
bool BasicDynamicTree<T, D>::set_balance_slack(int slack) {
    if (slack < 1) return false;
    slack_ = slack;
    return true;
}

template <class T, int D>
std::uint32_t BasicDynamicTree<T, D>::insert(const box_type& box, std::uint64_t user_value) {
    if (!box.valid()) return null;
    if (!ensure_free(root_ == null ? 1 : 2)) return null;
    const std::uint32_t leaf = allocate_node();
    Node& n = nodes_[leaf];
    n.box = fatten(box, vec_type{});
    n.child1 = n.child2 = null;
    n.height = 0;
    tight_[leaf] = box;
    user_[leaf] = user_value;
    ++leaf_count_;
    insert_leaf(leaf);
    return leaf;
}

template <class T, int D>
bool BasicDynamicTree<T, D>::remove(std::uint32_t id) {
    if (!contains(id)) return false;
    remove_leaf(id);
    free_node(id);
    --leaf_count_;
    return true;
}

template <class T, int D>
bool BasicDynamicTree<T, D>::move(std::uint32_t id, const box_type& box, const vec_type& displacement) {
    if (!contains(id) || !box.valid()) return false;
    vec_type disp = displacement;
    for (int k = 0; k < D; ++k)
        if (!std::isfinite(disp[k])) disp = vec_type{};
    Node& n = nodes_[id];
    tight_[id] = box;
    if (broadphase::contains(n.box, box)) {
        // Keep the fat box unless it is far too large: larger than the
        // new fat box grown by four margins.
        box_type loose = fatten(box, disp);
        const T extra = T(4) * margin_;
        for (int k = 0; k < D; ++k) {
            loose.min[k] -= extra;
            loose.max[k] += extra;
        }
        if (broadphase::contains(loose, n.box)) return false;
    }
    remove_leaf(id);
    nodes_[id].box = fatten(box, disp);
    insert_leaf(id);
    return true;
}

template <class T, int D>
void BasicDynamicTree<T, D>::rebuild() {
    scratch_.clear();
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(nodes_.size()); ++i)
        if (nodes_[i].height == 0) scratch_.push_back(i);
    // Freed from the top down, so that build() takes them back in
    // ascending order: parents before children (pre-order), a subtree's
    // nodes close together in memory, for the queries' sake.
    for (std::uint32_t i = static_cast<std::uint32_t>(nodes_.size()); i-- > 0;)
        if (nodes_[i].height > 0) free_node(i);
    root_ = null;
    if (scratch_.empty()) return;
    root_ = build(scratch_.data(), scratch_.data() + scratch_.size(), 0);
    nodes_[root_].parent = null;
}

template <class T, int D>
void BasicDynamicTree<T, D>::clear() {
    const std::size_t cap = nodes_.size();
    root_ = null;
    free_ = null;
    used_ = 0;
    leaf_count_ = 0;
    for (std::size_t i = cap; i-- > 0;) {
        nodes_[i].height = -1;
        nodes_[i].parent = free_;
        free_ = static_cast<std::uint32_t>(i);
    }
}

template <class T, int D>
void BasicDynamicTree<T, D>::reserve(std::size_t proxies) {
    const std::size_t want = proxies == 0 ? 0 : 2 * proxies - 1;
    if (want > nodes_.size()) grow_to(std::min<std::size_t>(want, max_nodes));
}

// -- inspection ----------------------------------------------------------

template <class T, int D>
auto BasicDynamicTree<T, D>::quality() const -> Quality {
    Quality q;
    q.leaves = leaf_count_;
    q.nodes = used_;
    q.height = height();
    if (root_ == null || nodes_[root_].height == 0) return q;
    double sum = 0;
    for (const Node& n : nodes_)
        if (n.height > 0) sum += static_cast<double>(half_area(n.box));
    const double root_area = static_cast<double>(half_area(nodes_[root_].box));
    q.area_ratio = root_area > 0 ? sum / root_area : 1.0;  // all boxes one point: 1
    return q;
}

template <class T, int D>
std::string BasicDynamicTree<T, D>::validate() const {
    const std::size_t cap = nodes_.size();
    if (used_ > cap) return "more nodes in use than allocated";
    // Free list.
    std::size_t free_count = 0;
    for (std::uint32_t i = free_; i != null; i = nodes_[i].parent) {
        if (i >= cap) return "free list index out of range";
        if (nodes_[i].height != -1) return "node " + std::to_string(i) + " on the free list is not free";
        if (++free_count > cap) return "free list has a cycle";
    }
    if (free_count + used_ != cap)
        return "free list holds " + std::to_string(free_count) + " nodes, expected " +
               std::to_string(cap - used_);
    std::size_t marked_free = 0;
    for (const Node& n : nodes_)
        if (n.height < 0) ++marked_free;
    if (marked_free != free_count) return "free nodes not all on the free list";
    // Tree.
    if (root_ == null) {
        if (used_ != 0 || leaf_count_ != 0) return "empty tree with nodes in use";
        return "";
    }
    if (root_ >= cap) return "root out of range";
    if (nodes_[root_].parent != null) return "root has a parent";
    std::size_t reached = 0, leaves = 0;
    detail::SmallStack<std::uint32_t> stack;
    stack.push(root_);
    while (!stack.empty()) {
        const std::uint32_t i = stack.pop();
        if (i >= cap) return "child index out of range";
        if (++reached > used_) return "more nodes reachable than in use (cycle?)";
        const Node& n = nodes_[i];
        const std::string at = "node " + std::to_string(i) + ": ";
        if (n.height < 0) return at + "reachable but free";
        if (!n.box.valid()) return at + "invalid box";
        if (n.height == 0) {
            ++leaves;
            if (n.child1 != null || n.child2 != null) return at + "leaf with children";
            if (!tight_[i].valid()) return at + "invalid tight box";
            if (!broadphase::contains(n.box, tight_[i])) return at + "fat box does not contain the tight box";
            continue;
        }
        if (n.child1 >= cap || n.child2 >= cap) return at + "child out of range";
        if (n.child1 == n.child2) return at + "both children the same";
        const Node& a = nodes_[n.child1];
        const Node& b = nodes_[n.child2];
        if (a.parent != i || b.parent != i) return at + "child's parent link is wrong";
        if (a.height < 0 || b.height < 0) return at + "free child";
        if (n.height != 1 + std::max(a.height, b.height)) return at + "wrong height";
        if (!broadphase::contains(n.box, a.box) || !broadphase::contains(n.box, b.box))
            return at + "box does not contain a child's box";
        {
            const Kids& kk = kids_[i];
            const std::uint32_t c[2] = {n.child1, n.child2};
            for (int j = 0; j < 2; ++j) {
                const Node& cn = nodes_[c[j]];
                bool same = kk.child[j] == c[j] && kk.leaf[j] == (cn.height == 0);
                for (int k = 0; k < D; ++k)
                    same = same && kk.lo[k][j] == cn.box.min[k] && kk.hi[k][j] == cn.box.max[k];
                if (!same) return at + "stale copy of a child's box (kids)";
            }
        }
        stack.push(n.child1);
        stack.push(n.child2);
    }
    if (reached != used_)
        return "reachable nodes " + std::to_string(reached) + " != nodes in use " + std::to_string(used_);
    if (leaves != leaf_count_)
        return "reachable leaves " + std::to_string(leaves) + " != proxies " + std::to_string(leaf_count_);
    if (leaves != 0 && used_ != 2 * leaves - 1) return "nodes in use != 2 * leaves - 1";
    return "";
}

// -- private helpers -----------------------------------------------------

template <class T, int D>
void BasicDynamicTree<T, D>::sync(std::uint32_t i) {
    const Node& n = nodes_[i];
    Kids& k = kids_[i];
    const std::uint32_t c[2] = {n.child1, n.child2};
    for (int j = 0; j < 2; ++j) {
        const Node& cn = nodes_[c[j]];
        for (int a = 0; a < D; ++a) {
            k.lo[a][j] = cn.box.min[a];
            k.hi[a][j] = cn.box.max[a];
        }
        k.child[j] = c[j];
        k.leaf[j] = cn.height == 0;
    }
}

template <class T, int D>
auto BasicDynamicTree<T, D>::unite(const box_type& a, const box_type& b) -> box_type {
    box_type u;
    for (int k = 0; k < D; ++k) {
        u.min[k] = std::min(a.min[k], b.min[k]);
        u.max[k] = std::max(a.max[k], b.max[k]);
    }
    return u;
}

template <class T, int D>
auto BasicDynamicTree<T, D>::fatten(const box_type& b, const vec_type& disp) const -> box_type {
    box_type f;
    for (int k = 0; k < D; ++k) {
        T lo = b.min[k] - margin_;
        T hi = b.max[k] + margin_;
        const T ahead = factor_ * disp[k];
        if (ahead < T(0))
            lo += ahead;
        else
            hi += ahead;
        // Rounding never shrinks below the tight box, but keep it
        // explicit; an infinite side plus an infinite hint the other way
        // (inf - inf = NaN) keeps the tight side.
        f.min[k] = lo <= b.min[k] ? lo : b.min[k];
        f.max[k] = hi >= b.max[k] ? hi : b.max[k];
    }
    return f;
}

}  // namespace broadphase

// Compiled once, in dynamic_tree/dynamic_tree.cpp, for float and double in 2-D and 3-D; the
// library's other files use those. (The single header leaves out every
// `extern template` line: there each file compiles what it uses.)
namespace broadphase {
extern template class BasicDynamicTree<float, 2>;
extern template class BasicDynamicTree<float, 3>;
extern template class BasicDynamicTree<double, 2>;
extern template class BasicDynamicTree<double, 3>;
}  // namespace broadphase
