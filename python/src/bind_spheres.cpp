// find_sphere_pairs: every pair of touching spheres.

#include "bindings.hpp"
#include "numpy_boxes.hpp"
#include "periodic_args.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <broadphase/large_array.hpp>
#include <broadphase/spheres.hpp>

namespace broadphase_python {
namespace {

/// The module's sphere finder, kept between calls so that only the first
/// call pays for its memory (free_memory() lets it go). A call that finds
/// it busy (another Python thread, the GIL released) uses a finder of its
/// own.
struct KeptSphereFinder {
    std::mutex mutex;
    std::unique_ptr<bp::SpherePairFinder> finder;
};
KeptSphereFinder& kept_sphere_finder() {
    static KeptSphereFinder* k = new KeptSphereFinder;  // never destroyed: no order-of-exit issue
    return *k;
}

template <class T>
py::array sphere_pairs(const Rows& centers, const Rows& radii, const bp::Options& o, OnInvalid on_invalid,
                       const std::optional<std::array<double, 3>>& periods) {
    const T* c = data_of<T>(centers);
    const T* r = data_of<T>(radii);
    const bool one = radii.n == 1 && centers.n != 1;
    const std::size_t n = centers.n;
    bp::LargeArray<bp::Pair> out;
    bp::Report rep;
    {
        py::gil_scoped_release nogil;
        take_spare_pairs(out);  // the memory of an array freed since: paged in already
        const bp::SphereView<T> spheres = one ? bp::sphere_rows<T>(c, r[0], n) : bp::sphere_rows<T>(c, r, n);
        bp::BasicPeriodicDomain<T, 3> domain;
        if (periods) domain = domain_of<T>(*periods);
        KeptSphereFinder& kept = kept_sphere_finder();
        std::unique_lock<std::mutex> lock(kept.mutex, std::try_to_lock);
        std::unique_ptr<bp::SpherePairFinder> own;
        bp::SpherePairFinder* finder;
        if (lock.owns_lock()) {
            if (!kept.finder) kept.finder = std::make_unique<bp::SpherePairFinder>();
            finder = kept.finder.get();
        } else {
            own = std::make_unique<bp::SpherePairFinder>();
            finder = own.get();
        }
        rep = finder->find_pairs_into(spheres, periods ? &domain : nullptr, out, o);
    }
    rep.pairs = out.size();
    if (rep.status == bp::Status::pair_budget_exceeded) {  // the error carries the first max_pairs
        std::vector<bp::Pair> partial(out.data(), out.data() + out.size());
        check_report(rep, on_invalid, "centers/radii", "", &partial, "sphere(s)", "a NaN coordinate, or a radius not >= 0");
    }
    check_report(rep, on_invalid, "centers/radii", "", nullptr, "sphere(s)", "a NaN coordinate, or a radius not >= 0");
    return large_pairs_array(std::move(out));
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
Returns a (K, 2) uint32 array, written once by the search (no copy).
The module keeps the search's working memory between calls, so that only
the first call pays for it; free_memory() gives it back.)doc");

    m.def(
        "free_memory",
        []() {
            KeptSphereFinder& kept = kept_sphere_finder();
            std::unique_ptr<bp::SpherePairFinder> gone;
            {
                std::lock_guard<std::mutex> lock(kept.mutex);
                gone = std::move(kept.finder);
            }
            free_kept_pair_finder();
            free_kept_ase_state();
            free_spare_pairs();
        },
        R"doc(Frees the working memory that find_sphere_pairs, find_pairs and
neighbor_list keep between calls (the module holds one finder for each; they keep memory in
proportion to the largest call so far, so that later calls of that size
allocate nothing), and the memory of the last pair array freed (reused by
the next call). The next call allocates it again. Kept objects
(PairFinder, NeighborList, Scene, Index) keep their own memory until
they are deleted.)doc");
}

}  // namespace broadphase_python
