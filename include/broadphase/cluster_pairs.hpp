// Cluster pairs: boxes in Morton order cut into clusters of M, pairs of
// clusters whose bounding boxes overlap, and an M x M SIMD kernel a pair of
// clusters (the idea of GROMACS's nbnxm pair search, for boxes).
//
// The boxes are sorted by the Morton code of their centres and copied in
// that order, struct of arrays; every M = 16 consecutive boxes are a
// cluster (an AVX-512 register of floats; two AVX2 batches), with its
// bounding box. The clusters' boxes are grouped by M again, and so on
// up to one root box: a tree of fan-out M (src/cluster_pairs/cluster_tree.hpp). The
// pairs of clusters whose boxes overlap are found from the root down, a
// level at a time, with the same kernel as the boxes: for a pair of groups,
// every entry of one is broadcast against all M entries of the other, held
// in registers, one mask a row (src/simd/cluster_kernel.ipp), after a test of
// each group's entries against the other group's box drops the rows and
// lanes that cannot meet. Each pair of boxes is found once, in the one pair
// of clusters holding it, with no de-duplication.
//
// Cost: O(n) for the keys and the copy plus a radix sort, then about
// (clusters a cluster meets) x M^2 / M box tests a box, a register row of M
// at a time: the cost follows the number of clusters, not the shape of the
// data, and no run of boxes is scanned a box at a time. It pays where boxes
// are small and packed, neighbours close in Morton order (meshes, scans,
// piles); a box far larger than its neighbours widens its cluster's box,
// which then meets many clusters.
//
// Two sets: a tree for each, pairs of one cluster of each. Queries: down
// the tree, one batch of M entries a level.
#pragma once
#include "algorithm_front.hpp"

namespace broadphase {
namespace detail {
template <class T, int D>
class ClusterPairsImpl;  // src/cluster_pairs/cluster_pairs_impl.hpp
}  // namespace detail

/// The calls every algorithm has: algorithm_front.hpp.
template <class T, int D>
class BasicClusterPairs : public AlgorithmFront<T, D, detail::ClusterPairsImpl<T, D>> {
public:
    /// Boxes a cluster: 8 or 16; 0 (the default) means 16 (see
    /// detail::ClusterTree::default_group_size). The pairs are the same
    /// either way; their order is not. O(1).
    void set_cluster_size(int m);

    /// Pairs of clusters the last pair search tested (a cluster with
    /// itself included): the kernel's calls. O(1).
    std::size_t cluster_pair_count() const;
};

/// Cluster pairs over 3-D float boxes.
using ClusterPairs = BasicClusterPairs<float, 3>;

// Compiled in the library, src/cluster_pairs/cluster_pairs.cpp, for float and double in 2-D and 3-D.

}  // namespace broadphase

