// Huge-page advice for memory a caller owns: what BasicBoxes::resize needs
// from detail/large_pages.hpp (why huge pages: that file), apart so that
// boxes.hpp does not bring in the library's mapped allocator. Where there
// is no mmap (not Linux) or under AddressSanitizer or MemorySanitizer,
// BROADPHASE_LARGE_PAGES_MAPPED is 0 and the advice does nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define BROADPHASE_LARGE_PAGES_MAPPED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define BROADPHASE_LARGE_PAGES_MAPPED 0
#endif
#endif
#if !defined(BROADPHASE_LARGE_PAGES_MAPPED)
#if defined(__linux__) && defined(MREMAP_MAYMOVE) && defined(MADV_HUGEPAGE)
#define BROADPHASE_LARGE_PAGES_MAPPED 1
#else
#define BROADPHASE_LARGE_PAGES_MAPPED 0
#endif
#endif

namespace broadphase {
namespace detail {

/// A huge page, and the size from which a buffer is mapped on them.
constexpr std::size_t large_page = std::size_t(2) << 20;
constexpr std::size_t large_bytes = large_page;

/// Advises the whole huge pages inside [p, p + bytes) to be backed by huge
/// pages (MADV_HUGEPAGE), for memory not yet touched (a fresh allocation
/// of the C library's: its large blocks are fresh mappings). Nothing where
/// the kernel or platform has no such advice. O(1).
inline void advise_large_pages(void* p, std::size_t bytes) {
#if BROADPHASE_LARGE_PAGES_MAPPED
    if (bytes < 2 * large_page || !p) return;
    const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + large_page - 1) & ~(large_page - 1);
    const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(large_page - 1);
    if (e > b) (void)madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

/// v.reserve(n) for a vector the caller owns (std::allocator), growing by
/// half at least (a set that grows a little every frame reallocates
/// rarely), with the new block advised onto huge pages before anything
/// touches it. O(v.size()).
template <class T, class A>
void reserve_large(std::vector<T, A>& v, std::size_t n) {
    if (n <= v.capacity()) return;
    v.reserve(std::max(n, v.capacity() + v.capacity() / 2));
    advise_large_pages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace detail
}  // namespace broadphase
