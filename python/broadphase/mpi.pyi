"""Type stubs for broadphase.mpi (the C++ core is broadphase._mpi; needs mpi4py)."""

from typing import Any, Dict, Literal, Optional, Tuple, Union, overload

import numpy as np
import numpy.typing as npt
from mpi4py import MPI

from . import Algorithm, OnInvalid

ArrayLike = npt.ArrayLike
IdPairs = npt.NDArray[np.uint64]
GlobalIds = npt.NDArray[np.uint64]
Delivery = Literal["keep", "to_holders", "gather"]

class FrameStats:
    """What one call cost this rank, and the partition's balance (broadphase::mpi::FrameStats)."""

    boxes_in: int
    boxes_held: int
    ghosts: int
    pairs_found: int
    pairs_owned: int
    bytes_sent: int
    bytes_received: int
    total_boxes: int
    max_held: int
    mean_held: float
    ghost_fraction: float
    ranks: int
    repartitioned: bool
    ms_partition: float
    ms_exchange: float
    ms_find: float
    ms_delivery: float
    ms_total: float
    def as_dict(self) -> Dict[str, Any]: ...

class DistributedReport:
    """What a call did (broadphase::mpi::DistributedReport)."""

    status: Literal["ok", "pair_budget_exceeded", "too_many_boxes", "out_of_memory"]
    """The same on every rank."""
    pairs: int
    """Pairs in this rank's output."""
    total_pairs: int
    """Pairs over all ranks, each once."""
    invalid_a: GlobalIds
    """Global ids of this rank's invalid boxes in `boxes`."""
    invalid_b: GlobalIds
    """Global ids of this rank's invalid boxes in `other`."""
    total_invalid: int
    """Invalid boxes over all ranks and both sets."""
    stats: FrameStats
    @property
    def ok(self) -> bool: ...

class DistributedPairFinder:
    """A distributed pair finder kept between calls (frames): keeps its partition and memory. Calls are collective."""

    def __init__(self, comm: MPI.Comm, *, rebalance: float = 1.3, samples_per_rank: int = 1024) -> None: ...
    def __repr__(self) -> str:
        """'<broadphase.mpi.DistributedPairFinder rank 0 of 4, last call: 1000 boxes, 12 pairs over all ranks, ok>'."""
    @property
    def comm(self) -> MPI.Comm: ...
    @property
    def rank(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def report(self) -> Optional[DistributedReport]:
        """The last call's report on this rank."""
    @property
    def stats(self) -> Optional[FrameStats]:
        """The last call's FrameStats on this rank."""
    @property
    def partition(self) -> Optional[npt.NDArray[np.float64]]:
        """(P, 6) float64: row r = rank r's region [min, max) (the last call's partition)."""
    def invalidate_partition(self) -> None: ...
    @overload
    def find_pairs(
        self,
        boxes: ArrayLike,
        ids: Optional[ArrayLike] = None,
        *,
        other: Optional[ArrayLike] = None,
        other_ids: Optional[ArrayLike] = None,
        delivery: Delivery = "keep",
        root: int = 0,
        sorted: bool = False,
        algorithm: Union[Algorithm, str] = "automatic",
        threads: int = 0,
        max_pairs: Optional[int] = None,
        invalid: OnInvalid = "warn",
        return_report: Literal[False] = False,
    ) -> IdPairs: ...
    @overload
    def find_pairs(
        self,
        boxes: ArrayLike,
        ids: Optional[ArrayLike] = None,
        *,
        other: Optional[ArrayLike] = None,
        other_ids: Optional[ArrayLike] = None,
        delivery: Delivery = "keep",
        root: int = 0,
        sorted: bool = False,
        algorithm: Union[Algorithm, str] = "automatic",
        threads: int = 0,
        max_pairs: Optional[int] = None,
        invalid: OnInvalid = "warn",
        return_report: Literal[True],
    ) -> Tuple[IdPairs, DistributedReport]: ...

@overload
def find_pairs(
    comm: MPI.Comm,
    boxes: ArrayLike,
    ids: Optional[ArrayLike] = None,
    *,
    other: Optional[ArrayLike] = None,
    other_ids: Optional[ArrayLike] = None,
    delivery: Delivery = "keep",
    root: int = 0,
    sorted: bool = False,
    algorithm: Union[Algorithm, str] = "automatic",
    threads: int = 0,
    max_pairs: Optional[int] = None,
    invalid: OnInvalid = "warn",
    return_report: Literal[False] = False,
) -> IdPairs:
    """Every overlapping pair among the boxes of all ranks of comm, once, as (K, 2) uint64 global ids. Collective.

    boxes: this rank's (N, 6) array (float32 stays float32; otherwise, or when
    any rank's non-empty set is not float32, every rank computes in float64).
    ids: this rank's global ids (default: index in the concatenation of all
    ranks' boxes, ranks in order). other/other_ids: a second set: pairs
    (id in boxes, id in other). delivery: 'keep' (each pair on one rank),
    'to_holders' (on the ranks that passed its boxes) or 'gather' (all on
    root). max_pairs caps each rank's pairs (PairBudgetError on every rank).
    invalid: 'warn', 'skip' or 'raise' (InvalidBoxError on every rank;
    .indices are uint64 global ids).
    """

@overload
def find_pairs(
    comm: MPI.Comm,
    boxes: ArrayLike,
    ids: Optional[ArrayLike] = None,
    *,
    other: Optional[ArrayLike] = None,
    other_ids: Optional[ArrayLike] = None,
    delivery: Delivery = "keep",
    root: int = 0,
    sorted: bool = False,
    algorithm: Union[Algorithm, str] = "automatic",
    threads: int = 0,
    max_pairs: Optional[int] = None,
    invalid: OnInvalid = "warn",
    return_report: Literal[True],
) -> Tuple[IdPairs, DistributedReport]: ...
