// The portable scalar loops: every scalar type but float, SimdLevel::scalar,
// and CPUs without SIMD copies. The same kernels as the copies of
// src/simd/kernels.ipp, the same answers in the same order, one box at a
// time; each takes simd_scalar::Isa first (src/simd/common.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/common.hpp"

namespace broadphase {
namespace detail {

namespace simd_scalar {

template <class T, int D, class Emit>
inline void scan_overlaps(Isa, const SoaView<T, D>& v, std::size_t begin, std::size_t end, const BasicBox<T, D>& q,
                          Emit& emit) {
    for (std::size_t j = begin; j < end; ++j)
        if (v.overlaps(j, q)) emit(j);
}

/// No padding needed: the same loop.
template <class T, int D, class Emit>
inline void scan_overlaps_padded(Isa, const SoaView<T, D>& v, std::size_t begin, std::size_t end, const BasicBox<T, D>& q,
                                 Emit& emit) {
    scan_overlaps(Isa{}, v, begin, end, q, emit);
}

template <class T, int D, class Emit>
inline void scan_runs_padded(Isa, const SoaView<T, D>& v, const std::size_t* begin, const std::size_t* end, int runs,
                             const BasicBox<T, D>& q, Emit& emit) {
    for (int r = 0; r < runs; ++r) scan_overlaps(Isa{}, v, begin[r], end[r], q, emit);
}

template <class T, int D, class Emit>
inline bool scan_short_runs_padded(Isa, const SoaView<T, D>&, const std::size_t*, const std::size_t*, int,
                                   const BasicBox<T, D>&, Emit&) {
    return false;  // the caller's loops are the scalar form
}

template <class T, int D, class Emit>
inline void sweep_overlaps(Isa, const SoaView<T, D>& v, std::size_t begin, std::size_t end, int axis,
                           const BasicBox<T, D>& q, Emit& emit) {
    const T limit = q.max[axis];
    const T* sweep_lo = v.lo[axis];
    for (std::size_t j = begin; j < end && !(sweep_lo[j] > limit); ++j)
        if (v.overlaps(j, q)) emit(j);
}

template <class T, int D, class Emit>
inline void sweep_pairs(Isa, const SoaView<T, D>& v, int axis, std::size_t first_end, Emit& emit) {
    const std::size_t n = v.n;
    for (std::size_t i = 0; i < first_end && i + 1 < n; ++i) {
        auto emit_i = [&](std::size_t j) { emit(i, j); };
        sweep_overlaps(Isa{}, v, i + 1, n, axis, box_at(v, i), emit_i);
    }
}

template <class T>
inline void scale_clamp_trunc(Isa, const T* x, std::size_t n, T o, T s, T lim, std::int32_t* out) {
    for (std::size_t i = 0; i < n; ++i) out[i] = detail::scale_clamp_trunc(x[i], o, s, lim);
}

template <class T, int D>
inline bool all_valid(Isa, const SoaView<T, D>& v, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
        for (int k = 0; k < D; ++k)
            if (!valid_interval(v.lo[k][i], v.hi[k][i])) return false;
    return true;
}

/// See the top of this file: every entry against every entry, no pruning
/// but each row against the other group's box.
template <int M, class T, int D, class Flush>
inline void cluster_pair_hits(Isa, std::integral_constant<int, M>, const ClusterSide<T, D>& side_a, const ClusterSide<T, D>& side_b, const Pair* pairs,
                              std::size_t count, int mode, Flush& flush) {
    const SoaView<T, D> ea = side_a.entries, eb = side_b.entries;
    const bool ordered = mode != cluster_two_sets;
    Pair buf[cluster_block + 32];
    std::size_t held = 0;
    for (std::size_t t = 0; t < count; ++t) {
        const std::size_t g = pairs[t].a, h = pairs[t].b;
        const std::size_t a0 = g * M, b0 = h * M;
        const std::size_t na = std::min<std::size_t>(M, ea.n - a0), nb = std::min<std::size_t>(M, eb.n - b0);
        const bool triangle = mode != cluster_two_sets && g == h;
        const BasicBox<T, D> box_b = box_at(side_b.groups, h);
        const std::uint32_t* b_ids = side_b.ids ? side_b.ids + b0 : nullptr;
        for (std::size_t r = 0; r < na; ++r) {
            const std::size_t i = a0 + r;
            if (!triangle && !ea.overlaps(i, box_b)) continue;
            const BasicBox<T, D> a = box_at(ea, i);
            std::uint32_t m = 0;
            for (std::size_t l = triangle ? (mode == cluster_diagonal ? r : r + 1) : 0; l < nb; ++l)
                if (eb.overlaps(b0 + l, a)) m |= 1u << l;
            const auto id = static_cast<std::uint32_t>(side_a.ids ? side_a.ids[i] : i);
            append_pairs(m, id, b_ids, static_cast<std::uint32_t>(b0), ordered, buf, held);
            if (held >= cluster_block) flush(static_cast<const Pair*>(buf), held), held = 0;
        }
    }
    if (held) flush(static_cast<const Pair*>(buf), held);
}

/// Runs f() in this copy: with no target of its own, the build's baseline
/// (src/simd/dispatch.hpp: run and run_flat, for code outside src/simd/).
template <class F>
inline void run(Isa, const F& f) {
    f();
}
template <class F>
[[gnu::flatten]] inline void run_flat(Isa, const F& f) {
    f();
}

}  // namespace simd_scalar

}  // namespace detail
}  // namespace broadphase
