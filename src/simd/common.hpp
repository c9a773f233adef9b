// What every SIMD copy and the portable loops share (src/simd/dispatch.hpp
// includes this first): the struct-of-arrays view the kernels read, the bit
// helpers, the tag type of each copy, and the cluster kernel's types.
//
// Each instruction set's copy (src/simd/sse2/, avx2/, avx512/) is one
// namespace, detail::simd_<set>, holding a tag type `Isa`; every kernel of
// that copy takes an Isa as its first argument, so a call found by
// argument-dependent lookup reaches the copy the tag names. The tags are
// declared here for every set, compiled or not; only the copies this build
// compiles define kernels (include/broadphase/simd.hpp: BROADPHASE_SIMD_X86).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/simd.hpp>
#include <broadphase/detail/box_rules.hpp>

#if defined(BROADPHASE_SIMD_X86)
#include <immintrin.h>
#endif

namespace broadphase {
namespace detail {

/// Index of the lowest set bit of x (x != 0), for 32- and 64-bit masks.
template <class U>
inline int count_trailing_zeros(U x) {
    static_assert(std::is_unsigned<U>::value, "unsigned masks only");
#if defined(__GNUC__)
    if constexpr (sizeof(U) > 4) return __builtin_ctzll(x);
    else return __builtin_ctz(x);
#else
    int n = 0;
    while (!(x & 1u)) { x >>= 1; ++n; }
    return n;
#endif
}

/// Set bits of x. The instruction when the target has it; otherwise the
/// SWAR sum, inline (GCC's generic builtin is a slow library call).
inline int popcount64(std::uint64_t x) {
#if defined(__GNUC__) && defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return static_cast<int>((x * 0x0101010101010101ull) >> 56);
#endif
}

/// Pointers to the min and max arrays of D axes.
template <class T, int D>
struct SoaView {
    const T* lo[D];
    const T* hi[D];
    std::size_t n = 0;

    /// The arrays of a struct-of-arrays view (b.contiguous() must hold);
    /// a BasicBoxes converts to one implicitly.
    static SoaView of(const BasicBoxesView<T, D>& b) {
        SoaView v;
        for (int k = 0; k < D; ++k) {
            v.lo[k] = b.min(k);
            v.hi[k] = b.max(k);
        }
        v.n = b.size();
        return v;
    }
    [[gnu::always_inline]] inline bool overlaps(std::size_t j, const BasicBox<T, D>& q) const {
        for (int k = 0; k < D; ++k)
            if (hi[k][j] < q.min[k] || q.max[k] < lo[k][j]) return false;
        return true;
    }
};

/// The public view of a SoaView's arrays (zero copy).
template <class T, int D>
BasicBoxesView<T, D> public_view(const SoaView<T, D>& v) {
    std::array<const T*, D> lo, hi;
    for (int k = 0; k < D; ++k) {
        lo[static_cast<std::size_t>(k)] = v.lo[k];
        hi[static_cast<std::size_t>(k)] = v.hi[k];
    }
    return BasicBoxesView<T, D>::soa(lo, hi, v.n);
}

/// Calls emit(base + l) for every set bit l of m, lowest first.
template <class Emit>
[[gnu::always_inline]] inline void emit_bits(std::uint32_t m, std::size_t base, Emit& emit) {
    while (m) {
        emit(base + static_cast<std::size_t>(count_trailing_zeros(m)));
        m &= m - 1;
    }
}

/// Box j of a view as a value.
template <class T, int D>
[[gnu::always_inline]] inline BasicBox<T, D> box_at(const SoaView<T, D>& v, std::size_t j) {
    BasicBox<T, D> b;
    for (int k = 0; k < D; ++k) {
        b.min[k] = v.lo[k][j];
        b.max[k] = v.hi[k][j];
    }
    return b;
}

/// trunc(clamp((x - o) * s, -lim, lim)), the grids' clamped_cell
/// (detail/box_rules.hpp): see the array form below.
template <class T>
inline std::int32_t scale_clamp_trunc(T x, T o, T s, T lim) {
    return clamped_cell<std::int32_t>(x, o, s, -lim, lim);
}

/// The tags of the copies, one a namespace (see the top of this file).
namespace simd_scalar {
struct Isa { static constexpr SimdLevel level = SimdLevel::scalar; };
}  // namespace simd_scalar
namespace simd_sse2 {
struct Isa { static constexpr SimdLevel level = SimdLevel::sse2; };
}  // namespace simd_sse2
namespace simd_avx2 {
struct Isa { static constexpr SimdLevel level = SimdLevel::avx2; };
}  // namespace simd_avx2
namespace simd_avx512 {
struct Isa { static constexpr SimdLevel level = SimdLevel::avx512; };
}  // namespace simd_avx512

namespace simd {
/// The most boxes any compiled kernel reads at once. Arrays that kernels
/// may read past their end (scan_overlaps_padded, sweep_pairs) are padded
/// by this many, whichever level runs.
#if defined(BROADPHASE_SIMD_X86) && (defined(__GNUC__) || defined(__AVX512F__))
constexpr int width = 16;
#elif defined(BROADPHASE_SIMD_X86) && defined(__AVX2__)
constexpr int width = 8;
#elif defined(BROADPHASE_SIMD_X86)
constexpr int width = 4;
#else
constexpr int width = 1;
#endif
}  // namespace simd

/// The copies without a compress instruction (SSE2, AVX2) emit hits bit by
/// bit (emit_bits): their kernels never gather hits, and append_hits, the
/// same as a bit loop, only keeps the kernels' code one. The AVX-512 copy
/// declares its own of both.
constexpr bool has_compress = false;
[[gnu::always_inline]] inline void append_hits(std::uint32_t m, std::size_t base, std::uint32_t* out,
                                               std::size_t& count) {
    for (; m; m &= m - 1) out[count++] = static_cast<std::uint32_t>(base + static_cast<std::size_t>(count_trailing_zeros(m)));
}

}  // namespace detail
}  // namespace broadphase

// The cluster-pair kernel's types (they need SoaView and box_at).
#include "simd/cluster_types.hpp"
