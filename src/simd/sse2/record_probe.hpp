// The grids' box records (src/core/box_record.hpp) compared with SSE: a
// float record's min and max corners are one 16-byte register each, so two
// compares test a pair (the fourth lane, id and tag, masked off).
#pragma once

#include "core/box_record.hpp"

#if defined(BROADPHASE_SIMD_X86)
namespace broadphase {
namespace detail {

template <>
struct RecordProbe<float> {
    __m128 lo, hi;
    explicit RecordProbe(const BoxRecord<float>& rec) : lo(_mm_load_ps(rec.lo)), hi(_mm_load_ps(rec.hi)) {}
    bool overlaps(const BoxRecord<float>& b) const {
        const __m128 m = _mm_and_ps(_mm_cmple_ps(_mm_load_ps(b.lo), hi), _mm_cmple_ps(lo, _mm_load_ps(b.hi)));
        return (_mm_movemask_ps(m) & 7) == 7;
    }
};

}  // namespace detail
}  // namespace broadphase
#endif
