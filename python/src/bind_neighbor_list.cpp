// NeighborList: the library's neighbour lists (include/broadphase/
// neighbor_list.hpp) kept between steps, in an open domain or a periodic
// cell (orthorhombic, mixed open/periodic, or triclinic).
//
// One C++ list per precision: float32 positions (with float32 radii or
// none) go to BasicNeighborList<float>, anything else to the double one.
// Only the precision last used holds a list: a call in the other precision
// replaces it with a fresh list of its own and builds (update() returns
// True), so the skin test always compares with the positions of the list
// that is returned. The caller's arrays are read only during the call (the
// C++ list copies what it keeps: the positions of the last build, for the
// skin test).
//
// Locking as PairFinder's: the GIL is released while a list builds and a
// mutex guards the lists, so Python threads may share one NeighborList
// (calls run one at a time).

#include "bindings.hpp"
#include "numpy_boxes.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <broadphase/neighbor_list.hpp>

namespace broadphase_python {
namespace {

/// One number of cell= (a period or a cell vector component): a real
/// number, not a bool or a string; None -> 0 where `none_ok`.
double cell_number(py::handle v, const std::string& where, bool none_ok) {
    if (none_ok && v.is_none()) return 0;
    if (py::isinstance<py::bool_>(v) || py::isinstance<py::str>(v) || py::isinstance<py::bytes>(v))
        raise_type(where + " must be a number, not " + std::string(py::str(v.get_type().attr("__name__"))));
    try {
        return py::cast<double>(py::float_(py::reinterpret_borrow<py::object>(v)));
    } catch (const py::error_already_set&) {
        raise_type(where + " must be a number, not " + std::string(py::str(v.get_type().attr("__name__"))));
    }
}

/// cell=: None (open), one period L (a periodic cube), three periods (0 or
/// None: an open axis, as cKDTree's boxsize), or a (3, 3) array whose rows
/// are the cell vectors a, b, c (ASE's cell). Shapes are checked here; the
/// values (finite, a volume, no tilt with an open axis) by the library.
bp::PeriodicCell cell_of(py::handle obj) {
    if (obj.is_none()) return bp::PeriodicCell{};
    if (py::isinstance<py::str>(obj) || py::isinstance<py::bytes>(obj) || py::isinstance<py::bool_>(obj))
        raise_type("cell must be None, a number, three numbers or a (3, 3) array, not " +
                   std::string(py::str(obj.get_type().attr("__name__"))));
    const bool array_like = py::isinstance<py::sequence>(obj) || py::isinstance<py::array>(obj) || py::hasattr(obj, "__array__");
    if (!array_like) {
        const double L = cell_number(obj, "cell", false);
        return bp::PeriodicCell::orthorhombic(L, L, L);
    }
    // Three periods as a list or tuple may hold None (an open axis).
    if ((py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) && py::len(obj) == 3) {
        const py::sequence s = py::reinterpret_borrow<py::sequence>(obj);
        bool scalars = true;
        for (int k = 0; k < 3; ++k) {
            py::object e = s[static_cast<std::size_t>(k)];
            scalars = scalars && !py::isinstance<py::sequence>(e) && !py::isinstance<py::array>(e);
        }
        if (scalars) {
            std::array<double, 3> p{};
            for (int k = 0; k < 3; ++k)
                p[k] = cell_number(s[static_cast<std::size_t>(k)], "cell[" + std::to_string(k) + "]", true);
            return bp::PeriodicCell::orthorhombic(p[0], p[1], p[2]);
        }
    }
    py::array a = numeric_array(obj, "cell");
    py::array_t<double, py::array::c_style | py::array::forcecast> d = contiguous<double>(a);
    if (a.ndim() == 0) return bp::PeriodicCell::orthorhombic(d.data()[0], d.data()[0], d.data()[0]);
    if (a.ndim() == 1 && a.shape(0) == 3) return bp::PeriodicCell::orthorhombic(d.data()[0], d.data()[1], d.data()[2]);
    if (a.ndim() == 2 && a.shape(0) == 3 && a.shape(1) == 3) {
        bp::PeriodicCell c;
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k) c.vectors[r][k] = d.data()[3 * r + k];
        return c;
    }
    raise_value("cell must be None (open), one period, three periods (0: an open axis) or a (3, 3) array whose rows are "
                "the cell vectors a, b, c; got shape " + shape_of(a));
}

py::array cell_array(const bp::PeriodicCell& c) {
    py::array_t<double> a({py::ssize_t(3), py::ssize_t(3)});
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) a.mutable_data()[3 * r + k] = c.vectors[r][k];
    return a;
}

template <class T>
py::array copy_array(const std::vector<T>& v, std::vector<py::ssize_t> shape) {
    py::array_t<T> a(shape);
    if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
    return a;
}

class NeighborList {
    enum class Active { none, f32, f64 };

    /// f(the active list), or f(an empty double list) before any build.
    /// (Defined first: its return type is deduced.)
    template <class F>
    auto with(F&& f) const {
        if (active_ == Active::f32) return f(*f_);
        return f(*d_);
    }

public:
    NeighborList(double cutoff, double skin, py::handle cell, bool full, bool vectors, bool shifts, bool sorted,
                 long threads, std::optional<std::uint64_t> max_entries) {
        o_.cutoff = cutoff, o_.skin = skin;
        o_.full = full, o_.vectors = vectors, o_.shifts = shifts, o_.sorted = sorted;
        o_.threads = threads_of(threads);
        if (max_entries) o_.max_entries = *max_entries;
        cell_ = cell_of(cell);
        // The library checks the options and the cell (std::invalid_argument: ValueError).
        d_ = std::make_unique<bp::NeighborList>(o_, cell_);
    }

    /// update (always = false) or build (always = true); whether it built.
    bool run(py::handle positions, py::handle radii, OnInvalid on_invalid, bool always) {
        Rows x = rows_of(positions, "positions", 3, "x, y, z");
        if (x.n > bp::max_boxes)
            raise_value("positions has " + std::to_string(x.n) + " rows; at most " + std::to_string(bp::max_boxes) +
                        " particles (the list's indices are 32-bit)");
        std::optional<py::array> ra;
        if (!radii.is_none()) ra = numeric_array(radii, "radii");
        const bool dbl = x.is_double || (ra && !is_float32(*ra));
        if (dbl && !x.is_double) x = rows_of(positions, "positions", 3, "x, y, z", true);
        std::optional<Rows> r;
        if (ra) r = vector_of(*ra, "radii", x.n, dbl);
        bool built;
        bp::Report rep;
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(mutex_);
            built = dbl ? run_as<double>(x, r, always) : run_as<float>(x, r, always);
            if (built) ++builds_;
            rep = report_locked();
        }
        if (built) check(rep, on_invalid);
        return built;
    }

    void set_cell(py::handle cell) {
        const bp::PeriodicCell c = cell_of(cell);
        std::lock_guard<std::mutex> lock(mutex_);
        // Throws (ValueError) before changing anything when the cell is bad.
        if (f_) f_->set_cell(c);
        if (d_) d_->set_cell(c);
        cell_ = c;
    }

    py::array cell() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return cell_array(cell_);
    }

    py::array offsets() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return with([](const auto& l) {
            if (l.offsets().empty()) return copy_array(std::vector<std::uint64_t>{0}, {1});
            return copy_array(l.offsets(), {static_cast<py::ssize_t>(l.offsets().size())});
        });
    }
    py::array indices() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return with([](const auto& l) { return copy_array(l.indices(), {static_cast<py::ssize_t>(l.indices().size())}); });
    }
    py::array vectors() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return with([](const auto& l) { return copy_array(l.vectors(), {static_cast<py::ssize_t>(l.vectors().size() / 3), 3}); });
    }
    py::array shifts() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return with([](const auto& l) { return copy_array(l.shifts(), {static_cast<py::ssize_t>(l.shifts().size() / 3), 3}); });
    }
    py::array invalid() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return with([](const auto& l) { return ids_array(l.report().invalid_a); });
    }
    /// (K, 2) uint32: (row, column) per entry.
    py::array pairs() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return with([](const auto& l) {
            const std::vector<std::uint64_t>& off = l.offsets();
            const std::vector<std::uint32_t>& col = l.indices();
            py::array_t<std::uint32_t> a({static_cast<py::ssize_t>(col.size()), py::ssize_t(2)});
            std::uint32_t* p = a.mutable_data();
            for (std::size_t i = 0; i + 1 < off.size(); ++i)
                for (std::uint64_t e = off[i]; e < off[i + 1]; ++e) p[2 * e] = static_cast<std::uint32_t>(i), p[2 * e + 1] = col[e];
            return a;
        });
    }

    py::array spatial_order() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return with([](const auto& l) {
            const std::vector<std::uint32_t> o = l.spatial_order();
            return copy_array(o, {static_cast<py::ssize_t>(o.size())});
        });
    }

    std::size_t builds() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return builds_;
    }
    std::size_t size() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return with([](const auto& l) { return l.size(); });
    }
    std::size_t entries() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return with([](const auto& l) { return l.entries(); });
    }
    py::object dtype() const {
        std::lock_guard<std::mutex> lock(mutex_);
        if (active_ == Active::none) return py::none();
        return py::str(active_ == Active::f32 ? "float32" : "float64");
    }
    double cutoff() const { return o_.cutoff; }
    double skin() const { return o_.skin; }
    bool full() const { return o_.full; }

    std::string repr() const {
        std::lock_guard<std::mutex> lock(mutex_);
        std::string s = std::string("<broadphase.NeighborList ") + (o_.full ? "full" : "half") + ", cutoff " +
                        std::string(py::str(py::float_(o_.cutoff))) + " + skin " + std::string(py::str(py::float_(o_.skin))) +
                        ", " + cell_words();
        if (active_ == Active::none) return s + ", not built>";
        const std::size_t n = with([](const auto& l) { return l.size(); });
        const std::size_t k = with([](const auto& l) { return l.entries(); });
        return s + ": " + std::to_string(n) + (n == 1 ? " particle, " : " particles, ") +
               (active_ == Active::f32 ? "float32, " : "float64, ") + std::to_string(k) + (k == 1 ? " entry, " : " entries, ") +
               std::to_string(builds_) + (builds_ == 1 ? " build>" : " builds>");
    }

private:
    std::string cell_words() const {
        int periodic = 0;
        bool tilted = false;
        for (int r = 0; r < 3; ++r) {
            periodic += cell_.periodic(r);
            for (int k = 0; k < 3; ++k) tilted = tilted || (r != k && cell_.vectors[r][k] != 0);
        }
        if (periodic == 0) return "open";
        if (tilted) return "triclinic cell";
        if (periodic == 3) return "orthorhombic cell";
        std::string axes;
        for (int k = 0; k < 3; ++k)
            if (cell_.periodic(k)) axes += "xyz"[k];
        return "periodic in " + axes;
    }

    bp::Report report_locked() const {
        return with([](const auto& l) { return l.report(); });
    }

    template <class T>
    bool run_as(const Rows& x, const std::optional<Rows>& r, bool always) {
        constexpr Active want = std::is_same_v<T, float> ? Active::f32 : Active::f64;
        std::unique_ptr<bp::BasicNeighborList<T>>& list = slot<T>();
        if (active_ != want) {
            // The other precision's list goes (its memory with it); this one
            // starts fresh, so its first update builds.
            list = std::make_unique<bp::BasicNeighborList<T>>(o_, cell_);
            if constexpr (std::is_same_v<T, float>) d_ = std::make_unique<bp::NeighborList>(o_, cell_);
            else f_.reset();
            active_ = want;
            always = true;
        }
        const T* xyz = data_of<T>(x);
        bp::SphereView<T> v = bp::sphere_rows<T>(xyz, T(0), x.n);
        if (r) {
            const T* rad = data_of<T>(*r);
            v = r->n == 1 && x.n != 1 ? bp::sphere_rows<T>(xyz, rad[0], x.n) : bp::sphere_rows<T>(xyz, rad, x.n);
        }
        if (always) {
            list->build(v);
            return true;
        }
        return list->update(v);
    }

    template <class T>
    std::unique_ptr<bp::BasicNeighborList<T>>& slot() {
        if constexpr (std::is_same_v<T, float>) return f_;
        else return d_;
    }

    /// The last build's status as the module reports it (with the GIL).
    void check(const bp::Report& r, OnInvalid on_invalid) const {
        switch (r.status) {
            case bp::Status::ok:
            case bp::Status::stopped_by_callback: break;
            case bp::Status::too_many_boxes:
                raise_value("too many particles: at most " + std::to_string(bp::max_boxes) + " (32-bit indices)");
            case bp::Status::out_of_memory:
                PyErr_SetString(PyExc_MemoryError,
                                "NeighborList: out of memory, or the reach (cutoff + skin + the two largest radii) is "
                                "too large for the cell list (over about 60 times the cell's width, or 127 bins)");
                throw py::error_already_set();
            case bp::Status::invalid_argument: raise_value("NeighborList: invalid argument (the cell or the options)");
            case bp::Status::pair_budget_exceeded:
                raise_with(pair_budget_error,
                           "NeighborList: more entries than max_entries; the list's rows are incomplete (the next "
                           "update builds again); the error's .pairs holds the (row, column) of the entries kept",
                           {{"pairs", pairs()}});
        }
        check_report(r, on_invalid, "positions/radii", "", nullptr, "particle(s)",
                     "a NaN coordinate, or a radius negative, NaN or infinite");
    }

    mutable std::mutex mutex_;
    bp::NeighborListOptions o_;
    bp::PeriodicCell cell_;
    Active active_ = Active::none;
    std::unique_ptr<bp::BasicNeighborList<float>> f_;
    std::unique_ptr<bp::BasicNeighborList<double>> d_;  // never null (the empty list before the first build)
    std::size_t builds_ = 0;
};

}  // namespace

void bind_neighbor_list(py::module_& m) {
    py::class_<NeighborList>(m, "NeighborList", R"doc(Neighbour lists as MD and DEM codes keep them (broadphase::NeighborList).

NeighborList(cutoff=0.0, skin=0.0, *, cell=None, full=False, vectors=False,
shifts=False, sorted=False, threads=0, max_entries=None)

Every particle's neighbours within reach_ij = (r_i + r_j) + (cutoff + skin),
in CSR form (offsets, indices), rebuilt by update() only when some particle
moved more than skin / 2 since the last build.

The rule: positions are wrapped into the cell (x'_i = x_i - n_i h), then an
entry (i, j, S) is listed iff D = (x'_j - x'_i) + P h, evaluated in float64,
has (D0^2 + D1^2) + D2^2 <= reach_ij^2 (touching counts); S = P + n_i - n_j
so that D = x_j + S h - x_i (h: the cell vectors as rows). In a periodic cell
every image within reach is listed (as ASE and vesin do): with a cutoff over
half the cell's width a pair can appear with several shifts and a particle can
list its own images (i, i, S != 0).

cell: None (open), one period L (a periodic cube), three periods (0 or None:
an open axis, as cKDTree's boxsize) or a (3, 3) array whose rows are the cell
vectors a, b, c (ASE's atoms.cell; triclinic when all three axes are
periodic). A bad cell (non-finite, no volume, a tilt with an open axis) or a
negative or non-finite cutoff or skin: ValueError.
full: every entry in both rows, (i, j, S) and (j, i, -S); else (default) a
half list: each pair once, in the row of whichever particle the search visits
first (fixed for given input, whatever the thread count), at half the cost.
vectors / shifts: keep D ((K, 3) float64) / S ((K, 3) int32) per entry.
sorted: each row sorted by (j, S). threads: 0 (all cores) or a count; one
thread per 8,192 particles at most. max_entries: a build that finds more
entries stops early and raises PairBudgetError: the rows are incomplete
(.pairs holds the entries kept, which may be somewhat more than max_entries)
and the next update() builds again.

Cost: O(n) to wrap, bin and sort the particles, then each is tested against
the particles of a stencil of bins (about 4.2 x (4/3 pi reach^3) x density
candidates a particle). update() without a rebuild is one pass over the
positions. The properties return copies (O(entries)).

float32 positions (with float32 radii or none) are listed by the float32
list, anything else in float64; the distances are float64 either way. A call
in the other precision than the last one replaces the list and builds.
Calls on one NeighborList from several threads run one at a time; the GIL is
released while a list builds.)doc")
        .def(py::init([](double cutoff, double skin, py::handle cell, bool full, bool vectors, bool shifts, bool sorted,
                         long threads, std::optional<std::uint64_t> max_entries) {
                 return std::make_unique<NeighborList>(cutoff, skin, cell, full, vectors, shifts, sorted, threads,
                                                       max_entries);
             }),
             py::arg("cutoff") = 0.0, py::arg("skin") = 0.0, py::kw_only(), py::arg("cell") = py::none(),
             py::arg("full") = false, py::arg("vectors") = false, py::arg("shifts") = false, py::arg("sorted") = false,
             py::arg("threads") = 0, py::arg("max_entries") = py::none())
        .def(
            "update",
            [](NeighborList& l, py::handle positions, py::handle radii, const std::string& invalid) {
                return l.run(positions, radii, parse_invalid(invalid), false);
            },
            py::arg("positions"), py::arg("radii") = py::none(), py::kw_only(), py::arg("invalid") = "warn",
            R"doc(Rebuilds the list if needed; True when it did.

positions: (N, 3) array; radii: None (0), one number or an (N,) array (they
count in the reach; assumed unchanged between builds: call build() when they
change). It rebuilds on the first call, when N, the cell or the precision
changed, or when some particle moved more than skin / 2 since the last build
(the minimum image of its displacement on periodic axes: a particle wrapped
back into the cell has not moved). Otherwise the list is kept (entries,
vectors and shifts as of the last build; the current D is x_j + S h - x_i)
and this costs one pass over the positions. Invalid particles (a NaN
coordinate; a radius negative, NaN or infinite) have no entries and are in
.invalid; when the call builds, invalid= says how it reports them: 'warn'
(InvalidBoxWarning, default), 'skip' or 'raise' (InvalidBoxError, after the
build). Out of memory (or a reach too large for the cell list): MemoryError.)doc")
        .def(
            "build",
            [](NeighborList& l, py::handle positions, py::handle radii, const std::string& invalid) {
                l.run(positions, radii, parse_invalid(invalid), true);
            },
            py::arg("positions"), py::arg("radii") = py::none(), py::kw_only(), py::arg("invalid") = "warn",
            "Builds the list now, whatever moved (as update, which see). O(n + candidates + entries).")
        .def("set_cell", &NeighborList::set_cell, py::arg("cell"),
             "Replaces the cell (as the constructor's cell=; a box that changes shape: NPT); the next update rebuilds. "
             "ValueError for a bad cell, which leaves the list as it was.")
        .def("spatial_order", &NeighborList::spatial_order,
             R"doc(uint32 array: the particles of the last build in the list's spatial order (bin by bin, then the
invalid ones and those with an infinite coordinate in input order); empty before a build. Reorder your arrays by it
(x = x[order], likewise velocities and radii), as LAMMPS sorts its atoms every so many steps: later builds then
read memory in streams instead of at random (1M random spheres: about 250 -> 215 ms a build, 2-core EPYC). O(n).)doc")
        .def("pairs", &NeighborList::pairs,
             "(K, 2) uint32 array of (i, j) per entry, in the order of indices (i: the row). A copy.")
        .def_property_readonly("offsets", &NeighborList::offsets,
                               "uint64 array of N + 1 values: row i is indices[offsets[i]:offsets[i + 1]]. A copy.")
        .def_property_readonly("indices", &NeighborList::indices, "uint32 array: the column j of each entry. A copy.")
        .def_property_readonly("vectors", &NeighborList::vectors,
                               "(K, 3) float64 array: D = x_j + S h - x_i per entry, as of the last build (with "
                               "vectors=True; else (0, 3)). A copy.")
        .def_property_readonly("shifts", &NeighborList::shifts,
                               "(K, 3) int32 array: the image S (whole cell vectors) per entry (with shifts=True; else "
                               "(0, 3)). A copy.")
        .def_property_readonly("invalid", &NeighborList::invalid,
                               "uint32 array: the invalid particles of the last build (increasing). A copy.")
        .def_property_readonly("builds", &NeighborList::builds, "Builds so far.")
        .def_property_readonly("size", &NeighborList::size, "Particles of the last build.")
        .def_property_readonly("entries", &NeighborList::entries, "Entries of the last build (K).")
        .def_property_readonly("dtype", &NeighborList::dtype, "'float32' or 'float64': the list built last (None before).")
        .def_property_readonly("cell", &NeighborList::cell, "The cell vectors as rows, (3, 3) float64 (zero rows: open axes).")
        .def_property_readonly("cutoff", &NeighborList::cutoff)
        .def_property_readonly("skin", &NeighborList::skin)
        .def_property_readonly("full", &NeighborList::full)
        .def("__len__", &NeighborList::size)
        .def("__repr__", &NeighborList::repr);
}

}  // namespace broadphase_python
