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
// (detail/cell_list.hpp): 27 bins for a full list, about half for a half
// list (6.4 and 3.2 x (4/3 pi reach^3) x density candidates a particle),
// SIMD distance tests, each entry written once and then moved once into
// its row. update() without a rebuild is one pass
// over the positions. A kept list allocates nothing once it has built a
// list of the largest size. Threads: NeighborListOptions::threads (0: the
// default, as Options::threads), one per 8,192 particles at most.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "detail/cell_list.hpp"
#include "detail/exceptions.hpp"
#include "pairs.hpp"
#include "spheres.hpp"

namespace broadphase {

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
template <class T>
class BasicNeighborList {
public:
    explicit BasicNeighborList(const NeighborListOptions& options = {}, const PeriodicCell& cell = {})
        : options_(options) {
        check_options();
        set_cell(cell);
    }

    /// Replaces the cell (a box that changes shape: NPT); the next update
    /// rebuilds. Throws std::invalid_argument for a bad cell. O(1).
    void set_cell(const PeriodicCell& cell) {
        const std::string p = cell.problem();
        if (!p.empty()) fail("NeighborList: " + p);
        bad_cell_ = !p.empty();
        cell_ = cell;
        if (!bad_cell_) frame_ = cell_.frame();
        stale_ = true;
    }
    const PeriodicCell& cell() const { return cell_; }
    const NeighborListOptions& options() const { return options_; }

    /// Points: n rows x y z (xyz[3 i + k]), radius 0. Rebuilds if needed
    /// (see the top of the file); true when it did. O(n) without a
    /// rebuild, build()'s cost with one.
    bool update(const T* xyz, std::size_t n) { return update(sphere_rows<T>(xyz, T(0), n)); }
    /// Spheres (their radii count in the reach). As update(xyz, n).
    bool update(const SphereView<T>& particles) {
        if (stale_ || particles.n != n_ || moved_too_far(particles)) {
            build(particles);
            return true;
        }
        return false;
    }

    /// Builds the list now, whatever moved. Returns the report: ok, or
    /// too_many_boxes (over 2^32 - 2 particles), out_of_memory,
    /// pair_budget_exceeded (max_entries; the list is then empty) or
    /// invalid_argument (see the top of the file); invalid particles in
    /// Report::invalid_a. O(n + candidates + entries).
    Report build(const T* xyz, std::size_t n) { return build(sphere_rows<T>(xyz, T(0), n)); }
    Report build(const SphereView<T>& v) {
        report_ = Report{};
        stale_ = false, binned_ = false;
        n_ = v.n;
        ++builds_;
        // The arrays keep their size until the new list's is known: a
        // list rebuilt at the same size is not written twice (zeroed,
        // then filled).
        if (bad_cell_ || bad_options_ || v.n > max_boxes) {
            report_.status = v.n > max_boxes ? Status::too_many_boxes : Status::invalid_argument;
            empty_list();
            return report_;
        }
        const bool done = detail::guarded(report_, [&] {
            if (!build_now(v)) report_.status = Status::out_of_memory;
        });
        if (!done || report_.status == Status::out_of_memory) empty_list();
        report_.pairs = indices_.size();
        return report_;
    }

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
    std::vector<std::uint32_t> spatial_order() const {
        std::vector<std::uint32_t> order;
        order.reserve(n_);
        const auto& where = grid_.where();
        if (!binned_ || where.size() != n_) {
            for (std::size_t i = 0; i < n_; ++i) order.push_back(static_cast<std::uint32_t>(i));
            return order;
        }
        const auto& ids = grid_.ids();
        order.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(grid_.gridded()));
        for (std::size_t i = 0; i < n_; ++i)
            if (where[i] == ~std::uint32_t(0)) order.push_back(static_cast<std::uint32_t>(i));
        return order;
    }

private:
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
    static bool same(double x, double h) { return x == h || (std::isnan(x) && std::isnan(h)); }

    /// Whether some particle moved more than skin/2 since the last build
    /// (a particle with a NaN or infinite coordinate: whether it changed).
    bool moved_too_far(const SphereView<T>& v) const {
        if (held_.size() != 3 * v.n) return true;
        const double limit = 0.5 * options_.skin;
        const double lim2 = limit * limit;
        const double* held = held_.data();
        bool far = false;
        if (frame_.diagonal) {
            double L[3], inv[3];
            for (int k = 0; k < 3; ++k) L[k] = frame_.periodic[k] ? std::fabs(frame_.h[k][k]) : 0, inv[k] = L[k] ? 1 / L[k] : 0;
            for (std::size_t i = 0; i < v.n; ++i) {
                double d2 = 0;
                for (int k = 0; k < 3; ++k) {
                    const double x = static_cast<double>(v.coord(i, k)), h = held[3 * i + k];
                    double d = x - h;
                    if (!std::isfinite(d)) d = same(x, h) ? 0.0 : std::numeric_limits<double>::infinity();
                    else d -= L[k] * std::nearbyint(d * inv[k]);
                    d2 += d * d;
                }
                far |= !(d2 <= lim2);
            }
        } else {
            for (std::size_t i = 0; i < v.n; ++i) {
                double d[3], s[3];
                bool odd = false, unchanged = true;
                for (int k = 0; k < 3; ++k) {
                    const double x = static_cast<double>(v.coord(i, k)), h = held[3 * i + k];
                    d[k] = x - h;
                    odd = odd || !std::isfinite(d[k]);
                    unchanged = unchanged && same(x, h);
                }
                if (odd) {  // a NaN or infinite coordinate: moved unless it is as it was
                    far |= !unchanged;
                    continue;
                }
                for (int k = 0; k < 3; ++k) s[k] = std::nearbyint(frame_.frac(d, k));
                double d2 = 0;
                for (int k = 0; k < 3; ++k) {
                    const double e = d[k] - ((s[0] * frame_.h[0][k] + s[1] * frame_.h[1][k]) + s[2] * frame_.h[2][k]);
                    d2 += e * e;
                }
                far |= !(d2 <= lim2);
            }
        }
        return far;
    }

    /// Particles a thread at least: a dense liquid has hundreds of
    /// candidates a particle, so threads pay from a few thousand.
    static constexpr std::size_t min_per_thread = 8192;

    /// No entries (after a failed build); the next update rebuilds.
    void empty_list() {
        offsets_.assign(n_ + 1, 0);
        indices_.clear(), vectors_.clear(), shifts_.clear();
        stale_ = true;
    }

    /// False when the stencil would be too large (a reach over ~60 cells).
    bool build_now(const SphereView<T>& v) {
        const std::size_t n = v.n;
        // Positions as of this build, for the skin test.
        held_.resize(3 * n);
        const unsigned threads = detail::plan_threads(options_.threads, n, min_per_thread);
        detail::run_parts(threads, n, [&](std::size_t, std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i)
                for (int k = 0; k < 3; ++k) held_[3 * i + k] = static_cast<double>(v.coord(i, k));
        });
        const double extra = options_.cutoff + options_.skin;
        // Infinite radii are invalid here (their list would be infinite).
        SphereView<T> use = v;
        const bool checked = grid_.sort(use, frame_, extra, options_.threads, min_per_thread, report_.invalid_a);
        if (!checked) {
            // Infinite radius somewhere, or a reach over ~60 cells: the
            // particles with an infinite radius become invalid and the rest
            // go through again; a reach too large is out of memory.
            if (grid_.summary().infinite_radius) {
                finite_radii_.assign(n, T(0));
                for (std::size_t i = 0; i < n; ++i) {
                    const T r = v.r(i);
                    finite_radii_[i] = std::isinf(r) ? std::numeric_limits<T>::quiet_NaN() : r;
                }
                use.radii = finite_radii_.data();
                if (!grid_.sort(use, frame_, extra, options_.threads, min_per_thread, report_.invalid_a)) return false;
            } else {
                return false;
            }
        }
        binned_ = true;
        bool exceeded = false;
        const bool images = options_.shifts || options_.vectors;
        grid_.rows(!options_.full, images, options_.max_entries, exceeded);
        if (exceeded) {  // rows missing here and there would look complete: none
            report_.status = Status::pair_budget_exceeded;
            empty_list();
            return true;
        }
        // Offsets in input order, then each row moved to its place. The
        // rows come out in bin order, random in the input: the passes go
        // in input order, so that the writes stream, and read each row's
        // count and place (one line, fetched a few particles ahead) and
        // then its entries (fetched ahead too): two random lines a
        // particle (measured: docs/measured-in-code.md#cell-list-and-neighbour-lists).
        const auto& ids = grid_.ids();
        const auto& where = grid_.where();
        constexpr std::uint32_t none = ~std::uint32_t(0);
        constexpr std::size_t ahead = 16;
        rows_at_.resize(grid_.gridded());
        grid_.for_each_row(true, [&](std::size_t s, const std::uint32_t* cols, const std::uint32_t*, std::uint32_t c) {
            rows_at_[s] = RowAt{cols, c};
        });
        detail::reserve_large(offsets_, n + 1);
        offsets_.resize(n + 1);
        offsets_[0] = 0;
        from_.resize(n);
        detail::run_parts(threads, n, [&](std::size_t, std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) {
                if (i + ahead < e && where[i + ahead] != none) detail::prefetch_read(&rows_at_[where[i + ahead]]);
                const std::uint32_t s = where[i];
                const RowAt r = s == none ? RowAt{nullptr, 0} : rows_at_[s];
                offsets_[i + 1] = r.count;
                from_[i] = r.cols;
            }
        });
        for (std::size_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
        const std::size_t total = static_cast<std::size_t>(offsets_[n]);
        // The caller's arrays: sized once, on huge pages when new.
        detail::reserve_large(indices_, total);
        indices_.resize(total);
        if (options_.vectors) detail::reserve_large(vectors_, 3 * total), vectors_.resize(3 * total);
        if (options_.shifts) detail::reserve_large(shifts_, 3 * total), shifts_.resize(3 * total);
        if (images) image_.resize(n * 3);
        if (images) {
            // Each particle's image count n_i (for S) from its wrap.
            detail::run_parts(threads, n, [&](std::size_t, std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i) {
                    if (grid_.where()[i] == ~std::uint32_t(0)) continue;
                    const double x[3] = {static_cast<double>(use.coord(i, 0)), static_cast<double>(use.coord(i, 1)),
                                         static_cast<double>(use.coord(i, 2))};
                    double w[3], m[3];
                    frame_.wrap(x, w, m);
                    for (int k = 0; k < 3; ++k) image_[3 * i + k] = m[k];
                }
            });
        }
        if (!options_.sorted && !images) {  // the common case: each row as found
            detail::run_parts(threads, n, [&](std::size_t, std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i) {
                    if (i + ahead < e) detail::prefetch_read(from_[i + ahead]);
                    const std::uint32_t* from = from_[i];
                    std::uint32_t* to = indices_.data() + offsets_[i];
                    for (std::uint64_t c = offsets_[i + 1] - offsets_[i]; c--;) *to++ = *from++;
                }
            });
            return true;
        }
        const double* X[3] = {grid_.x(0), grid_.x(1), grid_.x(2)};
        grid_.for_each_row(true, [&](std::size_t s, const std::uint32_t* cols, const std::uint32_t* codes, std::uint32_t c) {
            const std::uint32_t i = ids[s];
            const std::size_t at = static_cast<std::size_t>(offsets_[i]);
            // The row's order: as found, or (sorted) by j then by image (P
            // and S differ by a constant for one j, so this is by (j, S)).
            thread_local std::vector<std::uint32_t> order;
            order.resize(c);
            for (std::uint32_t e = 0; e < c; ++e) order[e] = e;
            if (options_.sorted)
                std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
                    if (cols[x] != cols[y]) return cols[x] < cols[y];
                    if (!codes) return x < y;
                    int px[3], py[3];
                    detail::unpack_image(codes[x], px), detail::unpack_image(codes[y], py);
                    return std::lexicographical_compare(px, px + 3, py, py + 3);
                });
            for (std::uint32_t e = 0; e < c; ++e) indices_[at + e] = cols[order[e]];
            if (!codes) return;
            for (std::uint32_t e = 0; e < c; ++e) {
                const std::uint32_t from = order[e];
                int p[3];
                detail::unpack_image(codes[from], p);
                const std::uint32_t j = cols[from], sj = where[j];
                if (options_.vectors) {
                    for (int k = 0; k < 3; ++k)
                        vectors_[3 * (at + e) + k] = (X[k][sj] - X[k][s]) + frame_.shift(p, k);
                }
                if (options_.shifts) {
                    for (int k = 0; k < 3; ++k)
                        shifts_[3 * (at + e) + k] =
                            static_cast<std::int32_t>(p[k] + image_[3 * i + k] - image_[3 * j + k]);
                }
            }
        });
        return true;
    }

    NeighborListOptions options_;
    PeriodicCell cell_;
    detail::CellFrame frame_;
    detail::CellList grid_;
    Report report_;
    bool stale_ = true, bad_cell_ = false, bad_options_ = false;
    bool binned_ = false;  // the last build sorted the particles (spatial_order)
    std::size_t n_ = 0, builds_ = 0;
    detail::LargeVector<double> held_, image_;
    std::vector<T> finite_radii_;
    std::vector<std::uint64_t> offsets_;
    std::vector<std::uint32_t> indices_;
    struct RowAt {
        const std::uint32_t* cols;
        std::uint64_t count;
    };
    detail::LargeVector<RowAt> rows_at_;               // per sorted position: its row in the grid's output
    detail::LargeVector<const std::uint32_t*> from_;  // per particle: its row in the grid's output
    std::vector<double> vectors_;
    std::vector<std::int32_t> shifts_;
};

using NeighborList = BasicNeighborList<double>;
using NeighborListF = BasicNeighborList<float>;

}  // namespace broadphase
