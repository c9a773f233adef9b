// The compiled library: periodic pairs (<broadphase/periodic.hpp>) for float
// and double boxes in 2-D and 3-D. The member is named alone, not the
// class: find_pairs checks the domain in the caller's translation unit
// (it throws, or without exceptions is refused, as the caller's build does).
#include <broadphase/periodic.hpp>
#include "periodic/periodic_impl.hpp"

namespace broadphase {

template Report BasicPeriodicPairFinder<float, 2>::find_checked(const BasicBoxes<float, 2>&,
                                                                  const BasicPeriodicDomain<float, 2>&,
                                                                  std::vector<Pair>&, const Options&);
template Report BasicPeriodicPairFinder<float, 3>::find_checked(const BasicBoxes<float, 3>&,
                                                                  const BasicPeriodicDomain<float, 3>&,
                                                                  std::vector<Pair>&, const Options&);
template Report BasicPeriodicPairFinder<double, 2>::find_checked(const BasicBoxes<double, 2>&,
                                                                  const BasicPeriodicDomain<double, 2>&,
                                                                  std::vector<Pair>&, const Options&);
template Report BasicPeriodicPairFinder<double, 3>::find_checked(const BasicBoxes<double, 3>&,
                                                                  const BasicPeriodicDomain<double, 3>&,
                                                                  std::vector<Pair>&, const Options&);

}  // namespace broadphase
