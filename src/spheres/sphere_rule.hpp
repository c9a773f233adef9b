// The sphere pair rule shared by spheres.hpp, periodic.hpp and the cell list
// (cell_list.hpp): every path evaluates this one expression, so they agree
// bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <broadphase/pairs.hpp>

namespace broadphase {
namespace detail {

/// The pair rule of spheres.hpp: |ci - cj|^2 <= (ri + rj)^2, every
/// operation in double, in this order. Every path (grid, box path, tests'
/// references) evaluates this one expression, so they agree bit for bit.
inline bool spheres_touch(double dx, double dy, double dz, double rr) {
    return dx * dx + dy * dy + dz * dz <= rr * rr;
}

}  // namespace detail
}  // namespace broadphase
