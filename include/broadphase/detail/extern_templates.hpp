// Compiling the library's class templates once, for programs with many
// translation units.
//
// The library is header-only, so every translation unit that calls, say,
// PairFinder::find_pairs compiles all five algorithms again: about 18 s of
// g++ 12 at -O2. A program that links the CMake target broadphase::compiled
// (a static library holding the explicit instantiations for float and
// double boxes in 2-D and 3-D) gets BROADPHASE_EXTERN_TEMPLATES defined; each
// header then declares those specialisations `extern template`, and its
// translation units skip them. It works on what is not inline: the calls
// that run an algorithm (find_pairs, build, query, query_batch of the
// algorithms, PairFinder and Index) are defined out of their class body for
// this, and the callback calls (for_each_pair, for_each_overlap, ...) hand
// an erased callback to such a call (detail::BatchedCallbackSink), so a
// file that uses them compiles the call, not the algorithm. Other scalar
// types and dimensions, and what stays inline, are still compiled where
// used, so nothing changes in what a call does.
//
// Each header names what it instantiates in one macro,
// BROADPHASE_INSTANTIATE_<NAME>(E, T, D), written once and used twice: with
// E = extern in the header, with E empty in src/compiled/.
#pragma once

/// Calls M(E, T, D) for the four specialisations broadphase::compiled holds.
#define BROADPHASE_FOR_COMMON_TYPES(M, E) M(E, float, 2) M(E, float, 3) M(E, double, 2) M(E, double, 3)

#if defined(BROADPHASE_EXTERN_TEMPLATES) && BROADPHASE_EXTERN_TEMPLATES
/// Declares M's specialisations extern (when BROADPHASE_EXTERN_TEMPLATES is on).
#define BROADPHASE_DECLARE_EXTERN(M) BROADPHASE_FOR_COMMON_TYPES(M, extern)
#else
#define BROADPHASE_DECLARE_EXTERN(M)
#endif
