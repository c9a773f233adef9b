// A box as one 32-byte record (for float): min corner and id in one 16-byte
// half, max corner and a tag in the other. Grids scatter whole records, one
// cache line half per box, instead of six scattered floats; two records are
// compared with two SIMD compares.
#pragma once

#include <cstdint>

#include <broadphase/boxes.hpp>
#include <broadphase/detail/box_rules.hpp>
#include "simd/dispatch.hpp"

namespace broadphase {
namespace detail {

template <class T>
struct alignas(16) BoxRecord {
    T lo[3];
    std::uint32_t id;
    T hi[3];
    std::uint32_t tag;
};

/// Record of box i of a view (axes beyond D are zero and always overlap).
template <class T, int D>
inline BoxRecord<T> record_of(const SoaView<T, D>& v, std::size_t i, std::uint32_t id, std::uint32_t tag = 0) {
    BoxRecord<T> r{};
    for (int k = 0; k < D; ++k) {
        r.lo[k] = v.lo[k][i];
        r.hi[k] = v.hi[k][i];
    }
    r.id = id;
    r.tag = tag;
    return r;
}

/// Writes the record of box i straight into `dst`, field by field: building
/// it on the stack and copying it stalls on store forwarding (measured:
/// docs/measured-in-code.md#simd-kernels).
template <class T, int D>
inline void write_record(BoxRecord<T>& dst, const SoaView<T, D>& v, std::size_t i, std::uint32_t id) {
    for (int k = 0; k < 3; ++k) {
        dst.lo[k] = k < D ? v.lo[k][i] : T(0);
        dst.hi[k] = k < D ? v.hi[k][i] : T(0);
    }
    dst.id = id;
    dst.tag = 0;
}

template <class T, int D>
inline BoxRecord<T> record_of(const BasicBox<T, D>& b) {
    BoxRecord<T> r{};
    for (int k = 0; k < D; ++k) {
        r.lo[k] = b.min[k];
        r.hi[k] = b.max[k];
    }
    return r;
}

/// A record prepared for many comparisons (held in registers).
template <class T>
struct RecordProbe {
    const BoxRecord<T>* r;
    explicit RecordProbe(const BoxRecord<T>& rec) : r(&rec) {}
    bool overlaps(const BoxRecord<T>& b) const {
        for (int k = 0; k < 3; ++k)
            if (!intervals_overlap(r->lo[k], r->hi[k], b.lo[k], b.hi[k])) return false;
        return true;
    }
};


}  // namespace detail
}  // namespace broadphase

// RecordProbe<float>: two SSE compares (src/simd/sse2/record_probe.hpp).
#include "simd/sse2/record_probe.hpp"
