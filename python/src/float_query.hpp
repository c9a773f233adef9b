// float64 queries answered exactly against float32 boxes (a float32 Index
// or Scene given float64 query boxes and points).
//
// Answers are exact in the input's precision: float64 input is never
// rounded to float32 on its way to an answer. find_pairs compares a float32
// set and a float64 set in float64 (bind_pairs.cpp); a float32 Index or
// Scene answers float64 query boxes and points through FloatQuery below.
// What a float32 Scene stores is float32 (its dtype), so add/move round
// float64 boxes to nearest there; its sphere and ray queries and box casts
// compute in float32 (they round in arithmetic anyway).

#pragma once

#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdint>
#include <vector>

#include <broadphase/boxes.hpp>

namespace broadphase_python {

/// The smallest float >= d (d not NaN).
float float_up(double d);

/// The largest float <= d (d not NaN).
float float_down(double d);

/// A float64 query box answered exactly against float32 boxes.
///
/// A box b overlaps the query q iff, on every axis, b.max >= q.min and
/// b.min <= q.max. For a float x, x >= q.min iff x >= float_up(q.min), and
/// x <= q.max iff x <= float_down(q.max). So q rounded inwards, [float_up(min),
/// float_down(max)], hits exactly the float boxes q hits: no re-test needed.
/// One exception: an axis where no float lies in [q.min, q.max] (a gap: a
/// point or a sliver between two adjacent floats lo < hi). There the inward
/// box would be inverted, which the library takes for an invalid box, while
/// the boxes q hits are those with min <= lo and max >= hi: exactly the boxes
/// that hit both [hi, hi] and [lo, lo]. Such a query is answered as the
/// intersection of the hits of `a` ([hi, hi] on each gap axis) and `b`
/// ([lo, lo]), the other axes rounded inwards in both. An invalid query (NaN,
/// min > max) stays invalid: rounded inwards its min still exceeds its max.
/// A query whose values are all floats is unchanged.
template <int D>
struct BasicFloatQuery {
    bp::BasicBox<float, D> a, b;  // b: only when gap
    bool gap = false;
};
using FloatQuery = BasicFloatQuery<3>;

/// The FloatQuery of q (minx miny minz maxx maxy maxz; for D = 2 minx miny
/// maxx maxy).
template <int D = 3>
BasicFloatQuery<D> float_query(const double* q) {
    bool valid = true;
    for (int k = 0; k < D; ++k) valid = valid && q[k] <= q[D + k];
    BasicFloatQuery<D> fq;
    for (int k = 0; k < D; ++k) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float lo = std::isnan(q[k]) ? nan : float_up(q[k]);
        const float hi = std::isnan(q[D + k]) ? nan : float_down(q[D + k]);
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

/// The hits of a FloatQuery into `hits` (replaced), in query(a)'s order.
/// query(box, out) replaces out with the ids a float box hits.
template <int D, class Query>
void float_query_hits(const BasicFloatQuery<D>& fq, Query&& query, std::vector<std::uint32_t>& hits) {
    query(fq.a, hits);
    if (!fq.gap || hits.empty()) return;
    std::vector<std::uint32_t> other;
    query(fq.b, other);
    std::sort(other.begin(), other.end());
    hits.erase(std::remove_if(hits.begin(), hits.end(),
                              [&](std::uint32_t id) { return !std::binary_search(other.begin(), other.end(), id); }),
               hits.end());
}

}  // namespace broadphase_python
