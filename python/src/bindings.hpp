// The parts of broadphase._core, one bind_* function each, called in this
// order by the module's entry point (module.cpp).

#pragma once

#include "common.hpp"

namespace broadphase_python {

/// InvalidBoxError, InvalidBoxWarning, PairBudgetError (numpy_boxes.cpp).
void bind_errors(py::module_& m);

/// find_pairs, PairFinder, algorithms, default_threads and the benchmark
/// hook _time_cpp_find_pairs (bind_pairs.cpp).
void bind_pairs(py::module_& m);

/// find_sphere_pairs (bind_spheres.cpp).
void bind_spheres(py::module_& m);

/// NeighborList: neighbour lists with a skin, open or in a periodic cell
/// (bind_neighbor_list.cpp).
void bind_neighbor_list(py::module_& m);

/// neighbor_list's core: a drop-in for ASE's neighbour list, one system or
/// a batch (bind_ase.cpp).
void bind_ase(py::module_& m);

/// Index: a built set of boxes answering box queries (bind_index.cpp).
void bind_index(py::module_& m);

/// Scene: objects kept between frames, contact events, queries and casts
/// (bind_scene.cpp).
void bind_scene(py::module_& m);

/// builtin_scene: the CLI's built-in scenes as arrays (bind_builtin_scenes.cpp).
void bind_builtin_scenes(py::module_& m);

}  // namespace broadphase_python
