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
// uses (src/cell_list/cell_list.hpp: bins a diameter wide, each sphere in one bin,
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
// pairs, before the exact test). Threads: Options::threads, as find_pairs,
// planned by the library's rule (threads.hpp): a sphere of the cell list is
// Work::eighth, one thread per 32,768 spheres by default.
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

#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

#include "broadphase.hpp"
#include "large_array.hpp"
#include "detail/pair_output.hpp"
#include "periodic.hpp"

// The declarations; the bodies of SpherePairFinder (and the cell list
// behind it, src/cell_list/cell_list.hpp) are in src/spheres/spheres_impl.hpp: compiled
// once in the library (src/spheres/spheres.cpp) for float and double, or,
// header-only, included at the end of this file.

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

namespace detail {
/// What a SpherePairFinder keeps between calls (the cell list, the box
/// path's finders and buffers), behind a pointer: defined with the bodies
/// (src/spheres/spheres_impl.hpp, SphereWork). Destroyed through this base, so
/// that the finder's move and destructor stay inline here.
struct SphereWorkBase {
    virtual ~SphereWorkBase() = default;
};
}  // namespace detail

/// Finds sphere pairs, keeping its memory between calls: a simulation that
/// calls it every step allocates nothing once a step of the largest size
/// has run (the output vector included, when the caller reuses it). One
/// finder serves one call at a time. Constructing one allocates nothing:
/// its working memory (one block, then what grows in it) comes with the
/// first call; a moved-from finder allocates it again on its next call.
/// Move-only (the cell list's memory is not copied).
class SpherePairFinder {
public:
    SpherePairFinder() = default;
    SpherePairFinder(const SpherePairFinder&) = delete;
    SpherePairFinder(SpherePairFinder&&) noexcept = default;
    SpherePairFinder& operator=(const SpherePairFinder&) = delete;
    SpherePairFinder& operator=(SpherePairFinder&&) noexcept = default;
    ~SpherePairFinder() = default;

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
        return search(spheres, static_cast<const BasicPeriodicDomain<T, 3>*>(nullptr), o, &out, options);
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
        if (!checked(domain)) return out.clear(), detail::invalid_argument_report();
        detail::VectorPairOutput o(out);
        return search(spheres, &domain, o, &out, options);
    }

    /// The same pairs as find_pairs (open when `domain` is null, else
    /// periodic), into a LargeArray: on the grid with one thread
    /// they are written once, straight into it, which grows without copies
    /// (the Python module hands that memory to numpy). O(as find_pairs).
    template <class T>
    Report find_pairs_into(const SphereView<T>& spheres, const BasicPeriodicDomain<T, 3>* domain,
                           LargeArray<Pair>& out, const Options& options = {}) {
        if (domain && !checked(*domain)) return out.set_size(0), detail::invalid_argument_report();
        detail::LargePairOutput o(out);
        return search(spheres, domain, o, nullptr, options);
    }

    /// The path the last call took (none before the first, or when it
    /// stopped before choosing: too many spheres). O(1).
    SphereMethod last_method() const { return last_; }

private:
    /// The domain's check (detail::check_domain), here in the caller's
    /// translation unit, so that a bad period throws, or without
    /// exceptions is refused, as the caller's build does, whether the
    /// search is compiled in the library or not. O(1).
    template <class T>
    bool checked(const BasicPeriodicDomain<T, 3>& domain) {
        if (detail::check_domain(domain)) return true;
        last_ = SphereMethod::none;
        return false;
    }

    /// Every call, once the domain (if any) passed its check: the grid
    /// into `out`, or the box path into `pairs` (the caller's vector;
    /// null: the finder's own, then copied into `out`).
    template <class T>
    Report search(const SphereView<T>& spheres, const BasicPeriodicDomain<T, 3>* domain, detail::PairOutput& out,
                  std::vector<Pair>* pairs, const Options& options);

    std::unique_ptr<detail::SphereWorkBase> work_;  // null until the first call, and after a move
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

// Compiled in the library, src/spheres/spheres.cpp, for float and double: the search
// every call of SpherePairFinder runs. The calls themselves and
// find_sphere_pairs stay in the caller's translation unit: they check the
// domain, which throws or (without exceptions) is refused as the caller's
// build does, also when it links the library built with exceptions.

}  // namespace broadphase
