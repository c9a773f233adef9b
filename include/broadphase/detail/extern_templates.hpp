// The compiled library: the class templates instantiated once.
//
// Every translation unit that calls, say, PairFinder::find_pairs would
// otherwise compile all five algorithms again (measured:
// docs/measured-in-code.md#compile-times).
// The CMake target broadphase::broadphase is, by default, a static library
// (src/) holding the explicit instantiations for float and double boxes in
// 2-D and 3-D, and gives its users BROADPHASE_EXTERN_TEMPLATES=1 (as does
// pkg-config's --cflags). Each header then declares those specialisations
// `extern template`, and a program's files skip them. The header names its
// specialisations once, at its end, in a macro of the class templates for
// one T and D (grep `template class`):
//   #define BROADPHASE_SCENE_TEMPLATES(T, D, prefix) prefix template class BasicScene<T, D>;
// declares them under `#if BROADPHASE_EXTERN_TEMPLATES` with
//   BROADPHASE_COMPILED_TYPES(BROADPHASE_SCENE_TEMPLATES, extern)
// and src/scene.cpp defines them with an empty prefix; the four (T, D) are
// listed once, in BROADPHASE_COMPILED_TYPES below. It works on what is not
// inline: the calls that run an algorithm (find_pairs, build, query,
// query_batch of the algorithms, PairFinder and Index) are defined out of
// their class body for this, and the callback calls (for_each_pair,
// for_each_overlap, ...) hand an erased callback to such a call
// (a streaming PairSink), so a file that uses them compiles the call,
// not the algorithm. Other scalar types and dimensions, and what stays
// inline, are still compiled where used, so nothing changes in what a call
// does.
//
// Bodies out of the headers, as {fmt}'s format.h and format-inl.h: a
// header may keep only declarations, and its bodies go to
// detail/<header>-inl.hpp: detail/broadphase-inl.hpp, for
// <broadphase/broadphase.hpp> (PairFinder, Index, choose_algorithm, with
// the algorithms behind them); one for each algorithm header (the public
// class is a front, detail/algorithm_front.hpp, holding the algorithm
// behind a pointer: detail/brute_force-inl.hpp, ..., the two grids'
// detail/uniform_grid-inl.hpp and hybrid_grid-inl.hpp over
// detail/grid_algorithm-inl.hpp); detail/dynamic_tree-inl.hpp (the tree's
// mutation; its queries stay in the header); detail/neighbor_list-inl.hpp
// and detail/spheres-inl.hpp, the only files that include the cell list,
// detail/cell_list.hpp; detail/periodic-inl.hpp; and
// detail/scene-inl.hpp, for <broadphase/scene.hpp>: the Scene's members,
// and its engines, statics' index and query tree, held behind a pointer
// as detail::SceneState, which only that file includes. The
// -inl file is included by src/<name>.cpp, which instantiates the compiled
// types, and, header-only, by its header as that header's last line under
// `#if !BROADPHASE_EXTERN_TEMPLATES`. The rule on includes: no file includes
// a file that includes it, so the -inl file does not include its header
// back; it comes after it (an #error says so otherwise). The classes whose
// bodies are still split over several files for length (the grids' cores,
// the cell list, the dynamic tree) follow the same rule: the header
// includes its body files at its end, and each body file checks that the
// header came first instead of including it (the package test reads that
// #error line); an -inl file split for length includes its parts
// (detail/scene-inl.hpp: detail/scene/scene_update.hpp and
// scene_queries.hpp, which check for scene.hpp). Other scalar types and
// dimensions with the compiled library (BasicPairFinder<float, 1>,
// BasicScene<double, 1>): a file includes the -inl file after the header,
// as the headers that still hold their bodies do (the Scene's
// detail/scene/engines.hpp and static_set.hpp, included by
// detail/scene-inl.hpp), and the compiled types stay extern there.
//
// What throws std::invalid_argument for a bad argument (a period, a cell,
// a cutoff) stays inline, in the caller's translation unit, and a class
// with such members names its compiled members one by one instead of
// `template class` (periodic.hpp, neighbor_list.hpp, spheres.hpp): a
// -fno-exceptions program that links the library, compiled with
// exceptions, then gets Status::invalid_argument, not a throw from the
// library's copy.
//
// Header-only (CMake: -DBROADPHASE_HEADER_ONLY=ON; or copying include/):
// leave BROADPHASE_EXTERN_TEMPLATES undefined or 0, and every file compiles
// what it uses. With exceptions off (-fno-exceptions) a program may link the
// compiled library, whose objects are built with exceptions: see
// detail/exceptions.hpp.
#pragma once

#ifndef BROADPHASE_EXTERN_TEMPLATES
/// 1 when the program links the compiled library (src/): the headers then
/// declare its specialisations extern. Set by the CMake target and by
/// pkg-config; 0 (header-only) otherwise.
#define BROADPHASE_EXTERN_TEMPLATES 0
#endif

/// The scalar types and dimensions compiled into the library, listed once:
/// expands X(T, D, prefix, ...) for float and double boxes in 2-D and 3-D
/// (`prefix`: `extern` in the headers, empty in src/; then what else X takes).
#define BROADPHASE_COMPILED_TYPES(X, ...) \
    X(float, 2, __VA_ARGS__) X(float, 3, __VA_ARGS__) X(double, 2, __VA_ARGS__) X(double, 3, __VA_ARGS__)

/// The scalar types compiled into the library for what takes no dimension
/// (the sphere finder, the neighbour list: 3-D only), listed once: expands
/// X(T, prefix, ...) for float and double.
#define BROADPHASE_COMPILED_SCALARS(X, ...) X(float, __VA_ARGS__) X(double, __VA_ARGS__)
