// The spatial partition behind the distributed broad phase: recursive
// coordinate bisection of space into one region per rank, computed from a
// sample of box centres so that each region holds about the same number of
// boxes, however they cluster.
//
// Needs no MPI: every rank builds the same Partition from the same gathered
// sample, and tests can build one on its own.
//
// Regions are half-open boxes: each cut sends a coordinate x left when
// x < cut and right otherwise, so every point of space (infinities
// included) lies in exactly one region. A box is sent to every region it
// overlaps (its min < a region's upper cut and its max >= its lower cut on
// every axis), and a pair is reported by the region holding the max of the
// two min corners: a point inside both boxes, so both were sent there.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <broadphase/boxes.hpp>

namespace broadphase {
namespace mpi {

/// One sampled box centre and the number of boxes it stands for.
template <int D>
struct Sample {
    double at[D];
    double weight;
};

/// A binary tree of axis-aligned cuts with one leaf per rank. Plain data:
/// copy it, compare it, send it.
template <int D>
class Partition {
public:
    struct Node {
        int axis = 0;       ///< the cut's axis (inner nodes)
        double cut = 0;     ///< left: x < cut; right: x >= cut
        int left = -1;      ///< child node indices; -1 at a leaf
        int right = -1;
        int rank = -1;      ///< the leaf's rank; -1 at an inner node
    };

    /// One region holding everything (rank 0).
    Partition() { nodes_.push_back(leaf(0)); }

    /// Builds `ranks` regions from weighted samples (reordered in place) by
    /// recursive bisection: each node splits its ranks in two halves
    /// (floor, ceil) and cuts its samples, on the axis where their middle
    /// 90% spreads widest, at the weighted quantile that gives each half
    /// its share. Quantiles and the trimmed spread ignore far outliers.
    /// Deterministic for a given sample order. O(S log S log P) for S samples.
    static Partition build(std::vector<Sample<D>>& samples, int ranks) {
        Partition p;
        p.nodes_.clear();
        p.nodes_.reserve(2 * static_cast<std::size_t>(ranks > 0 ? ranks : 1));
        p.split(samples.data(), samples.size(), 0, ranks > 0 ? ranks : 1);
        return p;
    }

    /// The number of regions (ranks).
    int regions() const { return static_cast<int>((nodes_.size() + 1) / 2); }

    /// The rank whose region holds point x (with D coordinates). O(log P).
    template <class T>
    int rank_of(const T* x) const {
        int n = 0;
        while (nodes_[n].rank < 0) {
            const Node& node = nodes_[n];
            n = static_cast<double>(x[node.axis]) < node.cut ? node.left : node.right;
        }
        return nodes_[n].rank;
    }

    /// Calls f(rank) for every region the box [lo, hi] overlaps, in
    /// ascending node order (left before right). O(log P + regions hit).
    template <class T, class F>
    void for_each_rank(const T* lo, const T* hi, F&& f) const {
        int stack[64];
        int top = 0;
        stack[top++] = 0;
        while (top > 0) {
            const Node& node = nodes_[stack[--top]];
            if (node.rank >= 0) {
                f(node.rank);
                continue;
            }
            // Right pushed first so the left side comes out first.
            if (static_cast<double>(hi[node.axis]) >= node.cut) stack[top++] = node.right;
            if (static_cast<double>(lo[node.axis]) < node.cut) stack[top++] = node.left;
        }
    }

    /// The rank whose region holds the box's min corner `lo`, and whether
    /// the box [lo, hi] lies in that region alone (false: it straddles a
    /// cut and overlaps other regions too). One descent without branches
    /// on the data, so random boxes cost no mispredictions. O(log P).
    template <class T>
    int home(const T* lo, const T* hi, bool& alone) const {
        int n = 0;
        bool straddles = false;
        while (nodes_[n].rank < 0) {
            const Node& node = nodes_[n];
            const bool left = static_cast<double>(lo[node.axis]) < node.cut;
            // lo <= hi: going left with hi on the right is the only straddle.
            straddles |= left & (static_cast<double>(hi[node.axis]) >= node.cut);
            n = left ? node.left : node.right;
        }
        alone = !straddles;
        return nodes_[n].rank;
    }

    /// Whether the box [lo, hi] overlaps one region only. O(log P).
    template <class T>
    bool single_region(const T* lo, const T* hi) const {
        int n = 0;
        while (nodes_[n].rank < 0) {
            const Node& node = nodes_[n];
            const bool left = static_cast<double>(lo[node.axis]) < node.cut;
            const bool right = static_cast<double>(hi[node.axis]) >= node.cut;
            if (left && right) return false;
            n = left ? node.left : node.right;
        }
        return true;
    }

    const std::vector<Node>& nodes() const { return nodes_; }
    bool operator==(const Partition& o) const {
        if (nodes_.size() != o.nodes_.size()) return false;
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            const Node &a = nodes_[i], &b = o.nodes_[i];
            if (a.axis != b.axis || a.cut != b.cut || a.left != b.left || a.right != b.right || a.rank != b.rank)
                return false;
        }
        return true;
    }

private:
    static Node leaf(int rank) {
        Node n;
        n.rank = rank;
        return n;
    }

    // Builds the subtree for ranks [r0, r1) over samples [s, s + n); returns its node index.
    int split(Sample<D>* s, std::size_t n, int r0, int r1) {
        const int self = static_cast<int>(nodes_.size());
        nodes_.push_back(leaf(r0));
        if (r1 - r0 == 1) return self;
        const int mid = r0 + (r1 - r0) / 2;
        const double share = static_cast<double>(mid - r0) / (r1 - r0);

        int axis = 0;
        double cut = 0;
        if (n > 0) {
            // The axis where the middle 90% of the weight spreads widest.
            double best = -1;
            for (int k = 0; k < D; ++k) {
                sort_on(s, n, k);
                const double spread = quantile(s, n, k, 0.95) - quantile(s, n, k, 0.05);
                if (spread > best) {
                    best = spread;
                    axis = k;
                }
            }
            sort_on(s, n, axis);
            cut = cut_at(s, n, axis, share);
        }
        // Samples left of the cut first (they are sorted on the axis).
        std::size_t nl = 0;
        while (nl < n && s[nl].at[axis] < cut) ++nl;
        const int l = split(s, nl, r0, mid);
        const int r = split(s + nl, n - nl, mid, r1);
        Node& node = nodes_[self];
        node.rank = -1;
        node.axis = axis;
        node.cut = cut;
        node.left = l;
        node.right = r;
        return self;
    }

    // Sorts samples on axis k; ties broken by the other axes then the
    // weight, so the order (and the partition) does not depend on the sort.
    static void sort_on(Sample<D>* s, std::size_t n, int k) {
        std::sort(s, s + n, [k](const Sample<D>& a, const Sample<D>& b) {
            if (a.at[k] != b.at[k]) return a.at[k] < b.at[k];
            for (int j = 0; j < D; ++j)
                if (a.at[j] != b.at[j]) return a.at[j] < b.at[j];
            return a.weight < b.weight;
        });
    }

    static double total(const Sample<D>* s, std::size_t n) {
        double w = 0;
        for (std::size_t i = 0; i < n; ++i) w += s[i].weight;
        return w;
    }

    // The coordinate below which fraction q of the weight lies (sorted on k).
    static double quantile(const Sample<D>* s, std::size_t n, int k, double q) {
        const double target = q * total(s, n);
        double acc = 0;
        for (std::size_t i = 0; i < n; ++i) {
            acc += s[i].weight;
            if (acc >= target) return s[i].at[k];
        }
        return s[n - 1].at[k];
    }

    // A cut leaving fraction `share` of the weight on its left (sorted on
    // k): half-way between the last sample kept left and the first sent
    // right, so boxes near the cut fall as their centres do.
    static double cut_at(const Sample<D>* s, std::size_t n, int k, double share) {
        const double target = share * total(s, n);
        double acc = 0;
        std::size_t j = 0;
        while (j < n && acc + s[j].weight * 0.5 < target) acc += s[j++].weight;
        if (j == 0) return s[0].at[k];
        if (j == n) return std::nextafter(s[n - 1].at[k], HUGE_VAL);
        const double a = s[j - 1].at[k], b = s[j].at[k];
        if (a == b) return b;  // ties go right together
        const double m = a + (b - a) * 0.5;
        return m > a ? m : b;
    }

    std::vector<Node> nodes_;
};

/// The centre of box i of `boxes` as a sample point, or false when the box
/// is invalid or its centre is not finite (infinite slabs: they go to every
/// region they touch whatever the cuts, and must not pull a cut to infinity).
template <class T, int D>
bool sample_point(const BasicBoxes<T, D>& boxes, std::size_t i, double* out) {
    for (int k = 0; k < D; ++k) {
        const double lo = boxes.min(k)[i], hi = boxes.max(k)[i];
        if (!detail::valid_interval(lo, hi)) return false;
        const double c = lo * 0.5 + hi * 0.5;
        if (!std::isfinite(c)) return false;
        out[k] = c;
    }
    return true;
}

}  // namespace mpi
}  // namespace broadphase
