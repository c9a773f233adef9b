"""find_sphere_pairs against the numpy brute force (and scipy, when installed)."""

import numpy as np
import pytest

import broadphase
from conftest import assert_same_pairs, sort_pairs


def brute_sphere_pairs(centers, radii):
    c = np.asarray(centers, np.float64)
    r = np.broadcast_to(np.asarray(radii, np.float64), (len(c),))
    valid = np.all(np.isfinite(c), axis=1) & (r >= 0)
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


@pytest.mark.parametrize("algorithm", ["auto"] + broadphase.algorithms())
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
    with pytest.raises(broadphase.InvalidBoxError) as e:
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
