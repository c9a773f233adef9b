// Growing reused buffers without reallocating every time a frame is a
// little larger than the last (moving boxes change the number of grid
// entries from frame to frame).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../pairs.hpp"
#include "exceptions.hpp"

namespace broadphase {
namespace detail {

/// Thrown when a structure would index more items than 32-bit indices allow
/// (the grids' cell entries: boxes times the cells each touches); the
/// algorithms' front (algorithm_base.hpp) turns it into Status::too_many_boxes.
struct TooManyIndices {};

/// Throws TooManyIndices unless n items fit 32-bit indices (fits_indices),
/// else returns true. Without exceptions it returns false instead and flags
/// the overflow (take_index_overflow): the caller then leaves its structure
/// empty and returns. O(1).
inline bool require_indices(std::uint64_t n) {
    if (fits_indices(n)) return true;
#if BROADPHASE_EXCEPTIONS
    throw TooManyIndices{};
#else
    index_overflow_flag() = true;
    return false;
#endif
}

/// v.resize(n), reserving a quarter more when it has to reallocate, so the
/// frames that follow, a few percent larger or smaller, allocate nothing.
template <class Vector>
inline void resize_buffer(Vector& v, std::size_t n) {
    if (n > v.capacity()) v.reserve(n + n / 4 + 16);
    v.resize(n);
}

}  // namespace detail
}  // namespace broadphase
