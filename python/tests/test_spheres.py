"""find_sphere_pairs against the numpy brute force (and scipy, when installed)."""

import numpy as np
import pytest

import broadphase
from conftest import assert_same_pairs, sort_pairs


def brute_sphere_pairs(centers, radii):
    c = np.asarray(centers, np.float64)
    r = np.broadcast_to(np.asarray(radii, np.float64), (len(c),))
    valid = np.all(np.isfinite(c), axis=1) & (r >= 0)
    with np.errstate(invalid="ignore"):  # inf - inf: those rows are invalid anyway
        d = c[:, None, :] - c[None, :, :]
        d2 = np.einsum("ijk,ijk->ij", d, d)
    rr = r[:, None] + r[None, :]
    ok = np.triu(d2 <= rr * rr, 1) & valid[:, None] & valid[None, :]
    i, j = np.nonzero(ok)
    return np.stack([i, j], 1).astype(np.uint32).reshape(-1, 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 100, 2000])
def test_equal_radii(rng, dtype, n):
    c = rng.uniform(0, 20, (n, 3)).astype(dtype)
    r = dtype(0.5)
    got = broadphase.find_sphere_pairs(c, r)
    assert_same_pairs(got, brute_sphere_pairs(c, r))
    # The box pairs are a superset: some corners are not inside the spheres.
    boxes = np.hstack([c - r, c + r])
    assert len(broadphase.find_pairs(boxes)) >= len(got)


@pytest.mark.parametrize("algorithm", ["automatic"] + broadphase.algorithms())
def test_varied_radii(rng, algorithm):
    c = rng.uniform(-10, 10, (1500, 3))
    r = rng.uniform(0.0, 1.5, 1500)
    r[:10] = 0.0  # points
    got = broadphase.find_sphere_pairs(c, r, algorithm=algorithm, threads=2)
    assert_same_pairs(got, brute_sphere_pairs(c, r))


def test_touching_spheres_count():
    # Unit spheres on a lattice of spacing 2: every neighbour touches exactly.
    g = np.stack(np.meshgrid(np.arange(6), np.arange(6), np.arange(6), indexing="ij"), -1).reshape(-1, 3) * 2.0
    got = broadphase.find_sphere_pairs(g, 1.0, sorted=True)
    want = brute_sphere_pairs(g, 1.0)
    np.testing.assert_array_equal(got, sort_pairs(want))
    assert len(got) == 3 * 5 * 36  # face neighbours only: diagonals are sqrt(2)*2 apart


def test_offsets_and_identical():
    c = np.full((200, 3), 1e7)
    assert len(broadphase.find_sphere_pairs(c, 1e-3)) == 200 * 199 // 2
    rng = np.random.default_rng(3)
    c = -1e6 + rng.uniform(0, 30, (1000, 3))
    assert_same_pairs(broadphase.find_sphere_pairs(c, 0.7), brute_sphere_pairs(c, 0.7))


def test_invalid_spheres():
    rng = np.random.default_rng(4)
    c = rng.uniform(0, 5, (300, 3))
    r = np.full(300, 0.5)
    c[4, 1] = np.nan
    r[9] = -1.0
    r[10] = np.nan
    r[11] = -1e-30  # negative, however small
    got = broadphase.find_sphere_pairs(c, r, invalid="skip")
    assert_same_pairs(got, brute_sphere_pairs(c, r))
    # (The message said "invalid box(es) ... (NaN, or a negative radius) (NaN, or min > max)".)
    with pytest.raises(broadphase.InvalidBoxError, match=r"^4 invalid sphere\(s\) in centers/radii \(a NaN coordinate, "
                       r"or a radius not >= 0\): 4, 9, 10, 11$") as e:
        broadphase.find_sphere_pairs(c, r, invalid="raise")
    assert e.value.indices.tolist() == [4, 9, 10, 11]
    with pytest.warns(broadphase.InvalidBoxWarning):
        broadphase.find_sphere_pairs(c, r)


def test_errors():
    with pytest.raises(ValueError, match=r"centers must have shape \(N, 3\)"):
        broadphase.find_sphere_pairs(np.zeros((5, 2)), 1.0)
    with pytest.raises(ValueError, match=r"radii must be one number or have shape \(5,\)"):
        broadphase.find_sphere_pairs(np.zeros((5, 3)), np.ones(4))
    with pytest.raises(TypeError):
        broadphase.find_sphere_pairs(np.zeros((5, 3)), "1")


def test_same_pairs_as_scipy():
    spatial = pytest.importorskip("scipy.spatial")
    rng = np.random.default_rng(5)
    c = rng.uniform(0, 40, (20000, 3))
    r = 0.5
    ours = broadphase.find_sphere_pairs(c, r, sorted=True)
    theirs = spatial.cKDTree(c).query_pairs(2 * r, output_type="ndarray")
    np.testing.assert_array_equal(ours, sort_pairs(theirs.astype(np.uint32)))


# The default algorithm ('automatic') runs find_sphere_pairs' own grid on
# spheres of similar radii; a named algorithm runs the box path. Both must
# give the same pairs.


def box_path(c, r, **kw):
    return broadphase.find_sphere_pairs(c, r, algorithm="hybrid_grid", sorted=True, **kw)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fraction", [0.001, 0.05, 0.3, 0.6])
def test_grid_against_brute_force(rng, dtype, fraction):
    n, r = 3000, 0.5
    side = (n * 4.0 / 3.0 * np.pi * r**3 / fraction) ** (1.0 / 3.0)
    c = rng.uniform(-side / 2, side / 2, (n, 3)).astype(dtype)
    got = broadphase.find_sphere_pairs(c, dtype(r), sorted=True)
    np.testing.assert_array_equal(got, sort_pairs(brute_sphere_pairs(c, dtype(r))))
    radii = rng.uniform(0.3, 0.6, n).astype(dtype)  # within 2x of the mean: the grid
    got = broadphase.find_sphere_pairs(c, radii, sorted=True)
    np.testing.assert_array_equal(got, sort_pairs(brute_sphere_pairs(c, radii)))


def test_grid_threads_same_order(rng):
    # 200,000 spheres: big enough for threads; the unsorted order must not
    # depend on the thread count.
    n, r = 200_000, 0.5
    side = (n * 4.0 / 3.0 * np.pi * r**3 / 0.3) ** (1.0 / 3.0)
    c = rng.uniform(0, side, (n, 3))
    one = broadphase.find_sphere_pairs(c, r, threads=1)
    for t in (2, 3, 0):
        np.testing.assert_array_equal(broadphase.find_sphere_pairs(c, r, threads=t), one)
    np.testing.assert_array_equal(sort_pairs(one), box_path(c, r))
    np.testing.assert_array_equal(broadphase.find_sphere_pairs(c, r, sorted=True), sort_pairs(one))
    assert np.all(one[:, 0] < one[:, 1])


def test_grid_max_pairs(rng):
    c = rng.uniform(0, 30, (20_000, 3))
    full = broadphase.find_sphere_pairs(c, 0.5, threads=2)
    assert len(full) > 100
    assert len(broadphase.find_sphere_pairs(c, 0.5, max_pairs=len(full))) == len(full)
    with pytest.raises(broadphase.PairBudgetError) as e:
        broadphase.find_sphere_pairs(c, 0.5, max_pairs=100, threads=2)
    np.testing.assert_array_equal(e.value.pairs, full[:100])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("offset", [0.0, -1e6, 1e6 + 0.25])
def test_grid_lattice_on_cell_boundaries(dtype, offset):
    # Spacing exactly one diameter: every face neighbour touches, at cell
    # boundaries of a grid whose cells are a diameter wide.
    g = np.stack(np.meshgrid(np.arange(7), np.arange(7), np.arange(7), indexing="ij"), -1).reshape(-1, 3)
    c = (g * dtype(0.75) + dtype(offset)).astype(dtype)
    r = dtype(0.375)
    got = broadphase.find_sphere_pairs(c, r, sorted=True)
    np.testing.assert_array_equal(got, sort_pairs(brute_sphere_pairs(c, r)))
    assert len(got) == 3 * 6 * 49


def test_grid_odd_inputs(rng):
    c = rng.uniform(0, 10, (500, 3))
    r = np.full(500, 0.6)
    c[3] = [np.inf, 1, 1]  # infinite centers touch nothing, and are not invalid
    c[4] = [np.inf, 1, 1]
    c[5] = [-np.inf, np.inf, 0]
    got = broadphase.find_sphere_pairs(c, r, invalid="raise", sorted=True)
    np.testing.assert_array_equal(got, sort_pairs(brute_sphere_pairs(c, r)))
    np.testing.assert_array_equal(got, box_path(c, r))
    # A far outlier, two far clusters, spread radii, zero radii, an infinite
    # radius: the box path takes these; the pairs are the same.
    cases = []
    far = c.copy()
    far[7] = [1e300, 0, 0]
    cases.append((far, r))
    clusters = np.vstack([rng.uniform(0, 5, (300, 3)), rng.uniform(1e9, 1e9 + 5, (300, 3))])
    cases.append((clusters, 0.4))
    spread = r.copy()
    spread[0] = 5.0
    cases.append((c, spread))
    cases.append((np.vstack([c[:100], c[:100]]), 0.0))  # coincident points touch
    inf_r = r.copy()
    inf_r[1] = np.inf
    cases.append((np.where(np.isfinite(c), c, 0), inf_r))
    for cc, rr in cases:
        got = broadphase.find_sphere_pairs(cc, rr, sorted=True)
        np.testing.assert_array_equal(got, sort_pairs(brute_sphere_pairs(cc, rr)))


def test_grid_invalid_and_empty():
    c = np.array([[0, 0, 0], [np.nan, 0, 0], [0.5, 0, 0], [1, 0, 0]], float)
    with pytest.raises(broadphase.InvalidBoxError) as e:
        broadphase.find_sphere_pairs(c, 0.5, invalid="raise")
    assert e.value.indices.tolist() == [1]
    got = broadphase.find_sphere_pairs(c, 0.5, invalid="skip", sorted=True)
    np.testing.assert_array_equal(got, [[0, 2], [0, 3], [2, 3]])
    assert broadphase.find_sphere_pairs(np.full((3, 3), np.nan), 1.0, invalid="skip").shape == (0, 2)
    assert broadphase.find_sphere_pairs(np.zeros((3, 3)), -1.0, invalid="skip").shape == (0, 2)


def test_grid_concurrent_calls(rng):
    # Python threads calling at once (the GIL is released): the grid's
    # helper threads serve one call's tasks at a time, each call finishing
    # its own; every call must give the same pairs.
    import concurrent.futures

    c = rng.uniform(0, 50, (120_000, 3))
    want = broadphase.find_sphere_pairs(c, 0.5, threads=1)
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        got = list(ex.map(lambda t: broadphase.find_sphere_pairs(c, 0.5, threads=t), [2, 3, 2, 0, 2, 4, 2, 3]))
    for g in got:
        np.testing.assert_array_equal(g, want)


def test_kept_memory_and_free_memory(rng):
    # The module keeps one finder for find_sphere_pairs (and one for
    # find_pairs) between calls; the arrays it returns own their memory:
    # they outlive free_memory() and later calls, and writing to one
    # changes nothing else.
    c = rng.uniform(0, 30, (20_000, 3))
    first = broadphase.find_sphere_pairs(c, 0.5, threads=1)
    keep = first.copy()
    periodic = broadphase.find_sphere_pairs(c, 0.5, threads=1, boxsize=30.0)
    boxes = broadphase.find_pairs(np.hstack([c - 0.5, c + 0.5]), threads=1)
    broadphase.free_memory()
    first[:] = 0
    again = broadphase.find_sphere_pairs(c, 0.5, threads=1)
    np.testing.assert_array_equal(again, keep)
    assert first.flags.owndata is False and first.base is not None
    assert len(periodic) >= len(keep) and len(boxes) >= len(keep)
    broadphase.free_memory()
    broadphase.free_memory()  # twice: nothing to free
    np.testing.assert_array_equal(broadphase.find_sphere_pairs(c, 0.5, threads=2), keep)
