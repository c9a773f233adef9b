"""Index queries against the numpy brute force."""

import threading

import numpy as np
import pytest

import broadphase
from conftest import assert_same_pairs, brute_pairs, random_boxes, sort_pairs

ALGORITHMS = ["automatic"] + broadphase.algorithms()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_query_and_batch(rng, algorithm, dtype):
    boxes = random_boxes(rng, 2000, spread=60.0, dtype=dtype)
    boxes[17] = np.nan
    queries = random_boxes(rng, 300, spread=70.0, size=(0.0, 12.0), dtype=dtype)
    queries[3] = [1, 1, 1, 0, 0, 0]  # invalid: overlaps nothing
    idx = broadphase.Index(boxes, algorithm=algorithm, invalid="skip")
    assert len(idx) == 2000
    assert idx.dtype == ("float32" if dtype == np.float32 else "float64")
    assert idx.algorithm in broadphase.algorithms()
    want = brute_pairs(queries, boxes)
    for q in range(0, 300, 7):
        hits = idx.query(queries[q], sorted=True)
        assert hits.dtype == np.uint32
        np.testing.assert_array_equal(hits, want[want[:, 0] == q, 1])
    assert_same_pairs(idx.query_batch(queries, invalid="skip"), want)
    with pytest.warns(broadphase.InvalidBoxWarning):
        idx.query_batch(queries)


def test_empty_and_single():
    idx = broadphase.Index(np.empty((0, 6)))
    assert len(idx.query([0, 0, 0, 1, 1, 1])) == 0
    assert idx.query_batch(np.zeros((4, 6))).shape == (0, 2)
    one = broadphase.Index([[0, 0, 0, 1, 1, 1]])
    assert one.query([1, 1, 1, 2, 2, 2]).tolist() == [0]  # touching corner
    assert one.query_batch(np.empty((0, 6))).shape == (0, 2)


def test_float64_queries_on_float32_index():
    idx = broadphase.Index(np.array([[0, 0, 0, 1, 1, 1]], np.float32))
    assert idx.query(np.array([0.5, 0.5, 0.5, 2, 2, 2])).tolist() == [0]
    assert idx.query_batch(np.array([[0.5, 0.5, 0.5, 2, 2, 2], [3, 3, 3, 4, 4, 4]])).tolist() == [[0, 0]]


def test_errors():
    idx = broadphase.Index(np.zeros((3, 6)))
    with pytest.raises(ValueError, match="one box of six numbers"):
        idx.query([0, 0, 0, 1, 1])
    with pytest.raises(ValueError, match="unknown algorithm"):
        broadphase.Index(np.zeros((3, 6)), algorithm="kd")
    with pytest.raises(broadphase.InvalidBoxError):
        broadphase.Index(np.full((3, 6), np.nan), invalid="raise")


def test_concurrent_queries(rng):
    boxes = random_boxes(rng, 5000, spread=100.0, dtype=np.float32)
    idx = broadphase.Index(boxes)
    queries = random_boxes(rng, 200, spread=100.0, dtype=np.float32)
    want = [idx.query(q, sorted=True) for q in queries]
    errors = []

    def work():
        try:
            for q, w in zip(queries, want):
                np.testing.assert_array_equal(idx.query(q, sorted=True), w)
        except Exception as e:  # pragma: no cover
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


# ---------------------------------------------------------------- float64 queries on a float32 index, exactly


def _up(x):
    return np.nextafter(np.float64(x), np.inf)


def _down(x):
    return np.nextafter(np.float64(x), -np.inf)


@pytest.mark.parametrize("offset", [0.0, 1e7])
def test_float64_queries_one_ulp_from_float32_index(offset):
    # Built box: x in [offset, offset + 0.3f] (float32 values). float64 queries
    # one float64 ulp clear of it must not hit it, though rounded to the
    # nearest float32 they would touch it.
    lo = np.float32(offset)
    hi = np.float32(offset + 0.3) if offset == 0 else np.float32(offset + 1.0)
    idx = broadphase.Index(np.array([[lo, 0, 0, hi, 1, 1]], np.float32))
    hi64, lo64 = np.float64(hi), np.float64(lo)
    assert np.float32(_up(hi64)) == hi and np.float32(_down(lo64)) == lo  # nearest-float rounding would touch
    cases = [
        ([_up(hi64), 0, 0, hi64 + 5, 1, 1], []),  # starts one ulp past the built max
        ([hi64, 0, 0, hi64 + 5, 1, 1], [0]),  # touches it
        ([lo64 - 5, 0, 0, _down(lo64), 1, 1], []),  # ends one ulp before the built min
        ([lo64 - 5, 0, 0, lo64, 1, 1], [0]),
        ([_up(hi64), 0, 0, _up(hi64), 1, 1], []),  # a point-like query just outside
        ([_down(hi64), 0, 0, _down(hi64), 1, 1], [0]),  # ... and just inside (no float32 in between)
        ([_up(lo64), 0.5, 0.5, _up(lo64), 0.5, 0.5], [0]),
        ([_down(lo64), 0.5, 0.5, _down(lo64), 0.5, 0.5], []),
    ]
    for q, want in cases:
        q = np.array(q, np.float64)
        assert idx.query(q).tolist() == want, q
        assert idx.query_batch(q[None, :]).tolist() == [[0, i] for i in want], q


@pytest.mark.parametrize("offset", [0.0, 1e7])
def test_float64_query_invalid_by_one_ulp_stays_invalid(offset):
    idx = broadphase.Index(np.array([[offset - 10, -10, -10, offset + 10, 10, 10]], np.float32))
    m = np.float64(offset + 0.1)
    bad = np.array([[_up(m), 0, 0, m, 1, 1]])  # min > max by one float64 ulp: same float32 to nearest
    assert np.float32(bad[0, 0]) == np.float32(bad[0, 3])
    assert idx.query(bad[0]).tolist() == []
    with pytest.warns(broadphase.InvalidBoxWarning):
        assert idx.query_batch(bad).shape == (0, 2)
    with pytest.raises(broadphase.InvalidBoxError) as e:
        idx.query_batch(np.vstack([[0, 0, 0, 1, 1, 1], bad]), invalid="raise")
    assert e.value.indices.tolist() == [1]


def _boundary_queries(rng, boxes32, n):
    """float64 queries whose faces sit on, or one float64 ulp either side of,
    the built boxes' faces, some of them points or slivers thinner than a
    float32 ulp, some invalid by one ulp."""
    b = boxes32.astype(np.float64)
    src = b[rng.integers(0, len(b), n)]
    q = np.empty((n, 6))
    for k in range(3):
        face_lo = src[:, 3 + k] + rng.choice([-1, 0, 1], n) * np.spacing(src[:, 3 + k]) * rng.integers(0, 2, n)
        face_hi = src[:, k] + rng.uniform(-3, 3, n)
        q[:, k] = np.where(rng.random(n) < 0.5, face_lo, np.minimum(face_lo, face_hi))
        q[:, 3 + k] = q[:, k] + rng.choice([0.0, 1e-9, 0.5, 4.0], n)
        nudge = rng.choice([-1, 0, 1], n)
        q[:, k] = np.where(nudge > 0, np.nextafter(q[:, k], np.inf), np.where(nudge < 0, np.nextafter(q[:, k], -np.inf), q[:, k]))
    q[::13, 0] = np.nextafter(q[::13, 3], np.inf)  # min > max by one ulp: invalid
    return q


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("offset", [0.0, 1e7])
def test_float64_queries_on_float32_index_match_float64_brute_force(rng, algorithm, offset):
    boxes = random_boxes(rng, 1500, offset=offset, spread=60.0, size=(0.0, 6.0), dtype=np.float32)
    queries = _boundary_queries(rng, boxes, 400)
    assert not np.all(queries == queries.astype(np.float32))
    idx = broadphase.Index(boxes, algorithm=algorithm)
    want = brute_pairs(queries, boxes.astype(np.float64))
    rounded = brute_pairs(queries.astype(np.float32), boxes)
    assert len(want) != len(rounded) or not np.array_equal(sort_pairs(want), sort_pairs(rounded))  # the test bites
    for q in range(0, 400, 3):
        np.testing.assert_array_equal(idx.query(queries[q], sorted=True), want[want[:, 0] == q, 1])
    got = idx.query_batch(queries, invalid="skip", sorted=True)
    np.testing.assert_array_equal(got, sort_pairs(want))
    assert_same_pairs(idx.query_batch(queries, invalid="skip", threads=1), want)
    # A budget the exact pairs just fit, then one they exceed.
    assert_same_pairs(idx.query_batch(queries, invalid="skip", max_pairs=len(want)), want)
    with pytest.raises(broadphase.PairBudgetError) as e:
        idx.query_batch(queries, invalid="skip", max_pairs=len(want) - 1)
    part = e.value.pairs
    assert len(part) == len(want) - 1
    w = {tuple(p) for p in want.tolist()}
    assert all(tuple(p) in w for p in part.tolist())


def test_float64_point_queries_on_float32_index(rng):
    # Points given as float64 boxes [p, p], p strictly between two float32s:
    # the answers are those of float64, not of p rounded to nearest.
    boxes = random_boxes(rng, 800, spread=20.0, size=(0.0, 3.0), dtype=np.float32)
    b = boxes.astype(np.float64)
    pts = b[rng.integers(0, len(b), 300), 3:] + rng.choice([-1.0, 1.0], (300, 3)) * 2.0**-30
    queries = np.hstack([pts, pts])
    idx = broadphase.Index(boxes)
    want = brute_pairs(queries, b)
    assert_same_pairs(idx.query_batch(queries), want)
    for q in range(0, 300, 5):
        np.testing.assert_array_equal(idx.query(queries[q], sorted=True), want[want[:, 0] == q, 1])


def test_float64_query_budget_counts_exact_pairs():
    # p = 1 + 2^-30 lies between the float32s 1 and 1 + 2^-23. Box 1 starts at
    # 1 + 2^-23 and box 0 ends at 1: neither holds p; box 2 does. Candidates
    # of the float32 search may include box 1 (it touches 1 + 2^-23), but
    # max_pairs bounds the exact pairs only.
    hi = float(np.nextafter(np.float32(1), np.float32(2)))
    boxes = np.array([[0, 0, 0, 1, 1, 1], [hi, 0, 0, 2, 1, 1], [0, 0, 0, 2, 1, 1]], np.float32)
    p = 1 + 2.0**-30
    q = np.array([[p, 0.5, 0.5, p, 0.5, 0.5]])
    for algorithm in ALGORITHMS:
        idx = broadphase.Index(boxes, algorithm=algorithm)
        assert idx.query(q[0]).tolist() == [2]
        assert idx.query_batch(q, max_pairs=1).tolist() == [[0, 2]]
        with pytest.raises(broadphase.PairBudgetError) as e:
            idx.query_batch(np.vstack([q, q]), max_pairs=1)
        assert e.value.pairs.tolist() == [[0, 2]]


def test_float64_query_budget_keeps_the_batch_order():
    # PairBudgetError.pairs are the first max_pairs of the answer without a
    # budget (sorted where sorted=True). For float64 queries on a float32
    # index with a query thinner than a float32 on some axis (p below), they
    # were the first in query order instead (found by test_fuzz.py).
    rng = np.random.default_rng(17)
    boxes = random_boxes(rng, 300, spread=10.0, size=(0.0, 2.0), dtype=np.float32)
    queries = random_boxes(rng, 80, spread=10.0, size=(0.0, 2.0))
    p = 1 + 2.0**-30
    queries[5] = [p, 0, 0, p, 1, 1]
    bites = False
    for algorithm in ALGORITHMS:
        idx = broadphase.Index(boxes, algorithm=algorithm)
        full = idx.query_batch(queries)
        bites |= not np.array_equal(full, full[np.argsort(full[:, 0], kind="stable")])  # not in query order
        for m in (1, len(full) // 3, len(full) - 1):
            for sorted_ in (False, True):
                with pytest.raises(broadphase.PairBudgetError) as e:
                    idx.query_batch(queries, max_pairs=m, sorted=sorted_)
                first = full[:m]
                np.testing.assert_array_equal(e.value.pairs, sort_pairs(first) if sorted_ else first)
    assert bites
