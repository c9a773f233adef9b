// Periodic domains: box pairs where some axes wrap around, as in molecular
// dynamics and DEM codes (scipy's cKDTree(boxsize=...) does the same for
// points).
//
//   broadphase::PeriodicDomain domain{{10, 10, 0}};   // x and y wrap with period 10; z does not
//   broadphase::PeriodicPairFinder finder;             // keep it between frames
//   std::vector<broadphase::Pair> pairs;
//   broadphase::Report r = finder.find_pairs(boxes, domain, pairs);  // (a, b), a < b, each once
//
// The rule. domain.period[k] = L > 0 makes axis k periodic with period L; 0
// leaves it as it is. An image of box b is b moved by an integer multiple
// of L on each periodic axis (a different multiple on each axis allowed).
// A pair (a, b), a != b, is reported exactly once, as (min, max), iff some
// image of b overlaps a as closed boxes: on every axis
// !(a.max < image.min || image.max < a.min), with the image's coordinates
// taken as real numbers, b.min + kL and b.max + kL, never rounded. On a
// periodic axis this is: some integer k with a.min - b.max <= kL <=
// a.max - b.min. The answer is exact for every finite input in the input's
// precision (the test runs in exact arithmetic: fmod and error-free sums),
// so moving a box by whole periods never changes its pairs.
//
// What that means for odd boxes:
// - Coordinates need not lie in [0, L): any finite coordinate is allowed
//   (negative, or many periods away), and the box counts where it wraps to.
//   (cKDTree requires data in [0, L); here nothing needs wrapping first.)
// - Touching counts across the boundary: [L - 1, L] touches [0, 1], and a
//   box at 0 and one at L coincide.
// - A box whose extent on a periodic axis is L or more (max - min >= L,
//   exactly) covers the whole axis: on that axis it overlaps every box. So
//   does a box with an infinite coordinate on a periodic axis. Boxes larger
//   than L/2 may overlap another box through two images; the pair is still
//   reported once. A box never pairs with its own images.
// - Invalid boxes (a NaN coordinate, or min > max on some axis) are in no
//   pair and are listed in Report::invalid_a, as by find_pairs.
// - A period must be 0 or finite, > 0 and at most max()/16 of T (for
//   float about 2e37); anything else (negative, NaN, infinite) throws
//   std::invalid_argument (built without exceptions: the call returns
//   Status::invalid_argument and no pairs).
//
// How: each box is wrapped so that its min lies in [0, L) on every periodic
// axis (an enclosing box in T, rounded outwards), a box that crosses L gets
// ghost copies moved by -L (one per non-empty subset of the axes it
// crosses: at most 2^D - 1), the ordinary broad phase (BasicPairFinder,
// Options::algorithm and threads as usual) runs on originals and ghosts,
// and each candidate is mapped back to its boxes and kept iff the exact
// rule holds through the images that candidate stands for and it is the one
// canonical candidate of that pair (the smallest valid shift on each axis):
// no sort is needed to drop duplicates. Costs: the broad phase on n + ghosts
// boxes (ghosts are the boxes within their size of the upper boundaries)
// plus O(candidates). A kept finder allocates nothing once it has run a
// frame with as many boxes and ghosts (the output vector included, when it
// is reused).
//
// Options: algorithm and threads go to the broad phase; the pairs' order is
// the same for every thread count; sorted sorts by (a, b); max_pairs keeps
// the first max_pairs pairs (of the sorted order when sorted) and returns
// Status::pair_budget_exceeded when there were more (it bounds the output,
// not the broad phase's candidates).
//
// Sphere pairs in a periodic domain: SpherePairFinder::find_pairs(spheres,
// domain, pairs) in spheres.hpp.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "broadphase.hpp"
#include "detail/broadphase-inl.hpp"  // PairFinder for every T, D
#include "detail/exceptions.hpp"
#include "detail/cell_list.hpp"
#include "detail/sphere_rule.hpp"

namespace broadphase {

/// Which axes wrap around, and their periods: period[k] > 0 makes axis k
/// periodic with that period, 0 leaves it open. The period is a value of T,
/// the boxes' scalar type.
///
/// Two types, one for each kind of question (docs/periodic.md): a
/// PeriodicDomain (axis-aligned periods, any D, in T, answers exact in T)
/// is what box and sphere pairs take; a PeriodicCell (3-D cell vectors in
/// double, triclinic allowed, an MD code's cell) is what a NeighborList
/// takes. PeriodicCell::of(domain) turns the first into the second.
template <class T, int D>
struct BasicPeriodicDomain {
    static_assert(std::is_floating_point<T>::value, "BasicPeriodicDomain: float or double");
    std::array<T, D> period{};

    /// Whether axis k wraps (period[k] != 0). O(1).
    bool periodic(int axis) const { return period[axis] != 0; }
    /// Whether any axis wraps. O(D).
    bool any() const {
        for (int k = 0; k < D; ++k)
            if (periodic(k)) return true;
        return false;
    }
    /// Whether every period is 0 or finite, > 0 and at most
    /// std::numeric_limits<T>::max() / 16. O(D).
    bool valid() const {
        for (int k = 0; k < D; ++k)
            if (!period_ok(period[k])) return false;
        return true;
    }
    /// Throws std::invalid_argument unless valid(). Built without
    /// exceptions it calls std::abort() instead: test valid() there (the
    /// finders return Status::invalid_argument). O(D).
    void check() const {
        for (int k = 0; k < D; ++k) {
            const T p = period[k];
            if (!period_ok(p))
                BROADPHASE_THROW(std::invalid_argument("broadphase: period of axis " + std::to_string(k) +
                                                       " must be 0 (not periodic) or finite and > 0, not " +
                                                       std::to_string(p)));
        }
    }

private:
    static bool period_ok(T p) { return p == 0 || (p > 0 && p <= std::numeric_limits<T>::max() / 16); }
};

using PeriodicDomain = BasicPeriodicDomain<float, 3>;

/// A simulation cell: its edge vectors a, b, c as rows (ASE's `cell`;
/// LAMMPS's triclinic box is a = (lx, 0, 0), b = (xy, ly, 0), c = (xz, yz,
/// lz)). A zero row leaves that axis open (not periodic); a cell with an
/// open axis must be orthorhombic (each row along its own axis). The
/// default is open on every axis.
struct PeriodicCell {
    std::array<std::array<double, 3>, 3> vectors{};

    /// Periods lx, ly, lz on x, y and z (0: open). O(1).
    static PeriodicCell orthorhombic(double lx, double ly, double lz) {
        PeriodicCell c;
        c.vectors[0][0] = lx, c.vectors[1][1] = ly, c.vectors[2][2] = lz;
        return c;
    }
    /// LAMMPS's triclinic box: lengths and tilt factors. O(1).
    static PeriodicCell triclinic(double lx, double ly, double lz, double xy, double xz, double yz) {
        PeriodicCell c = orthorhombic(lx, ly, lz);
        c.vectors[1][0] = xy, c.vectors[2][0] = xz, c.vectors[2][1] = yz;
        return c;
    }
    /// The periods of a PeriodicDomain (0: open). O(1).
    template <class T>
    static PeriodicCell of(const BasicPeriodicDomain<T, 3>& d) {
        return orthorhombic(static_cast<double>(d.period[0]), static_cast<double>(d.period[1]),
                            static_cast<double>(d.period[2]));
    }

    /// Whether axis k wraps (row k is not zero). O(1).
    bool periodic(int k) const { return vectors[k][0] != 0 || vectors[k][1] != 0 || vectors[k][2] != 0; }

    /// Empty when the cell is usable, else what is wrong with it. O(1).
    std::string problem() const {
        bool open = false, tilted = false;
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) {
                if (!std::isfinite(vectors[r][k])) return "a cell vector component is not finite";
                if (r != k && vectors[r][k] != 0) tilted = true;
            }
        for (int r = 0; r < 3; ++r) open = open || !periodic(r);
        if (open && tilted) return "a cell with an open axis must be orthorhombic (no tilt)";
        if (!tilted) {
            for (int k = 0; k < 3; ++k)
                if (vectors[k][k] < 0) return "an orthorhombic period must be positive";
            return "";
        }
        const detail::CellFrame f = detail::CellFrame::of(vectors);
        for (int k = 0; k < 3; ++k)
            if (!(f.width(k) > 0) || !std::isfinite(f.width(k))) return "the cell has no volume";
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k)
                if (!std::isfinite(f.inv[r][k])) return "the cell has no volume";
        return "";
    }
    /// The kernel's view of the cell (rows as given). O(1).
    detail::CellFrame frame() const { return detail::CellFrame::of(vectors); }
};

namespace detail {

/// The finders' check of a domain: with exceptions domain.check() (throws
/// std::invalid_argument for a bad period) and true; without, valid(). O(D).
template <class T, int D>
bool check_domain(const BasicPeriodicDomain<T, D>& domain) {
#if BROADPHASE_EXCEPTIONS
    domain.check();
    return true;
#else
    return domain.valid();
#endif
}

/// The report of a call refused for a bad domain (without exceptions).
inline Report invalid_argument_report() {
    Report r;
    r.status = Status::invalid_argument;
    return r;
}

/// s + e == a + b exactly (s the rounded sum), unless a + b overflows. O(1).
inline void two_sum(double a, double b, double& s, double& e) {
    s = a + b;
    const double bb = s - a;
    e = (a - (s - bb)) + (b - bb);
}

/// The sign (-1, 0 or 1) of the exact sum of t[0..n), n <= 16: the terms
/// are summed into a non-overlapping expansion (error-free sums, zero
/// components dropped), whose largest component has the sum's sign. The
/// partial sums must not overflow (the caller keeps the terms far below
/// max()). O(n^2).
inline int exact_sign(const double* t, int n) {
    double h[16];
    int m = 0;
    for (int i = 0; i < n; ++i) {
        double q = t[i];
        int w = 0;
        for (int j = 0; j < m; ++j) {
            double s, e;
            two_sum(q, h[j], s, e);
            if (e != 0) h[w++] = e;
            q = s;
        }
        if (q != 0) h[w++] = q;
        m = w;
    }
    return m == 0 ? 0 : (h[m - 1] > 0 ? 1 : -1);
}

/// The sign of the exact sum of t[0..n), n <= 16: the rounded sum when it
/// is clear of its error bound (n 2^-52 of the sum of magnitudes, and the
/// smallest normal double), which is nearly always; exact_sign otherwise.
/// O(n), O(n^2) near a tie.
inline int sign_of_sum(const double* t, int n) {
    double s = 0, mag = 0;
    for (int i = 0; i < n; ++i) s += t[i], mag += std::abs(t[i]);
    const double bound = mag * (n * 0x1p-52) + std::numeric_limits<double>::min();
    if (s > bound) return 1;
    if (s < -bound) return -1;
    return exact_sign(t, n);
}

/// One box on one periodic axis, kept for the exact test: its wrapped min
/// is r (+ L when r < 0), r = fmod(min, L) exactly; its extent max - min is
/// ws + wt exactly. `span`: the box covers the whole axis.
struct PeriodicAxis {
    double r = 0, ws = 0, wt = 0;
};

/// The largest T <= v (v a double within T's range). O(1).
template <class T>
T below(double v) {
    if constexpr (std::is_same_v<T, double>) {
        return v;
    } else {
        const T f = static_cast<T>(v);
        return static_cast<double>(f) > v ? std::nextafter(f, -std::numeric_limits<T>::infinity()) : f;
    }
}
/// The smallest T >= v. O(1).
template <class T>
T above(double v) {
    return -below<T>(-v);
}

}  // namespace detail

/// Finds the pairs of one set of boxes in a periodic domain (see the top of
/// this file), keeping its memory between calls. Not thread-safe: one per
/// thread.
template <class T, int D>
class BasicPeriodicPairFinder {
    static_assert(D >= 1 && D <= 7, "BasicPeriodicPairFinder: 1 to 7 axes");

public:
    /// Every pair (a < b) of `boxes` with some image of b overlapping a,
    /// into `out` (replaced). Throws std::invalid_argument for a bad period
    /// (domain.check(); without exceptions: Status::invalid_argument, `out`
    /// emptied). Without a periodic axis, the same as
    /// BasicPairFinder::find_pairs.
    Report find_pairs(const BasicBoxes<T, D>& boxes, const BasicPeriodicDomain<T, D>& domain, std::vector<Pair>& out,
                      const Options& options = {}) {
        if (!detail::check_domain(domain)) {
            ghosts_ = 0;
            out.clear();
            return detail::invalid_argument_report();
        }
        ghosts_ = 0;
        if (!domain.any()) return finder_.find_pairs(boxes, out, options);
        Report rep;
        out.clear();
        const std::size_t n = boxes.size();
        if (!fits_indices(n)) {
            rep.status = Status::too_many_boxes;
            return rep;
        }
        const bool done = detail::guarded(rep, [&] {
            if (!wrap(boxes, domain)) {
                rep.status = Status::too_many_boxes;
                return;
            }
            Options inner = options;
            inner.sorted = false;
            inner.max_pairs = no_budget;
            rep = finder_.find_pairs(work_, out, inner);
            if (!rep.ok()) {
                out.clear();
                return;
            }
            keep_canonical(out, n);
            if (options.sorted) sort_pairs(out, n, sort_scratch_);
            if (out.size() > options.max_pairs) {
                out.resize(static_cast<std::size_t>(options.max_pairs));
                rep.status = Status::pair_budget_exceeded;
            }
        });
        if (!done) out.clear();
        rep.pairs = out.size();
        return rep;
    }

    /// The algorithm the last call's broad phase used. O(1).
    Algorithm last_algorithm() const { return finder_.last_algorithm(); }
    /// Ghost copies the last call added to the broad phase. O(1).
    std::size_t ghosts() const { return ghosts_; }

private:
    /// Fills work_ with the wrapped originals (index i = box i) then the
    /// ghosts, and the exact-test data. False when the copies exceed 32-bit
    /// indices.
    bool wrap(const BasicBoxes<T, D>& boxes, const BasicPeriodicDomain<T, D>& domain) {
        const std::size_t n = boxes.size();
        axes_ = 0;
        for (int k = 0; k < D; ++k)
            if (domain.periodic(k)) axis_of_[axes_++] = k;
        for (int p = 0; p < axes_; ++p) data_[p].resize(n);
        span_.resize(n);
        cross_.resize(n);
        // Pass 1: validity, spans, crossings; count the ghosts.
        std::uint64_t ghosts = 0;
        for (std::size_t i = 0; i < n; ++i) {
            bool valid = true;
            for (int k = 0; k < D; ++k) valid = valid && detail::valid_interval(boxes.min(k)[i], boxes.max(k)[i]);
            std::uint8_t span = 0, cross = 0;
            if (valid) {
                for (int p = 0; p < axes_; ++p) {
                    const int k = axis_of_[p];
                    const double L = static_cast<double>(domain.period[k]);
                    const double lo = static_cast<double>(boxes.min(k)[i]), hi = static_cast<double>(boxes.max(k)[i]);
                    detail::PeriodicAxis& a = data_[p][i];
                    if (!std::isfinite(lo) || !std::isfinite(hi)) {
                        span |= std::uint8_t(1u << p);
                        continue;
                    }
                    detail::two_sum(hi, -lo, a.ws, a.wt);
                    if (std::isinf(a.ws)) {  // hi - lo > max() >= L
                        span |= std::uint8_t(1u << p);
                        continue;
                    }
                    const double t[3] = {a.ws, a.wt, -L};
                    if (detail::sign_of_sum(t, 3) >= 0) {
                        span |= std::uint8_t(1u << p);
                        continue;
                    }
                    a.r = std::fmod(lo, L);
                    if (wrapped_hi(a, L) >= L) cross |= std::uint8_t(1u << p);
                }
                ghosts += (std::uint64_t(1) << popcount(cross)) - 1;
            }
            span_[i] = valid ? span : std::uint8_t(0xff);
            cross_[i] = valid ? cross : std::uint8_t(0);
        }
        if (!fits_indices(n + ghosts)) return false;
        ghosts_ = static_cast<std::size_t>(ghosts);
        work_.resize(n + ghosts_);
        owner_.resize(ghosts_);
        shift_.resize(ghosts_);
        // Pass 2: the originals, wrapped, then each box's ghosts.
        std::size_t g = n;
        for (std::size_t i = 0; i < n; ++i) {
            if (span_[i] == 0xff) {  // invalid: as given (the broad phase skips and reports it)
                for (int k = 0; k < D; ++k) work_.min(k)[i] = boxes.min(k)[i], work_.max(k)[i] = boxes.max(k)[i];
                continue;
            }
            for (int k = 0; k < D; ++k) work_.min(k)[i] = boxes.min(k)[i], work_.max(k)[i] = boxes.max(k)[i];
            for (int p = 0; p < axes_; ++p) {
                const int k = axis_of_[p];
                const T L = domain.period[k];
                if (span_[i] & (1u << p)) {
                    work_.min(k)[i] = 0, work_.max(k)[i] = L;
                } else {
                    double lo, hi;
                    enclose(data_[p][i], static_cast<double>(L), lo, hi);
                    work_.min(k)[i] = detail::below<T>(lo), work_.max(k)[i] = detail::above<T>(hi);
                }
            }
            const unsigned cross = cross_[i];
            for (unsigned s = cross; s != 0; s = (s - 1) & cross) {  // every non-empty subset
                for (int k = 0; k < D; ++k) work_.min(k)[g] = work_.min(k)[i], work_.max(k)[g] = work_.max(k)[i];
                for (int p = 0; p < axes_; ++p) {
                    if (!(s & (1u << p))) continue;
                    const int k = axis_of_[p];
                    const double L = static_cast<double>(domain.period[k]);
                    double lo, hi;
                    enclose(data_[p][i], L, lo, hi);
                    work_.min(k)[g] = detail::below<T>(lo - L), work_.max(k)[g] = detail::above<T>(hi - L);
                }
                owner_[g - n] = static_cast<std::uint32_t>(i);
                shift_[g - n] = static_cast<std::uint8_t>(s);
                ++g;
            }
        }
        for (int p = 0; p < axes_; ++p) period_[p] = static_cast<double>(domain.period[axis_of_[p]]);
        return true;
    }

    static int popcount(unsigned v) {
        int c = 0;
        for (; v; v &= v - 1) ++c;
        return c;
    }

    /// The wrapped max, rounded (for the crossing test, which is
    /// conservative: enclose()'s hi >= L iff this is >= L - margin).
    static double wrapped_hi(const detail::PeriodicAxis& a, double L) {
        double lo, hi;
        enclose(a, L, lo, hi);
        return hi;
    }

    /// An interval [lo, hi] of doubles holding the wrapped box [m, m + w]
    /// (m = wrapped min in [0, L), w the extent < L): the rounded values
    /// widened by L * 2^-40, far above their rounding errors (a few units of
    /// L * 2^-53).
    static void enclose(const detail::PeriodicAxis& a, double L, double& lo, double& hi) {
        const double m = a.r < 0 ? a.r + L : a.r;
        const double margin = L * 0x1p-40 + std::numeric_limits<double>::denorm_min();
        lo = m - margin;
        hi = (m + a.ws) + margin;
    }

    /// Whether an image of b moved by j*L (j in -1, 0, 1) overlaps a on
    /// periodic axis p, exactly: b's image starts at or before a's end, and
    /// a starts at or before the image's end. O(1).
    bool valid_shift(std::size_t a, std::size_t b, int p, int j) const {
        const double L = period_[p];
        const detail::PeriodicAxis& x = data_[p][a];
        const detail::PeriodicAxis& y = data_[p][b];
        const double la_wrap = x.r < 0 ? L : 0, lb_wrap = y.r < 0 ? L : 0;
        const double jl = j * L;  // exact: j is -1, 0 or 1
        // (la + wa) - (lb + jL) >= 0
        const double t1[7] = {x.r, la_wrap, x.ws, x.wt, -y.r, -lb_wrap, -jl};
        if (detail::sign_of_sum(t1, 7) < 0) return false;
        // (lb + jL + wb) - la >= 0
        const double t2[7] = {y.r, lb_wrap, jl, y.ws, y.wt, -x.r, -la_wrap};
        return detail::sign_of_sum(t2, 7) >= 0;
    }

    /// Keeps, in place and in order, each candidate that is its pair's
    /// canonical one and passes the exact test; maps indices to boxes.
    void keep_canonical(std::vector<Pair>& pairs, std::size_t n) const {
        std::size_t w = 0;
        for (const Pair c : pairs) {
            std::uint32_t a = c.a, b = c.b;
            unsigned sa = 0, sb = 0;
            if (a >= n) sa = shift_[a - n], a = owner_[a - n];
            if (b >= n) sb = shift_[b - n], b = owner_[b - n];
            if (a == b) continue;
            if (a > b) std::swap(a, b), std::swap(sa, sb);
            bool keep = true;
            for (int p = 0; p < axes_ && keep; ++p) {
                const unsigned bit_a = (sa >> p) & 1u, bit_b = (sb >> p) & 1u;
                if (((span_[a] | span_[b]) >> p) & 1u) {
                    keep = bit_a == 0 && bit_b == 0;  // the unshifted copies, which always meet
                    continue;
                }
                // The smallest shift j of b's image that overlaps a; the
                // candidate must be the copies that stand for it: j = 0
                // both unshifted, j = -1 b's ghost, j = 1 a's ghost.
                int j = -1;
                while (j <= 1 && !valid_shift(a, b, p, j)) ++j;
                keep = (j == 0 && bit_a == 0 && bit_b == 0) || (j == -1 && bit_a == 0 && bit_b == 1) ||
                       (j == 1 && bit_a == 1 && bit_b == 0);
            }
            if (keep) pairs[w++] = Pair{a, b};
        }
        pairs.resize(w);
    }

    BasicPairFinder<T, D> finder_;
    BasicBoxes<T, D> work_;
    int axes_ = 0;
    int axis_of_[D] = {};
    double period_[D] = {};
    std::vector<detail::PeriodicAxis> data_[D];
    std::vector<std::uint8_t> span_, cross_;  // per box: bit p for periodic axis p (0xff: invalid)
    std::vector<std::uint32_t> owner_;         // per ghost: its box
    std::vector<std::uint8_t> shift_;          // per ghost: bit p = moved by -L on periodic axis p
    PairSortScratch sort_scratch_;
    std::size_t ghosts_ = 0;
};

using PeriodicPairFinder = BasicPeriodicPairFinder<float, 3>;

/// Every pair of `boxes` in a periodic domain (see the top of this file)
/// into `out` (replaced), with a finder of its own (allocates; keep a
/// BasicPeriodicPairFinder between frames to reuse memory). Throws
/// std::invalid_argument for a bad period (without exceptions:
/// Status::invalid_argument).
template <class T, int D>
Report find_pairs(const BasicBoxes<T, D>& boxes, const BasicPeriodicDomain<T, D>& domain, std::vector<Pair>& out,
                  const Options& options = {}) {
    BasicPeriodicPairFinder<T, D> finder;
    return finder.find_pairs(boxes, domain, out, options);
}

}  // namespace broadphase
