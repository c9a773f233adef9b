// Box storage: axis-aligned boxes held as struct-of-arrays.
//
// A box is valid when min <= max on every axis. NaN makes that comparison
// false, so one test covers both kinds of invalid box (NaN, min > max).
// Infinite coordinates are valid: a ground slab may span -inf..+inf.
// Invalid boxes take part in no pair; every algorithm skips them (see
// src/core/working_set.hpp) and reports which ones it skipped.
//
// The types are templated on the scalar type and the number of axes so that
// double precision and 2-D need no rewrite; the library is tuned for float 3-D.
// The tests on boxes (overlaps, contains, ...) are in geometry.hpp, which
// this header includes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "box.hpp"
#include "detail/box_rules.hpp"
#include "detail/page_advice.hpp"
#include "geometry.hpp"

namespace broadphase {


/// A non-owning view of n boxes kept in someone else's arrays: what every
/// algorithm, BasicPairFinder and BasicIndex read. Copying a view copies 2*D
/// pointers, never the boxes; the arrays must outlive each call that reads
/// them (a build() copies what it keeps, so they may change after it).
///
/// Two layouts:
/// - struct of arrays (soa(), and every BasicBoxes, which converts
///   implicitly): one contiguous array per axis for min and for max. Zero
///   copy: the SIMD kernels read the caller's arrays in place.
/// - strided, array of structs (aos(), rows(), boxes()): axis k's min of box
///   i at byte offset i * stride from the first box's min[k], e.g.
///   `struct Body { float min[3], max[3]; int id; }`. The kernels need
///   struct of arrays, so each call first gathers the boxes into the
///   algorithm's own arrays: one O(n) pass (2*D reads and writes a box)
///   into memory reused between calls, so no allocation once warm (except
///   query_batch, whose query copy is per call so it can run on many
///   threads).
template <class T, int D>
class BasicBoxesView {
public:
    using scalar = T;
    static constexpr int dims = D;
    using box_type = BasicBox<T, D>;

    /// An empty view (no boxes). O(1).
    BasicBoxesView() = default;

    /// Struct of arrays: min[k] and max[k] point at n values each (axis k).
    /// Zero copy. O(D).
    static BasicBoxesView soa(const std::array<const T*, D>& min, const std::array<const T*, D>& max, std::size_t n) {
        BasicBoxesView v;
        for (int k = 0; k < D; ++k) {
            v.lo_[k] = min[static_cast<std::size_t>(k)];
            v.hi_[k] = max[static_cast<std::size_t>(k)];
        }
        v.n_ = n;
        return v;
    }

    /// Strided (array of structs): box i's min on axis k is at
    /// `(const char*)first_min + i * stride_bytes` advanced by k values, its
    /// max likewise from first_max. stride_bytes must be a multiple of
    /// alignof(T). Algorithms gather these into struct of arrays on each
    /// call: O(n), no allocation once warm (see the class comment). O(D).
    static BasicBoxesView aos(const T* first_min, const T* first_max, std::size_t stride_bytes, std::size_t n) {
        BasicBoxesView v;
        if (n == 0) return v;
        for (int k = 0; k < D; ++k) {
            v.lo_[k] = first_min + k;
            v.hi_[k] = first_max + k;
        }
        v.n_ = n;
        v.stride_ = stride_bytes;
        return v;
    }

    /// Strided view of n rows of 2*D values each: min[0..D), then max[0..D)
    /// (the layout of BasicBoxes::assign_rows). Gathered per call, as aos().
    static BasicBoxesView rows(const T* rows, std::size_t n) { return aos(rows, rows + D, 2 * D * sizeof(T), n); }

    /// Strided view of an array of n BasicBox values. Gathered per call, as aos().
    static BasicBoxesView boxes(const box_type* boxes, std::size_t n) {
        if (n == 0) return BasicBoxesView();
        return aos(boxes[0].min.data(), boxes[0].max.data(), sizeof(box_type), n);
    }

    /// The number of boxes (valid or not). O(1).
    std::size_t size() const { return n_; }
    /// True when the view has no boxes. O(1).
    bool empty() const { return n_ == 0; }
    /// True for struct of arrays (zero copy); false for a strided view.
    bool contiguous() const { return stride_ == sizeof(T); }
    /// Bytes from one box's value on an axis to the next box's.
    std::size_t stride_bytes() const { return stride_; }

    /// Where axis `axis`'s minima (maxima) start: the array itself when
    /// contiguous(), else the first box's value, stride_bytes() apart.
    const T* min(int axis) const { return lo_[axis]; }
    const T* max(int axis) const { return hi_[axis]; }

    /// Box i's min (max) on one axis, in either layout. O(1).
    T min(int axis, std::size_t i) const { return at(lo_[axis], i); }
    T max(int axis, std::size_t i) const { return at(hi_[axis], i); }

    /// Box i as a value. O(D).
    box_type operator[](std::size_t i) const {
        box_type b;
        for (int k = 0; k < D; ++k) {
            b.min[k] = min(k, i);
            b.max[k] = max(k, i);
        }
        return b;
    }

private:
    T at(const T* p, std::size_t i) const {
        if (contiguous()) return p[i];
        return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(p) + i * stride_);
    }

    const T* lo_[D] = {};
    const T* hi_[D] = {};
    std::size_t n_ = 0;
    std::size_t stride_ = sizeof(T);
};

using BoxesView = BasicBoxesView<float, 3>;

/// Many boxes, one array per axis for min and for max (struct of arrays).
/// Reusing one BasicBoxes between frames through assign_* allocates nothing
/// once its capacity has grown to the largest frame.
template <class T, int D>
class BasicBoxes {
public:
    /// The member types of the view these boxes convert to (one definition).
    using scalar = typename BasicBoxesView<T, D>::scalar;
    static constexpr int dims = BasicBoxesView<T, D>::dims;
    using box_type = typename BasicBoxesView<T, D>::box_type;

    BasicBoxes() = default;
    explicit BasicBoxes(std::size_t n) { resize(n); }

    std::size_t size() const { return lo_[0].size(); }
    bool empty() const { return size() == 0; }

    /// Resizes every axis array; new boxes are zero-sized at the origin. O(n).
    /// (New large arrays go on huge pages: detail/page_advice.hpp.)
    void resize(std::size_t n) {
        for (int k = 0; k < D; ++k) {
            detail::reserve_large(lo_[k], n);
            detail::reserve_large(hi_[k], n);
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

    /// A view of these boxes (struct of arrays, zero copy), valid until the
    /// boxes are resized or destroyed. O(D). BasicBoxes also converts to
    /// BasicBoxesView implicitly, so every function taking a view takes these.
    BasicBoxesView<T, D> view() const {
        std::array<const T*, D> lo, hi;
        for (int k = 0; k < D; ++k) {
            lo[static_cast<std::size_t>(k)] = min(k);
            hi[static_cast<std::size_t>(k)] = max(k);
        }
        return BasicBoxesView<T, D>::soa(lo, hi, size());
    }
    /// The implicit conversion to view(): zero copy, O(D).
    operator BasicBoxesView<T, D>() const { return view(); }

    /// Copies the boxes of a view (either layout) into this set, reusing
    /// memory: no allocation once capacity has grown to the largest view. O(n).
    void assign(const BasicBoxesView<T, D>& v) {
        resize(v.size());
        for (int k = 0; k < D; ++k) {
            T* lo = lo_[k].data();
            T* hi = hi_[k].data();
            if (v.contiguous()) {
                std::copy(v.min(k), v.min(k) + v.size(), lo);
                std::copy(v.max(k), v.max(k) + v.size(), hi);
            } else {
                for (std::size_t i = 0; i < v.size(); ++i) {
                    lo[i] = v.min(k, i);
                    hi[i] = v.max(k, i);
                }
            }
        }
    }

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
