// The scalar O(n^2) reference the core tests compare every algorithm with.
//
// Written from the definition only, sharing no code with the library: a box
// is invalid when a coordinate is NaN or min > max on some axis; two valid
// boxes overlap when, on every axis, neither ends before the other starts
// (closed boxes: touching counts). Slow on purpose: keep inputs small.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

#include <broadphase/boxes.hpp>
#include <broadphase/pairs.hpp>

namespace bptest {

using broadphase::Pair;

/// A box copied out of the library's arrays into a plain struct.
template <class T, int D>
struct RefBox {
    std::array<T, D> lo{};
    std::array<T, D> hi{};
    bool valid = true;
};

template <class T, int D>
bool ref_valid(const std::array<T, D>& lo, const std::array<T, D>& hi) {
    for (int k = 0; k < D; ++k) {
        if (std::isnan(lo[k]) || std::isnan(hi[k])) return false;
        if (lo[k] > hi[k]) return false;
    }
    return true;
}

template <class T, int D>
bool ref_overlap(const RefBox<T, D>& a, const RefBox<T, D>& b) {
    for (int k = 0; k < D; ++k) {
        if (a.hi[k] < b.lo[k]) return false;
        if (b.hi[k] < a.lo[k]) return false;
    }
    return true;
}

/// Reads the caller's arrays directly (min(k)[i], max(k)[i]).
template <class T, int D>
std::vector<RefBox<T, D>> ref_boxes(const broadphase::BasicBoxes<T, D>& in) {
    std::vector<RefBox<T, D>> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        for (int k = 0; k < D; ++k) {
            out[i].lo[k] = in.min(k)[i];
            out[i].hi[k] = in.max(k)[i];
        }
        out[i].valid = ref_valid<T, D>(out[i].lo, out[i].hi);
    }
    return out;
}

template <class T, int D>
RefBox<T, D> ref_box(const broadphase::BasicBox<T, D>& b) {
    RefBox<T, D> r;
    r.lo = b.min;
    r.hi = b.max;
    r.valid = ref_valid<T, D>(r.lo, r.hi);
    return r;
}

/// Indices of invalid boxes, increasing.
template <class T, int D>
std::vector<std::uint32_t> ref_invalid(const broadphase::BasicBoxes<T, D>& in) {
    std::vector<std::uint32_t> out;
    const auto boxes = ref_boxes(in);
    for (std::size_t i = 0; i < boxes.size(); ++i)
        if (!boxes[i].valid) out.push_back(static_cast<std::uint32_t>(i));
    return out;
}

/// Every pair (i, j), i < j, of overlapping valid boxes, sorted by (i, j).
template <class T, int D>
std::vector<Pair> ref_self(const broadphase::BasicBoxes<T, D>& in) {
    const auto boxes = ref_boxes(in);
    std::vector<Pair> out;
    const std::size_t n = boxes.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (!boxes[i].valid) continue;
        for (std::size_t j = i + 1; j < n; ++j)
            if (boxes[j].valid && ref_overlap(boxes[i], boxes[j]))
                out.push_back(Pair{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
    }
    return out;
}

/// Every pair (index in a, index in b) of overlapping valid boxes, sorted.
template <class T, int D>
std::vector<Pair> ref_cross(const broadphase::BasicBoxes<T, D>& a, const broadphase::BasicBoxes<T, D>& b) {
    const auto ba = ref_boxes(a);
    const auto bb = ref_boxes(b);
    std::vector<Pair> out;
    for (std::size_t i = 0; i < ba.size(); ++i) {
        if (!ba[i].valid) continue;
        for (std::size_t j = 0; j < bb.size(); ++j)
            if (bb[j].valid && ref_overlap(ba[i], bb[j]))
                out.push_back(Pair{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
    }
    return out;
}

/// Indices of the boxes of `built` overlapping q, increasing; none if q is invalid.
template <class T, int D>
std::vector<std::uint32_t> ref_query(const std::vector<RefBox<T, D>>& built, const broadphase::BasicBox<T, D>& q) {
    std::vector<std::uint32_t> out;
    const RefBox<T, D> rq = ref_box(q);
    if (!rq.valid) return out;
    for (std::size_t j = 0; j < built.size(); ++j)
        if (built[j].valid && ref_overlap(rq, built[j])) out.push_back(static_cast<std::uint32_t>(j));
    return out;
}

// Compiled once for float and double boxes in 1-D to 3-D, with the build
// type's options, in reference.cpp (broadphase_core_reference, which the
// core harness links); the fuzz targets, which include this file alone,
// define BPTEST_REFERENCE_HEADER_ONLY and compile what they call.
#define BPTEST_REFERENCE_TEMPLATES(T, D, prefix)                                                               \
    prefix template std::vector<RefBox<T, D>> ref_boxes<T, D>(const broadphase::BasicBoxes<T, D>&);             \
    prefix template std::vector<std::uint32_t> ref_invalid<T, D>(const broadphase::BasicBoxes<T, D>&);          \
    prefix template std::vector<Pair> ref_self<T, D>(const broadphase::BasicBoxes<T, D>&);                      \
    prefix template std::vector<Pair> ref_cross<T, D>(const broadphase::BasicBoxes<T, D>&,                      \
                                                      const broadphase::BasicBoxes<T, D>&);                     \
    prefix template std::vector<std::uint32_t> ref_query<T, D>(const std::vector<RefBox<T, D>>&,                \
                                                               const broadphase::BasicBox<T, D>&);
#define BPTEST_REFERENCE_TYPES(prefix)                                                                        \
    BPTEST_REFERENCE_TEMPLATES(float, 1, prefix) BPTEST_REFERENCE_TEMPLATES(float, 2, prefix)                 \
    BPTEST_REFERENCE_TEMPLATES(float, 3, prefix) BPTEST_REFERENCE_TEMPLATES(double, 1, prefix)                \
    BPTEST_REFERENCE_TEMPLATES(double, 2, prefix) BPTEST_REFERENCE_TEMPLATES(double, 3, prefix)
#if !defined(BPTEST_REFERENCE_HEADER_ONLY)
BPTEST_REFERENCE_TYPES(extern)
#endif

}  // namespace bptest
