// The spatial queries a Scene and a DynamicTree share, checked against a
// scan of the live boxes with the library's exact per-box tests
// (box_contains_point, sphere_overlaps_box, ray_hits_box, box_cast_hits_box
// in geometry.hpp): the traversal must find exactly what the scan finds,
// and a ray or box cast the smallest t.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <broadphase/dynamic_tree.hpp>

#include "fuzz_input.hpp"

namespace bpfuzz {

/// A box id and its tight box, for the scan.
template <class T, int D>
struct Live {
    std::uint32_t id;
    broadphase::BasicBox<T, D> box;
};

template <class T, int D>
std::array<T, D> point(FuzzedDataProvider& in, T off) {
    std::array<T, D> p;
    for (int k = 0; k < D; ++k) p[k] = coordinate<T>(in, off);
    return p;
}

/// A direction: mostly small integers (axis-aligned rays and zeros occur), at times any coordinate.
template <class T, int D>
std::array<T, D> direction(FuzzedDataProvider& in) {
    std::array<T, D> d;
    for (int k = 0; k < D; ++k) {
        const std::uint8_t b = in.ConsumeIntegral<std::uint8_t>();
        d[k] = b < 224 ? T(int(b % 7) - 3) : coordinate<T>(in, T(0));
    }
    return d;
}

template <class T>
T radius_or_length(FuzzedDataProvider& in) {
    static const T values[8] = {T(0), T(0.5), T(1), T(3), T(100), std::numeric_limits<T>::infinity(),
                                std::numeric_limits<T>::quiet_NaN(), T(-1)};
    return values[in.ConsumeIntegral<std::uint8_t>() % 8];
}

inline std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

/// Runs one decoded query on `q` (a Scene or a DynamicTree: the same query
/// functions) and checks it against the scan of `live`.
/// `Hit` access: hit_id(h) and h.t.
template <class T, int D, class Q, class HitId>
void check_one_query(FuzzedDataProvider& in, const Q& q, const std::vector<Live<T, D>>& live, T off, HitId hit_id) {
    using broadphase::BasicBox;
    std::vector<std::uint32_t> got, want;
    auto collect = [&](std::uint32_t id) { got.push_back(id); };
    constexpr std::uint32_t none = 0xFFFFFFFFu;
    switch (in.ConsumeIntegral<std::uint8_t>() % 5) {
        case 0: {  // box
            const BasicBox<T, D> b = box<T, D>(in, off, nullptr);
            q.for_each_overlap(b, collect);
            if (b.valid())
                for (const auto& l : live)
                    if (broadphase::overlaps(l.box, b)) want.push_back(l.id);
            break;
        }
        case 1: {  // point
            const auto p = point<T, D>(in, off);
            q.for_each_containing(p, collect);
            for (const auto& l : live)
                if (broadphase::box_contains_point(l.box, p)) want.push_back(l.id);
            break;
        }
        case 2: {  // sphere
            const auto c = point<T, D>(in, off);
            const T r = radius_or_length<T>(in);
            q.for_each_overlapping_sphere(c, r, collect);
            bool ok = r >= T(0);
            for (int k = 0; k < D; ++k) ok = ok && !std::isnan(c[k]);
            if (ok)
                for (const auto& l : live)
                    if (broadphase::sphere_overlaps_box(c, r, l.box)) want.push_back(l.id);
            break;
        }
        case 3: {  // ray: the first hit, and every hit
            const auto o = point<T, D>(in, off);
            const auto d = direction<T, D>(in);
            const T max_t = radius_or_length<T>(in);
            bool ok = max_t >= T(0);
            for (int k = 0; k < D; ++k) ok = ok && std::isfinite(o[k]) && std::isfinite(d[k]);
            std::vector<std::pair<std::uint32_t, T>> hits, all;
            T best = std::numeric_limits<T>::infinity();
            if (ok)
                for (const auto& l : live) {
                    T t;
                    if (broadphase::ray_hits_box(o, d, max_t, l.box, t)) {
                        all.push_back({l.id, t});
                        best = std::min(best, t);
                    }
                }
            const auto h = q.ray_cast(o, d, max_t);
            if (all.empty()) {
                BPFUZZ_CHECK(hit_id(h) == none);
            } else {
                BPFUZZ_CHECK(hit_id(h) != none && h.t == best);
                bool found = false;
                for (const auto& a : all) found = found || (a.first == hit_id(h) && a.second == best);
                BPFUZZ_CHECK(found);
            }
            q.for_each_ray_hit(o, d, max_t, [&](std::uint32_t id, T t) { hits.push_back({id, t}); });
            std::sort(hits.begin(), hits.end());
            std::sort(all.begin(), all.end());
            BPFUZZ_CHECK(hits == all);
            return;
        }
        default: {  // box cast: the first touch
            const BasicBox<T, D> m = box<T, D>(in, off, nullptr);
            const auto v = direction<T, D>(in);
            bool ok = m.valid();
            for (int k = 0; k < D; ++k) ok = ok && std::isfinite(v[k]);
            T best = std::numeric_limits<T>::infinity();
            bool any = false;
            if (ok)
                for (const auto& l : live) {
                    T t;
                    if (broadphase::box_cast_hits_box(m, v, l.box, t)) any = true, best = std::min(best, t);
                }
            const auto h = q.box_cast(m, v);
            if (!any) {
                BPFUZZ_CHECK(hit_id(h) == none);
            } else {
                BPFUZZ_CHECK(hit_id(h) != none && h.t == best);
            }
            return;
        }
    }
    BPFUZZ_CHECK(sorted(got) == sorted(want));
}

}  // namespace bpfuzz
