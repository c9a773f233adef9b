"""NeighborList against a numpy brute force that enumerates every image within
reach, written from the rule include/broadphase/neighbor_list.hpp documents:
positions wrapped into the cell (orthorhombic axes: fmod, + L when negative,
L -> 0; general cells: n = floor(s)), D = (x'_j - x'_i) + P h per component in
float64, an entry iff (D0^2 + D1^2) + D2^2 <= reach^2 with reach = (r_i + r_j)
+ (cutoff + skin), S = P + n_i - n_j. Half lists are compared as canonical
sets ((i, j, S) and (j, i, -S) are one pair); full lists entry for entry.
Also: vectors and shifts, skin semantics, float32, odd input, errors, thread
counts, and ASE's neighbor_list('ijS') when ase is installed."""

import math
import threading
import warnings

import numpy as np
import pytest

import broadphase


# ---------------------------------------------------------------- the oracle


def cell_matrix(cell):
    """The (3, 3) rows a, b, c of cell= (None, L, three periods, or rows)."""
    if cell is None:
        return np.zeros((3, 3))
    if np.ndim(cell) == 0:
        return np.diag([float(cell)] * 3)
    if np.ndim(cell) == 1 or isinstance(cell, (list, tuple)) and len(cell) == 3 and np.ndim(cell[0]) == 0:
        return np.diag([0.0 if p is None else float(p) for p in cell])
    return np.array(cell, np.float64).reshape(3, 3)


def inverse(h):
    """h^-1 as the library computes it (CellFrame::of)."""
    periodic = np.any(h != 0, axis=1)
    diagonal = np.all((h == 0) | np.eye(3, dtype=bool))
    inv = np.zeros((3, 3))
    if diagonal:
        for k in range(3):
            inv[k, k] = 1 / h[k, k] if periodic[k] else 0.0
        return inv, periodic, diagonal
    det = (h[0, 0] * (h[1, 1] * h[2, 2] - h[1, 2] * h[2, 1]) - h[0, 1] * (h[1, 0] * h[2, 2] - h[1, 2] * h[2, 0])
           + h[0, 2] * (h[1, 0] * h[2, 1] - h[1, 1] * h[2, 0]))
    for r in range(3):
        for k in range(3):
            r1, r2, c1, c2 = (k + 1) % 3, (k + 2) % 3, (r + 1) % 3, (r + 2) % 3
            inv[r, k] = (h[r1, c1] * h[r2, c2] - h[r1, c2] * h[r2, c1]) / det
    return inv, periodic, diagonal


def wrap(x, h):
    """(w, n): x wrapped into the cell, w = x - n h (CellFrame::wrap)."""
    inv, periodic, diagonal = inverse(h)
    x = np.asarray(x, np.float64)
    w = x.copy()
    n = np.zeros_like(x)
    if diagonal:
        for k in range(3):
            if not periodic[k]:
                continue
            L = abs(h[k, k])
            v = np.fmod(x[:, k], L)
            v = np.where(v < 0, v + L, v)
            v = np.where(v >= L, 0.0, v)
            w[:, k] = v
            n[:, k] = np.rint((x[:, k] - v) / L) * (-1 if h[k, k] < 0 else 1)
        return w, n
    s = [(x[:, 0] * inv[0, k] + x[:, 1] * inv[1, k]) + x[:, 2] * inv[2, k] for k in range(3)]
    n = np.floor(np.stack(s, axis=1))
    for k in range(3):
        w[:, k] = ((x[:, k] - n[:, 0] * h[0, k]) - n[:, 1] * h[1, k]) - n[:, 2] * h[2, k]
    return w, n


def width(h, k):
    """The cell's width across axis k (CellFrame::width)."""
    if np.all((h == 0) | np.eye(3, dtype=bool)):
        return abs(h[k, k])
    a, b = h[(k + 1) % 3], h[(k + 2) % 3]
    c = np.cross(a, b)
    return abs(np.dot(h[k], c)) / np.linalg.norm(c)


def valid_particles(x, r):
    x = np.asarray(x, np.float64)
    r = np.asarray(r, np.float64)
    with np.errstate(invalid="ignore"):
        invalid = np.isnan(x).any(axis=1) | ~(r >= 0) | np.isinf(r)
    return ~invalid, invalid


def brute(x, cell=None, cutoff=0.0, skin=0.0, radii=None):
    """The full list: (keys, D), keys a (K, 5) int64 array of rows (i, j, S0,
    S1, S2), every image within reach; D the rule's (K, 3) float64 D."""
    h = cell_matrix(cell)
    x = np.asarray(x, np.float64)
    n = len(x)
    r = np.zeros(n) if radii is None else np.broadcast_to(np.asarray(radii, np.float64), (n,)).copy()
    ok, _ = valid_particles(x, r)
    ok &= np.isfinite(x).all(axis=1)
    idx = np.nonzero(ok)[0]
    keys, Ds = [np.zeros((0, 5), np.int64)], [np.zeros((0, 3))]
    if len(idx) == 0:
        return keys[0], Ds[0]
    w, im = wrap(x[idx], h)
    im = im.astype(np.int64)
    rr = r[idx]
    extra = cutoff + skin
    reach = (rr[:, None] + rr[None, :]) + extra
    periodic = np.any(h != 0, axis=1)
    span = [int(math.ceil(((2 * rr.max()) + extra) / width(h, k))) + 1 if periodic[k] else 0 for k in range(3)]
    for p0 in range(-span[0], span[0] + 1):
        for p1 in range(-span[1], span[1] + 1):
            for p2 in range(-span[2], span[2] + 1):
                ph = [(p0 * h[0, k] + p1 * h[1, k]) + p2 * h[2, k] for k in range(3)]
                D = [(w[None, :, k] - w[:, None, k]) + ph[k] for k in range(3)]
                keep = (D[0] * D[0] + D[1] * D[1]) + D[2] * D[2] <= reach * reach
                if p0 == 0 and p1 == 0 and p2 == 0:
                    np.fill_diagonal(keep, False)
                a, b = np.nonzero(keep)
                S = np.array([p0, p1, p2]) + im[a] - im[b]
                keys.append(np.column_stack([idx[a], idx[b], S]))
                Ds.append(np.column_stack([D[0][a, b], D[1][a, b], D[2][a, b]]))
    return np.concatenate(keys), np.concatenate(Ds)


def canon(keys):
    """One representative row of (i, j, S) ~ (j, i, -S) per row of keys."""
    keys = np.asarray(keys, np.int64).reshape(-1, 5)
    flip = keys[:, 0] > keys[:, 1]
    same = keys[:, 0] == keys[:, 1]
    # for i == j: keep S if S >= -S lexicographically (the first non-zero component is positive)
    s = keys[:, 2:]
    first = np.where(s[:, 0] != 0, s[:, 0], np.where(s[:, 1] != 0, s[:, 1], s[:, 2]))
    flip |= same & (first < 0)
    out = keys.copy()
    out[flip, 0], out[flip, 1] = keys[flip, 1], keys[flip, 0]
    out[flip, 2:] = -s[flip]
    return out


def rows_set(keys):
    return set(map(tuple, np.asarray(keys).tolist()))


def entries_of(nl):
    """(K, 5) int64 rows (i, j, S0, S1, S2) of the list, in its order."""
    return np.column_stack([nl.pairs().astype(np.int64), nl.shifts.astype(np.int64)]).reshape(-1, 5)


def check_layout(nl, n):
    off = nl.offsets
    assert off.dtype == np.uint64 and off.shape == (n + 1,)
    assert off[0] == 0 and np.all(np.diff(off.astype(np.int64)) >= 0)
    k = int(off[-1])
    assert nl.entries == k and nl.size == n and len(nl) == n
    ind = nl.indices
    assert ind.dtype == np.uint32 and ind.shape == (k,)
    p = nl.pairs()
    assert p.dtype == np.uint32 and p.shape == (k, 2)
    np.testing.assert_array_equal(p[:, 1], ind)
    np.testing.assert_array_equal(p[:, 0], np.repeat(np.arange(n), np.diff(off.astype(np.int64))))


def check_against_brute(nl, x, cell, cutoff, skin, radii=None, full=False):
    """nl (built with shifts and vectors) is exactly the rule's list; returns the oracle's keys."""
    x64 = np.asarray(x, np.float64)
    n = len(x64)
    check_layout(nl, n)
    want, want_D = brute(x64, cell, cutoff, skin, radii)
    got = entries_of(nl)
    D = nl.vectors
    assert D.dtype == np.float64 and D.shape == (len(got), 3)
    assert nl.shifts.dtype == np.int32
    if full:
        assert len(rows_set(got)) == len(got), "an entry twice"
        assert rows_set(got) == rows_set(want)
    else:
        c = canon(got)
        assert len(rows_set(c)) == len(c), "a pair (or a pair of images) twice in a half list"
        assert rows_set(c) == rows_set(canon(want))
    h = cell_matrix(cell)
    scale = max(1.0, np.abs(x64[np.isfinite(x64)]).max(initial=0.0) + np.abs(h).sum())
    # D is the rule's D (looked up by entry), and x_j + S h - x_i up to rounding.
    at = {k: e for e, k in enumerate(map(tuple, want.tolist()))}  # the oracle is full: every orientation is there
    wd = want_D[[at[k] for k in map(tuple, got.tolist())]].reshape(-1, 3)
    np.testing.assert_allclose(D, wd, rtol=0, atol=1e-12 * scale)
    if len(got):
        i, j, s = got[:, 0], got[:, 1], got[:, 2:].astype(np.float64)
        np.testing.assert_allclose(D, x64[j] + s @ h - x64[i], rtol=0, atol=1e-12 * scale)
    return want


LAMMPS = [[6.0, 0, 0], [1.5, 7.0, 0], [-1.2, 2.0, 8.0]]  # a = (lx,0,0), b = (xy,ly,0), c = (xz,yz,lz)
GENERAL = [[5.2, 0.4, -0.3], [1.1, 4.7, 0.5], [-0.8, 0.9, 5.6]]  # an ASE cell, nothing along the axes

CASES = [
    pytest.param(None, 1.0, 0.2, id="open"),
    pytest.param(7.0, 1.2, 0.3, id="cube"),
    pytest.param((6.0, 7.0, 8.0), 1.4, 0.0, id="orthorhombic"),
    pytest.param((6.0, 0, 8.0), 1.4, 0.2, id="open_y"),
    pytest.param([None, 7.0, None], 1.4, 0.2, id="periodic_y_only"),
    pytest.param(np.diag([6.0, 7.0, 8.0]), 1.1, 0.1, id="diag_matrix"),
    pytest.param(LAMMPS, 1.5, 0.2, id="lammps_triclinic"),
    pytest.param(GENERAL, 1.5, 0.2, id="general_triclinic"),
    pytest.param([GENERAL[0], GENERAL[2], GENERAL[1]], 1.5, 0.2, id="left_handed_triclinic"),
    pytest.param([[-6.0, 0, 0], [0.8, 7.0, 0], [0, 0, 6.5]], 1.5, 0.2, id="tilted_negative_a"),
    pytest.param(3.0, 2.0, 0.5, id="cutoff_over_half_cube"),
    pytest.param((2.5, 4.0, 0), 2.2, 0.3, id="cutoff_over_half_mixed"),
    pytest.param([[2.0, 0, 0], [0.7, 2.2, 0], [0.5, -0.6, 2.4]], 2.5, 0.3, id="cutoff_over_half_triclinic"),
]


def spread_positions(rng, n, cell):
    """Positions in and well outside the cell (they wrap), some on its faces."""
    h = cell_matrix(cell)
    if not np.any(h):
        return rng.uniform(-4, 4, (n, 3))
    s = rng.uniform(-1.5, 2.5, (n, 3))
    s[: n // 10] = np.round(s[: n // 10])  # on faces and corners
    x = s @ h
    for k in range(3):
        if not np.any(h[k]):
            x[:, k] = rng.uniform(-3, 3, n)
    return x


@pytest.mark.parametrize("full", [False, True], ids=["half", "full"])
@pytest.mark.parametrize("cell,cutoff,skin", CASES)
def test_against_brute_force(rng, cell, cutoff, skin, full):
    n = 100
    x = spread_positions(rng, n, cell)
    nl = broadphase.NeighborList(cutoff, skin, cell=cell, full=full, vectors=True, shifts=True)
    assert nl.update(x) is True
    assert nl.dtype == "float64" and nl.builds == 1
    want = check_against_brute(nl, x, cell, cutoff, skin, full=full)
    assert len(want) > 0
    np.testing.assert_array_equal(nl.cell, cell_matrix(cell))


@pytest.mark.parametrize("cell,cutoff,skin", CASES)
def test_several_images_and_self_images(cell, cutoff, skin):
    """Few particles in a small cell with a reach past half its width: pairs
    with several shifts, and self images (i, i, S != 0) when the reach is
    past the width."""
    h = cell_matrix(cell)
    if not np.all(np.any(h, axis=1)) or 2 * (cutoff + skin) <= min(width(h, k) for k in range(3)):
        pytest.skip("not a small periodic cell")
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 1, (6, 3)) @ h
    nl = broadphase.NeighborList(cutoff, skin, cell=cell, full=True, vectors=True, shifts=True, sorted=True)
    nl.update(x)
    got = entries_of(nl)
    if cutoff + skin >= min(width(h, k) for k in range(3)):
        assert np.any(got[:, 0] == got[:, 1]), "no self image"
    assert len(rows_set(got[:, :2])) < len(got), "no pair with several shifts"
    check_against_brute(nl, x, cell, cutoff, skin, full=True)
    # sorted: each row by (j, S)
    off = nl.offsets
    for i in range(len(x)):
        row = got[off[i]:off[i + 1]].tolist()
        assert row == sorted(row)


@pytest.mark.parametrize("full", [False, True], ids=["half", "full"])
@pytest.mark.parametrize("cell", [None, 6.0, GENERAL], ids=["open", "cube", "triclinic"])
def test_polydisperse_radii(rng, cell, full):
    n = 120
    x = spread_positions(rng, n, cell)
    r = rng.uniform(0, 0.6, n)
    r[:5] = 0
    nl = broadphase.NeighborList(0.3, 0.1, cell=cell, full=full, vectors=True, shifts=True)
    nl.update(x, r)
    check_against_brute(nl, x, cell, 0.3, 0.1, radii=r, full=full)
    # one radius for all
    nl.build(x, 0.4)
    check_against_brute(nl, x, cell, 0.3, 0.1, radii=0.4, full=full)


@pytest.mark.parametrize("cell", [None, 6.0, (6.0, 0, 5.0), LAMMPS], ids=["open", "cube", "mixed", "triclinic"])
def test_without_images_same_entries(rng, cell):
    """shifts/vectors off: the same (i, j) entries; sorted rows by j."""
    x = spread_positions(rng, 150, cell)
    for full in (False, True):
        a = broadphase.NeighborList(1.3, 0.2, cell=cell, full=full, vectors=True, shifts=True)
        b = broadphase.NeighborList(1.3, 0.2, cell=cell, full=full)
        c = broadphase.NeighborList(1.3, 0.2, cell=cell, full=full, vectors=True, sorted=True)
        for nl in (a, b, c):
            nl.update(x)
        np.testing.assert_array_equal(a.offsets, b.offsets)
        np.testing.assert_array_equal(a.pairs(), b.pairs())
        assert b.vectors.shape == (0, 3) and b.shifts.shape == (0, 3)
        assert c.shifts.shape == (0, 3) and c.vectors.shape == (a.entries, 3)
        np.testing.assert_array_equal(a.offsets, c.offsets)
        off = c.offsets
        for i in range(len(x)):
            assert np.all(np.diff(c.indices[off[i]:off[i + 1]].astype(np.int64)) >= 0)
            ra = a.pairs()[off[i]:off[i + 1], 1]
            assert sorted(ra.tolist()) == c.indices[off[i]:off[i + 1]].tolist()


@pytest.mark.parametrize("cell", [None, 6.0, GENERAL], ids=["open", "cube", "triclinic"])
def test_float32(rng, cell):
    x = spread_positions(rng, 120, cell).astype(np.float32)
    nl = broadphase.NeighborList(1.2, 0.2, cell=cell, vectors=True, shifts=True)
    nl.update(x)
    assert nl.dtype == "float32"
    check_against_brute(nl, x, cell, 1.2, 0.2)
    r = rng.uniform(0, 0.3, 120).astype(np.float32)
    nl.build(x, r)
    assert nl.dtype == "float32"
    check_against_brute(nl, x, cell, 1.2, 0.2, radii=r)
    # float64 radii (or a Python float) with float32 positions: the float64 list
    nl.build(x, r.astype(np.float64))
    assert nl.dtype == "float64"
    check_against_brute(nl, x, cell, 1.2, 0.2, radii=r)


def test_dtype_switch_rebuilds(rng):
    x = rng.uniform(0, 5, (60, 3))
    nl = broadphase.NeighborList(1.0, 0.5, cell=5.0, shifts=True, vectors=True)
    assert nl.dtype is None and nl.builds == 0
    assert nl.update(x) is True
    assert nl.update(x) is False
    assert nl.update(x.astype(np.float32)) is True  # the other precision: a fresh list
    assert nl.dtype == "float32" and nl.builds == 2
    assert nl.update(x.astype(np.float32)) is False
    assert nl.update(x) is True and nl.dtype == "float64" and nl.builds == 3
    check_against_brute(nl, x, 5.0, 1.0, 0.5)


def test_layouts_and_integer_positions():
    x = np.array([[0, 0, 0], [1, 0, 0], [5, 5, 5]])  # int64
    nl = broadphase.NeighborList(1.0)
    nl.update(x)
    assert nl.dtype == "float64"
    assert sorted(map(tuple, np.sort(nl.pairs(), axis=1).tolist())) == [(0, 1)]
    f = np.asfortranarray(np.array(x, np.float32))
    nl.build(f)
    assert nl.dtype == "float32" and nl.entries == 1
    nl.build(x.tolist())
    assert nl.entries == 1
    nl.build(np.zeros(0))  # an empty 1-D array: no particles
    assert nl.size == 0


# ---------------------------------------------------------------- odd input


@pytest.mark.parametrize("cell", [None, 4.0], ids=["open", "cube"])
def test_empty_and_one(cell):
    nl = broadphase.NeighborList(1.0, cell=cell, vectors=True, shifts=True)
    np.testing.assert_array_equal(nl.offsets, [0])  # before any build
    assert nl.pairs().shape == (0, 2) and nl.indices.shape == (0,) and nl.vectors.shape == (0, 3)
    assert nl.update(np.zeros((0, 3))) is True
    np.testing.assert_array_equal(nl.offsets, [0])
    assert nl.entries == 0 and nl.pairs().shape == (0, 2) and nl.invalid.shape == (0,)
    assert nl.update(np.zeros((0, 3))) is False
    assert nl.update([[1.0, 2.0, 3.0]]) is True
    np.testing.assert_array_equal(nl.offsets, [0, 0])
    assert nl.entries == 0


@pytest.mark.parametrize("full", [False, True], ids=["half", "full"])
def test_one_particle_sees_its_images(full):
    nl = broadphase.NeighborList(2.5, cell=2.0, full=full, shifts=True, vectors=True)
    nl.update([[0.3, -0.4, 7.1]])
    got = entries_of(nl)
    assert len(got) and np.all(got[:, :2] == 0)
    check_against_brute(nl, [[0.3, -0.4, 7.1]], 2.0, 2.5, 0.0, full=full)
    S = rows_set(got[:, 2:])
    assert (1, 0, 0) in S or (-1, 0, 0) in S
    if full:
        assert all(tuple(-v for v in s) in S for s in S)


@pytest.mark.parametrize("cell", [None, 3.0, LAMMPS], ids=["open", "cube", "triclinic"])
def test_identical_points(cell):
    """Touching counts: identical points are neighbours at cutoff 0."""
    x = np.tile([[0.5, 1.5, 2.5]], (5, 1))
    nl = broadphase.NeighborList(0.0, cell=cell, full=False, vectors=True, shifts=True)
    nl.update(x)
    assert rows_set(canon(entries_of(nl))[:, :2]) == {(i, j) for i in range(5) for j in range(i + 1, 5)}
    assert np.all(nl.vectors == 0)
    check_against_brute(nl, x, cell, 0.0, 0.0)


def test_invalid_particles(rng):
    x = rng.uniform(0, 3, (30, 3))
    r = rng.uniform(0, 0.2, 30)
    x[3, 1] = np.nan
    r[5] = -1.0
    r[7] = np.inf
    r[8] = np.nan
    x[9] = [np.inf, 1.0, 1.0]  # valid: no entries, not invalid
    x[10] = x[11]  # close to 11: 3 and 5 must not be
    nl = broadphase.NeighborList(1.0, cell=3.0, full=True, vectors=True, shifts=True)
    with pytest.warns(broadphase.InvalidBoxWarning, match=r"4 invalid particle\(s\) in positions/radii"):
        assert nl.update(x, r) is True
    np.testing.assert_array_equal(nl.invalid, [3, 5, 7, 8])
    assert nl.invalid.dtype == np.uint32
    p = nl.pairs()
    for bad in (3, 5, 7, 8, 9):
        assert bad not in p
    check_against_brute(nl, x, 3.0, 1.0, 0.0, radii=r, full=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nl.build(x, r, invalid="skip")
    with pytest.raises(broadphase.InvalidBoxError) as e:
        nl.build(x, r, invalid="raise")
    np.testing.assert_array_equal(e.value.indices, [3, 5, 7, 8])
    np.testing.assert_array_equal(nl.invalid, [3, 5, 7, 8])  # the list was built all the same


def test_nan_positions_only():
    x = np.full((4, 3), np.nan)
    nl = broadphase.NeighborList(1.0)
    with pytest.warns(broadphase.InvalidBoxWarning):
        nl.update(x)
    np.testing.assert_array_equal(nl.invalid, [0, 1, 2, 3])
    assert nl.entries == 0


# ---------------------------------------------------------------- errors


def test_bad_arguments():
    with pytest.raises(ValueError, match="NeighborList: the cutoff must be finite and >= 0"):
        broadphase.NeighborList(-1.0)
    with pytest.raises(ValueError, match="NeighborList: the cutoff must be finite and >= 0"):
        broadphase.NeighborList(math.inf)
    with pytest.raises(ValueError, match="NeighborList: the skin must be finite and >= 0"):
        broadphase.NeighborList(1.0, math.nan)
    with pytest.raises(ValueError, match="NeighborList: the cell has no volume"):
        broadphase.NeighborList(1.0, cell=[[1, 0, 0], [0, 1, 0], [0.5, 0.5, 0]])
    with pytest.raises(ValueError, match="NeighborList: a cell with an open axis must be orthorhombic"):
        broadphase.NeighborList(1.0, cell=[[1, 0, 0], [0.3, 1, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="NeighborList: a cell vector component is not finite"):
        broadphase.NeighborList(1.0, cell=[1.0, math.nan, 1.0])
    with pytest.raises(ValueError, match="NeighborList: a cell vector component is not finite"):
        broadphase.NeighborList(1.0, cell=math.inf)
    with pytest.raises(ValueError, match=r"cell must be None .*got shape \(2, 2\)"):
        broadphase.NeighborList(1.0, cell=[[1, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"got shape \(4,\)"):
        broadphase.NeighborList(1.0, cell=[1, 2, 3, 4])
    with pytest.raises(TypeError):
        broadphase.NeighborList(1.0, cell="cubic")
    with pytest.raises(TypeError):
        broadphase.NeighborList(1.0, cell=[1.0, "a", 1.0])
    with pytest.raises(TypeError):
        broadphase.NeighborList(1.0, 0.0, 5.0)  # cell is keyword-only
    with pytest.raises(ValueError, match="threads"):
        broadphase.NeighborList(1.0, threads=-1)
    nl = broadphase.NeighborList(1.0)
    with pytest.raises(ValueError, match=r"positions must have shape \(N, 3\)"):
        nl.update(np.zeros((4, 2)))
    with pytest.raises(TypeError, match="positions must hold real numbers"):
        nl.update(np.zeros((4, 3), complex))
    with pytest.raises(ValueError, match=r"radii must be one number or have shape \(4,\)"):
        nl.update(np.zeros((4, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="invalid must be"):
        nl.update(np.zeros((4, 3)), invalid="ignore")
    assert nl.builds == 0


def test_set_cell(rng):
    x = rng.uniform(0, 6, (80, 3))
    nl = broadphase.NeighborList(1.0, 0.2, cell=6.0, shifts=True, vectors=True)
    nl.update(x)
    with pytest.raises(ValueError, match="NeighborList: the cell has no volume"):
        nl.set_cell([[1, 0, 0], [2, 0, 0], [0, 0, 1]])
    np.testing.assert_array_equal(nl.cell, np.diag([6.0] * 3))  # unchanged
    assert nl.update(x) is False
    nl.set_cell(GENERAL)
    assert nl.update(x) is True  # a new cell rebuilds
    check_against_brute(nl, x, GENERAL, 1.0, 0.2)
    nl.set_cell(None)
    assert nl.update(x) is True
    check_against_brute(nl, x, None, 1.0, 0.2)


def test_reach_too_large_for_the_cell():
    nl = broadphase.NeighborList(200.0, cell=1.0)
    with pytest.raises(MemoryError, match="too large"):
        nl.update(np.zeros((2, 3)))


def test_max_entries(rng):
    x = rng.uniform(0, 4, (100, 3))
    nl = broadphase.NeighborList(1.5, cell=4.0, max_entries=10)
    with pytest.raises(broadphase.PairBudgetError) as e:
        nl.update(x)
    # Past the budget the list is empty: rows missing here and there would look complete.
    assert e.value.pairs.shape == (0, 2) and nl.entries == 0
    with pytest.raises(broadphase.PairBudgetError):
        nl.update(x)  # the incomplete list is not kept: it builds again


# ---------------------------------------------------------------- skin


def random_steps(rng, n, length):
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1)[:, None]
    return d * rng.uniform(0, length, (n, 1))


@pytest.mark.parametrize("cell", [None, 5.0, (5.0, 0, 6.0), LAMMPS], ids=["open", "cube", "mixed", "triclinic"])
def test_skin(rng, cell):
    h = cell_matrix(cell)
    cutoff, skin = 1.0, 0.4
    x = spread_positions(rng, 100, cell)
    nl = broadphase.NeighborList(cutoff, skin, cell=cell, full=True, shifts=True, vectors=True)
    assert nl.update(x) is True
    built = entries_of(nl)
    kept = rows_set(built)
    for step in range(5):
        y = x + random_steps(rng, len(x), 0.199)  # every particle under skin / 2 from the build
        assert nl.update(y) is False
        assert nl.builds == 1
        np.testing.assert_array_equal(entries_of(nl), built)
        # every pair within the cutoff now is in the kept list, with the same S
        assert rows_set(brute(y, cell, cutoff, 0.0)[0]) <= kept
    # a particle moved by whole cell vectors has not moved
    y = x.copy()
    for k in range(3):
        if np.any(h[k]):
            y[7] += 2 * h[k]
            y[8] -= h[k]
    if np.any(h):
        assert nl.update(y) is False
        assert nl.builds == 1
    # one particle past skin / 2: rebuilt
    y = x.copy()
    y[11] += [0.21, 0, 0]
    assert nl.update(y) is True
    assert nl.builds == 2
    check_against_brute(nl, y, cell, cutoff, skin, full=True)
    # a different number of particles: rebuilt
    assert nl.update(y[:50]) is True and nl.size == 50
    # build() always builds
    nl.build(y[:50])
    assert nl.builds == 4


def test_skin_zero_rebuilds_on_any_move(rng):
    x = rng.uniform(0, 5, (20, 3))
    nl = broadphase.NeighborList(1.0, 0.0, cell=5.0)
    assert nl.update(x) is True
    assert nl.update(x.copy()) is False  # not moved at all: kept
    y = x.copy()
    y[0, 0] = np.nextafter(y[0, 0], 10)
    assert nl.update(y) is True


def test_positions_are_copied(rng):
    """update compares with positions the list holds: changing the caller's
    array after the call does not change what it compares with."""
    x = rng.uniform(0, 5, (50, 3))
    nl = broadphase.NeighborList(1.0, 0.4, cell=5.0)
    nl.update(x)
    before = nl.pairs()
    x += 0.3  # in place, past skin / 2
    assert nl.update(x) is True
    x -= 0.3
    assert nl.update(x) is True
    np.testing.assert_array_equal(nl.pairs(), before)


# ---------------------------------------------------------------- threads


@pytest.mark.parametrize("full", [False, True], ids=["half", "full"])
@pytest.mark.parametrize("cell", [60.0, [[60.0, 0, 0], [7.0, 60.0, 0], [-5.0, 4.0, 60.0]]], ids=["cube", "triclinic"])
def test_threads_same_output(full, cell):
    """One thread per 32,768 particles at most: 70,000 particles run on two."""
    rng = np.random.default_rng(99)
    x = rng.uniform(0, 1, (70000, 3)) @ cell_matrix(cell)
    out = []
    for threads in (1, 2):
        nl = broadphase.NeighborList(1.2, 0.1, cell=cell, full=full, vectors=True, shifts=True, threads=threads)
        nl.update(x)
        out.append((nl.offsets, nl.indices, nl.shifts, nl.vectors))
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)
    assert len(out[0][1]) > 70000


def test_shared_between_python_threads(rng):
    x = rng.uniform(0, 10, (3000, 3))
    nl = broadphase.NeighborList(0.8, 0.2, cell=10.0, full=True)
    nl.update(x)
    want = nl.entries
    errors = []

    def work():
        try:
            for _ in range(20):
                nl.build(x)
                assert nl.entries == want
                assert len(nl.pairs()) == want
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


# ---------------------------------------------------------------- odd cells and particles


def test_negative_period_is_rejected():
    with pytest.raises(ValueError, match="positive"):
        broadphase.NeighborList(1.0, cell=(-5.0, 5.0, 5.0))


@pytest.mark.parametrize("bad", [np.nan, np.inf], ids=["nan", "inf"])
def test_unchanged_odd_particle_does_not_rebuild(rng, bad):
    x = rng.uniform(0, 5, (20, 3))
    x[4, 2] = bad
    nl = broadphase.NeighborList(1.0, 0.4, cell=5.0)
    nl.update(x, invalid="skip")
    assert nl.update(x, invalid="skip") is False
    x[4, 2] = 1.0  # the odd particle changed: a rebuild
    assert nl.update(x, invalid="skip") is True


# ---------------------------------------------------------------- repr


def test_repr(rng):
    nl = broadphase.NeighborList(2.5, 0.3, cell=10.0)
    assert repr(nl) == "<broadphase.NeighborList half, cutoff 2.5 + skin 0.3, orthorhombic cell, not built>"
    nl.update(np.array([[0, 0, 0], [1, 0, 0]], np.float32))
    assert repr(nl) == ("<broadphase.NeighborList half, cutoff 2.5 + skin 0.3, orthorhombic cell: 2 particles, "
                        "float32, 1 entry, 1 build>")
    assert repr(broadphase.NeighborList(1.0, full=True)) == "<broadphase.NeighborList full, cutoff 1.0 + skin 0.0, open, not built>"
    assert "periodic in xz" in repr(broadphase.NeighborList(cell=(1, 0, 1)))
    assert "triclinic cell" in repr(broadphase.NeighborList(cell=LAMMPS))


# ---------------------------------------------------------------- ASE


def test_same_as_ase():
    ase = pytest.importorskip("ase")
    from ase.neighborlist import neighbor_list

    rng = np.random.default_rng(3)
    cell = np.array(GENERAL) * 0.8
    n = 25
    x = rng.uniform(-0.2, 1.2, (n, 3)) @ cell  # some outside the cell
    atoms = ase.Atoms("Ar" * n, positions=x, cell=cell, pbc=True)
    for cutoff in (1.7, 3.1):  # the second is over half the cell's width: several images
        i, j, S = neighbor_list("ijS", atoms, cutoff)
        want = set(zip(i.tolist(), j.tolist(), *(S[:, k].tolist() for k in range(3))))
        nl = broadphase.NeighborList(cutoff, cell=atoms.cell, full=True, shifts=True, vectors=True)
        nl.update(atoms.positions)
        got = rows_set(entries_of(nl))
        # ASE lists d < cutoff, the list d <= cutoff: no distance here is a tie
        d = np.linalg.norm(nl.vectors, axis=1)
        assert np.all(np.abs(d - cutoff) > 1e-9)
        assert got == want and nl.entries == len(i)


def test_spatial_order(rng):
    """spatial_order is a permutation (the invalid particle last); the list of
    the reordered particles is the same list relabelled, and their order is
    then the identity."""
    n, L = 500, 10.0
    x = rng.uniform(0, L, (n, 3))
    r = rng.uniform(0.1, 0.4, n)
    x[11, 1] = np.nan
    nl = broadphase.NeighborList(0.0, 0.1, cell=L)
    assert len(nl.spatial_order()) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nl.build(x, r)
    order = nl.spatial_order()
    assert order.dtype == np.uint32 and sorted(order.tolist()) == list(range(n)) and order[-1] == 11
    new_of = np.empty(n, np.int64)
    new_of[order] = np.arange(n)
    again = broadphase.NeighborList(0.0, 0.1, cell=L)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again.build(x[order], r[order])
    assert rows_set(np.sort(new_of[nl.pairs().astype(np.int64)], axis=1)) == rows_set(np.sort(again.pairs(), axis=1))
    assert len(again.pairs()) > 0
    np.testing.assert_array_equal(again.spatial_order(), np.arange(n))
