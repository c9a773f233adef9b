// Growing reused buffers without reallocating every time a frame is a
// little larger than the last (moving boxes change the number of grid
// entries from frame to frame).
#pragma once

#include <cstddef>

namespace broadphase {
namespace detail {

/// v.resize(n), reserving a quarter more when it has to reallocate, so the
/// frames that follow, a few percent larger or smaller, allocate nothing.
template <class Vector>
inline void resize_buffer(Vector& v, std::size_t n) {
    if (n > v.capacity()) v.reserve(n + n / 4 + 16);
    v.resize(n);
}

}  // namespace detail
}  // namespace broadphase
