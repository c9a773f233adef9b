"""broadphase.neighbor_list against ASE's own ase.neighborlist.neighbor_list.

Every comparison is exact: the same entries (i, j, S), the same D and d to
the last bit, the same dtypes and shapes; every test runs on both paths
(the direct one for small systems and the library's list). ASE's rows are sorted by i only;
ours by (i, j, S), so ASE's output is sorted by (i, j, S) before comparing.
Skipped when ASE is not installed (Debian: python3-ase).
"""

import itertools

import numpy as np
import pytest

import broadphase as bp

ase = pytest.importorskip("ase")
from ase import Atoms  # noqa: E402
from ase.build import bulk, fcc111, molecule  # noqa: E402
from ase.neighborlist import natural_cutoffs  # noqa: E402
from ase.neighborlist import neighbor_list as ase_neighbor_list  # noqa: E402

Q = "ijdDS"


@pytest.fixture(autouse=True, params=["direct", "library"])
def path(request):
    """Every test twice: as neighbor_list chooses (small systems by the direct
    path of bind_ase.cpp, nearly all here) and by the library's list alone
    (the direct path's limit 0). test_ase_direct_path.py compares the two."""
    before = bp._core._ase_small_limit()
    if request.param == "library":
        bp._core._ase_small_limit(0)
    yield request.param
    bp._core._ase_small_limit(before)


def sort_ase(out):
    """ASE's (i, j, d, D, S) sorted by (i, j, S)."""
    i, j, d, D, S = out
    order = np.lexsort((S[:, 2], S[:, 1], S[:, 0], j, i))
    return i[order], j[order], d[order], D[order], S[order]


def same(a, cutoff, self_interaction=False):
    """Ours equals ASE's on a (Atoms), returns the number of entries."""
    ref = sort_ase(ase_neighbor_list(Q, a, cutoff, self_interaction=self_interaction))
    ours = bp.neighbor_list(Q, a, cutoff, self_interaction=self_interaction)
    # The tuple form gives the same as the Atoms.
    numbers = a.numbers if isinstance(cutoff, dict) else None
    tup = (a.positions, a.cell.array, a.pbc) if numbers is None else (a.positions, a.cell.array, a.pbc, numbers)
    ours2 = bp.neighbor_list(Q, tup, cutoff, self_interaction=self_interaction)
    for name, r, o, o2 in zip(Q, ref, ours, ours2):
        assert o.dtype == r.dtype, name
        assert o.shape == r.shape, (name, o.shape, r.shape)
        assert np.array_equal(o, r), name
        assert np.array_equal(o2, o), name
    return len(ref[0])


def rattled(a, scale, seed):
    a = a.copy()
    a.positions += np.random.default_rng(seed).normal(scale=scale, size=a.positions.shape)
    return a


# ASE's test structures (ase/test/neighbor/test_neighbor_kernel.py and
# ase.build), cutoffs from under the nearest neighbour to several cells.
BULK = [
    ("Cu fcc primitive", lambda: bulk("Cu", "fcc", a=3.6)),
    ("Cu fcc cubic", lambda: bulk("Cu", "fcc", a=3.6, cubic=True)),
    ("Si diamond", lambda: bulk("Si", "diamond", a=5.43)),
    ("NaCl rocksalt", lambda: bulk("NaCl", "rocksalt", a=5.64)),
    ("Mg hcp", lambda: bulk("Mg", "hcp", a=3.21, c=5.21)),
    ("Fe bcc 2x2x2 rattled", lambda: rattled(bulk("Fe", "bcc", a=2.87, cubic=True).repeat(2), 0.1, 1)),
]


@pytest.mark.parametrize("name,make", BULK, ids=[b[0] for b in BULK])
@pytest.mark.parametrize("cutoff", [1.0, 2.6, 4.0, 7.5])
def test_bulk(name, make, cutoff):
    a = make()
    same(a, cutoff)


def test_bulk_has_images():
    # A cutoff over the cell: an atom's own images and several images of a pair.
    a = bulk("Cu", "fcc", a=3.6)
    i, j, S = bp.neighbor_list("ijS", a, 7.5)
    assert (i == j).sum() > 0
    assert len(set(map(tuple, S[(i == 0) & (j == 0)]))) > 10
    same(a, 7.5)


def test_small_cells():
    # ASE's test_small_cell: one atom in a unit cube.
    a = Atoms("C", positions=[[0.5, 0.5, 0.5]], cell=[1, 1, 1], pbc=True)
    assert same(a, 1.1) == 6
    assert same(a, 1.5) == 18
    for pbc, count in [(False, 0), ([True, False, False], 2), ([True, False, True], 4)]:
        a.set_pbc(pbc)
        assert same(a, 1.1) == count
    a.set_pbc(True)
    same(a, 3.3)
    # Two atoms, a cutoff of several cells, a tilted cell.
    b = Atoms("CO", positions=[[0.1, 0.2, 0.3], [0.9, 0.4, 0.1]], cell=[[1.1, 0, 0], [0.4, 0.9, 0], [0.2, 0.3, 1.2]], pbc=True)
    same(b, 2.7)
    same(b, 2.7, self_interaction=True)


def test_triclinic_random():
    rng = np.random.default_rng(7)
    for seed in range(6):
        cell = np.eye(3) * rng.uniform(3, 6, 3) + rng.uniform(-1.5, 1.5, (3, 3))
        n = int(rng.integers(1, 30))
        a = Atoms(numbers=rng.integers(1, 10, n), cell=cell, pbc=True)
        a.set_scaled_positions(rng.uniform(-0.5, 1.5, (n, 3)))  # some outside the cell
        same(a, float(rng.uniform(1, 7)))


def test_hexagonal_graphite():
    from ase.lattice.hexagonal import Graphite

    for sx in range(3):
        a = Graphite("C", latticeconstant=(2.5, 10.0), size=[sx + 1, sx + 1, 1])
        same(a, 1.85)
        i = bp.neighbor_list("i", a, 1.85)
        assert np.all(np.bincount(i) == 3)


def test_atoms_outside_box():
    rng = np.random.default_rng(3)
    for pbc in [True, False, [True, False, True]]:
        a = Atoms("C300", cell=[9, 9, 9], pbc=pbc)
        a.set_scaled_positions(rng.random((300, 3)))
        a.positions[10] += a.cell[0]
        a.positions[20] += 2 * a.cell[1]
        a.positions[30] -= a.cell[2]
        same(a, 1.85)


def test_mixed_pbc_tilted():
    # Slabs of a hexagonal cell (the library refuses open axes in a tilted
    # cell: the open vector is replaced), chains, tilted open vectors.
    slab = rattled(fcc111("Cu", (2, 2, 3), vacuum=5.0), 0.05, 2)
    assert not slab.pbc[2]
    for cutoff in (2.0, 3.0, 6.0):
        same(slab, cutoff)
    rng = np.random.default_rng(11)
    for pbc in itertools.product([True, False], repeat=3):
        for seed in range(2):
            cell = np.eye(3) * rng.uniform(2.5, 5, 3) + rng.uniform(-1, 1, (3, 3))
            a = Atoms(numbers=np.ones(12, int), cell=cell, pbc=pbc)
            a.set_scaled_positions(rng.uniform(-0.3, 1.3, (12, 3)))
            same(a, float(rng.uniform(1.5, 5)))


def test_open_systems():
    m = molecule("HCOOH")  # no cell at all
    assert not m.cell.any()
    same(m, 1.85)
    m.center(vacuum=5.0)
    same(m, 1.85)
    for name in ("C6H6", "CH3CH2OH", "H2O"):
        same(molecule(name), 2.5)
    # Far apart atoms in an open domain.
    a = Atoms("H3", positions=[[0, 0, 0], [1e4, 0, 0], [1e4, 0.5, 0]])
    assert same(a, 1.0) == 2


def test_quantities():
    a = bulk("Si", "diamond", a=5.43).repeat((2, 1, 1))
    full = bp.neighbor_list(Q, a, 4.0)
    by = dict(zip(Q, full))
    for k in range(1, 6):
        for q in itertools.permutations(Q, k):
            q = "".join(q)
            out = bp.neighbor_list(q, a, 4.0)
            ref = ase_neighbor_list(q, a, 4.0)
            if k == 1:
                out, ref = (out,), (ref,)
            assert len(out) == len(ref) == k
            for c, o, r in zip(q, out, ref):
                assert o.dtype == r.dtype and o.shape == r.shape
                assert np.array_equal(o, by[c])
    assert bp.neighbor_list("", a, 4.0) == ()
    i1, i2 = bp.neighbor_list("ii", a, 4.0)
    assert np.array_equal(i1, i2)


def test_per_atom_cutoffs():
    m = molecule("HCOOH")
    m.center(vacuum=5.0)
    for cut in ([0.0, 0.9, 0.0, 0.5, 0.5], natural_cutoffs(m), np.array(natural_cutoffs(m), np.float32), [1, 0, 1, 1, 2]):
        same(m, cut)
    a = rattled(bulk("NaCl", "rocksalt", a=5.64).repeat(2), 0.1, 5)
    same(a, natural_cutoffs(a, mult=1.3))
    same(a, np.linspace(0.5, 3.0, len(a)))


def test_dict_cutoffs():
    m = molecule("HCOOH")
    m.center(vacuum=5.0)
    for cut in ({(1, 6): 1.2}, {(6, 8): 1.4}, {("H", "C"): 1.2, (6, 8): 1.4}, {(1, 6): 1.1, (6, 1): 1.3}, {("O", "O"): 3.0}):
        same(m, cut)
    a = rattled(bulk("NaCl", "rocksalt", a=5.64), 0.05, 4)
    same(a, {("Na", "Cl"): 3.0, ("Cl", "Cl"): 4.5, (11, 11): 6.0})
    same(a, {("Na", "Cl"): 3.0})
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", m, {("Hx", "C"): 1.0})
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (m.positions, m.cell.array, m.pbc), {(1, 6): 1.0})  # no numbers


def test_self_interaction():
    a = bulk("Cu", "fcc", a=3.6)
    same(a, 3.0, self_interaction=True)
    same(a, 7.5, self_interaction=True)
    m = molecule("H2O")
    same(m, 1.2, self_interaction=True)
    same(m, [0.0, 0.5, 0.5], self_interaction=True)  # O's radius 0: no (O, O, 0)
    same(m, {("H", "H"): 2.0}, self_interaction=True)


def test_empty_and_one_atom():
    empty = Atoms(cell=[3, 3, 3], pbc=True)
    out = bp.neighbor_list(Q, empty, 2.0)
    ref = ase_neighbor_list(Q, empty, 2.0)
    for o, r in zip(out, ref):
        assert o.dtype == r.dtype and o.shape == r.shape
    one = Atoms("Ar", positions=[[0.2, 0.3, 0.4]], cell=[3, 3, 3], pbc=True)
    assert same(one, 2.0) == 0
    assert same(one, 3.5) == 6
    same(one, 3.5, self_interaction=True)
    one.pbc = False
    assert same(one, 3.5) == 0
    assert same(one, 3.5, self_interaction=True) == 1
    assert bp.neighbor_list("i", one, 0.0, self_interaction=True).shape == (0,)


def test_ties_round_as_ase():
    # Pairs exactly at the cutoff (a lattice): d < cutoff decides, as in ASE.
    a = bulk("Cu", "sc", a=2.0).repeat(3)
    for cutoff in (2.0, np.nextafter(2.0, 3), 2 * np.sqrt(2), np.nextafter(2 * np.sqrt(2), 3)):
        same(a, float(cutoff))


def test_batch_equals_per_system():
    rng = np.random.default_rng(5)
    systems = [
        bulk("Cu", "fcc", a=3.6),
        rattled(bulk("Si", "diamond", a=5.43).repeat((2, 1, 1)), 0.05, 1),
        Atoms(cell=[4, 4, 4], pbc=True),  # empty
        rattled(fcc111("Al", (2, 2, 2), vacuum=4.0), 0.05, 2),
        molecule("CH3CH2OH"),
        rattled(bulk("NaCl", "rocksalt", a=5.64), 0.05, 3),
    ]
    positions = np.concatenate([s.positions for s in systems])
    cells = np.array([s.cell.array for s in systems])
    pbcs = np.array([s.pbc for s in systems])
    counts = [len(s) for s in systems]
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    system_index = np.repeat(np.arange(len(systems)), counts)
    numbers = np.concatenate([s.numbers for s in systems])
    radii = rng.uniform(0.5, 2.0, len(positions))
    for cutoff in (3.0, 5.5, radii, {("Cu", "Cu"): 3.0, (14, 14): 4.0, ("C", "H"): 1.2, ("Na", "Cl"): 3.5}):
        for self_interaction in (False, True):
            out = bp.neighbor_list_batch(Q, positions, cells, pbcs, system_index, cutoff, self_interaction, numbers=numbers)
            parts = []
            for s, a in enumerate(systems):
                c = cutoff[first[s] : first[s] + counts[s]] if isinstance(cutoff, np.ndarray) else cutoff
                o = list(bp.neighbor_list(Q, a, c, self_interaction=self_interaction))
                o[0] = o[0] + first[s]
                o[1] = o[1] + first[s]
                parts.append(o)
            for k, name in enumerate(Q):
                assert np.array_equal(out[k], np.concatenate([p[k] for p in parts])), name
            # Atoms of the systems interleaved: the same entries, renumbered.
            perm = rng.permutation(len(positions))
            inv = np.argsort(perm)
            c2 = cutoff[perm] if isinstance(cutoff, np.ndarray) else cutoff
            out2 = bp.neighbor_list_batch(Q, positions[perm], cells, pbcs, system_index[perm], c2, self_interaction, numbers=numbers[perm])
            i2, j2 = perm[out2[0]], perm[out2[1]]
            order = np.lexsort((out2[4][:, 2], out2[4][:, 1], out2[4][:, 0], j2, i2))
            assert np.all(np.diff(out2[0]) >= 0)
            assert np.array_equal(i2[order], out[0]) and np.array_equal(j2[order], out[1])
            assert np.array_equal(out2[4][order], out[4]) and np.array_equal(out2[3][order], out[3])
            del inv


def test_batch_broadcast_pbc():
    a = bulk("Cu", "fcc", a=3.6)
    x = np.concatenate([a.positions, a.positions + 0.1])
    cells = np.array([a.cell.array, a.cell.array])
    i, j = bp.neighbor_list_batch("ij", x, cells, True, [0, 1], 3.0)
    i0, j0 = bp.neighbor_list("ij", a, 3.0)
    assert np.array_equal(i, np.concatenate([i0, i0 + 1])) and np.array_equal(j, np.concatenate([j0, j0 + 1]))
    i3 = bp.neighbor_list_batch("i", x, cells, [True, True, True], np.array([0, 1]), 3.0)
    assert np.array_equal(i3, i)


def test_bad_input():
    a = bulk("Cu", "fcc", a=3.6, cubic=True)
    x, cell, pbc = a.positions, a.cell.array, a.pbc
    nan = x.copy()
    nan[1, 2] = np.nan
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (nan, cell, pbc), 3.0)
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x, cell, pbc), -1.0)
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x, cell, pbc), float("nan"))
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x, cell, pbc), [1.0, -1.0, 1.0, 1.0])
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x, cell, pbc), [1.0, 1.0])  # not one per atom
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x[:, :2], cell, pbc), 3.0)
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x, cell[:2], pbc), 3.0)
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x, cell, [True, False]), 3.0)
    with pytest.raises(ValueError):
        bp.neighbor_list("ijX", a, 3.0)
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x, np.zeros((3, 3)), True), 3.0)  # periodic without a cell vector
    with pytest.raises(ValueError):
        bp.neighbor_list("ij", (x, [[1, 0, 0], [2, 0, 0], [0, 0, 1]], True), 3.0)  # no volume
    with pytest.raises(TypeError):
        bp.neighbor_list("ij", (np.array([["a", "b", "c"]]), cell, pbc), 3.0)
    with pytest.raises(TypeError):
        bp.neighbor_list("ij", object(), 3.0)
    with pytest.raises(TypeError):
        bp.neighbor_list(3, a, 3.0)
    with pytest.raises(TypeError):
        bp.neighbor_list("ij", a, "3.0")
    with pytest.raises(ValueError):
        bp.neighbor_list_batch("ij", x, np.array([cell]), pbc, [0, 0, 1, 0], 3.0)  # system 1 of 1
    with pytest.raises(ValueError):
        bp.neighbor_list_batch("ij", x, np.array([cell]), pbc, [0, 0, 0], 3.0)  # one index short
    with pytest.raises(ValueError):
        bp.neighbor_list_batch("ij", x, cell, pbc, [0, 0, 0, 0], 3.0)  # cells not (B, 3, 3)
    # The module still works after errors.
    same(a, 3.0)
