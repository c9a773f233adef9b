"""broadphase: every overlapping pair among axis-aligned boxes, exactly once.

A header-only C++17 library on numpy arrays. Boxes are (N, 6) arrays with
rows ``minx miny minz maxx maxy maxz``, or (N, 4) arrays of 2-D boxes with
rows ``minx miny maxx maxy``; pairs come back as (K, 2) uint32 arrays (the
library's indices are 32-bit: half the memory of int64 pairs; a set of more
than 2**32 - 2 boxes is refused with a ValueError).

>>> import numpy as np, broadphase
>>> boxes = np.array([[0, 0, 0, 1, 1, 1], [1, 0, 0, 2, 1, 1], [5, 5, 5, 6, 6, 6]], np.float32)
>>> broadphase.find_pairs(boxes).tolist()
[[0, 1]]

Functions: find_pairs, find_sphere_pairs, algorithms, default_threads,
builtin_scene. Classes: PairFinder (memory kept between frames), Index (box
queries against a built set), Scene (objects kept between frames, contact
events, ray casts), NeighborList (MD/DEM neighbour lists with a skin, open
or periodic, triclinic cells included). Errors: InvalidBoxError,
PairBudgetError; warning: InvalidBoxWarning. See docs/python.md.

Distributed over MPI ranks (mpi4py): ``import broadphase.mpi`` (find_pairs,
DistributedPairFinder); built when CMake finds MPI and mpi4py. Importing
broadphase alone never imports it, mpi4py or MPI.
"""

from ._core import (  # noqa: F401
    __version__,
    Index,
    InvalidBoxError,
    InvalidBoxWarning,
    NeighborList,
    PairBudgetError,
    PairFinder,
    Scene,
    algorithms,
    builtin_scene,
    default_threads,
    find_pairs,
    find_sphere_pairs,
)

__all__ = [
    "Index",
    "InvalidBoxError",
    "InvalidBoxWarning",
    "NeighborList",
    "PairBudgetError",
    "PairFinder",
    "Scene",
    "algorithms",
    "builtin_scene",
    "default_threads",
    "find_pairs",
    "find_sphere_pairs",
]
