// Cheap statistics of a box set, from a fixed-stride sample: where the
// centres spread, how big boxes are. Algorithms use them to pick a sweep
// axis or a cell size; the automatic choice uses them to pick an algorithm.
// Non-finite values are left out, so infinite slabs do not spoil them.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "simd/dispatch.hpp"

namespace broadphase {
namespace detail {

template <int D>
struct SceneStats {
    std::size_t n = 0;
    std::size_t sampled = 0;
    std::array<double, D> center_var{};     ///< variance of box centres per axis
    std::array<double, D> center_lo{};      ///< 1st percentile of centres per axis
    std::array<double, D> center_hi{};      ///< 99th percentile of centres per axis
    std::array<double, D> extent_median{};  ///< median box extent per axis
    std::array<double, D> extent_p99{};     ///< 99th percentile box extent per axis

    /// The axis along which boxes are most spread out relative to their size:
    /// the best sweep axis (fewest boxes overlapping on it alone).
    int sparsest_axis() const {
        int best = 0;
        double best_score = -1;
        for (int k = 0; k < D; ++k) {
            const double e = extent_median[k] + 1e-30;
            const double score = center_var[k] / (e * e);
            if (score > best_score) best_score = score, best = k;
        }
        return best;
    }
};

/// The share of the volume its boxes' centres span (1st to 99th
/// percentile on each axis, at least a median box on each) that n median
/// boxes fill: about 0.4-1.4 for packed volumes (piles, voxels, random
/// boxes packed in a cube), 0.005-0.12 for surfaces (triangle meshes,
/// terrains, scans), and below 0.002 for sparse or multi-scale clouds
/// (docs/choosing.md). O(D).
template <int D>
double volume_fraction(const SceneStats<D>& s) {
    double filled = static_cast<double>(s.n), spanned = 1;
    for (int k = 0; k < D; ++k) {
        filled *= s.extent_median[k];
        spanned *= std::max(s.center_hi[k] - s.center_lo[k], s.extent_median[k]);
    }
    return spanned > 0 && std::isfinite(filled / spanned) ? filled / spanned : 0.0;
}

/// The k-th smallest value (partially reorders v). O(v.size()).
inline double nth(std::vector<double>& v, std::size_t k) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

/// Reusable memory for scene_stats.
struct StatsScratch {
    std::vector<double> centers, extents;
    std::vector<std::uint64_t> keys;
};

/// Samples up to `max_sample` boxes at a fixed stride. O(sample log sample).
/// (lo(k, i), hi(k, i): box i's min and max on axis k.)
template <int D, class Lo, class Hi>
SceneStats<D> scene_stats_of(std::size_t n, Lo&& lo_at, Hi&& hi_at, StatsScratch& scratch, std::size_t max_sample) {
    SceneStats<D> s;
    s.n = n;
    if (n == 0) return s;
    const std::size_t m = std::min(n, max_sample);
    const double stride = static_cast<double>(n) / static_cast<double>(m);
    std::vector<double>& centers = scratch.centers;
    std::vector<double>& extents = scratch.extents;
    for (int k = 0; k < D; ++k) {
        centers.clear();
        extents.clear();
        for (std::size_t t = 0; t < m; ++t) {
            const auto i = static_cast<std::size_t>(static_cast<double>(t) * stride);
            const double lo = static_cast<double>(lo_at(k, i)), hi = static_cast<double>(hi_at(k, i));
            const double c = 0.5 * (lo + hi), e = hi - lo;
            if (std::isfinite(c)) centers.push_back(c);
            extents.push_back(std::isfinite(e) ? e : HUGE_VAL);
        }
        s.sampled = m;
        if (!centers.empty()) {
            double mean = 0;
            for (double c : centers) mean += c;
            mean /= static_cast<double>(centers.size());
            double var = 0;
            for (double c : centers) var += (c - mean) * (c - mean);
            s.center_var[k] = var / static_cast<double>(centers.size());
            s.center_lo[k] = nth(centers, centers.size() / 100);
            s.center_hi[k] = nth(centers, centers.size() - 1 - centers.size() / 100);
        }
        s.extent_median[k] = nth(extents, extents.size() / 2);
        s.extent_p99[k] = nth(extents, extents.size() - 1 - extents.size() / 100);
    }
    return s;
}

/// Samples up to `max_sample` boxes at a fixed stride. O(sample log sample).
template <class T, int D>
SceneStats<D> scene_stats(const SoaView<T, D>& v, StatsScratch& scratch, std::size_t max_sample = 512) {
    return scene_stats_of<D>(
        v.n, [&](int k, std::size_t i) { return v.lo[k][i]; }, [&](int k, std::size_t i) { return v.hi[k][i]; },
        scratch, max_sample);
}

/// The same for a public view, in either layout (strided views need no gather).
template <class T, int D>
SceneStats<D> scene_stats(const BasicBoxesView<T, D>& v, StatsScratch& scratch, std::size_t max_sample = 512) {
    return scene_stats_of<D>(
        v.size(), [&](int k, std::size_t i) { return v.min(k, i); }, [&](int k, std::size_t i) { return v.max(k, i); },
        scratch, max_sample);
}

}  // namespace detail
}  // namespace broadphase
