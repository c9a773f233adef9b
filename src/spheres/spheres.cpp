// The compiled library: the sphere finder's search (<broadphase/spheres.hpp>)
// for float and double, with the cell list behind it (spheres/spheres_impl.hpp).
// The search alone is named: the calls that check a domain stay in the
// caller's translation unit (they throw, or without exceptions are refused,
// as the caller's build does).
#include <broadphase/spheres.hpp>
#include "spheres/spheres_impl.hpp"

namespace broadphase {

template Report SpherePairFinder::search(const SphereView<float>&, const BasicPeriodicDomain<float, 3>*,
                                         detail::PairOutput&, std::vector<Pair>*, const Options&);
template Report SpherePairFinder::search(const SphereView<double>&, const BasicPeriodicDomain<double, 3>*,
                                         detail::PairOutput&, std::vector<Pair>*, const Options&);

}  // namespace broadphase
