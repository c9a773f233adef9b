// The compiled library: <broadphase/spheres.hpp>'s SpherePairFinder calls and
// find_sphere_pairs for float and double, compiled once from their bodies
// (detail/spheres-inl.hpp, with the cell list; see detail/extern_templates.hpp).
#include <broadphase/spheres.hpp>
#include <broadphase/detail/spheres-inl.hpp>

namespace broadphase {
BROADPHASE_COMPILED_SCALARS(BROADPHASE_SPHERE_TEMPLATES, )
}  // namespace broadphase
