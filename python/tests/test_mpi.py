"""broadphase.mpi on mpi4py: the union over ranks against the single-process
broadphase.find_pairs on the concatenation of every rank's boxes.

Run on P ranks (ctest python_mpi_np1/2/3, labels python and mpi):

    mpirun -n P python3 python/tests/mpi_pytest.py -q -p no:cacheprovider python/tests/test_mpi.py

Skipped unless BROADPHASE_MPI_TESTS=1 (mpi_pytest.py sets it): the plain
pytest run of python/tests must not initialize MPI.

Every test makes the same collective calls in the same order on every rank
and asserts after them, so that a failing assertion on one rank does not
leave the other ranks waiting in the next test.
"""

import os
import warnings

import numpy as np
import pytest

if os.environ.get("BROADPHASE_MPI_TESTS") != "1":
    pytest.skip("MPI tests: run under mpirun through tests/mpi_pytest.py", allow_module_level=True)

MPI = pytest.importorskip("mpi4py.MPI")

import broadphase  # noqa: E402
import broadphase.mpi as bpm  # noqa: E402

COMM = MPI.COMM_WORLD
RANK = COMM.Get_rank()
SIZE = COMM.Get_size()


# ---------------------------------------------------------------- helpers


def local_boxes(seed, n=None, dtype=np.float32, spread=15.0, size=3.0, offset=0.0):
    """This rank's random boxes (a different count on each rank)."""
    rng = np.random.default_rng([seed, RANK])
    if n is None:
        n = 150 + 70 * RANK
    lo = offset + rng.uniform(-spread / 2, spread / 2, (n, 3))
    return np.hstack([lo, lo + rng.uniform(0, size, (n, 3))]).astype(dtype)


def every(x):
    """x from every rank, in rank order (collective)."""
    return COMM.allgather(x)


def concat(parts, width=6, dtype=None):
    parts = [np.asarray(p) for p in parts]
    if dtype is None:
        dtype = np.result_type(*[p.dtype for p in parts])
    return np.concatenate([p.reshape(-1, width) for p in parts]).astype(dtype)


def as_set(pairs):
    pairs = np.asarray(pairs).reshape(-1, 2)
    return set(map(tuple, pairs.tolist()))


def reference(all_boxes, other=None):
    """The single-process pairs, as a set of (int, int)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return as_set(broadphase.find_pairs(all_boxes, other, invalid="skip"))


def assert_pairs_array(p):
    assert isinstance(p, np.ndarray)
    assert p.dtype == np.uint64
    assert p.ndim == 2 and p.shape[1] == 2


def assert_once(pairs):
    """No pair twice in a (K, 2) array."""
    assert len(as_set(pairs)) == len(pairs)


# ---------------------------------------------------------------- one set


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_keep_union_is_the_single_process_answer(dtype):
    boxes = local_boxes(1, dtype=dtype)
    pairs, report = bpm.find_pairs(COMM, boxes, return_report=True)
    everyone = every((boxes, pairs, report.total_pairs, report.stats.boxes_in))
    all_boxes = concat([e[0] for e in everyone])
    union = concat([e[1] for e in everyone], 2, np.uint64)
    want = reference(all_boxes)

    assert_pairs_array(pairs)
    assert len(want) > 50
    assert as_set(union) == want
    assert_once(union)  # each pair on exactly one rank
    assert np.all(pairs[:, 0] < pairs[:, 1])
    assert report.ok and report.status == "ok"
    assert report.pairs == len(pairs)
    assert all(e[2] == len(want) for e in everyone)  # total_pairs, the same everywhere
    assert sum(e[3] for e in everyone) == len(all_boxes)
    s = report.stats
    assert s.ranks == SIZE and s.total_boxes == len(all_boxes) and s.boxes_in == len(boxes)
    # One rank takes the library's path: no partition is built.
    assert s.repartitioned == (SIZE > 1) and s.ms_total >= 0 and s.ms_find >= 0
    assert s.pairs_owned <= s.pairs_found
    if SIZE == 1:
        assert s.ghosts == 0 and s.bytes_sent == 0 and s.bytes_received == 0
    assert set(s.as_dict()) >= {"ghosts", "bytes_sent", "bytes_received", "ms_partition", "ms_exchange"}


def test_gather_puts_every_pair_on_root():
    root = SIZE - 1
    boxes = local_boxes(2)
    pairs = bpm.find_pairs(COMM, boxes, delivery="gather", root=root, sorted=True)
    everyone = every((boxes, pairs))
    want = reference(concat([e[0] for e in everyone]))

    assert_pairs_array(pairs)
    if RANK == root:
        assert as_set(pairs) == want
        assert_once(pairs)
        order = np.lexsort((pairs[:, 1], pairs[:, 0]))
        np.testing.assert_array_equal(order, np.arange(len(pairs)))  # sorted=True
    else:
        assert len(pairs) == 0


def test_to_holders_gives_each_rank_the_pairs_of_its_boxes():
    boxes = local_boxes(3)
    pairs = bpm.find_pairs(COMM, boxes, delivery="to_holders")
    everyone = every((boxes, pairs))
    counts = [len(e[0]) for e in everyone]
    start = sum(counts[:RANK])
    mine = set(range(start, start + len(boxes)))
    want = reference(concat([e[0] for e in everyone]))

    assert_pairs_array(pairs)
    assert_once(pairs)  # once on a rank, even when it passed both boxes
    assert as_set(pairs) == {p for p in want if p[0] in mine or p[1] in mine}


def test_custom_ids_beyond_32_bits():
    boxes = local_boxes(4)
    rng = np.random.default_rng([4, RANK])
    # Unique over ranks: rank r's ids are r + SIZE * (big values).
    ids = (np.uint64(2**40) + rng.permutation(10 * len(boxes))[: len(boxes)].astype(np.uint64) * np.uint64(SIZE)
           + np.uint64(RANK))
    pairs = bpm.find_pairs(COMM, boxes, ids)
    pairs_i64 = bpm.find_pairs(COMM, boxes, ids.astype(np.int64), delivery="gather")
    everyone = every((boxes, ids, pairs, pairs_i64))
    all_ids = concat([e[1] for e in everyone], 1, np.uint64).ravel()
    rows = reference(concat([e[0] for e in everyone]))
    want = {tuple(sorted((int(all_ids[i]), int(all_ids[j])))) for i, j in rows}
    union = concat([e[2] for e in everyone], 2, np.uint64)

    assert as_set(union) == want
    assert_once(union)
    assert np.all(pairs[:, 0] < pairs[:, 1])
    assert as_set(everyone[0][3]) == want  # gathered on rank 0, ids given as int64


def test_empty_ranks_and_all_empty():
    boxes = local_boxes(5) if RANK % 2 == 0 else np.zeros((0, 6), np.float32)
    pairs = bpm.find_pairs(COMM, boxes)
    none = bpm.find_pairs(COMM, np.empty((0, 6)), delivery="gather")
    listed = bpm.find_pairs(COMM, [])
    everyone = every((boxes, pairs))
    want = reference(concat([e[0] for e in everyone]))

    assert as_set(concat([e[1] for e in everyone], 2, np.uint64)) == want
    for p in (none, listed):
        assert_pairs_array(p)
        assert p.shape == (0, 2)


# ---------------------------------------------------------------- precision


def test_float64_is_computed_in_double():
    # Two boxes 1e-12 apart: no pair in float64 (both would round to 1.0 in
    # float32). Rank 0 passes the first, the last rank the second; every
    # other rank passes float32 boxes, converted exactly.
    near = np.array([[0, 0, 0, 1, 1, 1]], np.float64)
    far = np.array([[1 + 1e-12, 0, 0, 2, 1, 1]], np.float64)
    parts = [local_boxes(6, n=20, offset=100.0).astype(np.float32)]
    if RANK == 0:
        parts.append(near)
    if RANK == SIZE - 1:
        parts.append(far)
    boxes = np.concatenate(parts) if len(parts) > 1 else parts[0]
    pairs = bpm.find_pairs(COMM, boxes, delivery="gather")
    # The same boxes all in float32: now they touch.
    pairs32 = bpm.find_pairs(COMM, boxes.astype(np.float32), delivery="gather")
    everyone = every(boxes)
    all64 = concat(everyone, dtype=np.float64)
    want = reference(all64)
    want32 = reference(all64.astype(np.float32))

    if RANK == 0:
        assert as_set(pairs) == want
        assert as_set(pairs32) == want32
        assert len(want32) == len(want) + 1  # the near/far pair


def test_mixed_dtypes_and_integers():
    # Rank 0 float64, others float32 (rank 1 integers): every rank computes in float64.
    boxes = local_boxes(7, dtype=np.float64 if RANK == 0 else np.float32)
    if RANK == 1:
        boxes = np.round(boxes * 4).astype(np.int32)
    pairs = bpm.find_pairs(COMM, boxes, delivery="gather")
    everyone = every(boxes)
    want = reference(concat(everyone, dtype=np.float64))
    if RANK == 0:
        assert as_set(pairs) == want


# ---------------------------------------------------------------- invalid boxes


def invalid_case():
    boxes = local_boxes(8, n=60)
    bad = []
    if RANK == 0 or RANK == 2:
        boxes[3, 0] = np.nan
        boxes[10, 4] = boxes[10, 1] - 1  # min > max on y
        bad = [3, 10]
    return boxes, bad


def test_invalid_boxes_are_reported_by_global_id():
    boxes, bad = invalid_case()
    pairs, report = bpm.find_pairs(COMM, boxes, invalid="skip", return_report=True)
    everyone = every((boxes, pairs, len(bad)))
    start = sum(len(e[0]) for e in everyone[:RANK])
    all_boxes = concat([e[0] for e in everyone])

    np.testing.assert_array_equal(report.invalid_a, np.array(bad, np.uint64) + np.uint64(start))
    assert report.invalid_a.dtype == np.uint64 and len(report.invalid_b) == 0
    assert report.total_invalid == sum(e[2] for e in everyone)
    assert as_set(concat([e[1] for e in everyone], 2, np.uint64)) == reference(all_boxes)


def test_invalid_warn_and_raise():
    boxes, bad = invalid_case()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bpm.find_pairs(COMM, boxes)  # invalid='warn'
    with pytest.raises(broadphase.InvalidBoxError) as raised:
        bpm.find_pairs(COMM, boxes, invalid="raise")  # every rank raises
    ids = np.array(bad, np.uint64) + np.uint64(sum(every(len(boxes))[:RANK]))

    warned = [w for w in caught if issubclass(w.category, broadphase.InvalidBoxWarning)]
    assert len(warned) == (1 if bad else 0)
    if bad:
        assert str(ids[0]) in str(warned[0].message)
        assert warned[0].filename == __file__  # points at the caller
    np.testing.assert_array_equal(raised.value.indices, ids)
    assert len(raised.value.other_indices) == 0
    assert isinstance(raised.value, ValueError)


# ---------------------------------------------------------------- two sets


def test_two_sets():
    a = local_boxes(9, n=100 + 30 * RANK)
    b = local_boxes(10, n=80 if RANK != 1 else 0, dtype=np.float64)
    pairs, report = bpm.find_pairs(COMM, a, other=b, return_report=True)
    ids_b = (np.arange(len(b)) * SIZE + RANK + 5000).astype(np.uint64)
    custom = bpm.find_pairs(COMM, a, other=b, other_ids=ids_b, delivery="gather", root=0)
    held = bpm.find_pairs(COMM, a, other=b, delivery="to_holders")
    everyone = every((a, b, pairs, ids_b))
    start_a = sum(len(e[0]) for e in everyone[:RANK])
    start_b = sum(len(e[1]) for e in everyone[:RANK])
    all_a = concat([e[0] for e in everyone], dtype=np.float64)
    all_b = concat([e[1] for e in everyone], dtype=np.float64)
    all_ids_b = concat([e[3] for e in everyone], 1, np.uint64).ravel()
    want = reference(all_a, all_b)
    union = concat([e[2] for e in everyone], 2, np.uint64)

    assert len(want) > 20
    assert as_set(union) == want
    assert_once(union)
    assert report.total_pairs == len(want)
    if RANK == 0:
        assert as_set(custom) == {(i, int(all_ids_b[j])) for i, j in want}
    assert_once(held)
    assert as_set(held) == {(i, j) for i, j in want
                            if start_a <= i < start_a + len(a) or start_b <= j < start_b + len(b)}


# ---------------------------------------------------------------- budget


def test_pair_budget():
    boxes = local_boxes(11)
    with pytest.raises(broadphase.PairBudgetError) as raised:
        bpm.find_pairs(COMM, boxes, max_pairs=3)  # every rank raises (the status is agreed)
    total = len(bpm.find_pairs(COMM, boxes, delivery="gather", max_pairs=10**9))
    counts = every(len(raised.value.pairs))

    assert raised.value.pairs.dtype == np.uint64
    assert all(c <= 3 for c in counts)
    assert raised.value.report.status == "pair_budget_exceeded"
    if RANK == 0:
        assert total == raised.value.report.total_pairs


# ---------------------------------------------------------------- a finder over frames


def test_finder_reuses_its_partition_over_frames():
    finder = bpm.DistributedPairFinder(COMM)
    assert finder.partition is None and finder.stats is None
    base = local_boxes(12, n=400)
    rng = np.random.default_rng([12, RANK])
    results = []
    for frame in range(4):
        boxes = base + rng.uniform(-0.2, 0.2, (len(base), 1)).astype(np.float32)  # small moves
        pairs = finder.find_pairs(boxes, sorted=True)
        results.append((boxes, pairs, finder.stats.repartitioned, finder.partition))
    # Everything moves into one corner: unbalanced, so a new partition (P > 1).
    crowded = (base * np.float32(0.05) + np.float32(15 + RANK * 0.5)).astype(np.float32)
    pairs = finder.find_pairs(crowded)
    results.append((crowded, pairs, finder.stats.repartitioned, finder.partition))
    finder.invalidate_partition()
    pairs = finder.find_pairs(crowded)
    results.append((crowded, pairs, finder.stats.repartitioned, finder.partition))
    # float64 next: its own finder inside, same answers.
    pairs = finder.find_pairs(crowded.astype(np.float64))
    results.append((crowded, pairs, finder.stats.repartitioned, finder.partition))
    everyone = every(results)

    for frame, (boxes, pairs, repartitioned, partition) in enumerate(results):
        union = concat([e[frame][1] for e in everyone], 2, np.uint64)
        assert as_set(union) == reference(concat([e[frame][0] for e in everyone])), frame
        assert_once(union)
        assert partition.shape == (SIZE, 6) and partition.dtype == np.float64
        np.testing.assert_array_equal(partition, everyone[0][frame][3])  # the same on every rank
        # Each region is non-empty; together they tile space (volumes aside, the
        # outer faces are infinite).
        assert np.all(partition[:, :3] <= partition[:, 3:])
    repart = [r[2] for r in results]
    np.testing.assert_array_equal(results[1][3], results[3][3])
    if SIZE > 1:
        assert repart[:4] == [True, False, False, False]
        assert repart[4]
        assert repart[5]  # invalidate_partition
        assert repart[6]  # the float64 finder's first call
    else:
        assert not any(repart)  # one rank never builds a partition
    assert finder.rank == RANK and finder.size == SIZE and finder.comm is COMM
    assert finder.report.stats is finder.stats


def test_finder_on_a_split_communicator():
    # Even and odd ranks form two communicators, each finding its own pairs.
    sub = COMM.Split(RANK % 2, RANK)
    try:
        boxes = local_boxes(13, n=120)
        pairs = bpm.DistributedPairFinder(sub).find_pairs(boxes, delivery="gather")
        everyone = sub.allgather(boxes)
        want = reference(concat(everyone))
        is_root = sub.Get_rank() == 0
    finally:
        sub.Free()
    if is_root:
        assert as_set(pairs) == want
    else:
        assert len(pairs) == 0


# ---------------------------------------------------------------- errors (raised on every rank)


def test_bad_arguments_raise_on_every_rank():
    good = local_boxes(14, n=10)
    with pytest.raises(ValueError, match=r"shape \(N, 6\)"):
        bpm.find_pairs(COMM, good[:, :5])
    with pytest.raises(TypeError, match="real numbers"):
        bpm.find_pairs(COMM, good.astype(complex))
    with pytest.raises(ValueError, match="delivery"):
        bpm.find_pairs(COMM, good, delivery="everywhere")
    with pytest.raises(ValueError, match="root"):
        bpm.find_pairs(COMM, good, delivery="gather", root=SIZE)
    with pytest.raises(ValueError, match="algorithm"):
        bpm.find_pairs(COMM, good, algorithm="quadtree")
    with pytest.raises(ValueError, match="spelt 'automatic'"):
        bpm.find_pairs(COMM, good, algorithm="auto")
    with pytest.raises(ValueError, match="ids"):
        bpm.find_pairs(COMM, good, np.arange(len(good) + 1))
    with pytest.raises(ValueError, match="ids"):
        bpm.find_pairs(COMM, good, -np.arange(len(good)) - 1)
    with pytest.raises(TypeError, match="ids"):
        bpm.find_pairs(COMM, good, np.arange(len(good), dtype=float))
    with pytest.raises(ValueError, match="other_ids"):
        bpm.find_pairs(COMM, good, other_ids=np.arange(3))
    with pytest.raises(TypeError, match="mpi4py"):
        bpm.find_pairs("COMM_WORLD", good)
    with pytest.raises(ValueError, match="rebalance"):
        bpm.DistributedPairFinder(COMM, rebalance=0.5)
    # The communicator still works after all that.
    pairs = bpm.find_pairs(COMM, good, delivery="gather")
    everyone = every(good)
    if RANK == 0:
        assert as_set(pairs) == reference(concat(everyone))


def test_an_error_on_one_rank_raises_on_every_rank():
    good = local_boxes(15, n=10)
    last = SIZE - 1

    def error_of(boxes, **options):
        try:
            bpm.find_pairs(COMM, boxes, **options)
        except ValueError as e:
            return str(e)
        return None

    shape = error_of(good[:, :4] if RANK == last else good)
    # Options that must agree, given differently by the last rank.
    odd = RANK == last and SIZE > 1
    delivery = error_of(good, delivery="gather" if odd else "keep")
    two = error_of(good, other=good if odd else None)
    root = error_of(good, delivery="gather", root=last if odd else 0)

    assert shape is not None
    if RANK == last:
        assert "shape (N, 6)" in shape and "on rank" not in shape
    else:
        assert f"on rank {last}" in shape and "shape (N, 6)" in shape
    if SIZE > 1:
        assert "same delivery" in delivery
        assert "same with or without other" in two
        assert "same root" in root
    else:  # one rank agrees with itself
        assert delivery is None and two is None and root is None


def test_single_rank_answers_match_find_pairs_exactly():
    # On each rank's own communicator (COMM_SELF) the pairs are the
    # single-process ones, as uint64.
    boxes = local_boxes(16, n=300)
    got = bpm.find_pairs(MPI.COMM_SELF, boxes, sorted=True)
    want = broadphase.find_pairs(boxes, sorted=True)
    np.testing.assert_array_equal(got, want.astype(np.uint64))


def test_finder_repr():
    finder = bpm.DistributedPairFinder(COMM)
    assert repr(finder) == f"<broadphase.mpi.DistributedPairFinder rank {RANK} of {SIZE}, no call yet>"
    boxes = np.array([[0, 0, 0, 1, 1, 1], [1, 1, 1, 2, 2, 2]], np.float32) if RANK == 0 else np.zeros((0, 6), np.float32)
    finder.find_pairs(boxes)
    assert repr(finder) == (
        f"<broadphase.mpi.DistributedPairFinder rank {RANK} of {SIZE}, last call: 2 boxes, 1 pair over all ranks, ok>"
    )
