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

FloatQuery float_query(const double* q) {
    bool valid = true;
    for (int k = 0; k < 3; ++k) valid = valid && q[k] <= q[3 + k];
    FloatQuery fq;
    for (int k = 0; k < 3; ++k) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float lo = std::isnan(q[k]) ? nan : float_up(q[k]);
        const float hi = std::isnan(q[3 + k]) ? nan : float_down(q[3 + k]);
        if (valid && lo > hi) {  // a gap: hi < q.min <= q.max < lo, adjacent floats
            fq.gap = true;
            fq.a.min[k] = fq.a.max[k] = lo;
            fq.b.min[k] = fq.b.max[k] = hi;
        } else {
            fq.a.min[k] = fq.b.min[k] = lo;
            fq.a.max[k] = fq.b.max[k] = hi;
        }
    }
    return fq;
}

}  // namespace broadphase_python
