// One box as a plain value, BasicBox: the form queries take and the
// geometry tests (geometry.hpp) read. The struct-of-arrays storage of many
// boxes is boxes.hpp, which includes this header and geometry.hpp.
#pragma once

#include <array>

#include "detail/box_rules.hpp"

namespace broadphase {

/// One box as a plain value (array of structs): the form queries take.
template <class T, int D>
struct BasicBox {
    std::array<T, D> min{};
    std::array<T, D> max{};

    /// True when min <= max on every axis (false for any NaN). O(D).
    bool valid() const {
        for (int k = 0; k < D; ++k)
            if (!detail::valid_interval(min[k], max[k])) return false;
        return true;
    }
};

using Box = BasicBox<float, 3>;

}  // namespace broadphase
