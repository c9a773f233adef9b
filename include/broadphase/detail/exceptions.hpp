// Builds with and without C++ exceptions (-fno-exceptions, as game engines
// compile). The library reports its errors as Status values either way;
// internally it uses exceptions to carry an allocation failure or an index
// overflow out of deep code, and across worker threads. Those try/catch/throw
// sites are the four functions below (throw_or_abort, undo_on_throw, on_throw,
// caught), which without exceptions become plain calls.
//
// Without exceptions:
// - what the library detects itself still comes back as a Status: too many
//   boxes or cell entries for 32-bit indices (Status::too_many_boxes, through
//   the flag below), pair budgets, stopping callbacks, invalid boxes (listed
//   in the report), a bad period (Status::invalid_argument instead of
//   std::invalid_argument);
// - an allocation failure cannot be caught: operator new ends the program
//   (std::abort, the standard library's -fno-exceptions behaviour), where with
//   exceptions the call returns Status::out_of_memory; so does a failure to
//   start a helper thread.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <utility>

/// 1 when the library is compiled with C++ exceptions, 0 without
/// (-fno-exceptions). Detected from __cpp_exceptions, __EXCEPTIONS (GCC,
/// clang) and _CPPUNWIND (MSVC) unless defined before the first broadphase
/// header. Defining it 0 in a build with exceptions selects the
/// no-exceptions paths, for testing them: the library then catches nothing,
/// so a std::bad_alloc leaves the call (or, on a helper thread, ends the
/// program) instead of becoming Status::out_of_memory. Every translation
/// unit of a program must see the same value (so a -fno-exceptions program
/// that wants the no-exceptions paths everywhere takes the single header,
/// single_include/broadphase.hpp, not the library compiled with exceptions).
#ifndef BROADPHASE_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define BROADPHASE_EXCEPTIONS 1
#else
#define BROADPHASE_EXCEPTIONS 0
#endif
#endif

// What differs between the two builds lives in an inline namespace named
// after the build, so that its symbols differ: a -fno-exceptions program
// may link the compiled library (built with exceptions), and the linker must
// not take one build's require_indices (or an instantiation of the helpers
// below) for both. Each file that has such code opens the namespace with
// the same five lines.
namespace broadphase {
namespace detail {
#if BROADPHASE_EXCEPTIONS
inline namespace with_exceptions {
#else
inline namespace without_exceptions {
#endif

// The library's try/catch/throw sites, written once each here: the rest of
// the library calls these, and without exceptions they compile to the plain
// call (a handler never runs, a throw ends the program).

/// `throw e`; without exceptions std::abort(): for what cannot be reported
/// otherwise (an allocation that the caller turns into a Status where it can).
template <class E>
[[noreturn]] void throw_or_abort(E&& e) {
#if BROADPHASE_EXCEPTIONS
    throw std::forward<E>(e);
#else
    static_cast<void>(e);
    std::abort();
#endif
}

/// `try { return body(); } catch (...) { undo(); throw; }`: undo() puts
/// back what body() left half done (or lets go of memory), and the exception
/// goes on. Without exceptions body(). O(1) beside body().
template <class Body, class Undo>
decltype(auto) undo_on_throw(Body&& body, Undo&& undo) {
#if BROADPHASE_EXCEPTIONS
    try {
        return body();
    } catch (...) {
        undo();
        throw;
    }
#else
    static_cast<void>(undo);
    return body();
#endif
}

/// `try { return body(); } catch (const E&) { return handler(); }`, the two
/// returning the same type. Without exceptions body(). O(1) beside body().
template <class E, class Body, class Handler>
decltype(auto) on_throw(Body&& body, Handler&& handler) {
#if BROADPHASE_EXCEPTIONS
    try {
        return body();
    } catch (const E&) {
        return handler();
    }
#else
    static_cast<void>(handler);
    return body();
#endif
}

/// Runs body() and returns what it threw (null when nothing), for a worker
/// thread to hand its error to the thread that waits for it. Without
/// exceptions body() and null. O(1) beside body().
template <class Body>
std::exception_ptr caught(Body&& body) {
#if BROADPHASE_EXCEPTIONS
    try {
        body();
    } catch (...) {
        return std::current_exception();
    }
#else
    body();
#endif
    return nullptr;
}


#if BROADPHASE_EXCEPTIONS
/// With exceptions an index overflow is thrown (TooManyIndices), never
/// flagged: nothing to take. O(1).
constexpr bool take_index_overflow() { return false; }
#else
/// The calling thread's index-overflow flag: set by require_indices, where
/// with exceptions TooManyIndices is thrown.
inline bool& index_overflow_flag() {
    static thread_local bool flag = false;
    return flag;
}
/// Whether an index overflow was flagged on this thread since the last
/// take; clears the flag. The algorithms' front (algorithm_base.hpp) turns
/// it into Status::too_many_boxes. O(1).
inline bool take_index_overflow() {
    const bool set = index_overflow_flag();
    index_overflow_flag() = false;
    return set;
}
#endif

}  // inline namespace with_exceptions / without_exceptions
}  // namespace detail
}  // namespace broadphase
