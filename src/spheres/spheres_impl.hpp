// The bodies of <broadphase/spheres.hpp>: SpherePairFinder's search, its
// two paths (the cell list, src/cell_list/cell_list.hpp, and the box broad phase
// with the exact rule after it) and what it keeps between calls. Compiled
// once in the library (src/spheres/spheres.cpp) for float and double; header-only,
// spheres.hpp includes this file at its end.
//
// It comes after spheres.hpp and does not include it back: no file
// includes the file that includes it (detail/extern_templates.hpp).
#pragma once

#include <broadphase/spheres.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include <broadphase/pairs.hpp>
#include <broadphase/detail/buffers.hpp>
#include <broadphase/detail/cell_frame.hpp>
#include "cell_list/cell_list_build.hpp"
#include "cell_list/cell_list_traversal.hpp"
#include <broadphase/detail/parallel.hpp>
#include "spheres/sphere_rule.hpp"

namespace broadphase {
namespace detail {

/// What a SpherePairFinder keeps between calls, and the steps of its two
/// paths over it.
struct SphereWork final : SphereWorkBase {
    /// The grid path (src/cell_list/cell_list.hpp), when it suits: radii within
    /// 2x of the mean, no infinite radius, centres not so spread that bins
    /// would be over 2 diameters wide, and in a periodic domain at most
    /// one image of a sphere within reach of another (every period over
    /// 3 diameters, about). Fills `out` and `rep` and returns true; else
    /// false, having done a pass over the input. O(n + pairs).
    template <class T>
    bool on_grid(const SphereView<T>& spheres, const detail::CellFrame& frame, const Options& options,
                 detail::PairOutput& out, std::size_t& count, Report& rep, bool periodic) {
        if (!grid_.sort(spheres, frame, 0.0, options.threads, Work::eighth, options.min_boxes_per_thread, rep.invalid_a,
                        2.0))
            return false;
        const auto& s = grid_.summary();
        if (!(s.rmax > 0) || s.rmax > kHugeRadius || s.rmax > 2 * (s.rsum / static_cast<double>(s.valid))) return false;
        if (periodic && !grid_.one_image()) return false;
        bool exceeded = false;
        count = grid_.pairs(out, options.max_pairs, exceeded);
        if (exceeded) rep.status = Status::pair_budget_exceeded;
        else if (options.sorted) sort_pairs(out.reserve(count, count), count, spheres.n, sort_scratch_);
        out.finish(count);
        return true;
    }

    /// Radii past which (r_i + r_j)^2 may overflow to infinity, so that the
    /// rule takes the pair whatever the distance (inf <= inf; "squares that
    /// overflow compare as infinity", above): such a sphere's box is the
    /// whole space (the box path), and the grid path is not taken. Below
    /// it, (r_i + r_j)^2 <= 2^1022 is finite, and a pair the rule takes has
    /// |D| <= r_i + r_j on every axis, within the boxes. (Found by the
    /// Python fuzzer: r = 1e300 at -1e300 and a point at 1.)
    static constexpr double kHugeRadius = 0x1p510;

    /// The spheres' boxes in float whatever the input precision (the broad
    /// phase runs at float speed; the rule filters in double): each bound,
    /// c -+ r(1 + 2^-40) in double, is rounded to float and moved one float
    /// step outwards, so a box contains the sphere's box with a margin far
    /// above the rule's rounding error: no pair the rule accepts is lost
    /// (float input included). The rule's error is relative to the radii,
    /// not to the coordinates: near 0 a float step is tiny (a subnormal), so
    /// the float step alone lost pairs there (spheres at x = -1, r = 1 and
    /// x = 3.6e-43, r = 0 touch by the rule, whose dx rounds to -1; found by
    /// tests/fuzz/fuzz_spheres); the 2^-40 r term covers the rule's few
    /// units of 2^-53 r. An invalid sphere gets a NaN box;
    /// an infinite centre coordinate the point box [c, c] on that axis (its
    /// pairs are then dropped by keep_touching).
    template <class T>
    void fill_boxes(const SphereView<T>& v, unsigned threads, std::size_t min_boxes_per_thread) {
        const std::size_t n = v.n;
        boxes_.resize(n);
        float* lo[3] = {boxes_.min(0), boxes_.min(1), boxes_.min(2)};
        float* hi[3] = {boxes_.max(0), boxes_.max(1), boxes_.max(2)};
        const unsigned t = plan_threads(threads, n, Work::eighth, min_boxes_per_thread);
        detail::run_parts(t, n, [&](std::size_t, std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) {
                const T ri = v.r(i);
                for (int k = 0; k < 3; ++k) {
                    const T c = v.coord(i, k);
                    if (!(ri >= 0) || std::isnan(c)) {
                        lo[k][i] = hi[k][i] = std::numeric_limits<float>::quiet_NaN();
                    } else if (std::isinf(c)) {
                        lo[k][i] = hi[k][i] = static_cast<float>(c);
                    } else if (static_cast<double>(ri) > kHugeRadius) {
                        lo[k][i] = -std::numeric_limits<float>::infinity();
                        hi[k][i] = std::numeric_limits<float>::infinity();
                    } else {
                        const double cd = static_cast<double>(c);
                        const double rd = static_cast<double>(ri) * (1 + 0x1p-40);
                        lo[k][i] = float_below(cd - rd);
                        hi[k][i] = float_above(cd + rd);
                    }
                }
            }
        });
    }

    /// A float <= v, one float step below v rounded (and no out-of-range
    /// conversion, which C++ leaves undefined: beyond float's range, the
    /// largest float or an infinity). NaN stays NaN. O(1).
    static float float_below(double v) {
        const float inf = std::numeric_limits<float>::infinity(), top = std::numeric_limits<float>::max();
        if (v > top) return top;
        if (v < -static_cast<double>(top)) return -inf;
        return std::nextafter(static_cast<float>(v), -inf);
    }
    /// A float >= v (as float_below, mirrored). O(1).
    static float float_above(double v) { return -float_below(-v); }

    /// Keeps the box pairs whose spheres touch, in place and in order.
    template <class T>
    void keep_touching(const SphereView<T>& v, std::vector<Pair>& pairs, unsigned threads,
                       std::size_t min_boxes_per_thread) {
        const std::size_t k = pairs.size();
        const unsigned t = plan_threads(threads, k, Work::eighth, min_boxes_per_thread);
        const std::size_t parts = detail::part_count(t, k);
        kept_.assign(parts, 0);
        Pair* p = pairs.data();
        detail::run_parts(t, k, [&](std::size_t part, std::size_t b, std::size_t e) {
            std::size_t w = b;
            for (std::size_t i = b; i < e; ++i) {
                const std::uint32_t x = p[i].a, y = p[i].b;
                double cx[3], cy[3];
                bool finite = true;
                for (int a = 0; a < 3; ++a) {
                    cx[a] = static_cast<double>(v.coord(x, a)), cy[a] = static_cast<double>(v.coord(y, a));
                    finite = finite && std::isfinite(cx[a]) && std::isfinite(cy[a]);
                }
                const double rr = static_cast<double>(v.r(x)) + static_cast<double>(v.r(y));
                if (finite && detail::spheres_touch(cx[0] - cy[0], cx[1] - cy[1], cx[2] - cy[2], rr)) p[w++] = p[i];
            }
            kept_[part] = w - b;
        });
        std::size_t w = kept_.empty() ? 0 : kept_[0];
        for (std::size_t part = 1; part < parts; ++part) {
            const std::size_t b = detail::even_bound(k, parts, part);
            std::memmove(p + w, p + b, kept_[part] * sizeof(Pair));
            w += kept_[part];
        }
        pairs.resize(w);
    }

    template <class B>
    struct PeriodicState {
        BasicBoxes<B, 3> boxes;
        BasicPeriodicPairFinder<B, 3> finder;
    };

    /// Whether every period is a float (at most float's max / 16), so that
    /// the float box broad phase has exactly these periods. O(1).
    template <class T>
    static bool periods_are_floats(const BasicPeriodicDomain<T, 3>& domain) {
        for (int k = 0; k < 3; ++k) {
            const double p = static_cast<double>(domain.period[k]);
            if (static_cast<double>(static_cast<float>(p)) != p ||
                !(p <= static_cast<double>(std::numeric_limits<float>::max() / 16)))
                return false;
        }
        return true;
    }

    /// A B <= v (v a double): one step of B below v rounded. O(1).
    template <class B>
    static B step_below(double v) {
        if constexpr (std::is_same_v<B, float>) return float_below(v);
        else return std::nextafter(v, -std::numeric_limits<double>::infinity());
    }

    /// The spheres' boxes in B (float, or double when a period is not a
    /// float) for the periodic box broad phase: centre -+ (r (1 + 2^-40) +
    /// L 2^-48 on a periodic axis), in double, then one step of B outwards:
    /// each box holds every point the rule can call touching (the rule's
    /// rounding is a few units of 2^-53 of L and of the radii). Invalid
    /// sphere: a NaN box; an infinite centre coordinate: [c, c] (dropped by
    /// keep_touching_periodic).
    template <class T, class B>
    static void fill_periodic_boxes(const SphereView<T>& v, const BasicPeriodicDomain<T, 3>& domain,
                                    BasicBoxes<B, 3>& boxes) {
        const std::size_t n = v.n;
        boxes.resize(n);
        for (int k = 0; k < 3; ++k) {
            B* lo = boxes.min(k);
            B* hi = boxes.max(k);
            const double wide = static_cast<double>(domain.period[k]) * 0x1p-48;
            for (std::size_t i = 0; i < n; ++i) {
                const T ri = v.r(i);
                const T c = v.coord(i, k);
                if (!(ri >= 0) || std::isnan(c)) {
                    lo[i] = hi[i] = std::numeric_limits<B>::quiet_NaN();
                } else if (std::isinf(c)) {
                    lo[i] = hi[i] = static_cast<B>(c);
                } else {
                    const double cd = static_cast<double>(c);
                    const double rd = static_cast<double>(ri) * (1 + 0x1p-40) + wide;
                    lo[i] = step_below<B>(cd - rd);
                    hi[i] = -step_below<B>(-(cd + rd));
                }
            }
        }
    }

    /// c wrapped into [0, L) in double: fmod (exact), plus L when negative
    /// (rounded once; L itself becomes 0). O(1).
    static double wrap_coordinate(double c, double L) {
        double w = std::fmod(c, L);
        if (w < 0) {
            w += L;
            if (w >= L) w = 0;
        }
        return w;
    }

    /// The minimum image difference on an axis of period L (see the top of
    /// this file). O(1).
    static double periodic_delta(double a, double b, double L) {
        const double d = wrap_coordinate(a, L) - wrap_coordinate(b, L);
        double best = d;
        const double below = d - L, above = d + L;
        if (std::abs(below) < std::abs(best)) best = below;
        if (std::abs(above) < std::abs(best)) best = above;
        return best;
    }

    /// Keeps the box pairs whose spheres touch under the minimum image
    /// convention, in place and in order.
    template <class T>
    static void keep_touching_periodic(const SphereView<T>& v, const BasicPeriodicDomain<T, 3>& domain,
                                       std::vector<Pair>& pairs) {
        double period[3];
        for (int k = 0; k < 3; ++k) period[k] = static_cast<double>(domain.period[k]);
        std::size_t w = 0;
        for (const Pair p : pairs) {
            double d[3];
            bool finite = true;
            for (int k = 0; k < 3; ++k) {
                const double ca = static_cast<double>(v.coord(p.a, k)), cb = static_cast<double>(v.coord(p.b, k));
                finite = finite && std::isfinite(ca) && std::isfinite(cb);
                d[k] = period[k] != 0 ? periodic_delta(ca, cb, period[k]) : ca - cb;
            }
            const double rr = static_cast<double>(v.r(p.a)) + static_cast<double>(v.r(p.b));
            if (finite && detail::spheres_touch(d[0], d[1], d[2], rr)) pairs[w++] = p;
        }
        pairs.resize(w);
    }

    detail::CellList grid_;
    PeriodicState<float> periodic_f_;
    PeriodicState<double> periodic_d_;
    Boxes boxes_;
    PairFinder boxes_finder_;
    std::vector<Pair> box_pairs_;  // the box path's pairs, for outputs other than a vector
    std::vector<std::size_t> kept_;
    PairSortScratch sort_scratch_;
};

}  // namespace detail

template <class T>
Report SpherePairFinder::search(const SphereView<T>& spheres, const BasicPeriodicDomain<T, 3>* domain,
                                detail::PairOutput& out, std::vector<Pair>* caller, const Options& options) {
    const bool periodic = domain && domain->any();
    Report rep;
    out.finish(0);
    last_ = SphereMethod::none;
    if (spheres.n > max_boxes) {
        rep.status = Status::too_many_boxes;
        return rep;
    }
    std::size_t count = 0;
    const bool done = detail::guarded(rep, [&] {
        if (!work_) work_ = std::make_unique<detail::SphereWork>();  // the first call, or after a move
        auto& w = static_cast<detail::SphereWork&>(*work_);
        std::vector<Pair>& pairs = caller ? *caller : w.box_pairs_;
        const detail::CellFrame frame = periodic ? detail::CellFrame::of(PeriodicCell::of(*domain).vectors) : detail::CellFrame{};
        if (options.algorithm == Algorithm::automatic && w.on_grid(spheres, frame, options, out, count, rep, periodic)) {
            last_ = SphereMethod::grid;
            return;
        }
        rep = Report{};
        last_ = SphereMethod::boxes;
        if (!periodic) {
            w.fill_boxes(spheres, options.threads, options.min_boxes_per_thread);
            rep = w.boxes_finder_.find_pairs(w.boxes_, pairs, options);
            // Over budget: the box pairs found so far, filtered the same way.
            if (rep.ok() || rep.status == Status::pair_budget_exceeded)
                w.keep_touching(spheres, pairs, options.threads, options.min_boxes_per_thread);
        } else if (detail::SphereWork::periods_are_floats(*domain)) {
            // float boxes: the broad phase at float speed, the same periods
            BasicPeriodicDomain<float, 3> fd;
            for (int k = 0; k < 3; ++k) fd.period[k] = static_cast<float>(domain->period[k]);
            detail::SphereWork::fill_periodic_boxes(spheres, *domain, w.periodic_f_.boxes);
            rep = w.periodic_f_.finder.find_pairs(w.periodic_f_.boxes, fd, pairs, options);
        } else if constexpr (std::is_same_v<T, double>) {  // (float periods are always floats)
            detail::SphereWork::fill_periodic_boxes(spheres, *domain, w.periodic_d_.boxes);
            rep = w.periodic_d_.finder.find_pairs(w.periodic_d_.boxes, *domain, pairs, options);
        }
        if (periodic && (rep.ok() || rep.status == Status::pair_budget_exceeded))
            detail::SphereWork::keep_touching_periodic(spheres, *domain, pairs);
        count = pairs.size();
        if (&pairs == &w.box_pairs_) {  // the finder's own vector: copied into out
            Pair* to = out.reserve(count, 0);
            if (count) std::memcpy(to, pairs.data(), count * sizeof(Pair));
        }
        out.finish(count);
    });
    if (!done) count = 0;
    out.finish(count);
    rep.pairs = count;
    return rep;
}

}  // namespace broadphase
