"""2-D boxes: (N, 4) arrays, rows minx miny maxx maxy, wherever (N, 6) boxes go
(find_pairs on one set and two, PairFinder, Index build, query, query_batch),
against a numpy brute force, float32 and float64; mixing 2-D and 3-D is a
ValueError."""

import numpy as np
import pytest

import broadphase


def brute(a, b=None):
    """Sorted (K, 2) uint32 pairs of closed 2-D or 3-D boxes (valid only)."""
    a = np.asarray(a, np.float64)
    bb = a if b is None else np.asarray(b, np.float64)
    d = a.shape[1] // 2
    if len(a) == 0 or len(bb) == 0:
        return np.zeros((0, 2), np.uint32)
    ov = np.ones((len(a), len(bb)), bool)
    for k in range(d):
        ov &= ~((a[:, None, d + k] < bb[None, :, k]) | (bb[None, :, d + k] < a[:, None, k]))
    ov &= np.all(a[:, :d] <= a[:, d:], axis=1)[:, None] & np.all(bb[:, :d] <= bb[:, d:], axis=1)[None, :]
    if b is None:
        ov = np.triu(ov, 1)
    i, j = np.nonzero(ov)
    return np.stack([i, j], axis=1).astype(np.uint32).reshape(-1, 2)


def canon(p):
    p = np.asarray(p).reshape(-1, 2)
    return p[np.lexsort((p[:, 1], p[:, 0]))]


def same(got, want):
    assert got.dtype == np.uint32 and got.ndim == 2 and got.shape[1] == 2
    np.testing.assert_array_equal(canon(got), canon(want))


def random_2d(rng, n, dtype, spread=100.0, size=8.0):
    lo = rng.uniform(-spread / 2, spread / 2, (n, 2))
    return np.hstack([lo, lo + rng.uniform(0, size, (n, 2))]).astype(dtype)


def touching_2d(dtype):
    """A 6 x 6 lattice of unit squares sharing edges and corners, a few points
    on corners, a degenerate segment, and identical copies."""
    g = [[x, y, x + 1, y + 1] for x in range(6) for y in range(6)]
    g += [[2, 2, 2, 2], [3, 0, 3, 0], [0, 4, 6, 4], [1, 1, 2, 2], [1, 1, 2, 2]]
    return np.array(g, dtype)


DTYPES = [np.float32, np.float64]
SIZES = [0, 1, 50, 300, 3000]  # brute force, sweep and prune, grids


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_find_pairs_one_set(dtype, n):
    rng = np.random.default_rng(n)
    boxes = random_2d(rng, n, dtype)
    same(broadphase.find_pairs(boxes), brute(boxes))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("algorithm", ["automatic"] + broadphase.algorithms())
def test_every_algorithm_random_and_touching(dtype, algorithm):
    rng = np.random.default_rng(7)
    for boxes in (random_2d(rng, 800, dtype, spread=60), touching_2d(dtype)):
        same(broadphase.find_pairs(boxes, algorithm=algorithm, threads=2), brute(boxes))
        got = broadphase.find_pairs(boxes, algorithm=algorithm, sorted=True)
        np.testing.assert_array_equal(got, canon(brute(boxes)))


def test_touching_counts():
    boxes = touching_2d(np.float32)
    pairs = {tuple(p) for p in broadphase.find_pairs(boxes).tolist()}
    assert (0, 1) in pairs  # squares (0,0) and (0,1) share an edge
    assert (0, 7) in pairs  # (0,0) and (1,1) share a corner
    assert len(pairs) == len(brute(boxes))


@pytest.mark.parametrize("dtype", DTYPES)
def test_two_sets(dtype):
    rng = np.random.default_rng(3)
    a, b = random_2d(rng, 700, dtype), random_2d(rng, 400, dtype)
    same(broadphase.find_pairs(a, b), brute(a, b))
    same(broadphase.find_pairs(a, touching_2d(dtype)), brute(a, touching_2d(dtype)))
    # mixed precision: compared in float64
    c = random_2d(rng, 300, np.float64 if dtype == np.float32 else np.float32)
    same(broadphase.find_pairs(a, c), brute(a, c))


def test_empty_one_dimensional_fits_either():
    a = random_2d(np.random.default_rng(0), 10, np.float64)
    assert broadphase.find_pairs(a, np.zeros(0)).shape == (0, 2)
    assert broadphase.find_pairs(np.zeros(0), a).shape == (0, 2)
    assert broadphase.find_pairs(np.zeros((0, 4))).shape == (0, 2)


def test_invalid_2d_boxes_skipped_and_reported():
    boxes = np.array([[0, 0, 1, 1], [0.5, 0.5, 2, 2], [np.nan, 0, 1, 1], [2, 0, 1, 1]], np.float64)
    same(broadphase.find_pairs(boxes, invalid="skip"), [[0, 1]])
    with pytest.raises(broadphase.InvalidBoxError) as e:
        broadphase.find_pairs(boxes, invalid="raise")
    assert e.value.indices.tolist() == [2, 3]


def test_pair_finder_keeps_both_dimensions():
    rng = np.random.default_rng(5)
    f = broadphase.PairFinder()
    for dtype in DTYPES:
        flat, solid = random_2d(rng, 2000, dtype), rng.uniform(0, 40, (500, 6)).astype(dtype)
        solid[:, 3:] = solid[:, :3] + 3
        for _ in range(2):
            same(f.find_pairs(flat), brute(flat))
            same(f.find_pairs(solid), brute(solid))
            same(f.find_pairs(flat[:900], flat[900:]), brute(flat[:900], flat[900:]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("algorithm", ["automatic"] + broadphase.algorithms())
def test_index(dtype, algorithm):
    rng = np.random.default_rng(11)
    boxes = np.vstack([random_2d(rng, 600, dtype, spread=50), touching_2d(dtype)])
    idx = broadphase.Index(boxes, algorithm=algorithm)
    assert idx.dim == 2 and len(idx) == len(boxes) and idx.dtype == np.dtype(dtype).name
    queries = np.vstack([random_2d(rng, 200, np.float64, spread=60, size=12), touching_2d(np.float64)])
    for qdtype in DTYPES:
        q = queries.astype(qdtype)
        want = brute(q, boxes)
        same(idx.query_batch(q), want)
        same(idx.query_batch(q, threads=2, sorted=True), want)
        for i in range(0, len(q), 17):
            got = np.sort(idx.query(q[i]))
            assert got.dtype == np.uint32
            np.testing.assert_array_equal(got, want[want[:, 0] == i, 1])
    # a query as a (1, 4) array and as a list
    np.testing.assert_array_equal(np.sort(idx.query([[0, 0, 1, 1]])), np.sort(idx.query([0, 0, 1, 1])))


def test_float32_index_float64_query_exact_in_2d():
    boxes = np.array([[0, 0, 1, 1], [2, 0, 3, 1]], np.float32)
    idx = broadphase.Index(boxes)
    gap = float(np.nextafter(np.float32(1), np.float32(2)))  # the float32 after 1
    just_past = (1 + gap) / 2  # a float64 strictly between two float32s: no hit
    assert idx.query([just_past, 0, just_past, 1]).tolist() == []
    assert idx.query([1.0, 0, just_past, 1]).tolist() == [0]
    q = np.array([[just_past, 0, just_past, 1], [1.0, 0.5, 2.0, 0.5]], np.float64)
    same(idx.query_batch(q), [[1, 0], [1, 1]])


def test_mixing_dimensions_is_a_value_error():
    flat = np.zeros((3, 4), np.float32)
    solid = np.zeros((3, 6), np.float32)
    with pytest.raises(ValueError, match=r"other must have shape \(N, 4\).*both sets must have the same dimension"):
        broadphase.find_pairs(flat, solid)
    with pytest.raises(ValueError, match=r"other must have shape \(N, 6\).*boxes is 3-D"):
        broadphase.find_pairs(solid, flat)
    with pytest.raises(ValueError, match="same dimension"):
        broadphase.PairFinder().find_pairs(flat, solid)
    idx2, idx3 = broadphase.Index(flat), broadphase.Index(solid)
    with pytest.raises(ValueError, match=r"four numbers.*the index is 2-D"):
        idx2.query([0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match=r"six numbers.*the index is 3-D"):
        idx3.query([0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"\(N, 4\).*the index is 2-D"):
        idx2.query_batch(solid)
    with pytest.raises(ValueError, match=r"\(N, 6\).*the index is 3-D"):
        idx3.query_batch(flat)
    with pytest.raises(ValueError, match=r"\(N, 6\).*or \(N, 4\)"):
        broadphase.find_pairs(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="a Scene holds 3-D boxes"):
        broadphase.Scene().add_batch(flat)


def test_pairs_are_uint32_and_too_many_boxes_refused():
    pairs = broadphase.find_pairs(np.array([[0, 0, 1, 1], [1, 1, 2, 2]], np.float32))
    assert pairs.dtype == np.uint32 and pairs.tolist() == [[0, 1]]
    # 2**32 rows that take no memory (stride 0): refused before any copy
    huge = np.lib.stride_tricks.as_strided(np.zeros(4, np.float32), shape=(2**32, 4), strides=(0, 4))
    with pytest.raises(ValueError, match=r"4294967296 boxes; at most 4294967294 .*32-bit"):
        broadphase.find_pairs(huge)
    with pytest.raises(ValueError, match="32-bit"):
        broadphase.Index(huge)
