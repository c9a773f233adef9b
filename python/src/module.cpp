// The Python module broadphase._core (re-exported by broadphase/__init__.py):
// the library on numpy arrays, through pybind11.
//
// One file per part of what it binds, each with a bind_* function that this
// entry point calls (bindings.hpp):
//   numpy_boxes.cpp          arrays in and out, invalid boxes, the errors;
//   float_query.cpp          float64 queries answered exactly on float32 boxes;
//   bind_pairs.cpp           find_pairs, PairFinder, algorithms, default_threads;
//   bind_spheres.cpp         find_sphere_pairs;
//   bind_neighbor_list.cpp   NeighborList;
//   bind_ase.cpp             neighbor_list, neighbor_list_batch (ASE's interface);
//   bind_index.cpp           Index;
//   bind_scene.cpp           Scene;
//   bind_builtin_scenes.cpp  builtin_scene.
// common.hpp holds what broadphase._mpi (mpi_module.cpp) shares with them.
//
// The GIL is released while the library runs. Objects that keep state
// (PairFinder, Scene, NeighborList) lock themselves, so Python threads sharing one are safe.

#include "bindings.hpp"

#include <broadphase/version.hpp>

PYBIND11_MODULE(_core, m) {
    namespace bpy = broadphase_python;
    m.doc() = "broadphase: every overlapping pair among axis-aligned boxes, exactly once (C++ core).";
    m.attr("__version__") = BROADPHASE_VERSION_STRING;

    bpy::bind_errors(m);
    bpy::bind_pairs(m);
    bpy::bind_spheres(m);
    bpy::bind_neighbor_list(m);
    bpy::bind_ase(m);
    bpy::bind_index(m);
    bpy::bind_scene(m);
    bpy::bind_builtin_scenes(m);
}
