// The generic-type cases for double 2-D (see generic_types.hpp): the four
// algorithm classes and the front door, instantiated in a file of their own.
#include "generic_types.hpp"

namespace bptest {
namespace generic {

TypeCases double2d_cases() { return type_cases<double, 2>(); }

}  // namespace generic
}  // namespace bptest
