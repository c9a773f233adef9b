// LargeArray<T>: a growable block of trivially copyable T that is mapped on
// 2 MB pages when large (detail/large_pages.hpp says why), grows without
// copying where it is mapped (mremap moves page tables, not bytes), and can
// hand its memory over to an owner that frees it (the Python module's numpy
// arrays): the pairs of a sphere search are written there once, straight
// into the array returned (SpherePairFinder::find_pairs_into).
#pragma once

#include <cstddef>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include "detail/exceptions.hpp"
#include "detail/large_pages.hpp"

namespace broadphase {

/// A growable block of trivially copyable T, mapped on huge pages when
/// large, that grows without copying where it is mapped and can hand its
/// memory over (release): the memory a search writes its output into once.
template <class T>
class LargeArray {
    static_assert(std::is_trivially_copyable<T>::value, "LargeArray: trivially copyable elements");

public:
    LargeArray() = default;
    LargeArray(const LargeArray&) = delete;
    LargeArray& operator=(const LargeArray&) = delete;
    LargeArray(LargeArray&& o) noexcept { swap(o); }
    LargeArray& operator=(LargeArray&& o) noexcept {
        LargeArray(std::move(o)).swap(*this);
        return *this;
    }
    ~LargeArray() { detail::large_free(data_, capacity_ * sizeof(T), alignof(T)); }

    void swap(LargeArray& o) noexcept {
        std::swap(data_, o.data_), std::swap(size_, o.size_), std::swap(capacity_, o.capacity_);
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return size_; }
    std::size_t capacity() const { return capacity_; }
    bool empty() const { return size_ == 0; }
    T& operator[](std::size_t i) { return data_[i]; }
    const T& operator[](std::size_t i) const { return data_[i]; }

    /// Room for n elements, the first size() kept (growing by half at
    /// least, so that growing one step at a time is amortised O(1)). Throws
    /// std::bad_alloc, the array unchanged. O(1) mapped, O(size()) else.
    void reserve(std::size_t n) {
        if (n <= capacity_) return;
        if (n > std::numeric_limits<std::size_t>::max() / (2 * sizeof(T))) detail::throw_or_abort(std::bad_alloc());
        std::size_t c = capacity_ + capacity_ / 2;
        if (c < n) c = n;
        data_ = static_cast<T*>(
            detail::large_reallocate(data_, capacity_ * sizeof(T), c * sizeof(T), size_ * sizeof(T), alignof(T)));
        capacity_ = c;
    }
    /// Sets the size to n (n <= capacity(); new elements unwritten). O(1).
    void set_size(std::size_t n) { size_ = n; }
    /// Resizes, leaving new elements unwritten. O(1) amortised.
    void resize(std::size_t n) {
        reserve(n);
        size_ = n;
    }
    void clear() { size_ = 0; }

    /// Takes over memory from large_allocate(bytes) (a block an earlier
    /// release() gave out), empty, its capacity bytes / sizeof(T); frees
    /// what the array held. O(1).
    void adopt(T* data, std::size_t bytes) {
        detail::large_free(data_, capacity_ * sizeof(T), alignof(T));
        data_ = data, size_ = 0, capacity_ = bytes / sizeof(T);
    }

    /// Gives the memory to the caller: (data, capacity in bytes), to be
    /// freed with detail::large_free(data, bytes); the array is left empty. O(1).
    std::pair<T*, std::size_t> release() {
        static_assert(alignof(T) <= detail::new_alignment, "LargeArray::release: large_free's default alignment");
        std::pair<T*, std::size_t> r{data_, capacity_ * sizeof(T)};
        data_ = nullptr, size_ = capacity_ = 0;
        return r;
    }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace broadphase
