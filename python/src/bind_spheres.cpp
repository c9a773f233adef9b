// find_sphere_pairs: every pair of touching spheres.

#include "bindings.hpp"
#include "numpy_boxes.hpp"
#include "periodic_args.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/spheres.hpp>

namespace broadphase_python {
namespace {

template <class T>
py::array sphere_pairs(const Rows& centers, const Rows& radii, const bp::Options& o, OnInvalid on_invalid,
                       const std::optional<std::array<double, 3>>& periods) {
    const T* c = data_of<T>(centers);
    const T* r = data_of<T>(radii);
    const bool one = radii.n == 1 && centers.n != 1;
    const std::size_t n = centers.n;
    std::vector<bp::Pair> out;
    bp::Report rep;
    {
        py::gil_scoped_release nogil;
        const bp::SphereView<T> spheres = one ? bp::sphere_rows<T>(c, r[0], n) : bp::sphere_rows<T>(c, r, n);
        bp::SpherePairFinder finder;
        rep = periods ? finder.find_pairs(spheres, domain_of<T>(*periods), out, o) : finder.find_pairs(spheres, out, o);
    }
    rep.pairs = out.size();
    check_report(rep, on_invalid, "centers/radii", "", &out, "sphere(s)", "a NaN coordinate, or a radius not >= 0");
    return pairs_array(std::move(out));
}

}  // namespace

void bind_spheres(py::module_& m) {
    m.def(
        "find_sphere_pairs",
        [](py::handle centers, py::handle radii, const std::string& algorithm, long threads, bool sorted,
           std::optional<std::uint64_t> max_pairs, const std::string& invalid, py::handle boxsize) {
            const bp::Options o = make_options(algorithm, threads, sorted, max_pairs);
            const OnInvalid on_invalid = parse_invalid(invalid);
            const std::optional<std::array<double, 3>> periods = boxsize_of(boxsize);
            Rows c = rows_of(centers, "centers", 3, "x, y, z");
            py::array ra = numeric_array(radii, "radii");
            const bool dbl = c.is_double || !is_float32(ra) || (periods && !periods_fit_float(*periods));
            if (dbl && !c.is_double) c = rows_of(centers, "centers", 3, "x, y, z", true);
            Rows r = vector_of(ra, "radii", c.n, dbl);
            return dbl ? sphere_pairs<double>(c, r, o, on_invalid, periods) : sphere_pairs<float>(c, r, o, on_invalid, periods);
        },
        py::arg("centers"), py::arg("radii"), py::arg("algorithm") = "automatic", py::arg("threads") = 0, py::arg("sorted") = false,
        py::arg("max_pairs") = py::none(), py::arg("invalid") = "warn", py::arg("boxsize") = py::none(),
        R"doc(Every pair of touching spheres (i, j), i < j, exactly once.

centers: (N, 3) array; radii: one number or an (N,) array (float32 when
both are float32, else float64).
A pair is kept iff |ci - cj|^2 <= (ri + rj)^2, evaluated in float64 from
the input values (touching spheres count). With algorithm='automatic' (default),
spheres whose radii are within 2x of the mean go to the cell list that
NeighborList uses (bins one diameter wide, each sphere in one bin, each candidate tested
exactly once: no box pairs); other inputs, or a named algorithm, take the
box path: the broad phase on the spheres' boxes (center -+ radius) in
float32, rounded outwards from float64 input so that no pair is lost, then
the exact test on each box pair. A sphere with a NaN coordinate or a
negative radius is invalid (see find_pairs' invalid). max_pairs bounds the
pairs (on the box path, the box pairs). boxsize: a periodic domain, as
scipy.spatial.cKDTree's boxsize (one period or three; 0 or None: an open
axis): distances follow the minimum image convention, each pair is
reported once however many images touch, and centres need not lie in
[0, L) (they wrap). With boxsize, the cell list runs in the periodic cell when
every period is over about 3 diameters; otherwise the box path (in float64 when a
period is not a float32 value). Other arguments as in find_pairs.
Returns a (K, 2) uint32 array.)doc");
}

}  // namespace broadphase_python
