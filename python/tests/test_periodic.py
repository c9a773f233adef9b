"""boxsize=: pairs in a periodic domain (find_pairs, PairFinder.find_pairs,
find_sphere_pairs) against numpy brute force written from the documented
rules, and against scipy.spatial.cKDTree(boxsize=...) when scipy is installed."""

import math
from fractions import Fraction

import numpy as np
import pytest

import broadphase
from conftest import assert_same_pairs, sort_pairs, valid_mask


def periods_of(boxsize):
    if boxsize is None:
        return np.zeros(3)
    if np.ndim(boxsize) == 0:
        return np.full(3, float(boxsize))
    return np.array([0.0 if p is None else float(p) for p in boxsize])


def brute_periodic_pairs(boxes, boxsize):
    """Pairs (i < j) that meet on every axis; on a periodic axis of period L
    through some image: an integer k with min_i - max_j <= kL <= max_i - min_j
    (exact here: the tests' values are multiples of 1/8 and L a power of two,
    or the rounding does not reach a tie)."""
    b = np.asarray(boxes, np.float64)
    n = len(b)
    if n < 2:
        return np.zeros((0, 2), np.uint32)
    ok = np.triu(np.ones((n, n), bool), 1) & valid_mask(b)[:, None] & valid_mask(b)[None, :]
    for k, L in enumerate(periods_of(boxsize)):
        lo_i, hi_i = b[:, None, k], b[:, None, 3 + k]
        lo_j, hi_j = b[None, :, k], b[None, :, 3 + k]
        with np.errstate(invalid="ignore"):
            if L:
                ok &= np.ceil((lo_i - hi_j) / L) <= np.floor((hi_i - lo_j) / L)
            else:
                ok &= ~((hi_i < lo_j) | (hi_j < lo_i))
    i, j = np.nonzero(ok)
    return np.stack([i, j], 1).astype(np.uint32).reshape(-1, 2)


def lattice_boxes(rng, n, L=8.0, dtype=np.float64):
    """Mins in [-L, 2L) (they wrap), sizes up to 0.15 L, some points, some
    above L/2 and above L; every value a multiple of 1/8."""
    lo = np.round(rng.uniform(-L, 2 * L, (n, 3)) * 8) / 8
    size = np.round(rng.uniform(0, 0.15 * L, (n, 3)) * 8) / 8
    kind = rng.random(n)
    size[kind < 0.1] = 0
    size[(kind >= 0.1) & (kind < 0.15)] *= 5
    size[(kind >= 0.15) & (kind < 0.17)] *= 9
    return np.hstack([lo, lo + size]).astype(dtype)


BOXSIZES = [8.0, 8, (8.0, 0, 8.0), (None, 8.0, None), np.array([8.0, 8.0, 0.0]), [0, 0, 8]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("boxsize", BOXSIZES, ids=lambda b: repr(b).replace(" ", ""))
@pytest.mark.parametrize("n", [0, 1, 2, 300])
def test_find_pairs_against_brute_force(rng, dtype, boxsize, n):
    boxes = lattice_boxes(rng, n, dtype=dtype)
    want = brute_periodic_pairs(boxes, boxsize)
    got = broadphase.find_pairs(boxes, boxsize=boxsize)
    assert_same_pairs(got, want)
    got = broadphase.find_pairs(boxes, boxsize=boxsize, sorted=True, threads=2)
    np.testing.assert_array_equal(got, sort_pairs(want))


@pytest.mark.parametrize("algorithm", ["automatic"] + broadphase.algorithms())
def test_every_algorithm_and_a_kept_finder(rng, algorithm):
    finder = broadphase.PairFinder()
    for frame in range(3):
        boxes = lattice_boxes(rng, 400, dtype=np.float32)
        got = finder.find_pairs(boxes, boxsize=8.0, algorithm=algorithm)
        assert_same_pairs(got, brute_periodic_pairs(boxes, 8.0))
    # The same finder still answers without a domain.
    assert_same_pairs(finder.find_pairs(boxes), broadphase.find_pairs(boxes))


def test_boundaries_and_large_boxes():
    L = 10.0
    rows = [
        [9, 0, 0, 10, 1, 1],  # 0: touches 1 across x = L
        [0, 0, 0, 1, 1, 1],  # 1
        [20, 0, 0, 20, 1, 1],  # 2: x = 2L, a face at 0: touches 1, and 0 at x = L
        [-0.5, 5, 5, -0.25, 5, 5],  # 3: wraps to [9.5, 9.75]
        [9.6, 5, 5, 9.7, 5, 5],  # 4: inside 3
        [3, 7, 7, 13, 7, 7],  # 5: spans x (extent L): meets 6 whatever its x
        [1234.5, 7, 7, 1234.5, 7, 7],  # 6
    ]
    got = broadphase.find_pairs(np.array(rows), boxsize=(L, 0, 0), sorted=True)
    np.testing.assert_array_equal(got, [[0, 1], [0, 2], [1, 2], [3, 4], [5, 6]])
    assert_same_pairs(got, brute_periodic_pairs(np.array(rows), (L, 0, 0)))


def test_float32_with_a_period_that_is_not_a_float32():
    rng = np.random.default_rng(3)
    boxes = rng.uniform(-0.1, 0.2, (300, 6)).astype(np.float32)
    boxes[:, 3:] = boxes[:, :3] + np.float32(0.004)
    # 0.1 is not a float32: the search runs in float64 with this exact period.
    got = broadphase.find_pairs(boxes, boxsize=0.1)
    assert_same_pairs(got, broadphase.find_pairs(boxes.astype(np.float64), boxsize=0.1))


def test_moving_by_whole_periods_changes_nothing(rng):
    boxes = lattice_boxes(rng, 300)
    before = broadphase.find_pairs(boxes, boxsize=8.0, sorted=True)
    shift = rng.integers(-50, 50, (300, 3)) * 8.0
    moved = boxes + np.hstack([shift, shift])
    np.testing.assert_array_equal(broadphase.find_pairs(moved, boxsize=8.0, sorted=True), before)


def test_invalid_boxes_and_budget(rng):
    boxes = lattice_boxes(rng, 200)
    boxes[5, 0] = np.nan
    boxes[9, 1] = boxes[9, 4] + 1
    with pytest.warns(broadphase.InvalidBoxWarning):
        got = broadphase.find_pairs(boxes, boxsize=8.0)
    assert_same_pairs(got, brute_periodic_pairs(boxes, 8.0))
    with pytest.raises(broadphase.InvalidBoxError):
        broadphase.find_pairs(boxes, boxsize=8.0, invalid="raise")
    want = brute_periodic_pairs(boxes, 8.0)
    with pytest.raises(broadphase.PairBudgetError) as e:
        broadphase.find_pairs(boxes, boxsize=8.0, invalid="skip", sorted=True, max_pairs=5)
    np.testing.assert_array_equal(e.value.pairs, sort_pairs(want)[:5])


@pytest.mark.parametrize(
    "boxsize, error",
    [(-1.0, ValueError), (float("nan"), ValueError), (float("inf"), ValueError), ((1.0, 2.0), ValueError),
     ((1.0, 2.0, 3.0, 4.0), ValueError), ((1.0, -2.0, 3.0), ValueError), ("abc", TypeError), (True, TypeError),
     ((1.0, "x", 3.0), TypeError), (1e308, ValueError)],
)
def test_bad_boxsize(boxsize, error):
    boxes = np.zeros((3, 6))
    with pytest.raises(error, match="boxsize"):
        broadphase.find_pairs(boxes, boxsize=boxsize)
    with pytest.raises(error, match="boxsize"):
        broadphase.find_sphere_pairs(np.zeros((3, 3)), 1.0, boxsize=boxsize)


def test_boxsize_is_for_one_set():
    with pytest.raises(ValueError, match="other"):
        broadphase.find_pairs(np.zeros((2, 6)), np.zeros((2, 6)), boxsize=1.0)
    # No periodic axis: the ordinary call.
    b = np.zeros((2, 6))
    assert_same_pairs(broadphase.find_pairs(b, boxsize=(0, None, 0)), [[0, 1]])


def fraction_pairs(boxes, L):
    """The rule in exact rational arithmetic (fractions): on every axis an
    integer k with min_i - max_j <= kL <= max_i - min_j."""
    rows = [[Fraction(float(x)) for x in row] for row in np.asarray(boxes)]
    L = Fraction(float(L))
    out = []
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            a, b = rows[i], rows[j]
            if all(math.ceil((a[k] - b[3 + k]) / L) <= math.floor((a[3 + k] - b[k]) / L) for k in range(3)):
                out.append((i, j))
    return np.array(out, np.uint32).reshape(-1, 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exact_against_fractions_with_near_ties(dtype):
    """Full-precision coordinates, a period that is not a power of two, and
    faces placed a whole number of periods from other faces (rounded, so
    within an ulp either side): every answer equals exact arithmetic's."""
    rng = np.random.default_rng(11)
    L = float(dtype(0.7))
    n = 160
    lo = rng.uniform(-3, 3, (n, 3))
    size = rng.uniform(0, 0.05, (n, 3))
    boxes = np.hstack([lo, lo + size]).astype(dtype)
    for i in range(0, n, 2):  # box i's min on box i+1's max moved by k periods
        k = int(rng.integers(-4, 5))
        ax = int(rng.integers(0, 3))
        m = dtype(float(boxes[i + 1, 3 + ax]) + k * L)
        m = np.nextafter(m, dtype(np.inf) * rng.choice([-1, 1])) if rng.random() < 0.5 else m
        boxes[i, ax] = m
        boxes[i, 3 + ax] = max(boxes[i, 3 + ax], m)
        boxes[i, [a for a in range(3) if a != ax]] = boxes[i + 1, [a for a in range(3) if a != ax]]
        boxes[i, [3 + a for a in range(3) if a != ax]] = boxes[i + 1, [3 + a for a in range(3) if a != ax]]
    got = broadphase.find_pairs(boxes, boxsize=L)
    want = fraction_pairs(boxes, L)
    assert len(want) > n // 4
    assert_same_pairs(got, want)


# ---- spheres ----


def rule_sphere_pairs(centers, radii, boxsize):
    """spheres.hpp's periodic rule written out: each coordinate wrapped into
    [0, L) (fmod, + L when negative, L -> 0), d the difference, the smallest of
    d, d - L, d + L; then d . d <= (ri + rj)^2 in float64."""
    c = np.asarray(centers, np.float64)
    n = len(c)
    r = np.broadcast_to(np.asarray(radii, np.float64), (n,))
    d2 = np.zeros((n, n))
    for k, L in enumerate(periods_of(boxsize)):
        x = c[:, k]
        if L:
            w = np.fmod(x, L)
            w = np.where(w < 0, w + L, w)
            w = np.where(w >= L, 0.0, w)
            d = w[:, None] - w[None, :]
            cand = np.stack([d, d - L, d + L])
            d = np.take_along_axis(cand, np.argmin(np.abs(cand), axis=0)[None], 0)[0]
        else:
            d = x[:, None] - x[None, :]
        d2 = d2 + d * d
    rr = r[:, None] + r[None, :]
    ok = np.triu(d2 <= rr * rr, 1) & (r >= 0)[:, None] & (r >= 0)[None, :]
    i, j = np.nonzero(ok)
    return np.stack([i, j], 1).astype(np.uint32).reshape(-1, 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("boxsize", [10.0, (10.0, 0, 10.0), (0, 10.0, None)], ids=repr)
@pytest.mark.parametrize("r_max", [0.5, 3.0, 6.0])
def test_sphere_pairs_against_the_rule(rng, dtype, boxsize, r_max):
    c = rng.uniform(-10, 20, (400, 3)).astype(dtype)
    r = rng.uniform(0, r_max, 400).astype(dtype)
    got = broadphase.find_sphere_pairs(c, r, boxsize=boxsize)
    assert_same_pairs(got, rule_sphere_pairs(c, r, boxsize))
    got = broadphase.find_sphere_pairs(c, dtype(r_max / 2), boxsize=boxsize, algorithm="sweep_and_prune", threads=2)
    assert_same_pairs(got, rule_sphere_pairs(c, r_max / 2, boxsize))


def test_spheres_touching_across_the_boundary():
    c = np.array([[0.5, 5, 5], [9.5, 5, 5], [-9.5, 5, 5], [5, 5, 5]])
    got = broadphase.find_sphere_pairs(c, 0.5, boxsize=10.0, sorted=True)
    np.testing.assert_array_equal(got, [[0, 1], [0, 2], [1, 2]])  # distance 1 = 0.5 + 0.5; 2 wraps onto 0


@pytest.mark.parametrize("boxsize", [10.0, (10.0, 7.0, 12.0)], ids=repr)
@pytest.mark.parametrize("radius", [0.3, 1.0, 2.6])
def test_same_pairs_as_scipy_ckdtree(boxsize, radius):
    spatial = pytest.importorskip("scipy.spatial")
    rng = np.random.default_rng(7)
    L = periods_of(boxsize)
    c = rng.uniform(0, 1, (1500, 3)) * L  # cKDTree wants data in [0, L)
    tree = spatial.cKDTree(c, boxsize=boxsize)
    want = tree.query_pairs(2 * radius, output_type="ndarray")
    got = broadphase.find_sphere_pairs(c, radius, boxsize=boxsize)
    assert_same_pairs(got, want)
