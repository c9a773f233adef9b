"""broadphase: every overlapping pair among axis-aligned boxes, exactly once.

The C++17 library on numpy arrays. Boxes are (N, 6) arrays with
rows ``minx miny minz maxx maxy maxz``, or (N, 4) arrays of 2-D boxes with
rows ``minx miny maxx maxy``; pairs come back as (K, 2) uint32 arrays (the
library's indices are 32-bit: half the memory of int64 pairs; a set of more
than 2**32 - 2 boxes is refused with a ValueError).

>>> import numpy as np, broadphase
>>> boxes = np.array([[0, 0, 0, 1, 1, 1], [1, 0, 0, 2, 1, 1], [5, 5, 5, 6, 6, 6]], np.float32)
>>> broadphase.find_pairs(boxes).tolist()
[[0, 1]]

Functions: find_pairs, find_sphere_pairs, algorithms, default_threads,
builtin_scene, neighbor_list (a drop-in for ASE's), neighbor_list_batch. Classes: PairFinder (memory kept between frames), Index (box
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
    free_memory,
)
from . import _core

# Element symbols by atomic number (0: "X", ASE's dummy atom), for the keys
# of a dict cutoff.
_SYMBOLS = (
    "X H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr "
    "Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb "
    "Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf "
    "Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og"
).split()
_NUMBER_OF = {s: z for z, s in enumerate(_SYMBOLS)}


def _element(key):
    if isinstance(key, str):
        try:
            return _NUMBER_OF[key]
        except KeyError:
            raise ValueError(f"unknown element symbol {key!r} in the cutoff dict") from None
    if isinstance(key, bool):
        raise TypeError("an element in the cutoff dict must be a symbol or an atomic number, not bool")
    try:
        return int(key.__index__())
    except AttributeError:
        raise TypeError(
            f"an element in the cutoff dict must be a symbol or an atomic number, not {type(key).__name__}"
        ) from None


def _pair_cutoffs(cutoff):
    """A dict {(Z1, Z2): c} (symbols or numbers) as [(Z1, Z2, c), ...] in its order."""
    pairs = []
    for key, c in cutoff.items():
        try:
            a, b = key
        except (TypeError, ValueError):
            raise ValueError(f"a key of the cutoff dict must be a pair of elements; got {key!r}") from None
        pairs.append((_element(a), _element(b), float(c)))
    return pairs


def neighbor_list(quantities, a, cutoff, self_interaction=False, max_nbins=1e6):
    """A drop-in for ``ase.neighborlist.neighbor_list``: the same entries, arrays and dtypes.

    ``a`` is an ``ase.Atoms`` (read through ``positions``, ``cell``, ``pbc``
    and, for a dict cutoff, ``numbers``; ASE is never imported), or a tuple
    ``(positions, cell, pbc)`` or ``(positions, cell, pbc, numbers)``:
    positions (n, 3), cell (3, 3) whose rows are the cell vectors (or three
    lengths, or None for no cell), pbc one bool or three. ``cutoff`` is a
    number, per-atom radii (a pair when d < r_i + r_j) or a dict
    ``{(Z1, Z2): c}`` over pairs of elements (symbols or numbers). Each
    character of ``quantities`` ("ijdDS", any order, repeats allowed) gives
    one array: i, j (int64), d (float64), D (float64, (K, 3)), S (int64,
    (K, 3)); one character gives the array alone, else a tuple.

    The entries are ASE's exactly: every (i, j, S) with S = 0 on open axes
    and d < cutoff (strict), d and D computed as ASE computes them,
    ``D = positions[j] - positions[i] + S @ cell``. Sorted by i, then by j,
    then by S. ``max_nbins`` is accepted and ignored. See docs/python.md.
    """
    if isinstance(a, (tuple, list)):
        if len(a) not in (3, 4):
            raise ValueError("a must be an Atoms object or a tuple (positions, cell, pbc[, numbers])")
        positions, cell, pbc = a[0], a[1], a[2]
        numbers = a[3] if len(a) == 4 else None
    else:
        try:
            positions = a.positions
        except AttributeError:
            try:
                positions = a.get_positions()
            except AttributeError:
                raise TypeError(
                    "a must be an ase.Atoms (positions, cell, pbc) or a tuple (positions, cell, pbc[, numbers]), "
                    f"not {type(a).__name__}"
                ) from None
        cell = a.cell
        cell = getattr(cell, "array", cell)
        pbc = a.pbc
        numbers = None
    pairs = None
    if isinstance(cutoff, dict):
        pairs = _pair_cutoffs(cutoff)
        if numbers is None and not isinstance(a, (tuple, list)):
            numbers = a.numbers
    return _core._ase_neighbor_list(quantities, positions, cell, pbc, cutoff, pairs, numbers, bool(self_interaction))


def neighbor_list_batch(quantities, positions, cells, pbc, system_index, cutoff, self_interaction=False, numbers=None):
    """ASE's neighbour list over many systems in one call (one C++ loop over them).

    positions (N, 3): every system's atoms, concatenated; system_index (N,):
    each atom's system, 0 .. B-1 (usually non-decreasing; any order works);
    cells (B, 3, 3); pbc one bool, three, or (B, 3). cutoff: a number,
    per-atom radii (N,) or a dict over pairs of elements (with numbers
    (N,)). Returns what ``neighbor_list`` returns, i and j numbering the
    concatenated atoms, rows sorted by i: for each system, the same entries
    as ``neighbor_list`` on it alone, its indices offset by its first atom's.
    """
    pairs = None
    if isinstance(cutoff, dict):
        pairs = _pair_cutoffs(cutoff)
    return _core._ase_neighbor_list_batch(
        quantities, positions, cells, pbc, system_index, cutoff, pairs, numbers, bool(self_interaction)
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
    "free_memory",
    "neighbor_list",
    "neighbor_list_batch",
]
