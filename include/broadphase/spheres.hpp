// Exact sphere pairs: every pair of touching spheres, |ci - cj| <= ri + rj,
// for DEM and particle codes.
//
//   auto spheres = broadphase::sphere_rows(xyz, radii, n);   // n rows x y z; n radii
//   broadphase::SpherePairFinder finder;                     // keep it between steps
//   std::vector<broadphase::Pair> pairs;
//   broadphase::Report r = finder.find_pairs(spheres, pairs);  // (a, b), a < b, each once
//
// The rule (precision): a pair is reported iff both spheres are valid, both
// centres are finite, and |ci - cj|^2 <= (ri + rj)^2 holds evaluated in
// double from the input values (floats converted exactly), each operation
// rounded once, in the order (dx*dx + dy*dy) + dz*dz <= rr*rr
// (detail::spheres_touch). Touching spheres count. For float input this is
// the exact comparison whenever the centres differ on one axis only; in
// general its error is a few units in the 16th digit. Every path and thread
// count evaluates this same expression, so they give the same pairs. (Built
// with floating-point contraction, e.g. -ffp-contract=fast with FMA
// enabled, the compiler may fuse it differently; the project's builds do
// not.) Squares that overflow double (coordinates or radii beyond ~1e154)
// compare as infinity.
//
// Odd input: a sphere with a NaN centre coordinate or a radius that is not
// >= 0 (negative, NaN) is invalid: it is in no pair and Report::invalid_a
// lists it (increasing). A sphere whose centre has an infinite coordinate
// is valid but touches nothing. A zero radius is a point (coincident points
// touch). An infinite radius touches every sphere with a finite centre.
//
// Two paths. With Options::algorithm automatic (the default), spheres whose
// radii are within 2x of the mean go to the cell list that NeighborList
// uses (detail/cell_list.hpp: bins a diameter wide, each sphere in one bin,
// each candidate tested once, no box pairs), unless the centres are so
// spread that bins would be over 2 diameters wide; other inputs, or a named
// algorithm, take the box path: the broad phase on the spheres' boxes
// (centre -+ radius, float, rounded outwards so that no pair is lost), then
// the rule on each box pair. SpherePairFinder::last_method() says which ran
// (grid for the cell list).
//
// Order: unsorted output is the same for every thread count and run (on the
// grid: cell by cell; on the box path: the broad phase's order);
// Options::sorted sorts by (a, b). Options::max_pairs stops at that many
// pairs with Status::pair_budget_exceeded (on the box path it bounds the box
// pairs, before the exact test). Threads: Options::threads, as find_pairs;
// the cell list uses one per 8 x Options::min_boxes_per_thread spheres
// (32,768 by default).
//
// Periodic domains (periodic.hpp): find_pairs(spheres, domain, pairs) with
// a BasicPeriodicDomain<T, 3> whose period[k] = L > 0 makes axis k wrap.
// The distance is the minimum image one: on a periodic axis, each centre
// coordinate is wrapped into [0, L) in double (c' = fmod(c, L), exact, plus
// L when negative, rounded once; a result of L becomes 0), d = c'a - c'b
// (rounded once), and dx is whichever of d, d - L, d + L (each rounded
// once) is smallest in magnitude; open axes take dx = ca - cb as above.
// The pair is reported, once, iff the rule above holds for these dx, dy,
// dz: some image of b touches a, up to the rule's rounding (a few units in
// the 16th digit of L and of the radii). Centres need not lie in [0, L).
// Radii above L/2, even above L, are allowed: a pair is reported once
// however many images touch, and a sphere never pairs with its own images.
// Invalid and infinite centres as above. With Options::algorithm
// automatic, radii within 2x of the mean and every period over about 3
// diameters (at most one image of a sphere within reach of another), the
// cell list runs in the periodic cell (wrapped bins, no ghosts), with the
// same wrap and the same arithmetic: the stencil names the image, and the
// one it names is the minimum image whenever the pair touches. Otherwise
// the box path: the periodic box broad phase
// (BasicPeriodicPairFinder) in float when every period is a float value
// (at most float's max / 16), else in double, so that its periods are
// exactly the caller's, on boxes widened by L * 2^-48 besides the 2^-40 r
// above, then the rule on each box pair.
// A bad period throws std::invalid_argument (BasicPeriodicDomain::check);
// built without exceptions, the call returns Status::invalid_argument.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <vector>

#include "broadphase.hpp"
#include "detail/exceptions.hpp"
#include "detail/cell_list.hpp"
#include "detail/sphere_rule.hpp"
#include "periodic.hpp"

namespace broadphase {

/// Spheres in the caller's arrays (not copied; they must outlive the call).
/// Sphere i's centre is (center[0][i * stride], center[1][i * stride],
/// center[2][i * stride]); its radius radii[i], or `radius` for every
/// sphere when radii is null. T is float or double.
template <class T>
struct SphereView {
    static_assert(std::is_floating_point<T>::value, "SphereView: float or double");
    const T* center[3] = {nullptr, nullptr, nullptr};
    std::size_t stride = 1;
    const T* radii = nullptr;
    T radius = 0;
    std::size_t n = 0;

    /// Sphere i's centre coordinate on `axis` (0, 1, 2). O(1).
    T coord(std::size_t i, int axis) const { return center[axis][i * stride]; }
    /// Sphere i's radius. O(1).
    T r(std::size_t i) const { return radii ? radii[i] : radius; }
};

/// n spheres as rows x y z (xyz[3 i .. 3 i + 2]) with radii[i]. O(1).
template <class T>
SphereView<T> sphere_rows(const T* xyz, const T* radii, std::size_t n) {
    SphereView<T> v;
    // (No offset from a null pointer: an empty vector's data() may be null.)
    v.center[0] = xyz, v.center[1] = xyz ? xyz + 1 : xyz, v.center[2] = xyz ? xyz + 2 : xyz;
    v.stride = 3, v.radii = radii, v.n = n;
    return v;
}

/// n spheres as rows x y z, all of one radius. O(1).
template <class T>
SphereView<T> sphere_rows(const T* xyz, T radius, std::size_t n) {
    SphereView<T> v = sphere_rows<T>(xyz, nullptr, n);
    v.radius = radius;
    return v;
}

/// n spheres as three coordinate arrays (struct of arrays) with radii[i]. O(1).
template <class T>
SphereView<T> sphere_columns(const T* x, const T* y, const T* z, const T* radii, std::size_t n) {
    SphereView<T> v;
    v.center[0] = x, v.center[1] = y, v.center[2] = z;
    v.radii = radii, v.n = n;
    return v;
}

/// n spheres as three coordinate arrays, all of one radius. O(1).
template <class T>
SphereView<T> sphere_columns(const T* x, const T* y, const T* z, T radius, std::size_t n) {
    SphereView<T> v = sphere_columns<T>(x, y, z, nullptr, n);
    v.radius = radius;
    return v;
}

/// Which path a sphere search took.
enum class SphereMethod { none, grid, boxes };

/// "grid", "boxes" or "none". O(1).
inline const char* to_string(SphereMethod m) {
    return m == SphereMethod::grid ? "grid" : m == SphereMethod::boxes ? "boxes" : "none";
}

/// Finds sphere pairs, keeping its memory between calls: a simulation that
/// calls it every step allocates nothing once a step of the largest size
/// has run (the output vector included, when the caller reuses it). One
/// finder serves one call at a time.
class SpherePairFinder {
public:
    /// Every touching pair of `spheres` into `out` (replacing its contents),
    /// by the rule at the top of this file. O(n + pairs) on the grid; the
    /// broad phase's cost plus O(box pairs) on the box path. Report::pairs
    /// is out.size(); Report::invalid_a the invalid spheres. On one
    /// thread the grid writes its pairs into memory the finder keeps, then
    /// copies them into `out` (sized once); find_pairs_into writes them
    /// straight.
    template <class T>
    Report find_pairs(const SphereView<T>& spheres, std::vector<Pair>& out, const Options& options = {}) {
        detail::VectorPairOutput o(out);
        return search(spheres, static_cast<const BasicPeriodicDomain<T, 3>*>(nullptr), o, out, options);
    }

    /// Every pair of `spheres` that touches in the periodic `domain` (some
    /// image of one touches the other; the rule at the top of this file)
    /// into `out` (replaced), each once, a < b. The cell list or the box
    /// path, as the top of this file says. Throws
    /// std::invalid_argument for a bad period (without exceptions:
    /// Status::invalid_argument, `out` emptied). Without a periodic axis,
    /// the same as find_pairs(spheres, out, options). O(n + pairs) on the
    /// cell list; the periodic broad phase's cost on the box path.
    template <class T>
    Report find_pairs(const SphereView<T>& spheres, const BasicPeriodicDomain<T, 3>& domain, std::vector<Pair>& out,
                      const Options& options = {}) {
        detail::VectorPairOutput o(out);
        return search(spheres, &domain, o, out, options);
    }

    /// The same pairs as find_pairs (open when `domain` is null, else
    /// periodic), into a detail::LargeArray: on the grid with one thread
    /// they are written once, straight into it, which grows without copies
    /// (the Python module hands that memory to numpy). O(as find_pairs).
    template <class T>
    Report find_pairs_into(const SphereView<T>& spheres, const BasicPeriodicDomain<T, 3>* domain,
                           detail::LargeArray<Pair>& out, const Options& options = {}) {
        detail::LargePairOutput o(out);
        return search(spheres, domain, o, box_pairs_, options);
    }

    /// The path the last call took (none before the first, or when it
    /// stopped before choosing: too many spheres). O(1).
    SphereMethod last_method() const { return last_; }

private:
    /// Both calls: the grid into `out`, or the box path into `pairs` (the
    /// caller's vector, or the finder's own, then copied into `out`).
    template <class T>
    Report search(const SphereView<T>& spheres, const BasicPeriodicDomain<T, 3>* domain, detail::PairOutput& out,
                  std::vector<Pair>& pairs, const Options& options) {
        if (domain && !detail::check_domain(*domain)) {
            out.finish(0);
            last_ = SphereMethod::none;
            return detail::invalid_argument_report();
        }
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
            const detail::CellFrame frame = periodic ? PeriodicCell::of(*domain).frame() : detail::CellFrame{};
            if (options.algorithm == Algorithm::automatic && on_grid(spheres, frame, options, out, count, rep, periodic)) {
                last_ = SphereMethod::grid;
                return;
            }
            rep = Report{};
            last_ = SphereMethod::boxes;
            if (!periodic) {
                fill_boxes(spheres, options.threads);
                rep = boxes_finder_.find_pairs(boxes_, pairs, options);
                // Over budget: the box pairs found so far, filtered the same way.
                if (rep.ok() || rep.status == Status::pair_budget_exceeded) keep_touching(spheres, pairs, options.threads);
            } else if (periods_are_floats(*domain)) {  // float boxes: the broad phase at float speed, the same periods
                BasicPeriodicDomain<float, 3> fd;
                for (int k = 0; k < 3; ++k) fd.period[k] = static_cast<float>(domain->period[k]);
                fill_periodic_boxes(spheres, *domain, periodic_f_.boxes);
                rep = periodic_f_.finder.find_pairs(periodic_f_.boxes, fd, pairs, options);
            } else if constexpr (std::is_same_v<T, double>) {  // (float periods are always floats)
                fill_periodic_boxes(spheres, *domain, periodic_d_.boxes);
                rep = periodic_d_.finder.find_pairs(periodic_d_.boxes, *domain, pairs, options);
            }
            if (periodic && (rep.ok() || rep.status == Status::pair_budget_exceeded))
                keep_touching_periodic(spheres, *domain, pairs);
            count = pairs.size();
            if (&pairs == &box_pairs_) {  // the finder's own vector: copied into out
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

    /// The grid path (detail/cell_list.hpp), when it suits: radii within
    /// 2x of the mean, no infinite radius, centres not so spread that bins
    /// would be over 2 diameters wide, and in a periodic domain at most
    /// one image of a sphere within reach of another (every period over
    /// 3 diameters, about). Fills `out` and `rep` and returns true; else
    /// false, having done a pass over the input. O(n + pairs).
    template <class T>
    bool on_grid(const SphereView<T>& spheres, const detail::CellFrame& frame, const Options& options,
                 detail::PairOutput& out, std::size_t& count, Report& rep, bool periodic) {
        const std::size_t per_thread = 8 * std::max<std::size_t>(options.min_boxes_per_thread, 1);
        if (!grid_.sort(spheres, frame, 0.0, options.threads, per_thread, rep.invalid_a, 2.0)) return false;
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
    void fill_boxes(const SphereView<T>& v, unsigned threads) {
        const std::size_t n = v.n;
        boxes_.resize(n);
        float* lo[3] = {boxes_.min(0), boxes_.min(1), boxes_.min(2)};
        float* hi[3] = {boxes_.max(0), boxes_.max(1), boxes_.max(2)};
        detail::run_parts(detail::plan_threads(threads, n, 1 << 16), n, [&](std::size_t, std::size_t b, std::size_t e) {
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
    void keep_touching(const SphereView<T>& v, std::vector<Pair>& pairs, unsigned threads) {
        const std::size_t k = pairs.size();
        const unsigned t = detail::plan_threads(threads, k, 1 << 16);
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
    SphereMethod last_ = SphereMethod::none;
};

/// Every touching pair of `spheres` (see the top of this file), with a
/// finder of its own: allocates its working memory on every call; keep a
/// SpherePairFinder to reuse it.
template <class T>
Report find_sphere_pairs(const SphereView<T>& spheres, std::vector<Pair>& out, const Options& options = {}) {
    SpherePairFinder finder;
    return finder.find_pairs(spheres, out, options);
}

/// Every touching pair of `spheres` in a periodic domain (minimum image;
/// see the top of this file), with a finder of its own (allocates; keep a
/// SpherePairFinder to reuse memory). Throws std::invalid_argument for a
/// bad period (without exceptions: Status::invalid_argument).
template <class T>
Report find_sphere_pairs(const SphereView<T>& spheres, const BasicPeriodicDomain<T, 3>& domain, std::vector<Pair>& out,
                         const Options& options = {}) {
    SpherePairFinder finder;
    return finder.find_pairs(spheres, domain, out, options);
}

}  // namespace broadphase
