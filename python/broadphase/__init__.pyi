"""Type stubs for broadphase (the C++ core is broadphase._core)."""

from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union, Unpack

import numpy as np
import numpy.typing as npt

__version__: str

ArrayLike = npt.ArrayLike
Pairs = npt.NDArray[np.uint32]
Ids = npt.NDArray[np.uint32]
OnInvalid = Literal["warn", "skip", "raise"]
Algorithm = Literal["automatic", "brute_force", "sweep_and_prune", "uniform_grid", "hybrid_grid", "adaptive_grid", "cluster_pairs"]
ObjectType = Literal["dynamic", "static"]

class InvalidBoxError(ValueError):
    """Raised with invalid='raise' when boxes are invalid (NaN, or min > max on some axis)."""

    indices: Ids
    """Rows of the invalid boxes in the first set (or the queries)."""
    other_indices: Ids
    """Rows of the invalid boxes in the second set."""

class InvalidBoxWarning(UserWarning):
    """Warned (invalid='warn', the default) when invalid boxes were skipped."""

class PairBudgetError(RuntimeError):
    """Raised when a call finds more pairs than max_pairs."""

    pairs: Pairs
    """The first max_pairs pairs."""

class _PairOptions(TypedDict, total=False):
    """The keyword options of find_pairs, find_sphere_pairs and PairFinder.find_pairs.

    algorithm: 'automatic' (default) or one of algorithms(). threads: 0 (default)
    = all cores. sorted: sort by (first, second) (default False; the order is
    deterministic anyway). max_pairs: raise PairBudgetError past this many
    pairs (default None: no limit). invalid: boxes with NaN or min > max take
    part in no pair; 'warn' (default, InvalidBoxWarning), 'skip' or 'raise'
    (InvalidBoxError). boxsize: a periodic domain as scipy's cKDTree: one
    period or three (x, y, z), 0 or None for an open axis (default None:
    none); one set only (other must be None).
    """

    algorithm: Union[Algorithm, str]
    threads: int
    sorted: bool
    max_pairs: Optional[int]
    invalid: OnInvalid
    boxsize: Union[None, float, Tuple[Optional[float], Optional[float], Optional[float]], ArrayLike]

def find_pairs(boxes: ArrayLike, other: Optional[ArrayLike] = None, **options: Unpack[_PairOptions]) -> Pairs:
    """Every overlapping pair of boxes, exactly once.

    boxes: (N, 6) array, rows minx miny minz maxx maxy maxz, or (N, 4) for
    2-D boxes, rows minx miny maxx maxy. float32 and float64 C-contiguous
    arrays are read in place; other layouts and dtypes are converted once
    (to float64 unless float32).
    other: optional second set of the same dimension ((M, 6) or (M, 4);
    mixing is a ValueError): pairs (index in boxes, index in other).
    Without it: pairs (i, j), i < j, within boxes.
    options: see _PairOptions.
    Closed boxes: touching faces, edges and corners overlap.
    boxsize: pairs in a periodic domain: (i, j) once iff some image of box j
    (moved by whole periods) overlaps box i, exactly; coordinates wrap.
    Returns a (K, 2) uint32 array: the library's indices are 32-bit (half
    the memory of int64 pairs); more than 2**32 - 2 boxes in a set is a
    ValueError.
    """

def find_sphere_pairs(centers: ArrayLike, radii: Union[float, ArrayLike], **options: Unpack[_PairOptions]) -> Pairs:
    """Every pair of touching spheres (i, j), i < j: |ci - cj| <= ri + rj.

    centers: (N, 3); radii: one number or (N,). Each pair is kept iff
    |ci - cj|^2 <= (ri + rj)^2 in float64. algorithm='automatic': a grid of its
    own for radii within 2x of the mean (else the box path); a named algorithm:
    the broad phase on the spheres' boxes, then the exact test.
    max_pairs bounds the pairs (the box pairs on the box path).
    boxsize: a periodic domain, minimum image distances (the cell list when
    every period is over about 3 diameters, else the box path).
    options: see _PairOptions. Returns a (K, 2) uint32 array, written once
    by the search; the module keeps the search's memory (free_memory()).
    """

def free_memory() -> None:
    """Frees the working memory find_sphere_pairs and find_pairs keep between calls (the next call allocates it again)."""

def algorithms() -> List[str]:
    """The algorithm names find_pairs accepts besides 'automatic'."""

def default_threads() -> int:
    """The thread count threads=0 stands for."""

def builtin_scene(name: str) -> npt.NDArray[np.float32]:
    """A built-in scene of the CLI ('uniform:100000', 'dense20k', ...) as (N, 6) float32."""

Cutoff = Union[float, ArrayLike, Dict[Tuple[Union[int, str], Union[int, str]], float]]
NeighborArrays = Union[npt.NDArray[np.int64], npt.NDArray[np.float64], Tuple[npt.NDArray[Any], ...]]

def neighbor_list(
    quantities: str,
    a: Any,
    cutoff: Cutoff,
    self_interaction: bool = False,
    max_nbins: float = 1e6,
) -> NeighborArrays:
    """A drop-in for ase.neighborlist.neighbor_list: the same entries, arrays and dtypes.

    a: an ase.Atoms (positions, cell, pbc, numbers read; ASE never imported)
    or (positions, cell, pbc[, numbers]). quantities: any of "ijdDS"; one
    character gives an array, more a tuple. Rows sorted by i, then j, then S.
    """

def neighbor_list_batch(
    quantities: str,
    positions: ArrayLike,
    cells: ArrayLike,
    pbc: Union[bool, ArrayLike],
    system_index: ArrayLike,
    cutoff: Cutoff,
    self_interaction: bool = False,
    numbers: Optional[ArrayLike] = None,
) -> NeighborArrays:
    """neighbor_list over many systems in one call: positions (N, 3) concatenated, system_index (N,),
    cells (B, 3, 3), pbc one bool, three or (B, 3); i and j number the concatenated atoms."""

class PairFinder:
    """A pair finder kept between calls (frames): it reuses its memory."""

    def __init__(self) -> None: ...
    def find_pairs(self, boxes: ArrayLike, other: Optional[ArrayLike] = None, **options: Unpack[_PairOptions]) -> Pairs:
        """As broadphase.find_pairs, reusing this finder's memory."""
    @property
    def last_algorithm(self) -> str:
        """The algorithm the last call used."""
    def __repr__(self) -> str:
        """'<broadphase.PairFinder last call: 1000 boxes, 3-D float32, 12 pairs, sweep_and_prune>'."""

class Index:
    """A built set of boxes answering box queries (thread-safe queries).

    boxes: (N, 6) rows, or (N, 4) for a 2-D index; queries have the index's
    dimension (six numbers or four; the other is a ValueError).
    float32 boxes give a float32 index, any other dtype a float64 one.
    Queries are exact in their own precision: float32 queries on a float64
    index widen exactly; float64 queries on a float32 index are never rounded
    to nearest float32 (a query one float64 ulp clear of a built box does not
    hit it).
    """

    def __init__(
        self,
        boxes: ArrayLike,
        algorithm: Union[Algorithm, str] = "automatic",
        threads: int = 0,
        invalid: OnInvalid = "warn",
    ) -> None: ...
    def query(self, box: ArrayLike, sorted: bool = False) -> Ids:
        """Indices of the built boxes overlapping one box (six numbers, four for a 2-D index)."""
    def query_batch(
        self,
        boxes: ArrayLike,
        threads: int = 0,
        sorted: bool = False,
        max_pairs: Optional[int] = None,
        invalid: OnInvalid = "warn",
    ) -> Pairs:
        """(K, 2) uint32 array of (query index, built index); boxes (M, 6), or (M, 4) for a 2-D index."""
    def __len__(self) -> int: ...
    def __repr__(self) -> str:
        """'<broadphase.Index 1000 boxes, 3-D float32, uniform_grid>'."""
    @property
    def algorithm(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def dim(self) -> int:
        """2 (built from (N, 4) boxes) or 3."""

Cell = Union[None, float, ArrayLike]

class NeighborList:
    """Neighbour lists as MD and DEM codes keep them (broadphase::NeighborList).

    Every particle's neighbours within reach_ij = (r_i + r_j) + (cutoff + skin)
    in CSR form (offsets, indices), open or in a periodic cell (cell: None,
    one period, three periods with 0 for an open axis, or a (3, 3) array of
    cell vectors as rows); every image within reach is listed, with its
    shift S (D = x_j + S h - x_i). update() rebuilds only when some particle
    moved more than skin / 2 since the last build. Properties are copies.
    """

    def __init__(
        self,
        cutoff: float = 0.0,
        skin: float = 0.0,
        *,
        cell: Cell = None,
        full: bool = False,
        vectors: bool = False,
        shifts: bool = False,
        sorted: bool = False,
        threads: int = 0,
        max_entries: Optional[int] = None,
    ) -> None: ...
    def update(
        self, positions: ArrayLike, radii: Union[None, float, ArrayLike] = None, *, invalid: OnInvalid = "warn"
    ) -> bool:
        """Rebuilds if needed (first call, N, cell or dtype changed, a move over skin / 2); True when it did."""
    def build(
        self, positions: ArrayLike, radii: Union[None, float, ArrayLike] = None, *, invalid: OnInvalid = "warn"
    ) -> None:
        """Builds the list now, whatever moved."""
    def set_cell(self, cell: Cell) -> None:
        """Replaces the cell; the next update rebuilds."""
    def pairs(self) -> Pairs:
        """(K, 2) uint32 array of (row i, column j) per entry."""
    def spatial_order(self) -> Ids:
        """The last build's particles in bin order (then the invalid ones): reorder arrays by it for faster builds."""
    @property
    def offsets(self) -> npt.NDArray[np.uint64]:
        """N + 1 values: row i is indices[offsets[i]:offsets[i + 1]]."""
    @property
    def indices(self) -> Ids: ...
    @property
    def vectors(self) -> npt.NDArray[np.float64]:
        """(K, 3) D per entry (with vectors=True; else (0, 3))."""
    @property
    def shifts(self) -> npt.NDArray[np.int32]:
        """(K, 3) S per entry (with shifts=True; else (0, 3))."""
    @property
    def invalid(self) -> Ids: ...
    @property
    def builds(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def entries(self) -> int: ...
    @property
    def dtype(self) -> Optional[str]: ...
    @property
    def cell(self) -> npt.NDArray[np.float64]: ...
    @property
    def cutoff(self) -> float: ...
    @property
    def skin(self) -> float: ...
    @property
    def full(self) -> bool: ...
    def __len__(self) -> int: ...
    def __repr__(self) -> str:
        """'<broadphase.NeighborList half, cutoff 2.5 + skin 0.3, orthorhombic cell: 4000 particles, float64, ...>'."""

class Scene:
    """Objects kept between frames, with contact events (broadphase::Scene).

    Ids are stable; static objects never meet each other; filters: two
    objects meet iff each one's mask has a bit of the other's category and
    they do not share a nonzero group. After update(): pairs() (a < b,
    sorted), begun() and ended() (differences from the update before).

    A float32 scene stores float32 boxes (add/move round float64 boxes to
    nearest); query_box and query_point answer float64 input exactly against
    them; query_sphere, ray_cast, ray_hits and box_cast compute in float32.
    """

    def __init__(self, dtype: Literal["float32", "float64"] = "float32") -> None: ...
    def add(
        self,
        box: ArrayLike,
        type: ObjectType = "dynamic",
        user_value: int = 0,
        category: int = 1,
        mask: int = 0xFFFFFFFFFFFFFFFF,
        group: int = 0,
    ) -> int:
        """Adds one object; returns its id."""
    def add_batch(self, boxes: ArrayLike, type: ObjectType = "dynamic") -> Ids:
        """Adds (N, 6) boxes; returns their ids."""
    def remove(self, id: int) -> bool: ...
    def remove_batch(self, ids: ArrayLike) -> int: ...
    def move(self, id: int, box: ArrayLike) -> bool: ...
    def move_batch(self, ids: ArrayLike, boxes: ArrayLike) -> int: ...
    def set_type(self, id: int, type: ObjectType) -> bool: ...
    def set_filter(self, id: int, category: int = 1, mask: int = 0xFFFFFFFFFFFFFFFF, group: int = 0) -> bool: ...
    def set_user_value(self, id: int, value: int) -> bool: ...
    def contains(self, id: int) -> bool: ...
    def __contains__(self, id: int) -> bool: ...
    def __len__(self) -> int: ...
    def __repr__(self) -> str:
        """'<broadphase.Scene 120 objects, float32, update mode automatic>'."""
    def box(self, id: int) -> npt.NDArray[np.floating]: ...
    def type(self, id: int) -> str: ...
    def filter(self, id: int) -> Tuple[int, int, int]: ...
    def user_value(self, id: int) -> int: ...
    def set_options(self, algorithm: Union[Algorithm, str] = "automatic", threads: int = 0) -> None: ...
    def set_update_mode(self, mode: str) -> None:
        """One of Scene.update_modes() ('automatic', 'rebuild', 'multi_box_pruning', 'grid', 'enlarged')."""
    @property
    def update_mode(self) -> str: ...
    @property
    def last_method(self) -> str: ...
    @staticmethod
    def update_modes() -> List[str]: ...
    def set_margin(self, margin: float) -> bool: ...
    @property
    def margin(self) -> float: ...
    fat_pairs: bool
    """False: pairs exact on the tight boxes (default). True: pairs of the fat boxes (a superset)."""
    def update(self) -> int:
        """Finds the current pairs and the events; returns the number of current pairs."""
    def pairs(self) -> Pairs: ...
    def begun(self) -> Pairs: ...
    def ended(self) -> Pairs: ...
    def query_box(self, box: ArrayLike) -> Ids: ...
    def query_point(self, point: ArrayLike) -> Ids: ...
    def query_sphere(self, center: ArrayLike, radius: float) -> Ids: ...
    def ray_cast(self, origin: ArrayLike, direction: ArrayLike, max_t: float = ...) -> Optional[Tuple[int, float]]: ...
    def ray_hits(self, origin: ArrayLike, direction: ArrayLike, max_t: float = ...) -> Tuple[Ids, npt.NDArray[np.float64]]: ...
    def box_cast(self, box: ArrayLike, displacement: ArrayLike) -> Optional[Tuple[int, float]]: ...
