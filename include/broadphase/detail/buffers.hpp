// Growing reused buffers without reallocating every time a frame is a
// little larger than the last (moving boxes change the number of grid
// entries from frame to frame).
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>

#include "../pairs.hpp"
#include "exceptions.hpp"

namespace broadphase {
namespace detail {

/// Thrown when a structure would index more items than 32-bit indices allow
/// (the grids' cell entries: boxes times the cells each touches); the
/// algorithms' front (algorithm_base.hpp) turns it into Status::too_many_boxes.
struct TooManyIndices {};

#if BROADPHASE_EXCEPTIONS  // (see exceptions.hpp)
inline namespace with_exceptions {
#else
inline namespace without_exceptions {
#endif

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

/// The status boundary, written once: runs body() and turns what escapes
/// it into r.status, std::bad_alloc (and std::length_error: a vector asked
/// for more than max_size) into Status::out_of_memory and an index
/// overflow (TooManyIndices; without exceptions, the flag require_indices
/// sets) into Status::too_many_boxes. True when body ran to its end with
/// neither. The public calls that run an algorithm (algorithm_base.hpp),
/// the sphere finder, the periodic finder and the neighbour list go through
/// here. O(1) beside body().
template <class Body>
bool guarded(Report& r, Body&& body) {
#if BROADPHASE_EXCEPTIONS
    try {
        body();
    } catch (const std::bad_alloc&) {
        r.status = Status::out_of_memory;
        return false;
    } catch (const std::length_error&) {
        r.status = Status::out_of_memory;
        return false;
    } catch (const TooManyIndices&) {
        r.status = Status::too_many_boxes;
        return false;
    }
#else
    body();
#endif
    if (take_index_overflow()) {
        r.status = Status::too_many_boxes;
        return false;
    }
    return true;
}

}  // inline namespace with_exceptions / without_exceptions

/// v.resize(n), reserving a quarter more when it has to reallocate, so the
/// frames that follow, a few percent larger or smaller, allocate nothing.
template <class Vector>
inline void resize_buffer(Vector& v, std::size_t n) {
    if (n > v.capacity()) v.reserve(n + n / 4 + 16);
    v.resize(n);
}

}  // namespace detail
}  // namespace broadphase
