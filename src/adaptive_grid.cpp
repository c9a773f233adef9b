// The compiled library: <broadphase/adaptive_grid.hpp>'s class templates, compiled once
// (see include/broadphase/detail/extern_templates.hpp).
#include <broadphase/adaptive_grid.hpp>

namespace broadphase {
BROADPHASE_COMPILED_TYPES(BROADPHASE_ALGORITHM_TEMPLATES, , BasicAdaptiveGrid)
}  // namespace broadphase
