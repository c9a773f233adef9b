// Large buffers on 2 MB pages, where the kernel allows it: the memory a
// first call touches for the first time.
//
// Why. A search over 10^5 - 10^6 particles or boxes writes tens of MB that
// a fresh process (or a fresh finder) has never touched: every 4 KB page
// is a page fault, and on a virtual machine a fault costs far more than
// writing the page (256,000 LJ atoms, 80 MB of pairs: a third of a first
// find_sphere_pairs call was page faults). With transparent huge pages in
// `madvise` mode (Debian's and Ubuntu's default) a mapping advised with
// MADV_HUGEPAGE takes one fault per 2 MB instead of 512.
//
// What. Buffers of at least `large_bytes` (2 MB) are mapped with mmap, 2
// MB-aligned, and advised MADV_HUGEPAGE; smaller ones, and every buffer
// where there is no mmap (not Linux) or under AddressSanitizer (which
// checks heap memory only), come from operator new as usual. Where the
// kernel has huge pages off, the advice changes nothing: the memory is
// ordinary pages, as before. LargePageAllocator also leaves new elements
// of trivial types uninitialised on resize() (std::vector would zero them:
// a second pass over memory its owner writes anyway); only the library's
// scratch uses it, never a vector handed to a caller.
//
// Without exceptions (BROADPHASE_EXCEPTIONS 0) a failed mapping aborts, as
// operator new does there.
//
// LargeArray<T> (large_array.hpp) is the growable block built on these: the
// output a search writes once and hands over.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "exceptions.hpp"
#include "page_advice.hpp"

namespace broadphase {
namespace detail {

/// bytes rounded up to whole huge pages. O(1).
inline std::size_t large_round(std::size_t bytes) { return (bytes + large_page - 1) & ~(large_page - 1); }

/// Whether a buffer of `bytes` is mapped (large_allocate). O(1).
inline bool large_mapped(std::size_t bytes) { return BROADPHASE_LARGE_PAGES_MAPPED && bytes >= large_bytes; }

/// The alignment operator new gives without being asked.
constexpr std::size_t new_alignment = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

/// `bytes` of memory aligned to `align` (a power of two up to 2 MB):
/// mapped 2 MB-aligned on huge pages when large_mapped(bytes), else from
/// operator new (the aligned one past new_alignment). Throws
/// std::bad_alloc. O(1) (the pages are given on first touch).
inline void* large_allocate(std::size_t bytes, std::size_t align = new_alignment) {
#if BROADPHASE_LARGE_PAGES_MAPPED
    if (large_mapped(bytes)) {
        const std::size_t len = large_round(bytes);
        if (len < bytes || len > std::numeric_limits<std::size_t>::max() - large_page) detail::throw_or_abort(std::bad_alloc());
        // Map a huge page more than asked, then give back the ends that
        // are not 2 MB-aligned.
        void* m = mmap(nullptr, len + large_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) detail::throw_or_abort(std::bad_alloc());
        const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(m);
        const std::uintptr_t b = (at + large_page - 1) & ~(large_page - 1);
        if (b > at) munmap(m, b - at);
        if (at + large_page > b) munmap(reinterpret_cast<void*>(b + len), at + large_page - b);
        (void)madvise(reinterpret_cast<void*>(b), len, MADV_HUGEPAGE);
        return reinterpret_cast<void*>(b);
    }
#endif
    // (Past PTRDIFF_MAX no allocator can succeed; some, under sanitizers,
    // return null instead of throwing.)
    if (bytes > static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max())) detail::throw_or_abort(std::bad_alloc());
    void* p = align > new_alignment ? ::operator new(bytes, std::align_val_t(align)) : ::operator new(bytes);
    if (!p) detail::throw_or_abort(std::bad_alloc());
    return p;
}

/// Frees what large_allocate(bytes, align) gave. O(1).
inline void large_free(void* p, std::size_t bytes, std::size_t align = new_alignment) noexcept {
    if (!p) return;
#if BROADPHASE_LARGE_PAGES_MAPPED
    if (large_mapped(bytes)) {
        munmap(p, large_round(bytes));
        return;
    }
#endif
    (void)bytes;
    if (align > new_alignment) ::operator delete(p, std::align_val_t(align));
    else ::operator delete(p);
}

/// Moves a block of `old_bytes` (from large_allocate) to one of
/// `new_bytes`, keeping its first `keep` bytes: between two mapped sizes
/// by mremap (no copy), else a new block, a copy and a free. Throws
/// std::bad_alloc (the old block then stays valid). O(keep) at most.
inline void* large_reallocate(void* p, std::size_t old_bytes, std::size_t new_bytes, std::size_t keep,
                              std::size_t align = new_alignment) {
    if (!p) return large_allocate(new_bytes, align);
#if BROADPHASE_LARGE_PAGES_MAPPED
    if (large_mapped(old_bytes) && large_mapped(new_bytes)) {
        const std::size_t from = large_round(old_bytes), to = large_round(new_bytes);
        if (from == to) return p;
        void* m = mremap(p, from, to, MREMAP_MAYMOVE);
        if (m == MAP_FAILED) detail::throw_or_abort(std::bad_alloc());
        if (to > from) advise_large_pages(m, to);
        return m;
    }
#endif
    void* q = large_allocate(new_bytes, align);
    if (keep) std::memcpy(q, p, keep < new_bytes ? keep : new_bytes);
    large_free(p, old_bytes, align);
    return q;
}

/// A std::allocator for the library's scratch: large blocks on huge pages
/// (large_allocate), and elements constructed without a value (no zeroing
/// on resize for trivial types: the owner writes them).
template <class T>
struct LargePageAllocator {
    using value_type = T;
    LargePageAllocator() noexcept = default;
    template <class U>
    LargePageAllocator(const LargePageAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) detail::throw_or_abort(std::bad_alloc());
        return static_cast<T*>(large_allocate(n * sizeof(T), alignof(T)));
    }
    void deallocate(T* p, std::size_t n) noexcept { large_free(p, n * sizeof(T), alignof(T)); }
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... A>
    void construct(U* p, A&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<A>(args)...);
    }
    template <class U>
    bool operator==(const LargePageAllocator<U>&) const noexcept { return true; }
    template <class U>
    bool operator!=(const LargePageAllocator<U>&) const noexcept { return false; }
};

/// The library's scratch arrays: std::vector on LargePageAllocator.
template <class T>
using LargeVector = std::vector<T, LargePageAllocator<T>>;

}  // namespace detail
}  // namespace broadphase
