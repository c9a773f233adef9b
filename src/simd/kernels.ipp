// The float kernels, written once and compiled once per instruction set.
//
// Each set's header (src/simd/sse2/kernels.hpp, avx2/, avx512/) includes this
// file inside its own namespace (detail::simd_sse2, simd_avx2, simd_avx512)
// and, for AVX2 and AVX-512, inside its target region (a GCC or Clang pragma
// that gives every function defined in it that set's target), after
// defining there that set's inlined_copy, Batch, Mask, load, splat, le,
// operator&, bits and scale_clamp_trunc_batch (and, for AVX-512,
// has_compress and append_hits; the others find detail's), and
// BROADPHASE_SIMD_SCAN, how the scans are declared: always inlined in the
// SSE2 copy, which callers inline with their callback; plain inline in the
// wide ones, which callers call (a function with a wider target cannot be
// inlined into them, and an always-inline one would be an error there).
// Hence no include guard; the file undefines BROADPHASE_SIMD_SCAN at its
// end, for the next copy. Every kernel takes the copy's tag (Isa,
// src/simd/common.hpp) first: the entry points (src/simd/dispatch.hpp)
// reach a copy through it. Callers' emit callbacks have no target of their
// own, so the compiler inlines them into each copy (a narrower set into a
// wider one is allowed), and the loops stay as tight as one compiled for
// that set alone.
//
// Every kernel here tests boxes with comparisons only, so each copy gives
// exactly the same answers as the scalar loops, in the same order.

/// Boxes a batch holds: the lanes of this set's register.
constexpr int width = static_cast<int>(sizeof(Batch) / sizeof(float));

/// Bit l set for every l in [0, width) whose box j + l overlaps q. Reads
/// boxes [j, j + width): within the arrays or their padding.
template <int D>
[[gnu::always_inline]] inline std::uint32_t overlap_bits(const SoaView<float, D>& v, std::size_t j, const BasicBox<float, D>& q) {
    Mask m = le(load(v.lo[0] + j), splat(q.max[0])) & le(splat(q.min[0]), load(v.hi[0] + j));
    for (int k = 1; k < D; ++k)
        m = m & le(load(v.lo[k] + j), splat(q.max[k])) & le(splat(q.min[k]), load(v.hi[k] + j));
    return bits(m);
}

/// The query box as batches (each bound in every lane) and the view's
/// pointers, copied into locals that no callback can reach, so that they
/// stay in registers across emit calls. The out-of-line (wide) copies of
/// the scans use it: read through the caller's references instead, every
/// batch reloaded all six pointers and bounds after a callback's stores
/// (most of the uniform grid's time on clusters40k). The inlined SSE2 copy
/// does not: there the view and box are the caller's own locals already,
/// and the extra registers cost the caller's loop (measured:
/// docs/measured-in-code.md#simd-kernels).
template <int D>
struct Probe {
    const float* lo[D];
    const float* hi[D];
    Batch qlo[D], qhi[D];
    SoaView<float, D> view;
    BasicBox<float, D> box;
};

template <int D>
[[gnu::always_inline]] inline Probe<D> probe_of(const SoaView<float, D>& v, const BasicBox<float, D>& q) {
    Probe<D> p;
    for (int k = 0; k < D; ++k) {
        p.lo[k] = v.lo[k];
        p.hi[k] = v.hi[k];
        p.qlo[k] = splat(q.min[k]);
        p.qhi[k] = splat(q.max[k]);
    }
    p.view = v;
    p.box = q;
    return p;
}

template <int D>
[[gnu::always_inline]] inline std::uint32_t overlap_bits(const Probe<D>& p, std::size_t j) {
    Mask m = le(load(p.lo[0] + j), p.qhi[0]) & le(p.qlo[0], load(p.hi[0] + j));
    for (int k = 1; k < D; ++k) m = m & le(load(p.lo[k] + j), p.qhi[k]) & le(p.qlo[k], load(p.hi[k] + j));
    return bits(m);
}

/// The caller's view and box, read through its references (the SSE2 copy).
template <int D>
struct Direct {
    const SoaView<float, D>& view;
    const BasicBox<float, D>& box;
};

template <int D>
[[gnu::always_inline]] inline std::uint32_t overlap_bits(const Direct<D>& d, std::size_t j) {
    return overlap_bits(d.view, j, d.box);
}

/// The scans' loops, over either a Probe or Direct (`src`).
template <int D, class Source, class Emit>
[[gnu::always_inline]] inline void scan_loop(const SoaView<float, D>& v, std::size_t begin, std::size_t end,
                                  const BasicBox<float, D>& q, const Source& src, Emit& emit) {
    std::size_t j = begin;
    for (; j + width <= end; j += width) emit_bits(overlap_bits(src, j), j, emit);
    for (; j < end; ++j)
        if (v.overlaps(j, q)) emit(j);
}

template <int D, class Source, class Emit>
[[gnu::always_inline]] inline void padded_loop(std::size_t begin, std::size_t end, const Source& src, Emit& emit) {
    for (std::size_t j = begin; j < end; j += width) {
        std::uint32_t m = overlap_bits(src, j);
        if (end - j < static_cast<std::size_t>(width)) m &= (1u << (end - j)) - 1u;
        emit_bits(m, j, emit);
    }
}

template <int D, class Source, class Emit>
[[gnu::always_inline]] inline void sweep_loop(const SoaView<float, D>& v, std::size_t begin, std::size_t end, int axis,
                                   const BasicBox<float, D>& q, const Source& src, Emit& emit) {
    const float limit = q.max[axis];
    const float* sweep_lo = v.lo[axis];
    std::size_t j = begin;
    for (; j + width <= end; j += width) {
        emit_bits(overlap_bits(src, j), j, emit);
        if (sweep_lo[j + width - 1] > limit) return;
    }
    for (; j < end && !(sweep_lo[j] > limit); ++j)
        if (v.overlaps(j, q)) emit(j);
}

/// See detail::scan_overlaps.
template <int D, class Emit>
BROADPHASE_SIMD_SCAN void scan_overlaps(Isa, const SoaView<float, D>& v, std::size_t begin, std::size_t end,
                                        const BasicBox<float, D>& q, Emit& emit) {
    if constexpr (inlined_copy) {
        scan_loop(v, begin, end, q, Direct<D>{v, q}, emit);
    } else {
        const Probe<D> p = probe_of(v, q);
        scan_loop(p.view, begin, end, p.box, p, emit);
    }
}

/// See detail::scan_overlaps_padded.
template <int D, class Emit>
BROADPHASE_SIMD_SCAN void scan_overlaps_padded(Isa, const SoaView<float, D>& v, std::size_t begin, std::size_t end,
                                               const BasicBox<float, D>& q, Emit& emit) {
    if constexpr (inlined_copy) {
        padded_loop<D>(begin, end, Direct<D>{v, q}, emit);
    } else {
        const Probe<D> p = probe_of(v, q);
        padded_loop<D>(begin, end, p, emit);
    }
}

/// See detail::scan_runs_padded.
template <int D, class Emit>
BROADPHASE_SIMD_SCAN void scan_runs_padded(Isa, const SoaView<float, D>& v, const std::size_t* begin,
                                           const std::size_t* end, int runs, const BasicBox<float, D>& q,
                                           Emit& emit) {
    if constexpr (inlined_copy) {
        const Direct<D> d{v, q};
        for (int r = 0; r < runs; ++r) padded_loop<D>(begin[r], end[r], d, emit);
    } else if constexpr (!has_compress) {
        const Probe<D> p = probe_of(v, q);
        for (int r = 0; r < runs; ++r) padded_loop<D>(begin[r], end[r], p, emit);
    } else {
        // Hits gathered as indices, a compress per batch (no branch per
        // hit), then emitted in one loop (measured:
        // docs/measured-in-code.md#simd-kernels).
        const Probe<D> p = probe_of(v, q);
        constexpr std::size_t room = 256;
        std::uint32_t hits[room + width];
        std::size_t count = 0;
        for (int r = 0; r < runs; ++r) {
            const std::size_t e = end[r];
            for (std::size_t j = begin[r]; j < e; j += width) {
                std::uint32_t m = overlap_bits(p, j);
                if (e - j < static_cast<std::size_t>(width)) m &= (1u << (e - j)) - 1u;
                append_hits(m, j, hits, count);
                if (count > room - width) {
                    for (std::size_t t = 0; t < count; ++t) emit(hits[t]);
                    count = 0;
                }
            }
        }
        for (std::size_t t = 0; t < count; ++t) emit(hits[t]);
    }
}

/// See detail::scan_short_runs_padded: one batch per run, whatever its
/// length, and the hits of all runs emitted from one mask.
template <int D, class Emit>
BROADPHASE_SIMD_SCAN bool scan_short_runs_padded(Isa, const SoaView<float, D>& v, const std::size_t* begin,
                                                 const std::size_t* end, int runs, const BasicBox<float, D>& q,
                                                 Emit& emit) {
    constexpr std::size_t W = static_cast<std::size_t>(width);
    if (runs * width > 32) return false;
    bool longer = false;
    for (int r = 0; r < runs; ++r) longer |= end[r] - begin[r] > W;
    if (longer) return false;
    const Direct<D> d{v, q};
    std::uint32_t m = 0;
    for (int r = 0; r < runs; ++r) {
        const std::uint32_t keep = (1u << (end[r] - begin[r])) - 1u;
        m |= (overlap_bits(d, begin[r]) & keep) << (static_cast<unsigned>(r) * W);
    }
    for (; m; m &= m - 1) {
        const std::size_t bit = static_cast<std::size_t>(count_trailing_zeros(m));
        emit(begin[bit / W] + bit % W);
    }
    return true;
}

/// See detail::sweep_overlaps.
template <int D, class Emit>
BROADPHASE_SIMD_SCAN void sweep_overlaps(Isa, const SoaView<float, D>& v, std::size_t begin, std::size_t end, int axis,
                                         const BasicBox<float, D>& q, Emit& emit) {
    if constexpr (inlined_copy) {
        sweep_loop(v, begin, end, axis, q, Direct<D>{v, q}, emit);
    } else {
        const Probe<D> p = probe_of(v, q);
        sweep_loop(p.view, begin, end, axis, p.box, p, emit);
    }
}

/// See detail::sweep_pairs: lane l of step d tests box i+l against box
/// i+l+d while windows are short, then a per-box sweep for longer ones.
template <int D, class Emit>
inline void sweep_pairs(Isa, const SoaView<float, D>& view, int axis, std::size_t first_end,
                                               Emit& emit) {
    constexpr std::size_t W = static_cast<std::size_t>(width);
    const SoaView<float, D> v = view;  // a local: stays in registers across emit calls
    const std::size_t n = v.n;
    for (std::size_t i = 0; i < first_end && i + 1 < n; i += W) {
        Batch lo[D], hi[D];
        for (int k = 0; k < D; ++k) {
            lo[k] = load(v.lo[k] + i);
            hi[k] = load(v.hi[k] + i);
        }
        const std::size_t left = first_end - i;
        std::uint32_t active = left >= W ? (W >= 32 ? ~0u : (1u << W) - 1u) : (1u << left) - 1u;
        const std::size_t j_end = std::min(n, i + 1 + 2 * W);
        std::size_t j = i + 1;
        for (; j < j_end; ++j) {
            const std::size_t valid = n - j;  // lanes whose partner exists
            if (valid < W) active &= (1u << valid) - 1u;
            Mask m = le(load(v.lo[axis] + j), hi[axis]);
            active &= bits(m);
            if (!active) break;
            for (int k = 0; k < D; ++k) {
                if (k == axis) continue;
                m = m & le(load(v.lo[k] + j), hi[k]) & le(lo[k], load(v.hi[k] + j));
            }
            std::uint32_t hits = bits(m) & active;
            while (hits) {
                const std::size_t l = static_cast<std::size_t>(count_trailing_zeros(hits));
                emit(i + l, j + l);
                hits &= hits - 1;
            }
        }
        if (j == j_end && j < n) {
            if (n - j < W) active &= (1u << (n - j)) - 1u;
            while (active) {
                const std::size_t l = static_cast<std::size_t>(count_trailing_zeros(active));
                const std::size_t a = i + l;
                auto emit_a = [&](std::size_t b) { emit(a, b); };
                sweep_overlaps<D>(Isa{}, v, j + l, n, axis, box_at(v, a), emit_a);
                active &= active - 1;
            }
        }
    }
}

/// See detail::scale_clamp_trunc (arrays).
inline void scale_clamp_trunc(Isa, const float* x, std::size_t n, float o, float s, float lim,
                                                     std::int32_t* out) {
    std::size_t i = 0;
    for (; i + width <= n; i += width) scale_clamp_trunc_batch(x + i, o, s, lim, out + i);
    for (; i < n; ++i) out[i] = detail::scale_clamp_trunc(x[i], o, s, lim);
}

/// See detail::all_valid.
template <int D>
inline bool all_valid(Isa, const SoaView<float, D>& v, std::size_t begin, std::size_t end) {
    constexpr std::uint32_t full = (width >= 32) ? ~0u : ((1u << width) - 1u);
    std::size_t i = begin;
    for (; i + width <= end; i += width) {
        Mask m = le(load(v.lo[0] + i), load(v.hi[0] + i));
        for (int k = 1; k < D; ++k) m = m & le(load(v.lo[k] + i), load(v.hi[k] + i));
        if (bits(m) != full) return false;
    }
    for (; i < end; ++i)
        for (int k = 0; k < D; ++k)
            if (!(v.lo[k][i] <= v.hi[k][i])) return false;
    return true;
}

#include "simd/cluster_kernel.ipp"

#undef BROADPHASE_SIMD_SCAN
