"""neighbor_list's direct path for small systems (python/src/bind_ase.cpp).

Systems whose atoms^2 x candidate shifts a pair is at most a limit
(_ase_small_limit) are listed pair by pair without the library's list. Here
each system is listed by both paths, forced with the limit and checked with
_ase_last_paths(); both must equal ASE's own neighbor_list bit for bit (and
so each other): at the default limit's boundary, one and several images a
pair (cutoffs over half the cell), triclinic cells, atoms outside the cell,
every pbc mix, ties at the cutoff, per-atom and dict cutoffs, and batches
that mix both paths. Skipped when ASE is not installed (Debian: python3-ase).
"""

import itertools

import numpy as np
import pytest

import broadphase as bp

ase = pytest.importorskip("ase")
from ase import Atoms  # noqa: E402
from ase.build import bulk, fcc111  # noqa: E402
from ase.neighborlist import neighbor_list as ase_neighbor_list  # noqa: E402

Q = "ijdDS"
core = bp._core


@pytest.fixture(autouse=True)
def keep_limit():
    before = core._ase_small_limit()
    yield
    core._ase_small_limit(before)


def ase_sorted(a, cutoff, self_interaction=False):
    i, j, d, D, S = ase_neighbor_list(Q, a, cutoff, self_interaction=self_interaction)
    o = np.lexsort((S[:, 2], S[:, 1], S[:, 0], j, i))
    return i[o], j[o], d[o], D[o], S[o]


def check(out, ref):
    for name, o, r in zip(Q, out, ref):
        assert o.dtype == r.dtype and o.shape == r.shape, name
        assert np.array_equal(o, r), name


def both(a, cutoff, self_interaction=False):
    """The direct path and the library's both give ASE's entries; returns K."""
    ref = ase_sorted(a, cutoff, self_interaction)
    for limit, paths in ((1e18, (1, 0)), (0, (0, 1))):
        core._ase_small_limit(limit)
        check(bp.neighbor_list(Q, a, cutoff, self_interaction=self_interaction), ref)
        assert core._ase_last_paths() == paths
        # One quantity alone, and "ij" (what the direct path writes less for).
        i, j = bp.neighbor_list("ij", a, cutoff, self_interaction=self_interaction)
        assert np.array_equal(i, ref[0]) and np.array_equal(j, ref[1])
        assert np.array_equal(bp.neighbor_list("S", a, cutoff, self_interaction=self_interaction), ref[4])
    return len(ref[0])


def copper(n, seed, cell_scale=1.0):
    rng = np.random.default_rng(seed)
    L = (n / 0.0847) ** (1 / 3) * cell_scale
    return Atoms(numbers=np.full(n, 29), positions=rng.uniform(0, L, (n, 3)), cell=[L, L, L], pbc=True)


def test_default_limit_boundary():
    # One candidate a pair (cube over twice the cutoff): asking for d, D or
    # S, the direct path up to 400 atoms (400^2 pairs), the library's from
    # 401; asking for i and j alone, up to 800.
    limit = core._ase_small_limit()
    assert limit == 400 * 400
    for n, paths in ((400, (1, 0)), (401, (0, 1))):
        a = copper(n, n)
        check(bp.neighbor_list(Q, a, 5.0), ase_sorted(a, 5.0))
        assert core._ase_last_paths() == paths
    for n, paths in ((800, (1, 0)), (801, (0, 1))):
        a = copper(n, n)
        i, j = ase_neighbor_list("ij", a, 5.0)
        o = np.lexsort((j, i))  # one image a pair: (i, j) decides the order
        ours = bp.neighbor_list("ij", a, 5.0)
        assert core._ase_last_paths() == paths
        assert np.array_equal(ours[0], i[o]) and np.array_equal(ours[1], j[o])


def test_limit_boundary_both_sides():
    a = copper(100, 1)
    ref = ase_sorted(a, 5.0)
    for limit, paths in ((100 * 100, (1, 0)), (100 * 100 - 1, (0, 1))):
        core._ase_small_limit(limit)
        check(bp.neighbor_list(Q, a, 5.0), ref)
        assert core._ase_last_paths() == paths


@pytest.mark.parametrize("n", [2, 20, 64, 100, 150])
def test_random_copper(n):
    # 64 atoms: a 9.1 A cube, several images a pair; 100 and more: one.
    both(copper(n, n), 5.0)
    both(copper(n, n + 1, cell_scale=0.7), 5.0)  # denser: several images


def test_several_images_of_one_atom():
    # Cutoffs of several cells: an atom's own images and many of each pair.
    a = Atoms("CO", positions=[[0.1, 0.2, 0.3], [0.9, 0.4, 0.1]], cell=[[1.1, 0, 0], [0.4, 0.9, 0], [0.2, 0.3, 1.2]], pbc=True)
    for cutoff in (0.5, 1.0, 2.7, 4.1):
        both(a, cutoff)
        both(a, cutoff, self_interaction=True)
    cu = bulk("Cu", "fcc", a=3.6)
    assert both(cu, 7.5) > 100
    both(cu, 7.5, self_interaction=True)


def test_triclinic_outside_cell():
    rng = np.random.default_rng(17)
    for seed in range(8):
        cell = np.eye(3) * rng.uniform(3, 8, 3) + rng.uniform(-2, 2, (3, 3))
        n = int(rng.integers(1, 60))
        a = Atoms(numbers=rng.integers(1, 10, n), cell=cell, pbc=True)
        a.set_scaled_positions(rng.uniform(-2.5, 3.5, (n, 3)))  # several cells away
        both(a, float(rng.uniform(0.5, 8)))


def test_pbc_mixes():
    rng = np.random.default_rng(23)
    for pbc in itertools.product([True, False], repeat=3):
        for tilted in (False, True):
            cell = np.diag(rng.uniform(3, 6, 3))
            if tilted:
                cell = cell + rng.uniform(-1, 1, (3, 3))
            a = Atoms(numbers=np.ones(20, int), cell=cell, pbc=pbc)
            a.set_scaled_positions(rng.uniform(-0.4, 1.4, (20, 3)))
            both(a, float(rng.uniform(1.5, 7)))
    slab = fcc111("Cu", (3, 3, 3), vacuum=5.0)
    both(slab, 3.0)
    both(slab, 6.0)
    # No cell at all.
    m = Atoms("H4", positions=[[0, 0, 0], [0.7, 0, 0], [0, 0.7, 0], [5, 5, 5]])
    assert both(m, 1.0) == 6


def test_ties_at_the_cutoff():
    a = bulk("Cu", "sc", a=2.0).repeat(4)
    for cutoff in (2.0, np.nextafter(2.0, 3), np.nextafter(2.0, 1), 2 * np.sqrt(2), np.nextafter(2 * np.sqrt(2), 3)):
        both(a, float(cutoff))
    # Tilted: D from S @ cell rounds; ties decided on ASE's own rounding.
    b = Atoms("C2", positions=[[0, 0, 0], [0.3, 0.1, 0.2]], cell=[[1.3, 0, 0], [0.65, 1.1, 0], [0.1, 0.2, 1.7]], pbc=True)
    d = ase_neighbor_list("d", b, 3.0)
    for cutoff in np.unique(d)[::7]:
        both(b, float(cutoff))
        both(b, float(np.nextafter(cutoff, 10)))


def test_per_atom_and_dict_cutoffs():
    a = copper(40, 3)
    a.numbers[::3] = 8
    rng = np.random.default_rng(4)
    both(a, rng.uniform(0.5, 3.0, len(a)))
    both(a, rng.uniform(0.5, 3.0, len(a)).astype(np.float32))
    both(a, {("Cu", "Cu"): 4.0, ("Cu", "O"): 2.5, (8, 8): 6.0})
    both(a, {("Cu", "O"): 2.5}, self_interaction=True)
    small = bulk("NaCl", "rocksalt", a=5.64)
    both(small, {("Na", "Cl"): 3.0, ("Cl", "Cl"): 4.5, (11, 11): 6.0})


def test_batch_mixes_paths():
    systems = [copper(64, 1), copper(200, 2), bulk("Cu", "fcc", a=3.6), Atoms(cell=[3, 3, 3], pbc=True), copper(30, 3)]
    positions = np.concatenate([s.positions for s in systems])
    cells = np.array([s.cell.array for s in systems])
    pbcs = np.array([s.pbc for s in systems])
    counts = [len(s) for s in systems]
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    index = np.repeat(np.arange(len(systems)), counts)
    ref = []
    for s, a in enumerate(systems):
        r = list(ase_sorted(a, 5.0))
        r[0], r[1] = r[0] + first[s], r[1] + first[s]
        ref.append(r)
    ref = [np.concatenate([r[k] for r in ref]) for k in range(5)]
    # 200 atoms (40,000 pairs) by the library's path, the others by the
    # direct one (64 atoms: about 22,000 for several images a pair; the empty
    # system is neither); then every system by the direct path, in one pass
    # (systems in order), and by the library's.
    core._ase_small_limit(30000)
    check(bp.neighbor_list_batch(Q, positions, cells, pbcs, index, 5.0), ref)
    assert core._ase_last_paths() == (3, 1)
    core._ase_small_limit(1e18)
    check(bp.neighbor_list_batch(Q, positions, cells, pbcs, index, 5.0), ref)
    assert core._ase_last_paths() == (4, 0)
    i, j = bp.neighbor_list_batch("ij", positions, cells, pbcs, index, 5.0)
    assert np.array_equal(i, ref[0]) and np.array_equal(j, ref[1])
    core._ase_small_limit(0)
    check(bp.neighbor_list_batch(Q, positions, cells, pbcs, index, 5.0), ref)
    assert core._ase_last_paths() == (0, 4)
    # Atoms of the systems interleaved: per system into the rows of its atoms.
    core._ase_small_limit(30000)
    perm = np.random.default_rng(9).permutation(len(positions))
    out = bp.neighbor_list_batch(Q, positions[perm], cells, pbcs, index[perm], 5.0)
    i, j = perm[out[0]], perm[out[1]]
    o = np.lexsort((out[4][:, 2], out[4][:, 1], out[4][:, 0], j, i))
    assert np.array_equal(i[o], ref[0]) and np.array_equal(j[o], ref[1])
    assert np.array_equal(out[3][o], ref[3]) and np.array_equal(out[4][o], ref[4])


def test_errors_as_the_library_path():
    x = np.array([[0.0, 0, 0], [1, 1, 1]])
    with pytest.raises(ValueError, match="cell vector"):
        bp.neighbor_list("ij", (x, np.zeros((3, 3)), True), 3.0)
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x, [[1, 0, 0], [2, 0, 0], [0, 0, 1]], True), 3.0)
    with pytest.raises(ValueError):
        core._ase_small_limit(-1.0)


def test_outputs_survive_later_calls():
    # The arrays handed back are the caller's: later calls do not touch them.
    a, b = copper(100, 5), copper(80, 6)
    first = bp.neighbor_list(Q, a, 5.0)
    keep = [x.copy() for x in first]
    for _ in range(3):
        bp.neighbor_list(Q, b, 5.0)
        bp.neighbor_list("ij", copper(300, 7), 5.0)
    for x, y in zip(first, keep):
        assert np.array_equal(x, y)
    assert all(x.flags.owndata and x.flags.c_contiguous and x.flags.writeable for x in first)
