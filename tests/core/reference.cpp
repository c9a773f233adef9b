// The scalar oracle compiled once (see the end of reference.hpp).
#include "reference.hpp"

namespace bptest {
BPTEST_REFERENCE_TYPES()
}  // namespace bptest
