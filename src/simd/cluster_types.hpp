// The cluster-pair kernel's types, its output and its portable scalar loops
// (Algorithm::cluster_pairs, src/cluster_pairs/cluster_tree.hpp). Included by
// src/simd/dispatch.hpp (include that) once SoaView and box_at exist, before the per-set copies
// (src/simd/cluster_kernel.ipp), which use what is declared here; the entry
// point, cluster_pair_hits, is in src/simd/dispatch.hpp with the others.
//
// What the kernel does, for each listed pair of groups (g of side_a, h of
// side_b; group g holds entries [g*M, g*M + M) that are below entries.n):
// every entry i of g against every entry j of h, and each pair of entries
// whose boxes overlap is reported as (side_a's id of i, side_b's id of j).
// Pair by pair in list order, then in increasing i, then j; for a side
// with itself each as (min, max) of the two ids. With `mode`
// cluster_two_sets every pair of entries counts; for a side with itself
// (side_a == side_b) a group with itself reports only j > i
// (cluster_after_only) or j >= i (cluster_diagonal). The pairs go to
// flush(const Pair*, count) a block at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <broadphase/pairs.hpp>

namespace broadphase {
namespace detail {

/// One side of a cluster-pair search: the entries of one level of a
/// cluster tree (boxes, or the bounding boxes of the level below), cut into
/// groups of M consecutive entries, and those groups' bounding boxes (the
/// level above: its entry g bounds group g here). The arrays are readable
/// to a multiple of M plus simd::width; lanes past entries.n are masked,
/// whatever they hold.
template <class T, int D>
struct ClusterSide {
    SoaView<T, D> entries;
    SoaView<T, D> groups;
    /// What an entry is reported as: ids[i] (readable to a multiple of M
    /// plus 16), or, null, i itself.
    const std::uint32_t* ids = nullptr;
};

/// Pairs a kernel gathers before handing them on; its buffer holds this
/// many plus a row's.
constexpr std::size_t cluster_block = 256;

/// The modes (see above).
constexpr int cluster_two_sets = 0, cluster_after_only = 1, cluster_diagonal = 2;

/// The low n bits (n <= 32).
inline std::uint32_t cluster_lanes(std::size_t n) { return n >= 32 ? ~0u : (1u << n) - 1u; }

/// The lanes a group with itself keeps in row r: after r, or from r on.
inline std::uint32_t cluster_after(unsigned r, int mode) {
    const std::uint32_t from_r = ~0u << r;
    return mode == cluster_diagonal ? from_r : from_r << 1;
}

/// Appends the pair (a, b_l) for every set bit l of m to out[count...],
/// lowest l first, b_l = b_ids[l] (or b_base + l when b_ids is null); with
/// `ordered`, each as (min, max). The AVX-512 copy declares its own (a
/// compress, no branch per pair).
inline void append_pairs(std::uint32_t m, std::uint32_t a, const std::uint32_t* b_ids, std::uint32_t b_base,
                         bool ordered, Pair* out, std::size_t& count) {
    for (; m; m &= m - 1) {
        const auto l = static_cast<std::uint32_t>(count_trailing_zeros(m));
        const std::uint32_t b = b_ids ? b_ids[l] : b_base + l;
        out[count++] = ordered && b < a ? Pair{b, a} : Pair{a, b};
    }
}

}  // namespace detail
}  // namespace broadphase
