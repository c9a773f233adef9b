// The generic-type cases for float 2-D (see generic_types.hpp): the four
// algorithm classes and the front door, instantiated in a file of their own.
#include "generic_types.hpp"

namespace bptest {
namespace generic {

TypeCases float2d_cases() { return type_cases<float, 2>(); }

}  // namespace generic
}  // namespace bptest
