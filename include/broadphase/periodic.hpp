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
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "broadphase.hpp"
#include "detail/cell_frame.hpp"
#include "detail/exceptions.hpp"

// The declarations; the bodies of BasicPeriodicPairFinder are in
// src/periodic/periodic_impl.hpp: compiled once in the library (src/periodic/periodic.cpp)
// for the types BROADPHASE_COMPILED_TYPES lists, or, header-only, included
// at the end of this file.

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
                detail::throw_or_abort(std::invalid_argument("broadphase: period of axis " + std::to_string(k) +
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

/// One box on one periodic axis, kept for the exact test: its wrapped min
/// is r (+ L when r < 0), r = fmod(min, L) exactly; its extent max - min is
/// ws + wt exactly. `span`: the box covers the whole axis.
struct PeriodicAxis {
    double r = 0, ws = 0, wt = 0;
};
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
        // The check here, in the caller's translation unit: a bad period
        // throws, or without exceptions is refused, as the caller's build
        // does, whether the rest is compiled in the library or not.
        if (!detail::check_domain(domain)) {
            ghosts_ = 0;
            out.clear();
            return detail::invalid_argument_report();
        }
        return find_checked(boxes, domain, out, options);
    }

    /// The algorithm the last call's broad phase used. O(1).
    Algorithm last_algorithm() const { return finder_.last_algorithm(); }
    /// Ghost copies the last call added to the broad phase. O(1).
    std::size_t ghosts() const { return ghosts_; }

private:
    /// find_pairs once the domain passed its check.
    Report find_checked(const BasicBoxes<T, D>& boxes, const BasicPeriodicDomain<T, D>& domain, std::vector<Pair>& out,
                        const Options& options);

    /// Fills work_ with the wrapped originals (index i = box i) then the
    /// ghosts, and the exact-test data. False when the copies exceed 32-bit
    /// indices.
    bool wrap(const BasicBoxes<T, D>& boxes, const BasicPeriodicDomain<T, D>& domain);

    /// Whether an image of b moved by j*L (j in -1, 0, 1) overlaps a on
    /// periodic axis p, exactly: b's image starts at or before a's end, and
    /// a starts at or before the image's end. O(1).
    bool valid_shift(std::size_t a, std::size_t b, int p, int j) const;

    /// Keeps, in place and in order, each candidate that is its pair's
    /// canonical one and passes the exact test; maps indices to boxes.
    void keep_canonical(std::vector<Pair>& pairs, std::size_t n) const;

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

// Compiled in the library, src/periodic/periodic.cpp (float and double, 2-D and 3-D):
// what find_pairs runs once the domain passed its check. find_pairs itself
// stays in the caller's translation unit (the check throws, or without
// exceptions is refused, as the caller's build does), so the member is
// named alone, not the class.

}  // namespace broadphase
