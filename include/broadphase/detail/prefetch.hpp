// Asking for a cache line ahead of a random access: the one place the
// compiler builtin is spelled (a no-op where the compiler has none).
#pragma once

namespace broadphase {
namespace detail {

/// Starts loading the line holding p, to be read soon. O(1), no effect on
/// the program's meaning; p need not be valid.
inline void prefetch_read(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0);
#else
    (void)p;
#endif
}

/// Starts loading the line holding p, to be written soon.
inline void prefetch_write(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 1);
#else
    (void)p;
#endif
}

}  // namespace detail
}  // namespace broadphase
