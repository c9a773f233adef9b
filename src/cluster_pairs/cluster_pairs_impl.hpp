// The body of <broadphase/cluster_pairs.hpp>. Compiled once in the library
// (src/cluster_pairs/cluster_pairs.cpp); the single header (single_include/) holds it too. A file that uses other scalar types or dimensions with the compiled library (BasicClusterPairs<float, 1>) includes it (src/ on its include path).
#pragma once

#include <broadphase/cluster_pairs.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <broadphase/boxes.hpp>
#include "core/algorithm_base.hpp"
#include "core/algorithm_front_impl.hpp"
#include "cluster_pairs/cluster_tree.hpp"
#include "simd/dispatch.hpp"
#include "core/stats.hpp"

namespace broadphase {
namespace detail {

template <class T, int D>
class ClusterPairsImpl : public AlgorithmBase<ClusterPairsImpl<T, D>, T, D> {
    friend class AlgorithmBase<ClusterPairsImpl<T, D>, T, D>;
    using View = detail::SoaView<T, D>;
    using Tree = detail::ClusterTree<T, D>;
    using Side = detail::ClusterSide<T, D>;

public:
    /// Boxes a cluster: 8 or 16; 0 (the default) means 16 (see
    /// detail::ClusterTree::default_group_size). The pairs are the same
    /// either way; their order is not.
    void set_cluster_size(int m) { forced_m_ = (m == 8 || m == 16) ? m : 0; }

    /// Pairs of clusters the last pair search tested (a cluster with
    /// itself included): the kernel's calls.
    std::size_t cluster_pair_count() const { return cluster_pairs_; }

private:
    /// Cluster pairs given to one kernel call: the stop test runs between calls.
    static constexpr std::size_t chunk = 256;

    int cluster_size() const { return forced_m_ ? forced_m_ : Tree::default_group_size; }

    /// cluster_pair_hits for the tree's group size m.
    template <class Flush>
    static void kernel(int m, const Side& a, const Side& b, const Pair* pairs, std::size_t count, int mode,
                       Flush&& flush) {
        if (m == 16) detail::cluster_pair_hits<16>(a, b, pairs, count, mode, flush);
        else detail::cluster_pair_hits<8>(a, b, pairs, count, mode, flush);
    }

    /// The pairs of clusters (level 0's groups) whose boxes overlap, into
    /// list_: from the root's group down. Trees of equal height.
    void cluster_list(const Tree& ta, const Tree& tb, int mode) {
        list_.clear();
        list_.push_back({0, 0});
        std::size_t longest = 1;
        const int m = ta.group_size();
        for (int l = ta.height() - 1; l >= 1; --l) {
            next_.clear();
            kernel(m, ta.side(l), tb.side(l), list_.data(), list_.size(), mode,
                   [&](const Pair* p, std::size_t k) { next_.insert(next_.end(), p, p + k); });
            list_.swap(next_);
            longest = std::max(longest, list_.size());
        }
        // Both lists hold any level next frame (the levels swap them), with room to grow.
        for (std::vector<Pair>* v : {&list_, &next_})
            if (v->capacity() < longest + longest / 8 + 64) v->reserve(longest + longest / 4 + 256);
        cluster_pairs_ = list_.size();
        by_first_cluster(ta.level(1).n);
    }

    /// Orders list_ by its pairs' first cluster (stable: a counting sort),
    /// and keeps where each cluster's pairs start (starts_): threads take
    /// runs of clusters, the same boxes from frame to frame, so each task's
    /// pairs, and the memory they need, change little when the boxes move.
    void by_first_cluster(std::size_t clusters) {
        starts_.assign(clusters + 1, 0);
        for (const Pair& p : list_) ++starts_[p.a + 1];
        for (std::size_t c = 0; c < clusters; ++c) starts_[c + 1] += starts_[c];
        next_.resize(list_.size());
        for (const Pair& p : list_) next_[starts_[p.a]++] = p;  // starts_[c] becomes c's end
        for (std::size_t c = clusters; c > 0; --c) starts_[c] = starts_[c - 1];
        starts_[0] = 0;
        list_.swap(next_);
    }

    /// The pairs of boxes of the listed cluster pairs [begin, end) into
    /// `sink`, checking it between chunks.
    template <class S>
    void leaf_pairs(const Tree& ta, const Tree& tb, int mode, std::size_t begin, std::size_t end, S& sink,
                    bool blocks) const {
        const Side sa = ta.side(0), sb = tb.side(0);
        auto to_sink = [&](const Pair* p, std::size_t k) {
            if (!blocks || sink.streams()) {
                for (std::size_t i = 0; i < k; ++i) sink(p[i].a, p[i].b);
                return;
            }
            // Into the caller's vector as a block: room made once, no test
            // a pair. (Not into a task's buffer: TaskPairs sizes those for
            // the sink's own growth, in chunks, and the exact growth of
            // extend() left too little headroom for the next frame.)
            std::size_t granted = 0;
            Pair* out = sink.extend(k, granted);
            std::copy(p, p + granted, out);
        };
        for (std::size_t t = begin; t < end && !sink.stopped(); t += chunk)
            kernel(ta.group_size(), sa, sb, list_.data() + t, std::min(chunk, end - t), mode, to_sink);
    }

    /// The pairs of boxes of every listed cluster pair, in list order: on
    /// `threads` threads, each task the pairs of a run of first clusters.
    template <class Sink>
    void run_leaves(const Tree& ta, const Tree& tb, int mode, unsigned threads, Sink& sink) {
        const std::size_t n = list_.size(), clusters = starts_.size() - 1;
        if (threads <= 1 || n < 2 * chunk) {
            leaf_pairs(ta, tb, mode, 0, n, sink, true);
            return;
        }
        const std::size_t nt = detail::task_count(threads, clusters, 16);
        tasks_.run(threads, nt, sink, [&](std::size_t t, PairSink& s, unsigned) {
            const std::size_t begin = starts_[detail::even_bound(clusters, nt, t)];
            const std::size_t end = starts_[detail::even_bound(clusters, nt, t + 1)];
            leaf_pairs(ta, tb, mode, begin, end, s, false);
        });
    }

    template <class Sink>
    void self_impl(const View& v, Sink& sink) {
        cluster_pairs_ = 0;
        if (v.n < 2) return;
        const unsigned threads = this->threads_for(v.n);
        a_.build(v, cluster_size(), threads, this->min_boxes_per_thread(), stats_);
        cluster_list(a_, a_, detail::cluster_diagonal);
        run_leaves(a_, a_, detail::cluster_after_only, threads, sink);
    }

    template <class Sink>
    void cross_impl(const View& va, const View& vb, Sink& sink) {
        cluster_pairs_ = 0;
        if (va.n == 0 || vb.n == 0) return;
        const unsigned threads = this->threads_for(std::max(va.n, vb.n));
        const int m = cluster_size();
        a_.build(va, m, threads, this->min_boxes_per_thread(), stats_);
        b_.build(vb, m, threads, this->min_boxes_per_thread(), stats_);
        const int height = std::max(a_.height(), b_.height());
        a_.grow_to(height);
        b_.grow_to(height);
        cluster_list(a_, b_, detail::cluster_two_sets);
        run_leaves(a_, b_, detail::cluster_two_sets, threads, sink);
    }

    void build_impl(const View& v) {
        built_.build(v, cluster_size(), this->threads_for(v.n), this->min_boxes_per_thread(), stats_);
    }

    template <class Emit>
    void query_impl(const BasicBox<T, D>& q, Emit&& emit) const {
        built_.query(q, emit);
    }

    Tree a_, b_, built_;
    std::vector<Pair> list_, next_;
    std::vector<std::uint32_t> starts_;  // per first cluster, where its pairs start in list_ (clusters + 1)
    detail::StatsScratch stats_;
    detail::TaskPairs tasks_;
    std::size_t cluster_pairs_ = 0;
    int forced_m_ = 0;
};

}  // namespace detail

template <class T, int D>
void BasicClusterPairs<T, D>::set_cluster_size(int m) {
    this->impl().set_cluster_size(m);
}

template <class T, int D>
std::size_t BasicClusterPairs<T, D>::cluster_pair_count() const {
    const auto* a = this->impl_if_any();
    return a ? a->cluster_pair_count() : 0;
}

}  // namespace broadphase

// Compiled once, in cluster_pairs/cluster_pairs.cpp, for float and double in 2-D and 3-D; the
// library's other files use those. (The single header leaves out every
// `extern template` line: there each file compiles what it uses.)
namespace broadphase {
extern template class detail::AlgorithmBase<detail::ClusterPairsImpl<float, 2>, float, 2>;
extern template class detail::ClusterPairsImpl<float, 2>;
extern template class BasicClusterPairs<float, 2>;
extern template class detail::AlgorithmBase<detail::ClusterPairsImpl<float, 3>, float, 3>;
extern template class detail::ClusterPairsImpl<float, 3>;
extern template class BasicClusterPairs<float, 3>;
extern template class detail::AlgorithmBase<detail::ClusterPairsImpl<double, 2>, double, 2>;
extern template class detail::ClusterPairsImpl<double, 2>;
extern template class BasicClusterPairs<double, 2>;
extern template class detail::AlgorithmBase<detail::ClusterPairsImpl<double, 3>, double, 3>;
extern template class detail::ClusterPairsImpl<double, 3>;
extern template class BasicClusterPairs<double, 3>;
}  // namespace broadphase
