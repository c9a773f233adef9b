// The sphere pair rule and the pair sort shared by spheres.hpp, periodic.hpp
// and the cell list (cell_list.hpp): every path evaluates this one
// expression, so they agree bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "../pairs.hpp"

namespace broadphase {
namespace detail {

/// The pair rule of spheres.hpp: |ci - cj|^2 <= (ri + rj)^2, every
/// operation in double, in this order. Every path (grid, box path, tests'
/// references) evaluates this one expression, so they agree bit for bit.
inline bool spheres_touch(double dx, double dy, double dz, double rr) {
    return dx * dx + dy * dy + dz * dz <= rr * rr;
}

/// Sorts pairs (a < b, a < n) by (a, b) in O(K + n): a counting sort by a,
/// then each a's few partners sorted by b. `start` and `b` are scratch.
inline void sort_pairs_by_first(std::vector<Pair>& pairs, std::size_t n, std::vector<std::uint32_t>& start,
                                std::vector<std::uint32_t>& b) {
    const std::size_t k = pairs.size();
    if (k < 2) return;
    start.assign(n + 1, 0);
    for (const Pair& p : pairs) ++start[p.a + 1];
    for (std::size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    b.resize(k);
    for (const Pair& p : pairs) b[start[p.a]++] = p.b;  // start[a] becomes a's end
    std::uint32_t s = 0;
    for (std::size_t a = 0; a < n; ++a) {
        const std::uint32_t e = start[a];
        if (e - s > 1) std::sort(b.begin() + s, b.begin() + e);
        for (std::uint32_t t = s; t < e; ++t) pairs[t] = {static_cast<std::uint32_t>(a), b[t]};
        s = e;
    }
}

}  // namespace detail
}  // namespace broadphase
