"""broadphase.mpi: every overlapping pair among the boxes of all ranks of an
MPI communicator (mpi4py), each pair once, the pairs one process would find.

The C++ component broadphase::mpi (mpi/include/broadphase/mpi/distributed.hpp)
on numpy arrays. Each rank passes its own boxes, an (N, 6) array as for
broadphase.find_pairs; pairs come back as (K, 2) uint64 arrays of global
ids: by default, ranks in order and each rank's rows in order (the row
index in the concatenation of every rank's boxes), or the ids you pass.

    from mpi4py import MPI
    import numpy as np, broadphase.mpi as bpm

    comm = MPI.COMM_WORLD
    boxes = my_boxes()                            # (N, 6) float32 or float64, this rank's
    pairs = bpm.find_pairs(comm, boxes)           # this rank's share: each pair on one rank
    every = bpm.find_pairs(comm, boxes, delivery="gather")   # all of them on rank 0

    finder = bpm.DistributedPairFinder(comm)      # frame after frame: keeps the partition
    for frame in range(steps):
        pairs, report = finder.find_pairs(boxes_at(frame), return_report=True)
        print(report.total_pairs, report.stats.ghosts, report.stats.ms_total)

Every call is collective: every rank of the communicator makes it, with the
same delivery and root, and with or without `other` alike. Arguments are
checked on every rank first and the ranks agree (one small allgather), so a
bad argument on one rank raises on every rank (the others' message names
the rank) rather than leaving them waiting.

Needs mpi4py and the extension broadphase._mpi (built by CMake when the MPI
component is on and mpi4py's headers are found). `import broadphase` never
imports this module or MPI.
"""

import warnings
from dataclasses import dataclass, fields
from typing import Optional

import numpy as np

try:
    import mpi4py  # noqa: F401 - the package only: MPI is initialized by broadphase._mpi's import of mpi4py.MPI
except ImportError as _e:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"broadphase.mpi needs mpi4py ({_e}); install it for this interpreter "
        "(Debian: apt-get install python3-mpi4py; or pip install mpi4py), then rebuild broadphase "
        "so that the extension broadphase._mpi is built against it"
    ) from _e

try:
    from . import _mpi
except ImportError as _e:  # pragma: no cover - depends on the build
    raise ImportError(
        f"broadphase.mpi: the extension broadphase._mpi is not available ({_e}). It is built by CMake "
        "when the MPI component is on (MPI found, -DBROADPHASE_MPI=ON: Debian libopenmpi-dev openmpi-bin) "
        "and mpi4py's C headers are found for the interpreter (python3 -c 'import mpi4py; "
        "print(mpi4py.get_include())'); see the configure output's 'broadphase.mpi' line"
    ) from _e

from mpi4py import MPI as _MPI  # noqa: E402 - already imported by broadphase._mpi

from . import InvalidBoxError, InvalidBoxWarning, PairBudgetError, algorithms  # noqa: E402

__all__ = [
    "DistributedPairFinder",
    "DistributedReport",
    "FrameStats",
    "find_pairs",
]

_DELIVERIES = ("keep", "to_holders", "gather")
_INVALID = ("warn", "skip", "raise")
_LAYOUT = "minx, miny, minz, maxx, maxy, maxz"


@dataclass(frozen=True)
class FrameStats:
    """What one call cost this rank, and the partition's balance (broadphase::mpi::FrameStats)."""

    boxes_in: int
    """Valid boxes this rank passed."""
    boxes_held: int
    """Boxes this rank held after the exchange (ghosts included)."""
    ghosts: int
    """Held boxes whose home (min corner) is another rank's region."""
    pairs_found: int
    """Pairs this rank's local find reported (owned or not)."""
    pairs_owned: int
    """Of those, the pairs this rank owns (reports)."""
    bytes_sent: int
    """Bytes sent to other ranks (exchange and delivery)."""
    bytes_received: int
    """Bytes received from other ranks."""
    total_boxes: int
    """Valid boxes over all ranks (each once)."""
    max_held: int
    """Largest boxes_held over all ranks."""
    mean_held: float
    """Mean boxes_held over all ranks."""
    ghost_fraction: float
    """Ghost copies over all ranks per valid box."""
    ranks: int
    """The communicator's size."""
    repartitioned: bool
    """This call built a new partition."""
    ms_partition: float
    """Milliseconds: sampling, gathering, building the partition, balance check."""
    ms_exchange: float
    """Milliseconds: packing, MPI_Alltoallv, unpacking."""
    ms_find: float
    """Milliseconds: local find and ownership filter."""
    ms_delivery: float
    """Milliseconds: moving pairs to where they are delivered."""
    ms_total: float
    """Milliseconds: the whole call."""

    def as_dict(self):
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, eq=False)
class DistributedReport:
    """What a call did (broadphase::mpi::DistributedReport)."""

    status: str
    """'ok', 'pair_budget_exceeded', 'too_many_boxes' or 'out_of_memory': the same on every rank."""
    pairs: int
    """Pairs in this rank's output."""
    total_pairs: int
    """Pairs over all ranks, each once (before delivery and max_pairs)."""
    invalid_a: np.ndarray
    """Global ids (uint64) of this rank's invalid boxes (NaN, min > max) in `boxes`."""
    invalid_b: np.ndarray
    """The same for `other`."""
    total_invalid: int
    """Invalid boxes over all ranks and both sets."""
    stats: FrameStats
    """This rank's costs and the partition's balance."""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _report(d):
    d = dict(d)
    d["stats"] = FrameStats(**d["stats"])
    return DistributedReport(**d)


# ---------------------------------------------------------------- argument checks (local)


def _shape(a):
    return "(" + ", ".join(str(n) for n in a.shape) + ("," if a.ndim == 1 else "") + ")"


def _rows(obj, name):
    """An (N, 6) numeric array (not converted yet) and whether it needs float64."""
    try:
        a = np.asarray(obj)
    except Exception as e:  # noqa: BLE001 - numpy's reason, as the single-process module says it
        raise TypeError(f"{name} must be an array of numbers: {e}") from e
    if a.dtype.kind not in "fiu":
        raise TypeError(
            f"{name} must hold real numbers (float32 or float64; integers are converted); got dtype {a.dtype}"
        )
    if a.ndim == 1 and a.shape[0] == 0:
        a = a.reshape(0, 6)
    if a.ndim != 2 or a.shape[1] != 6:
        raise ValueError(f"{name} must have shape (N, 6) ({_LAYOUT} per row); got shape {_shape(a)}")
    is_float32 = a.dtype.kind == "f" and a.dtype.itemsize == 4
    return a, (len(a) > 0 and not is_float32)


def _ids(obj, n, name, rows_name):
    """Global ids for n rows as a C-contiguous uint64 array (None stays None)."""
    if obj is None:
        return None
    try:
        a = np.asarray(obj)
    except Exception as e:  # noqa: BLE001
        raise TypeError(f"{name} must be an array of integers (global ids): {e}") from e
    if a.ndim == 1 and a.size == 0 and n == 0:
        return np.zeros(0, np.uint64)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers (global ids, uint64); got dtype {a.dtype}")
    if a.ndim != 1 or a.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n},) (one id per row of {rows_name}); got shape {_shape(a)}")
    if a.dtype.kind == "i" and n and a.min() < 0:
        raise ValueError(f"{name} holds {a.min()}, not a global id (ids are unsigned 64-bit)")
    return np.ascontiguousarray(a, dtype=np.uint64)


def _int(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__}")
    return int(value)


def _check_options(comm_size, delivery, root, algorithm, threads, max_pairs, invalid):
    if delivery not in _DELIVERIES:
        raise ValueError(f"delivery must be 'keep', 'to_holders' or 'gather'; got {delivery!r}")
    root = _int(root, "root")
    if not 0 <= root < comm_size:
        raise ValueError(f"root must be a rank of comm (0 to {comm_size - 1}); got {root}")
    if algorithm == "auto":
        raise ValueError("unknown algorithm 'auto': the automatic choice is spelt 'automatic'")
    if not isinstance(algorithm, str) or (algorithm != "automatic" and algorithm not in algorithms()):
        names = ", ".join(repr(a) for a in ["automatic"] + algorithms())
        raise ValueError(f"unknown algorithm {algorithm!r}; one of {names}")
    threads = _int(threads, "threads")
    if threads < 0:
        raise ValueError(f"threads must be 0 (all) or more; got {threads}")
    if max_pairs is not None:
        max_pairs = _int(max_pairs, "max_pairs")
        if max_pairs < 0:
            raise ValueError(f"max_pairs must be None or >= 0; got {max_pairs}")
    if invalid not in _INVALID:
        raise ValueError(f"invalid must be 'skip', 'warn' or 'raise'; got {invalid!r}")
    return root, threads, max_pairs


def _id_list(ids):
    shown = ", ".join(str(int(i)) for i in ids[:10])
    return shown + (f", ... ({len(ids) - 10} more)" if len(ids) > 10 else "")


# ---------------------------------------------------------------- the finder


class DistributedPairFinder:
    """A distributed pair finder kept between calls (frames) on one communicator.

    It keeps the spatial partition (one region per rank, from a sample of box
    centres) while the largest rank holds at most `rebalance` times the mean
    number of boxes, and its memory. Calls are collective. Not a duplicate of
    comm: run no other collective on comm while a call is in flight.

    comm: an mpi4py intracommunicator. rebalance: re-partition when the
    largest rank would hold more than this many times the mean (>= 1).
    samples_per_rank: box centres each rank samples for a partition.
    """

    def __init__(self, comm, *, rebalance: float = 1.3, samples_per_rank: int = 1024):
        if not isinstance(comm, _MPI.Comm):
            raise TypeError(f"comm must be an mpi4py.MPI.Comm (e.g. MPI.COMM_WORLD); got {type(comm).__name__}")
        if _MPI.Is_finalized():
            raise RuntimeError("MPI is finalized")
        rebalance = float(rebalance)
        if not rebalance >= 1:
            raise ValueError(f"rebalance must be >= 1; got {rebalance}")
        samples_per_rank = _int(samples_per_rank, "samples_per_rank")
        if samples_per_rank < 1:
            raise ValueError(f"samples_per_rank must be positive; got {samples_per_rank}")
        self._impl = _mpi.Finder(comm, rebalance, samples_per_rank)
        self._comm = comm
        self._report: Optional[DistributedReport] = None

    @property
    def comm(self):
        """The communicator."""
        return self._comm

    def __repr__(self):
        if self._report is None:
            last = "no call yet"
        else:
            r = self._report
            pairs = "pair" if r.total_pairs == 1 else "pairs"
            last = f"last call: {r.stats.total_boxes} boxes, {r.total_pairs} {pairs} over all ranks, {r.status}"
        return f"<broadphase.mpi.DistributedPairFinder rank {self.rank} of {self.size}, {last}>"

    @property
    def rank(self) -> int:
        return self._impl.rank

    @property
    def size(self) -> int:
        return self._impl.size

    @property
    def report(self) -> Optional[DistributedReport]:
        """The last call's report on this rank (None before the first call)."""
        return self._report

    @property
    def stats(self) -> Optional[FrameStats]:
        """The last call's FrameStats on this rank (None before the first call)."""
        return None if self._report is None else self._report.stats

    @property
    def partition(self) -> Optional[np.ndarray]:
        """The regions of the partition the last call used: a (P, 6) float64 array,
        row r = rank r's region (minx miny minz maxx maxy maxz; min inclusive, max
        exclusive, -inf/inf at the outside; the same on every rank). None before
        the first call."""
        return self._impl.partition

    def invalidate_partition(self) -> None:
        """Builds a new partition on the next call, whatever the balance (call it on every rank)."""
        self._impl.invalidate_partition()

    def find_pairs(
        self,
        boxes,
        ids=None,
        *,
        other=None,
        other_ids=None,
        delivery: str = "keep",
        root: int = 0,
        sorted: bool = False,
        algorithm: str = "automatic",
        threads: int = 0,
        max_pairs: Optional[int] = None,
        invalid: str = "warn",
        return_report: bool = False,
    ):
        """Every overlapping pair among the boxes of all ranks, once. Collective.

        See broadphase.mpi.find_pairs; this finder keeps its partition and
        memory between calls.
        """
        return self._find(
            boxes, ids, other, other_ids, delivery, root, sorted, algorithm, threads, max_pairs, invalid, return_report
        )

    def _find(self, boxes, ids, other, other_ids, delivery, root, sorted_, algorithm, threads, max_pairs, invalid,
              return_report):
        comm = self._comm
        if _MPI.Is_finalized():
            raise RuntimeError("MPI is finalized")
        two = other is not None
        # 1. Local checks; an error is held back until every rank knows.
        error = None
        need_double = False
        try:
            root, threads, max_pairs = _check_options(
                self._impl.size, delivery, root, algorithm, threads, max_pairs, invalid
            )
            a, da = _rows(boxes, "boxes")
            ia = _ids(ids, len(a), "ids", "boxes")
            b = ib = None
            db = False
            if two:
                b, db = _rows(other, "other")
                ib = _ids(other_ids, len(b), "other_ids", "other")
            elif other_ids is not None:
                raise ValueError("other_ids given without other")
            need_double = da or db
        except (TypeError, ValueError) as e:
            error = e
        # 2. The ranks agree: any error raises everywhere; the precision is
        #    float64 when any rank's non-empty set is not float32.
        mine = (
            None if error is None else (type(error).__name__, str(error)),
            need_double,
            two,
            delivery if error is None else None,
            root if error is None and delivery == "gather" else None,  # root matters to gather only
        )
        everyone = comm.allgather(mine)
        if error is not None:
            raise error
        for r, (e, *_rest) in enumerate(everyone):
            if e is not None:
                kind = TypeError if e[0] == "TypeError" else ValueError
                raise kind(f"on rank {r}: {e[1]} (find_pairs is collective: raised on every rank)")
        for what, k, value in (("with or without other", 2, two), ("delivery", 3, delivery), ("root", 4, root)):
            seen = sorted(set(repr(x[k]) for x in everyone))
            if len(seen) > 1:
                raise ValueError(f"every rank must call find_pairs with the same {what}; got {', '.join(seen)}")
        use_double = any(x[1] for x in everyone)
        dtype = np.float64 if use_double else np.float32

        # 3. The call.
        a = np.ascontiguousarray(a, dtype=dtype)
        if two:
            b = np.ascontiguousarray(b, dtype=dtype)
        pairs, d = self._impl.find(
            a, ia, b, ib, use_double, delivery, root, algorithm, threads, bool(sorted_), max_pairs
        )
        report = _report(d)
        self._report = report

        # 4. The report as exceptions and warnings (the status is the same on
        #    every rank, and so is total_invalid: these raise on every rank).
        if report.status == "pair_budget_exceeded":
            e = PairBudgetError(
                "more pairs than max_pairs on some rank (max_pairs caps each rank's pairs before delivery); "
                "the error's .pairs holds this rank's delivered pairs, .report the report"
            )
            e.pairs = pairs
            e.report = report
            raise e
        if report.status == "too_many_boxes":
            raise ValueError("too many boxes: a rank would hold more than 32-bit indices (or MPI's int counts) allow")
        if report.status == "out_of_memory":
            raise MemoryError("broadphase.mpi: an allocation failed on some rank")
        if report.status != "ok":
            raise RuntimeError(f"broadphase.mpi: status {report.status}")
        if invalid != "skip" and report.total_invalid:
            msg = ""
            if len(report.invalid_a):
                msg += f"{len(report.invalid_a)} invalid box(es) in boxes on this rank (NaN, or min > max), global ids: "
                msg += _id_list(report.invalid_a)
            if len(report.invalid_b):
                msg += "; " if msg else ""
                msg += f"{len(report.invalid_b)} invalid box(es) in other on this rank, global ids: "
                msg += _id_list(report.invalid_b)
            if invalid == "raise":
                e = InvalidBoxError(
                    f"{report.total_invalid} invalid box(es) over all ranks" + (f"; {msg}" if msg else "")
                )
                e.indices = report.invalid_a
                e.other_indices = report.invalid_b
                e.pairs = pairs
                e.report = report
                raise e
            if msg:
                warnings.warn(
                    msg + "; they take part in no pair (invalid='skip' silences this, invalid='raise' makes it an error)",
                    InvalidBoxWarning,
                    stacklevel=3,
                )
        return (pairs, report) if return_report else pairs


def find_pairs(
    comm,
    boxes,
    ids=None,
    *,
    other=None,
    other_ids=None,
    delivery: str = "keep",
    root: int = 0,
    sorted: bool = False,
    algorithm: str = "automatic",
    threads: int = 0,
    max_pairs: Optional[int] = None,
    invalid: str = "warn",
    return_report: bool = False,
):
    """Every overlapping pair among the boxes of all ranks of comm, once. Collective.

    comm: an mpi4py intracommunicator; every rank calls, each with its boxes.
    boxes: this rank's (N, 6) array, rows minx miny minz maxx maxy maxz (N may
        be 0). float32 stays float32; other numbers become float64. The call
        computes in float64 when any rank passes a non-empty set that is not
        float32 (float32 converts exactly), else in float32.
    ids: optional global ids (N integers >= 0, uint64) for this rank's rows;
        default: the row's index in the concatenation of all ranks' boxes
        (ranks in order). Ids should be unique over all ranks.
    other, other_ids: optional second set (every rank passes one, possibly
        empty): pairs (id in boxes, id in other) between the two unions;
        ids of each set default to its own concatenation index.
    delivery: 'keep' (default; each pair on exactly one rank, the one that
        found it), 'to_holders' (on each rank that passed one of its boxes,
        once if it passed both) or 'gather' (all on root, none elsewhere).
    root: the rank that receives the pairs with delivery='gather'.
    sorted: sort this rank's output by (a, b).
    algorithm, threads: the single-process options of each rank's local find.
    max_pairs: cap on the pairs each rank keeps (before delivery); past it
        PairBudgetError on every rank (.pairs: this rank's delivered pairs).
    invalid: boxes with NaN or min > max take part in no pair; 'warn'
        (default: InvalidBoxWarning on the ranks that passed some), 'skip',
        or 'raise' (InvalidBoxError on every rank when any rank passed one;
        .indices / .other_indices: this rank's, as uint64 global ids).
    return_report: also return the DistributedReport: (pairs, report).

    Returns a (K, 2) uint64 array of global ids: (a, b) with a < b within one
    set; (id in boxes, id in other) between two sets.
    """
    finder = DistributedPairFinder(comm)
    return finder._find(
        boxes, ids, other, other_ids, delivery, root, sorted, algorithm, threads, max_pairs, invalid, return_report
    )
