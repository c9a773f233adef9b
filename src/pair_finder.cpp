// The compiled library: <broadphase/broadphase.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/broadphase.hpp>

namespace broadphase {
template class BasicPairFinder<float, 2>;
template class BasicPairFinder<float, 3>;
template class BasicPairFinder<double, 2>;
template class BasicPairFinder<double, 3>;
template class BasicIndex<float, 2>;
template class BasicIndex<float, 3>;
template class BasicIndex<double, 2>;
template class BasicIndex<double, 3>;
}  // namespace broadphase
