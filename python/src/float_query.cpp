// float64 queries answered exactly against float32 boxes (see float_query.hpp).

#include "float_query.hpp"

#include <cmath>
#include <limits>

namespace broadphase_python {

float float_up(double d) {
    constexpr double top = std::numeric_limits<float>::max();
    if (d > top) return std::numeric_limits<float>::infinity();
    if (d < -top) return d == -std::numeric_limits<double>::infinity() ? -std::numeric_limits<float>::infinity()
                                                                       : -std::numeric_limits<float>::max();
    float f = static_cast<float>(d);  // nearest, in range
    if (static_cast<double>(f) < d) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

float float_down(double d) { return -float_up(-d); }

}  // namespace broadphase_python
