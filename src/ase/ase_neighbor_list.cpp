// The compiled library: ASE's neighbour list (<broadphase/ase_neighbor_list.hpp>),
// its bodies in ase/ase_neighbor_list_impl.hpp and the parts it includes.
// Not a template: BROADPHASE_ASE_COMPILED makes the functions this file's
// own (in the single header they are inline). Built with -ffp-contract=off
// (CMakeLists.txt): D and d round as numpy's, with no fused multiply-add.
#define BROADPHASE_ASE_COMPILED 1
#include <broadphase/ase_neighbor_list.hpp>
#include "ase/ase_neighbor_list_impl.hpp"
