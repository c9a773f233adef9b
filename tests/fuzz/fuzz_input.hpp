// Turning fuzz bytes into boxes, options and operations, and failing loudly.
//
// The fuzzer mutates bytes; this decoder gives every byte a meaning that
// reaches the cases the library promises to handle: coordinates from a small
// lattice (identical boxes, touching faces, points) most of the time, and
// otherwise NaN, infinities, -0.0, subnormals, the largest and smallest
// finite values, 1e7 offsets where float's spacing is 1, or raw bit
// patterns. Inputs stay small (at most ~300 boxes) so the O(n^2) oracle and
// a few million executions an hour fit together.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include <broadphase/boxes.hpp>
#include <broadphase/options.hpp>

namespace bpfuzz {

/// Stops the run with a message: libFuzzer saves the input as a crash.
[[noreturn]] inline void fail(const char* what, const char* file, int line) {
    std::fprintf(stderr, "bpfuzz: check failed at %s:%d: %s\n", file, line, what);
    std::abort();
}

#define BPFUZZ_CHECK(cond)                                        \
    do {                                                          \
        if (!(cond)) ::bpfuzz::fail(#cond, __FILE__, __LINE__);   \
    } while (0)

/// A coordinate of type T. About 3/4 of the time a lattice value
/// (0, 0.5, ..., 7.5, shifted by the input's offset), so boxes coincide and
/// touch; otherwise one of the values where arithmetic goes wrong, or raw bits.
template <class T>
T coordinate(FuzzedDataProvider& in, T offset) {
    using L = std::numeric_limits<T>;
    const std::uint8_t kind = in.ConsumeIntegral<std::uint8_t>();
    if (kind < 192) return offset + T(kind % 16) * T(0.5);
    switch (kind % 16) {
        case 0: return L::quiet_NaN();
        case 1: return L::infinity();
        case 2: return -L::infinity();
        case 3: return T(-0.0);
        case 4: return L::denorm_min();
        case 5: return -L::denorm_min();
        case 6: return L::max();
        case 7: return L::lowest();
        case 8: return L::min();
        case 9: return T(1e7) + T(in.ConsumeIntegral<std::uint8_t>()) * T(1e-3);  // float spacing 1 here
        case 10: return T(-1e7) - T(in.ConsumeIntegral<std::uint8_t>());
        case 11: return T(0.1) + T(0.2);  // 0.30000000000000004 in double
        case 12: return std::nextafter(offset + T(kind % 8) * T(0.5), L::infinity());  // one ulp off the lattice
        default: break;
    }
    if constexpr (sizeof(T) == 4) {
        const std::uint32_t bits = in.ConsumeIntegral<std::uint32_t>();
        T v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    } else {
        const std::uint64_t bits = in.ConsumeIntegral<std::uint64_t>();
        T v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }
}

/// The offset every lattice coordinate of one input is shifted by.
template <class T>
T offset(FuzzedDataProvider& in) {
    switch (in.ConsumeIntegral<std::uint8_t>() % 8) {
        case 0: return T(-3);
        case 1: return T(1e7);  // float's integer spacing: boxes collapse and touch
        case 2: return T(-1e7);
        case 3: return T(1e30);
        default: return T(0);
    }
}

/// One box: mostly min from a coordinate and an extent from a small set
/// (points, unit boxes, huge ones), sometimes min and max decoded apart (so
/// min > max and NaN occur), sometimes a copy of an earlier box.
template <class T, int D>
broadphase::BasicBox<T, D> box(FuzzedDataProvider& in, T off, const broadphase::BasicBoxes<T, D>* earlier) {
    broadphase::BasicBox<T, D> b;
    const std::uint8_t shape = in.ConsumeIntegral<std::uint8_t>() % 8;
    if (shape == 7 && earlier && earlier->size() > 0)
        return (*earlier)[in.ConsumeIntegralInRange<std::size_t>(0, earlier->size() - 1)];
    for (int k = 0; k < D; ++k) {
        b.min[k] = coordinate<T>(in, off);
        if (shape == 6) {
            b.max[k] = coordinate<T>(in, off);
        } else {
            static const T extents[8] = {T(0), T(0.5), T(1), T(1), T(2), T(3.5), T(1e-3), T(1e30)};
            b.max[k] = b.min[k] + extents[in.ConsumeIntegral<std::uint8_t>() % 8];
        }
    }
    return b;
}

/// Up to max_n boxes.
template <class T, int D>
broadphase::BasicBoxes<T, D> boxes(FuzzedDataProvider& in, T off, std::size_t max_n) {
    broadphase::BasicBoxes<T, D> out;
    const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, max_n);
    for (std::size_t i = 0; i < n && in.remaining_bytes() > 0; ++i) out.push_back(box<T, D>(in, off, &out));
    return out;
}

/// Options with every field decoded: threads 1..4 (always started, however
/// few the boxes), sorted or not, a pair budget that is mostly unlimited and
/// otherwise 0, 1 or small.
inline broadphase::Options options(FuzzedDataProvider& in) {
    broadphase::Options o;
    o.threads = 1 + in.ConsumeIntegral<std::uint8_t>() % 4;
    o.min_boxes_per_thread = in.ConsumeBool() ? 1 : 4096;
    o.sorted = in.ConsumeBool();
    const std::uint8_t budget = in.ConsumeIntegral<std::uint8_t>();
    if (budget >= 224) o.max_pairs = budget - 224;  // 0 .. 31
    return o;
}

}  // namespace bpfuzz
