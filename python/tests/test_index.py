"""Index queries against the numpy brute force."""

import threading

import numpy as np
import pytest

import broadphase
from conftest import assert_same_pairs, brute_pairs, random_boxes

ALGORITHMS = ["auto"] + broadphase.algorithms()


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
