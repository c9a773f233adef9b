// Builds with and without C++ exceptions (-fno-exceptions, as game engines
// compile). The library reports its errors as Status values either way;
// internally it uses exceptions to carry an allocation failure or an index
// overflow out of deep code, and across worker threads. Those try/catch/throw
// sites are written with the macros below, which without exceptions become
// plain blocks whose handlers are never compiled into anything that runs.
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

#if BROADPHASE_EXCEPTIONS
/// `try`; without exceptions a block that always runs (internal).
#define BROADPHASE_TRY try
/// `catch (decl)`; without exceptions a block that never runs, whose
/// declaration is dropped: its body must not name the exception (internal).
#define BROADPHASE_CATCH(...) catch (__VA_ARGS__)
/// `catch (...)`; without exceptions a block that never runs (internal).
#define BROADPHASE_CATCH_ALL catch (...)
/// `throw;` in a handler; without exceptions nothing (the handler never
/// runs) (internal).
#define BROADPHASE_RETHROW throw
/// `throw expr`; without exceptions std::abort(), for what cannot be
/// reported otherwise (internal).
#define BROADPHASE_THROW(...) throw __VA_ARGS__
#else
#define BROADPHASE_TRY if (true)
#define BROADPHASE_CATCH(...) else if (false)
#define BROADPHASE_CATCH_ALL else if (false)
#define BROADPHASE_RETHROW static_cast<void>(0)
#define BROADPHASE_THROW(...) ::std::abort()
#endif

// What differs between the two builds lives in an inline namespace named
// after the build, so that its symbols differ: a -fno-exceptions program
// may link the compiled library (built with exceptions), and the linker must
// not take one build's require_indices for both.
#if BROADPHASE_EXCEPTIONS
#define BROADPHASE_EXCEPTIONS_NAMESPACE with_exceptions
#else
#define BROADPHASE_EXCEPTIONS_NAMESPACE without_exceptions
#endif

namespace broadphase {
namespace detail {
inline namespace BROADPHASE_EXCEPTIONS_NAMESPACE {

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

}  // inline namespace BROADPHASE_EXCEPTIONS_NAMESPACE
}  // namespace detail
}  // namespace broadphase
