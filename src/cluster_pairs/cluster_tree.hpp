// The cluster tree behind Algorithm::cluster_pairs: boxes in Morton order,
// cut into clusters of M consecutive boxes, the clusters' bounding boxes
// cut into groups of M again, and so on up to one root box.
//
// Level 0 holds the boxes themselves, sorted by the Morton code of their
// centres (a stable radix sort of 32-bit keys, src/core/radix_sort.hpp), as
// struct of arrays with each box's working index; level l + 1 holds one
// bounding box per group of M consecutive entries of level l (M = 16 by
// default, 8 on request).
//
// Pairs within one set: a list of pairs of groups whose bounding boxes
// overlap, level by level from the root down. At level l each listed pair
// of groups goes through the M x M kernel (cluster_pair_hits, src/simd/dispatch.hpp)
// and every overlapping pair of entries it finds is a pair of groups of
// level l - 1 for the next list (a group with itself too: an entry always
// meets itself). At level 0 the kernel's hits are the pairs of boxes. Every
// pair of overlapping boxes has overlapping ancestors at every level, and
// each pair of groups is listed once (a group with itself reports j >= i),
// so every pair is found once, with no de-duplication. The last list, the
// pairs of clusters, is cut into contiguous stretches for threads: the
// pairs and their order do not depend on the thread count.
//
// Two sets: two trees of equal height (the lower one gets root levels of
// one entry), pairs of one group of each. Queries: down the tree from the
// root, one batch scan of a group's entries a level.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/parallel.hpp>
#include "core/radix_sort.hpp"
#include "simd/dispatch.hpp"
#include "core/stats.hpp"

namespace broadphase {
namespace detail {

/// `bits` low bits of x spread to every D-th bit (bit b to bit b * D).
template <int D>
inline std::uint32_t morton_spread(std::uint32_t x, int bits) {
    if constexpr (D == 1) {
        return x;
    } else if constexpr (D == 2) {
        x &= 0xffffu;
        x = (x | (x << 8)) & 0x00ff00ffu;
        x = (x | (x << 4)) & 0x0f0f0f0fu;
        x = (x | (x << 2)) & 0x33333333u;
        x = (x | (x << 1)) & 0x55555555u;
        return x;
    } else if constexpr (D == 3) {
        x &= 0x3ffu;
        x = (x | (x << 16)) & 0x030000ffu;
        x = (x | (x << 8)) & 0x0300f00fu;
        x = (x | (x << 4)) & 0x030c30c3u;
        x = (x | (x << 2)) & 0x09249249u;
        return x;
    } else {
        std::uint32_t out = 0;
        for (int b = 0; b < bits; ++b) out |= ((x >> b) & 1u) << (b * D);
        return out;
    }
}

template <class T, int D>
class ClusterTree {
public:
    /// One level: entries as struct of arrays, padded past n to a multiple
    /// of the group size plus simd::width (the kernels read whole groups).
    struct Level {
        std::vector<T> lo[D], hi[D];
        std::size_t n = 0;
        SoaView<T, D> view() const {
            SoaView<T, D> v;
            for (int k = 0; k < D; ++k) v.lo[k] = lo[k].data(), v.hi[k] = hi[k].data();
            v.n = n;
            return v;
        }
    };

    /// The group size: 16, a full AVX-512 register of floats (two batches
    /// a row under AVX2). Against 8 it is faster under AVX-512, AVX2 and
    /// SSE2 and ties in the scalar loops (measured:
    /// docs/measured-in-code.md#cluster-pairs), so one size serves every level, and
    /// the pairs come in the same order at every level.
    static constexpr int default_group_size = 16;

    /// Builds over `v` (copied) with groups of m (8 or 16) boxes, at least
    /// `min_height` levels above the boxes. O(n) plus the sort, on up to
    /// `threads` threads (its passes planned with `min_boxes_per_thread`,
    /// threads.hpp); no allocation once the buffers have grown.
    void build(const SoaView<T, D>& v, int m, unsigned threads, std::size_t min_boxes_per_thread, StatsScratch& stats,
               int min_height = 1) {
        m_ = m;
        min_boxes_ = min_boxes_per_thread;
        const std::size_t n = v.n;
        sort_boxes(v, threads, stats);
        levels_used_ = 1;
        fill_level0(v, threads);
        std::size_t count = n;
        while (count > 1 || levels_used_ < static_cast<std::size_t>(min_height) + 1) {
            add_level();
            count = levels_[levels_used_ - 1].n;
        }
    }

    /// Adds root levels of one entry until the tree has `height` levels above the boxes.
    void grow_to(int height) {
        while (height_() < height) add_level();
    }

    /// Levels above the boxes (the root's level).
    int height() const { return height_(); }
    int group_size() const { return m_; }
    std::size_t size() const { return levels_used_ ? levels_[0].n : 0; }
    /// The working index of sorted position i.
    const std::uint32_t* ids() const { return sorted_ids_.data(); }
    const Level& level(int l) const { return levels_[static_cast<std::size_t>(l)]; }
    /// Level l's entries and, as groups, level l + 1's (l < height()).
    /// Level 0's entries report their working ids, the others their positions.
    ClusterSide<T, D> side(int l) const {
        return {level(l).view(), level(l + 1).view(), l == 0 ? sorted_ids_.data() : nullptr};
    }

    /// Calls emit(id) for the working id of every box overlapping q. Safe
    /// from many threads at once.
    template <class Emit>
    void query(const BasicBox<T, D>& q, Emit&& emit) const {
        if (size() == 0) return;
        struct Item {
            int level;
            std::uint32_t group;
        };
        // Depth first: at most M - 1 items wait a level (M <= 16, 32 levels).
        Item stack[16 * 40];
        int top = 0;
        stack[top++] = {height_() - 1, 0};
        while (top) {
            const Item it = stack[--top];
            const SoaView<T, D> e = level(it.level).view();
            const std::size_t begin = std::size_t(it.group) * static_cast<std::size_t>(m_);
            const std::size_t end = std::min(e.n, begin + static_cast<std::size_t>(m_));
            if (it.level == 0) {
                scan_overlaps_padded(e, begin, end, q, [&](std::size_t j) { emit(sorted_ids_[j]); });
            } else {
                scan_overlaps_padded(e, begin, end, q, [&](std::size_t j) {
                    stack[top++] = {it.level - 1, static_cast<std::uint32_t>(j)};
                });
            }
        }
    }

private:
    int height_() const { return static_cast<int>(levels_used_) - 1; }

    Level& grow_levels() {
        if (levels_.size() < levels_used_ + 1) levels_.resize(levels_used_ + 1);
        return levels_[levels_used_++];
    }

    /// Level arrays of n entries, padded.
    void size_level(Level& lv, std::size_t n) {
        const std::size_t m = static_cast<std::size_t>(m_);
        const std::size_t padded = (n + m - 1) / m * m + static_cast<std::size_t>(simd::width);
        const T inf = std::numeric_limits<T>::infinity();
        for (int k = 0; k < D; ++k) {
            resize_buffer(lv.lo[k], padded);
            resize_buffer(lv.hi[k], padded);
            std::fill(lv.lo[k].begin() + static_cast<std::ptrdiff_t>(n), lv.lo[k].end(), inf);
            std::fill(lv.hi[k].begin() + static_cast<std::ptrdiff_t>(n), lv.hi[k].end(), -inf);
        }
        lv.n = n;
    }

    /// Sorted positions: ids_ = working indices in Morton order of the centres.
    void sort_boxes(const SoaView<T, D>& v, unsigned threads, StatsScratch& stats) {
        const std::size_t n = v.n;
        keys_.resize(n);
        ids_.resize(n);
        // The grid of the code: the sample's 1st to 99th percentile of
        // centres (outliers clamp to its edges), bits per axis enough for
        // a few cells per box and no more (two radix passes to 7 bits an
        // axis in 3-D), unless that grid's cells would be over 4 median
        // boxes wide: then as many bits as the key holds, so that a dense
        // cluster in a wide world (stadium:100000) still spreads over many
        // cells rather than a few in input order (always that many bits
        // cost the other scenes a little; measured:
        // docs/measured-in-code.md#cluster-pairs).
        const SceneStats<D> s = scene_stats(v, stats);
        int bits_total = 3;
        while (bits_total < 32 && (std::size_t(1) << bits_total) < n * 8) ++bits_total;
        const int most_bits = D == 3 ? 10 : D == 2 ? 16 : 32 / D;
        // Cubic cells (one scale on every axis, the widest span's): with a
        // scale per axis a flat or long scene (terrain, stretched40k) gets
        // cells thin across its short axis, and clusters long across the
        // others.
        double origin[D], widest = 0, box = 0;
        for (int k = 0; k < D; ++k) {
            const double span = s.center_hi[k] - s.center_lo[k];
            if (std::isfinite(span)) widest = std::max(widest, span);
            if (std::isfinite(s.extent_median[k])) box = std::max(box, s.extent_median[k]);
        }
        int bits = std::max(1, std::min(most_bits, bits_total / D + 1));
        if (!(widest <= 4 * box * std::ldexp(1.0, bits))) bits = most_bits;
        const double cells = std::ldexp(1.0, bits);
        const double scale = widest > 0 ? cells / (1.04 * widest) : 0.0;
        for (int k = 0; k < D; ++k) origin[k] = s.center_lo[k] - 0.02 * widest;
        const double top = cells - 1;
        run_parts(plan_threads(threads, n, Work::eighth, min_boxes_), n, [&](std::size_t, std::size_t first, std::size_t last) {
            std::uint32_t* const keys = keys_.data();
            for (std::size_t i = first; i < last; ++i) {
                keys[i] = 0;
                ids_[i] = static_cast<std::uint32_t>(i);
            }
            // An axis at a time, plain loops the compiler vectorises:
            // clamped_cell's rule (NaN to 0) spelt out, cell < 2^10.
            for (int k = 0; k < D; ++k) {
                const T* const lo = v.lo[k];
                const T* const hi = v.hi[k];
                const double o = origin[k];
                for (std::size_t i = first; i < last; ++i) {
                    const double c = 0.5 * static_cast<double>(lo[i]) + 0.5 * static_cast<double>(hi[i]);
                    double t = (c - o) * scale;
                    t = t > 0.0 ? t : 0.0;
                    t = t < top ? t : top;
                    const auto q = static_cast<std::uint32_t>(static_cast<std::int32_t>(t));
                    keys[i] |= morton_spread<D>(q, bits) << k;
                }
            }
        });
        radix_sort(keys_, ids_, radix_, threads, min_boxes_);
    }

    /// Level 0: the boxes in sorted order, and level 1's group boxes.
    void fill_level0(const SoaView<T, D>& v, unsigned threads) {
        const std::size_t n = v.n;
        Level& l0 = levels_.empty() ? (levels_.resize(1), levels_[0]) : levels_[0];
        size_level(l0, n);
        // The ids, padded as the kernels read them (append_pairs: 16 at a time).
        resize_buffer(sorted_ids_, l0.lo[0].size() + 16);
        std::copy(ids_.begin(), ids_.end(), sorted_ids_.begin());
        run_parts(plan_threads(threads, n, Work::eighth, min_boxes_), n, [&](std::size_t, std::size_t first, std::size_t last) {
            for (int k = 0; k < D; ++k) {
                T* lo = l0.lo[k].data();
                T* hi = l0.hi[k].data();
                const T* src_lo = v.lo[k];
                const T* src_hi = v.hi[k];
                for (std::size_t i = first; i < last; ++i) {
                    const std::uint32_t id = ids_[i];
                    lo[i] = src_lo[id];
                    hi[i] = src_hi[id];
                }
            }
        });
    }

    /// A level of group boxes over the current top.
    void add_level() {
        const std::size_t below = levels_used_ - 1;
        const std::size_t n_below = levels_[below].n;
        const std::size_t m = static_cast<std::size_t>(m_);
        const std::size_t n = n_below == 0 ? 0 : (n_below + m - 1) / m;
        Level& up = grow_levels();
        size_level(up, n);
        const Level& lv = levels_[below];
        for (int k = 0; k < D; ++k) {
            const T* lo = lv.lo[k].data();
            const T* hi = lv.hi[k].data();
            T* ulo = up.lo[k].data();
            T* uhi = up.hi[k].data();
            for (std::size_t g = 0; g < n; ++g) {
                const std::size_t b = g * m, e = std::min(n_below, b + m);
                T a = lo[b], z = hi[b];
                for (std::size_t i = b + 1; i < e; ++i) {
                    a = lo[i] < a ? lo[i] : a;
                    z = hi[i] > z ? hi[i] : z;
                }
                ulo[g] = a;
                uhi[g] = z;
            }
        }
    }

    int m_ = 8;
    std::vector<Level> levels_;
    std::size_t levels_used_ = 0;
    std::size_t min_boxes_ = default_min_boxes_per_thread;  // this build's, for its passes
    std::vector<std::uint32_t> keys_, ids_, sorted_ids_;
    RadixScratch radix_;
};

}  // namespace detail
}  // namespace broadphase
