// Neighbour lists as molecular dynamics and DEM codes keep them: every
// particle's neighbours within a cutoff plus a skin, in CSR form (offsets
// and indices), rebuilt only when some particle has moved more than half
// the skin, in an open domain or a periodic cell (orthorhombic or
// triclinic).
//
//   broadphase::NeighborListOptions o;
//   o.cutoff = 2.5, o.skin = 0.3;                       // LAMMPS's LJ benchmark
//   broadphase::NeighborList list(o, broadphase::PeriodicCell::orthorhombic(L, L, L));
//   for (int step = 0; step < steps; ++step) {
//       list.update(xyz, n);                            // rebuilds only when needed; says whether it did
//       for (std::size_t i = 0; i < n; ++i)
//           for (std::uint64_t e = list.offsets()[i]; e < list.offsets()[i + 1]; ++e) {
//               std::uint32_t j = list.indices()[e];    // a half list: each pair once, i < j
//               ...                                     // forces on i and j, if |x_j - x_i| (minimum image) < cutoff
//           }
//   }
//
// What is listed. Particle i has centre x_i and radius r_i (0 when built
// from positions alone; per particle from a SphereView, as DEM codes
// need). The reach of a pair is reach_ij = (r_i + r_j) + (cutoff + skin).
// An entry (i, j, S) says that the image of j moved by S (whole cell
// vectors: S h) lies within reach of i:
//   - in an open domain S = 0 and the entries are the pairs with
//     |x_j - x_i| <= reach_ij;
//   - in a periodic cell every image within reach is listed, as ASE's and
//     vesin's neighbour lists do: with a cutoff under half the cell's
//     width that is one entry per pair, the minimum image; with a larger
//     cutoff, a pair may appear with several shifts and a particle may
//     list its own images (i, i, S != 0).
// The test, exactly: positions are wrapped into the cell first (x'_i =
// x_i - n_i h, n_i whole; see detail::CellFrame::wrap: fmod on
// orthorhombic axes), then D = (x'_j - x'_i) + P h is evaluated in double
// component by component, fl(fl(x'_jk - x'_ik) + (P h)_k), and the entry
// is in iff (D_0^2 + D_1^2) + D_2^2 <= reach_ij^2. The shift reported is S
// = P + n_i - n_j, so that x_j + S h - x_i = D up to rounding; vectors()
// gives D itself. Touching counts (<=).
//
// Half and full lists. A full list (NeighborListOptions::full) gives each
// particle all of its entries: (i, j, S) and (j, i, -S) both appear. A
// half list gives each pair once, as LAMMPS's half lists do: (i, j, S) or
// (j, i, -S), in the row of whichever of the two the search visits first
// (its spatial bin order), and a particle's own images (i, i, S) with one
// of S and -S. Which one is fixed for given input and independent of the
// thread count; it costs half the distance tests of a full list. Rows are
// in a fixed order for given input; NeighborListOptions::sorted sorts
// each row by (j, S).
//
// Verlet skin. update(...) rebuilds when it is the first call, the number
// of particles or the cell changed, or some particle moved more than
// skin / 2 since the last build (measured as the minimum image of its
// displacement on periodic axes, so wrapping a particle back into the cell
// does not count as moving); otherwise it keeps the list and returns
// false. With the list built at reach + skin, every pair within the cutoff
// now is in it (up to rounding: a few units in the 16th digit). Entries,
// vectors and shifts are as of the last build: compute the current D as
// x_j + S h - x_i. Radii are assumed not to change between builds (call
// build() when they do).
//
// Odd input. A particle with a NaN coordinate, or a radius that is
// negative, NaN or infinite, is invalid: it has no entries and invalid()
// lists it. A particle with an infinite coordinate is valid and has no
// entries. A cell with a zero, infinite or NaN vector, a zero volume, a
// negative orthorhombic period, or an open axis mixed with a tilted cell
// throws std::invalid_argument (built without exceptions: the report says
// invalid_argument and the list is empty); so does a negative or
// non-finite cutoff or skin.
//
// Cost: O(n) to wrap, bin and sort the particles, then each particle is
// tested against the particles in a stencil of bins a reach wide
// (src/cell_list/cell_list.hpp): 27 bins for a full list, about half for a half
// list (6.4 and 3.2 x (4/3 pi reach^3) x density candidates a particle),
// SIMD distance tests, each entry written once and then moved once into
// its row. update() without a rebuild is one pass
// over the positions. A kept list allocates nothing once it has built a
// list of the largest size. Threads: NeighborListOptions::threads (0: the
// default, as Options::threads), planned by the library's rule (threads.hpp):
// a particle's row is Work::half, one thread per 8,192 particles at most.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "detail/cell_frame.hpp"
#include "detail/exceptions.hpp"
#include "pairs.hpp"
#include "periodic.hpp"
#include "spheres.hpp"

// The declarations and the accessors a force loop calls per particle; the
// bodies (and the cell list behind them, src/cell_list/cell_list.hpp) are in
// src/neighbor_list/neighbor_list_impl.hpp: compiled once in the library
// (src/neighbor_list/neighbor_list.cpp) for float and double, or, header-only, included
// at the end of this file.

namespace broadphase {
namespace detail {
/// What a NeighborList keeps between builds besides its rows (the cell
/// list, the positions of the last build, the scratch of the row moves),
/// behind a pointer. Defined with the bodies (src/neighbor_list/neighbor_list_impl.hpp).
template <class T>
struct NeighborListWork;
}  // namespace detail

/// What a NeighborList lists and how.
struct NeighborListOptions {
    double cutoff = 0;     ///< the pair distance on top of the radii (MD: the force cutoff)
    double skin = 0;       ///< listed at cutoff + skin; rebuilt when a particle moved more than skin / 2
    bool full = false;     ///< every entry in both rows (else a half list: each pair once)
    bool vectors = false;  ///< keep D per entry (vectors())
    bool shifts = false;   ///< keep S per entry (shifts())
    bool sorted = false;   ///< sort each row by (j, S)
    unsigned threads = 0;  ///< 0: the default (as Options::threads)
    /// More entries than this: the build stops, the report says
    /// Status::pair_budget_exceeded and the list is empty (a list with
    /// rows missing would look complete), and the next update rebuilds.
    std::uint64_t max_entries = no_budget;
};

/// A neighbour list over particles of precision T (float or double).
/// Move-only (the cell list's memory is not copied); a moved-from list
/// builds again, allocating again, on its next update.
template <class T>
class BasicNeighborList {
public:
    /// Allocates its working memory (one allocation, empty). Throws
    /// std::invalid_argument for a bad cell, cutoff or skin (see the top
    /// of the file).
    explicit BasicNeighborList(const NeighborListOptions& options = {}, const PeriodicCell& cell = {})
        : BasicNeighborList(options, Allocate{}) {
        check_options();
        set_cell(cell);
    }
    ~BasicNeighborList();
    BasicNeighborList(const BasicNeighborList&) = delete;
    BasicNeighborList(BasicNeighborList&&) noexcept;
    BasicNeighborList& operator=(const BasicNeighborList&) = delete;
    BasicNeighborList& operator=(BasicNeighborList&&) noexcept;

    /// Replaces the cell (a box that changes shape: NPT); the next update
    /// rebuilds. Throws std::invalid_argument for a bad cell. O(1).
    void set_cell(const PeriodicCell& cell) {
        const std::string p = cell.problem();
        if (!p.empty()) fail("NeighborList: " + p);
        bad_cell_ = !p.empty();
        cell_ = cell;
        if (!bad_cell_) frame_ = detail::CellFrame::of(cell_.vectors);
        stale_ = true;
    }
    const PeriodicCell& cell() const { return cell_; }
    const NeighborListOptions& options() const { return options_; }

    /// Points: n rows x y z (xyz[3 i + k]), radius 0. Rebuilds if needed
    /// (see the top of the file); true when it did. O(n) without a
    /// rebuild, build()'s cost with one.
    bool update(const T* xyz, std::size_t n) { return update(sphere_rows<T>(xyz, T(0), n)); }
    /// Spheres (their radii count in the reach). As update(xyz, n).
    bool update(const SphereView<T>& particles);

    /// Builds the list now, whatever moved. Returns the report: ok, or
    /// too_many_boxes (over 2^32 - 2 particles), out_of_memory,
    /// pair_budget_exceeded (max_entries; the list is then empty) or
    /// invalid_argument (see the top of the file); invalid particles in
    /// Report::invalid_a. O(n + candidates + entries).
    Report build(const T* xyz, std::size_t n) { return build(sphere_rows<T>(xyz, T(0), n)); }
    Report build(const SphereView<T>& v);

    /// Number of particles of the last build. O(1).
    std::size_t size() const { return n_; }
    /// Row i is indices()[offsets()[i] .. offsets()[i + 1]). n + 1 values.
    const std::vector<std::uint64_t>& offsets() const { return offsets_; }
    const std::vector<std::uint32_t>& indices() const { return indices_; }
    /// D per entry, 3 values each (with options().vectors; else empty).
    const std::vector<double>& vectors() const { return vectors_; }
    /// S per entry, 3 values each (with options().shifts; else empty).
    const std::vector<std::int32_t>& shifts() const { return shifts_; }
    /// The last build's report (invalid particles in invalid_a). O(1).
    const Report& report() const { return report_; }
    /// Builds so far. O(1).
    std::size_t builds() const { return builds_; }
    /// Entries. O(1).
    std::size_t entries() const { return indices_.size(); }

    /// The particles of the last build in the list's spatial order: a
    /// permutation of 0 .. size()-1, bin by bin (the particles with a finite
    /// centre), then the rest in input order. Reordering the particles'
    /// arrays by it (x'[k] = x[order[k]], velocities and radii alike), as
    /// LAMMPS and HOOMD sort their atoms every so many steps, makes later
    /// builds read and write memory in streams instead of at random
    /// (measured: docs/measured-in-code.md\#cell-list-and-neighbour-lists). Empty before the
    /// first build; the identity after a build that sorted nothing (a bad
    /// cell, out of memory). O(n).
    std::vector<std::uint32_t> spatial_order() const;

private:
    // The checks of the arguments (the constructor, set_cell) are here, in
    // the caller's translation unit: they throw, or without exceptions
    // set the flags that build() reports, as the caller's build does, also
    // when it links the library built with exceptions.

    /// The constructor that allocates (compiled in the library); the
    /// public one checks the arguments after it.
    struct Allocate {};
    BasicNeighborList(const NeighborListOptions& options, Allocate);

    /// A bad argument: std::invalid_argument, or (built without
    /// exceptions) every build reports Status::invalid_argument.
    void fail(const std::string& what) {
#if BROADPHASE_EXCEPTIONS
        throw std::invalid_argument(what);
#else
        (void)what;
#endif
    }

    void check_options() {
        bad_options_ = false;
        if (!(options_.cutoff >= 0) || !std::isfinite(options_.cutoff)) {
            fail("NeighborList: the cutoff must be finite and >= 0");
            bad_options_ = true;
        }
        if (!(options_.skin >= 0) || !std::isfinite(options_.skin)) {
            fail("NeighborList: the skin must be finite and >= 0");
            bad_options_ = true;
        }
    }

    /// x and h are the same value (NaN equal to NaN). O(1).
    static bool same(double x, double h);
    /// Whether some particle moved more than skin/2 since the last build
    /// (a particle with a NaN or infinite coordinate: whether it changed).
    bool moved_too_far(const SphereView<T>& v) const;
    /// No entries (after a failed build); the next update rebuilds.
    void empty_list();
    /// False when the stencil would be too large (a reach over ~60 cells).
    bool build_now(const SphereView<T>& v);

    NeighborListOptions options_;
    PeriodicCell cell_;
    detail::CellFrame frame_;
    Report report_;
    bool stale_ = true, bad_cell_ = false, bad_options_ = false;
    bool binned_ = false;  // the last build sorted the particles (spatial_order)
    std::size_t n_ = 0, builds_ = 0;
    std::vector<std::uint64_t> offsets_;
    std::vector<std::uint32_t> indices_;
    std::vector<double> vectors_;
    std::vector<std::int32_t> shifts_;
    std::unique_ptr<detail::NeighborListWork<T>> work_;  // null after a move (allocated again by build)
};

using NeighborList = BasicNeighborList<double>;
using NeighborListF = BasicNeighborList<float>;

// Compiled in the library, src/neighbor_list/neighbor_list.cpp, for float
// and double.
// The members are named one by one, not the class: the inline ones (the
// argument checks above) stay in the caller's translation unit.

}  // namespace broadphase
