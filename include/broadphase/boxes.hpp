// Box storage: axis-aligned boxes held as struct-of-arrays.
//
// A box is valid when min <= max on every axis. NaN makes that comparison
// false, so one test covers both kinds of invalid box (NaN, min > max).
// Infinite coordinates are valid: a ground slab may span -inf..+inf.
// Invalid boxes take part in no pair; every algorithm skips them (see
// detail/working_set.hpp) and reports which ones it skipped.
//
// The types are templated on the scalar type and the number of axes so that
// double precision and 2-D need no rewrite; the library is tuned for float 3-D.
// The tests on boxes (overlaps, contains, ...) are in geometry.hpp, which
// this header includes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace broadphase {

/// One box as a plain value (array of structs): the form queries take.
template <class T, int D>
struct BasicBox {
    std::array<T, D> min{};
    std::array<T, D> max{};

    /// True when min <= max on every axis (false for any NaN). O(D).
    bool valid() const {
        for (int k = 0; k < D; ++k)
            if (!(min[k] <= max[k])) return false;
        return true;
    }
};

using Box = BasicBox<float, 3>;

/// Many boxes, one array per axis for min and for max (struct of arrays).
/// Reusing one BasicBoxes between frames through assign_* allocates nothing
/// once its capacity has grown to the largest frame.
template <class T, int D>
class BasicBoxes {
public:
    using scalar = T;
    static constexpr int dims = D;
    using box_type = BasicBox<T, D>;

    BasicBoxes() = default;
    explicit BasicBoxes(std::size_t n) { resize(n); }

    std::size_t size() const { return lo_[0].size(); }
    bool empty() const { return size() == 0; }

    /// Resizes every axis array; new boxes are zero-sized at the origin. O(n).
    void resize(std::size_t n) {
        for (int k = 0; k < D; ++k) {
            lo_[k].resize(n);
            hi_[k].resize(n);
        }
    }
    void reserve(std::size_t n) {
        for (int k = 0; k < D; ++k) {
            lo_[k].reserve(n);
            hi_[k].reserve(n);
        }
    }
    /// Empties the set and keeps the memory. O(1).
    void clear() { resize(0); }

    /// Appends one box. Amortised O(1).
    void push_back(const box_type& b) {
        for (int k = 0; k < D; ++k) {
            lo_[k].push_back(b.min[k]);
            hi_[k].push_back(b.max[k]);
        }
    }

    /// Box i as a value. O(D).
    box_type operator[](std::size_t i) const {
        box_type b;
        for (int k = 0; k < D; ++k) {
            b.min[k] = lo_[k][i];
            b.max[k] = hi_[k][i];
        }
        return b;
    }
    /// Overwrites box i. O(D).
    void set(std::size_t i, const box_type& b) {
        for (int k = 0; k < D; ++k) {
            lo_[k][i] = b.min[k];
            hi_[k][i] = b.max[k];
        }
    }

    /// The contiguous array of minima (maxima) on one axis.
    const T* min(int axis) const { return lo_[axis].data(); }
    const T* max(int axis) const { return hi_[axis].data(); }
    T* min(int axis) { return lo_[axis].data(); }
    T* max(int axis) { return hi_[axis].data(); }

    /// Fills from n rows of 2*D values each: min[0..D), then max[0..D)
    /// (for 3-D: minx miny minz maxx maxy maxz). Reuses memory. O(n).
    void assign_rows(const T* rows, std::size_t n) {
        resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            const T* r = rows + i * 2 * D;
            for (int k = 0; k < D; ++k) {
                lo_[k][i] = r[k];
                hi_[k][i] = r[D + k];
            }
        }
    }

    /// Fills from any range of user objects through an accessor:
    /// accessor(object) returns a box_type (or anything with min/max arrays).
    template <class Range, class Accessor>
    void assign(const Range& objects, Accessor&& accessor) {
        std::size_t n = 0;
        for (auto it = std::begin(objects); it != std::end(objects); ++it) ++n;
        resize(n);
        std::size_t i = 0;
        for (const auto& obj : objects) {
            const auto b = accessor(obj);
            for (int k = 0; k < D; ++k) {
                lo_[k][i] = static_cast<T>(b.min[k]);
                hi_[k][i] = static_cast<T>(b.max[k]);
            }
            ++i;
        }
    }

    /// Fills from objects exposing getMinX() ... getMaxZ() (3-D only),
    /// directly or through a pointer.
    template <class Range>
    void assign_objects(const Range& objects) {
        static_assert(D == 3, "getMinX()...getMaxZ() describe 3-D boxes");
        assign(objects, [](const auto& o) { return box_of_object(deref(o)); });
    }

private:
    template <class O>
    static const O& deref(const O& o) { return o; }
    template <class O>
    static const O& deref(O* const& o) { return *o; }
    template <class O>
    static const O& deref(const O* const& o) { return *o; }

    template <class O>
    static box_type box_of_object(const O& o) {
        box_type b;
        b.min = {static_cast<T>(o.getMinX()), static_cast<T>(o.getMinY()), static_cast<T>(o.getMinZ())};
        b.max = {static_cast<T>(o.getMaxX()), static_cast<T>(o.getMaxY()), static_cast<T>(o.getMaxZ())};
        return b;
    }

    std::array<std::vector<T>, D> lo_;
    std::array<std::vector<T>, D> hi_;
};

using Boxes = BasicBoxes<float, 3>;

/// Boxes from n rows of minx miny minz maxx maxy maxz. O(n).
template <class T = float, int D = 3>
BasicBoxes<T, D> boxes_from_rows(const T* rows, std::size_t n) {
    BasicBoxes<T, D> b;
    b.assign_rows(rows, n);
    return b;
}

/// Boxes from user objects through accessor(object) -> BasicBox. O(n).
template <class T = float, int D = 3, class Range, class Accessor>
BasicBoxes<T, D> boxes_from(const Range& objects, Accessor&& accessor) {
    BasicBoxes<T, D> b;
    b.assign(objects, accessor);
    return b;
}

/// Boxes from objects (or pointers to objects) with getMinX() ... getMaxZ(). O(n).
template <class T = float, class Range>
BasicBoxes<T, 3> boxes_from_objects(const Range& objects) {
    BasicBoxes<T, 3> b;
    b.assign_objects(objects);
    return b;
}

}  // namespace broadphase

// The box tests (overlaps, contains, and the point, sphere, ray and box-cast
// tests) live in geometry.hpp; included here, after BasicBox, so that this
// header alone still gives them.
#include "geometry.hpp"
