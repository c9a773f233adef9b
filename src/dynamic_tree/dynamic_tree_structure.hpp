// BasicDynamicTree's structure (declared in ../dynamic_tree.hpp): node
// storage, insertion, removal and the rotations that keep the tree
// balanced. Included by dynamic_tree-inl.hpp (compiled in the library);
// see dynamic_tree_impl.hpp for the rest.
#pragma once

#include <broadphase/dynamic_tree.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include <broadphase/detail/prefetch.hpp>

namespace broadphase {

// -- node storage --------------------------------------------------------

template <class T, int D>
bool BasicDynamicTree<T, D>::grow_to(std::size_t cap) {
    const std::size_t old = nodes_.size();
    if (cap <= old) return true;
    // Reserve all three first: a bad_alloc there changes nothing; the
    // resizes after it cannot throw.
    nodes_.reserve(cap);
    tight_.reserve(cap);
    user_.reserve(cap);
    kids_.reserve(cap);
    nodes_.resize(cap);
    tight_.resize(cap);
    user_.resize(cap);
    kids_.resize(cap);
    for (std::size_t i = cap; i-- > old;) {
        nodes_[i].height = -1;
        nodes_[i].parent = free_;
        free_ = static_cast<std::uint32_t>(i);
    }
    return true;
}

template <class T, int D>
bool BasicDynamicTree<T, D>::ensure_free(std::size_t k) {
    const std::size_t free_count = nodes_.size() - used_;
    if (free_count >= k) return true;
    const std::size_t need = nodes_.size() + (k - free_count);
    if (need > max_nodes) return false;
    const std::size_t cap = std::min(max_nodes, std::max({need, nodes_.size() * 2, std::size_t(16)}));
    return grow_to(cap);
}

template <class T, int D>
std::uint32_t BasicDynamicTree<T, D>::allocate_node() {
    const std::uint32_t i = free_;
    Node& n = nodes_[i];
    free_ = n.parent;
    n.parent = n.child1 = n.child2 = null;
    n.height = 0;
    ++used_;
    return i;
}

template <class T, int D>
void BasicDynamicTree<T, D>::free_node(std::uint32_t i) {
    Node& n = nodes_[i];
    n.height = -1;
    n.child1 = n.child2 = null;
    n.parent = free_;
    free_ = i;
    --used_;
}

// -- structure -----------------------------------------------------------

template <class T, int D>
std::uint32_t BasicDynamicTree<T, D>::find_sibling(const box_type& b) const {
    std::uint32_t i = root_;
    while (nodes_[i].height > 0) {
        const Node& n = nodes_[i];
        const T area = half_area(n.box);
        const T combined = half_area(unite(n.box, b));
        const T here = T(2) * combined;
        const T inherited = T(2) * (combined - area);
        auto descend_cost = [&](std::uint32_t c) {
            const Node& cn = nodes_[c];
            const T grown = half_area(unite(cn.box, b));
            if (cn.height == 0) return grown + inherited;
            return grown - half_area(cn.box) + inherited;
        };
        const T c1 = descend_cost(n.child1);
        const T c2 = descend_cost(n.child2);
        if (here < c1 && here < c2) break;
        i = (c1 <= c2) ? n.child1 : n.child2;
    }
    return i;
}

template <class T, int D>
void BasicDynamicTree<T, D>::insert_leaf(std::uint32_t leaf) {
    if (root_ == null) {
        root_ = leaf;
        nodes_[leaf].parent = null;
        return;
    }
    const box_type b = nodes_[leaf].box;
    const std::uint32_t sibling = find_sibling(b);
    const std::uint32_t old_parent = nodes_[sibling].parent;
    const std::uint32_t p = allocate_node();  // a free node exists (ensure_free or a freed parent)
    Node& pn = nodes_[p];
    pn.parent = old_parent;
    pn.child1 = sibling;
    pn.child2 = leaf;
    pn.box = unite(b, nodes_[sibling].box);
    pn.height = nodes_[sibling].height + 1;
    replace_child(old_parent, sibling, p);
    nodes_[sibling].parent = p;
    nodes_[leaf].parent = p;
    refit_up(p);
}

template <class T, int D>
void BasicDynamicTree<T, D>::replace_child(std::uint32_t parent, std::uint32_t from, std::uint32_t to) {
    if (parent == null) {
        root_ = to;
        return;
    }
    Node& pn = nodes_[parent];
    if (pn.child1 == from)
        pn.child1 = to;
    else
        pn.child2 = to;
}

template <class T, int D>
void BasicDynamicTree<T, D>::remove_leaf(std::uint32_t leaf) {
    if (leaf == root_) {
        root_ = null;
        return;
    }
    const std::uint32_t p = nodes_[leaf].parent;
    const std::uint32_t g = nodes_[p].parent;
    const std::uint32_t s = nodes_[p].child1 == leaf ? nodes_[p].child2 : nodes_[p].child1;
    nodes_[s].parent = g;
    replace_child(g, p, s);
    free_node(p);
    nodes_[leaf].parent = null;
    refit_up(g);
}

template <class T, int D>
void BasicDynamicTree<T, D>::refit_up(std::uint32_t i) {
    while (i != null) {
        Node& n = nodes_[i];
        const Node& a = nodes_[n.child1];
        const Node& b = nodes_[n.child2];
        n.box = unite(a.box, b.box);
        n.height = 1 + std::max(a.height, b.height);
        sync(i);
        const std::uint32_t top = balance(i);
        if (top == i) rotate(i);
        i = nodes_[top].parent;
    }
}

template <class T, int D>
std::uint32_t BasicDynamicTree<T, D>::balance(std::uint32_t a) {
    const std::uint32_t b = nodes_[a].child1, c = nodes_[a].child2;
    const std::int32_t hb = nodes_[b].height, hc = nodes_[c].height;
    if (hc > hb + slack_) return promote(a, c, b);
    if (hb > hc + slack_) return promote(a, b, c);
    return a;
}

template <class T, int D>
std::uint32_t BasicDynamicTree<T, D>::promote(std::uint32_t a, std::uint32_t tall, std::uint32_t other) {
    Node& an = nodes_[a];
    Node& tn = nodes_[tall];
    const std::uint32_t f = tn.child1, g = tn.child2;
    const bool f_taller = nodes_[f].height >= nodes_[g].height;
    const std::uint32_t keep = f_taller ? f : g, give = f_taller ? g : f;
    const std::uint32_t up = an.parent;
    tn.parent = up;
    replace_child(up, a, tall);
    an.parent = tall;
    an.child1 = other;
    an.child2 = give;
    nodes_[give].parent = a;
    an.box = unite(nodes_[other].box, nodes_[give].box);
    an.height = 1 + std::max(nodes_[other].height, nodes_[give].height);
    tn.child1 = a;
    tn.child2 = keep;
    tn.box = unite(an.box, nodes_[keep].box);
    tn.height = 1 + std::max(an.height, nodes_[keep].height);
    sync(a);
    sync(tall);
    if (up != null) sync(up);
    return tall;
}

template <class T, int D>
void BasicDynamicTree<T, D>::rotate(std::uint32_t a) {
    const std::uint32_t kids[2] = {nodes_[a].child1, nodes_[a].child2};
    if (nodes_[kids[0]].height == 0 && nodes_[kids[1]].height == 0) return;
    // The best swap so far, as swap_down's arguments: none until one
    // reduces an area.
    T best = T(0);
    std::uint32_t best_x = null, best_y = null;
    bool best_first = false;
    // Each child x of a, the first one first, may trade places with
    // either child of y, a's other child (when y has children); a swap's
    // gain is the change in y's area, y then holding x and its other child.
    for (int s = 0; s < 2; ++s) {
        const std::uint32_t x = kids[s], y = kids[1 - s];
        const Node& yn = nodes_[y];
        if (!(yn.height > 0)) continue;
        const T area_y = half_area(yn.box);
        const T g1 = half_area(unite(nodes_[x].box, nodes_[yn.child2].box)) - area_y;  // x <-> y.child1
        const T g2 = half_area(unite(nodes_[x].box, nodes_[yn.child1].box)) - area_y;  // x <-> y.child2
        if (g1 < best) best = g1, best_x = x, best_y = y, best_first = true;
        if (g2 < best) best = g2, best_x = x, best_y = y, best_first = false;
    }
    if (best_x != null) swap_down(a, best_x, best_y, best_first);
}

template <class T, int D>
void BasicDynamicTree<T, D>::swap_down(std::uint32_t a, std::uint32_t x, std::uint32_t y, bool first) {
    Node& an = nodes_[a];
    Node& yn = nodes_[y];
    const std::uint32_t g = first ? yn.child1 : yn.child2;
    if (first)
        yn.child1 = x;
    else
        yn.child2 = x;
    nodes_[x].parent = y;
    if (an.child1 == x)
        an.child1 = g;
    else
        an.child2 = g;
    nodes_[g].parent = a;
    yn.box = unite(nodes_[yn.child1].box, nodes_[yn.child2].box);
    yn.height = 1 + std::max(nodes_[yn.child1].height, nodes_[yn.child2].height);
    an.height = 1 + std::max(nodes_[an.child1].height, nodes_[an.child2].height);
    sync(y);
    sync(a);
}

template <class T, int D>
T BasicDynamicTree<T, D>::centre2(std::uint32_t i, int k) const {
    const T c = nodes_[i].box.min[k] + nodes_[i].box.max[k];
    return c == c ? c : T(0);
}

template <class T, int D>
std::uint32_t BasicDynamicTree<T, D>::build(std::uint32_t* first, std::uint32_t* last, int depth) {
    const std::size_t n = static_cast<std::size_t>(last - first);
    if (n == 1) return *first;
    std::uint32_t* mid = first + n / 2;
    if (n > 2) mid = split(first, last, depth);
    const std::uint32_t p = allocate_node();  // before its children: pre-order
    const std::uint32_t l = build(first, mid, depth + 1);
    const std::uint32_t r = build(mid, last, depth + 1);
    Node& pn = nodes_[p];
    pn.child1 = l;
    pn.child2 = r;
    pn.box = unite(nodes_[l].box, nodes_[r].box);
    pn.height = 1 + std::max(nodes_[l].height, nodes_[r].height);
    nodes_[l].parent = p;
    nodes_[r].parent = p;
    sync(p);
    return p;
}

template <class T, int D>
std::uint32_t* BasicDynamicTree<T, D>::split(std::uint32_t* first, std::uint32_t* last, int depth) {
    constexpr int bins = 16;
    const std::size_t n = static_cast<std::size_t>(last - first);
    std::array<T, D> lo, hi;
    for (int k = 0; k < D; ++k) {
        lo[k] = std::numeric_limits<T>::infinity();
        hi[k] = -std::numeric_limits<T>::infinity();
    }
    for (std::uint32_t* p = first; p != last; ++p)
        for (int k = 0; k < D; ++k) {
            const T c = centre2(*p, k);
            lo[k] = std::min(lo[k], c);
            hi[k] = std::max(hi[k], c);
        }
    int widest = 0;
    double widest_ext = -1;
    for (int k = 0; k < D; ++k) {
        const double e = static_cast<double>(hi[k]) - static_cast<double>(lo[k]);
        if (e > widest_ext || e != e) widest = k, widest_ext = (e == e ? e : std::numeric_limits<double>::infinity());
    }
    auto median = [&]() {
        std::uint32_t* mid = first + n / 2;
        const int k = widest;
        std::nth_element(first, mid, last,
                         [&](std::uint32_t x, std::uint32_t y) { return centre2(x, k) < centre2(y, k); });
        return mid;
    };
    if (depth > 48) return median();

    // Binned SAH: cost of a split = count_left * area_left + count_right * area_right.
    double best_cost = std::numeric_limits<double>::infinity();
    int best_axis = -1, best_bin = 0;
    for (int k = 0; k < D; ++k) {
        const double l = static_cast<double>(lo[k]), h = static_cast<double>(hi[k]);
        const double ext = h - l;
        if (!(ext > 0) || !std::isfinite(ext)) continue;
        const double scale = bins / ext;
        std::array<std::size_t, bins> count{};
        std::array<box_type, bins> bbox;
        std::array<bool, bins> used{};
        for (std::uint32_t* p = first; p != last; ++p) {
            const int bin = bin_of(static_cast<double>(centre2(*p, k)), l, scale, bins);
            const box_type& b = nodes_[*p].box;
            bbox[bin] = used[bin] ? unite(bbox[bin], b) : b;
            used[bin] = true;
            ++count[bin];
        }
        // Right-to-left sweep of areas, then left to right.
        std::array<double, bins> right_area{};
        std::array<std::size_t, bins> right_count{};
        box_type acc{};
        bool have = false;
        std::size_t cnt = 0;
        for (int i = bins - 1; i > 0; --i) {
            if (used[i]) acc = have ? unite(acc, bbox[i]) : bbox[i], have = true;
            cnt += count[i];
            right_area[i] = have ? static_cast<double>(half_area(acc)) : 0.0;
            right_count[i] = cnt;
        }
        have = false;
        cnt = 0;
        for (int i = 0; i < bins - 1; ++i) {
            if (used[i]) acc = have ? unite(acc, bbox[i]) : bbox[i], have = true;
            cnt += count[i];
            if (cnt == 0 || right_count[i + 1] == 0) continue;
            const double cost = static_cast<double>(cnt) * static_cast<double>(half_area(acc)) +
                                static_cast<double>(right_count[i + 1]) * right_area[i + 1];
            if (cost < best_cost) best_cost = cost, best_axis = k, best_bin = i;
        }
    }
    if (best_axis < 0) return median();
    const int k = best_axis;
    const double l = static_cast<double>(lo[k]);
    const double scale = bins / (static_cast<double>(hi[k]) - l);
    std::uint32_t* mid = std::partition(first, last, [&](std::uint32_t x) {
        return bin_of(static_cast<double>(centre2(x, k)), l, scale, bins) <= best_bin;
    });
    if (mid == first || mid == last) return median();
    return mid;
}

template <class T, int D>
int BasicDynamicTree<T, D>::bin_of(double c, double lo, double scale, int bins) {
    const double f = (c - lo) * scale;
    if (!(f >= 0)) return 0;
    if (f >= bins - 1) return bins - 1;
    return static_cast<int>(f);
}

}  // namespace broadphase
