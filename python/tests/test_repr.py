"""__version__ and a useful repr on every class broadphase exposes."""

import re

import numpy as np

import broadphase


def test_version_exists():
    assert isinstance(broadphase.__version__, str)
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", broadphase.__version__)


def test_index_repr():
    boxes = np.zeros((1000, 6), np.float32)
    boxes[:, 3:] = 1
    boxes[:, 0] = np.arange(1000) * 2
    boxes[:, 3] = boxes[:, 0] + 1
    idx = broadphase.Index(boxes, algorithm="uniform_grid")
    assert repr(idx) == "<broadphase.Index 1000 boxes, 3-D float32, uniform_grid>"
    flat = broadphase.Index(np.array([[0, 0, 1, 1]], np.float64))
    assert repr(flat) == f"<broadphase.Index 1 box, 2-D float64, {flat.algorithm}>"


def test_pair_finder_repr():
    f = broadphase.PairFinder()
    assert repr(f) == "<broadphase.PairFinder, no call yet>"
    boxes = np.array([[0, 0, 0, 1, 1, 1], [1, 1, 1, 2, 2, 2], [5, 5, 5, 6, 6, 6]], np.float32)
    f.find_pairs(boxes)
    assert repr(f) == f"<broadphase.PairFinder last call: 3 boxes, 3-D float32, 1 pair, {f.last_algorithm}>"
    f.find_pairs(np.array([[0, 0, 1, 1]], np.float64), np.array([[0, 0, 2, 2], [1, 1, 3, 3], [9, 9, 9, 9]]))
    assert repr(f) == f"<broadphase.PairFinder last call: 1 + 3 boxes, 2-D float64, 2 pairs, {f.last_algorithm}>"


def test_scene_repr():
    s = broadphase.Scene()
    assert repr(s) == "<broadphase.Scene 0 objects, float32, update mode automatic>"
    s.add([0, 0, 0, 1, 1, 1])
    s.set_update_mode(broadphase.Scene.update_modes()[-1])
    assert repr(s) == f"<broadphase.Scene 1 object, float32, update mode {s.update_mode}>"
    d = broadphase.Scene(dtype="float64")
    d.add_batch(np.zeros((5, 6)))
    assert repr(d) == "<broadphase.Scene 5 objects, float64, update mode automatic>"


def test_neighbor_list_repr():
    nl = broadphase.NeighborList(2.5, 0.3, cell=10.0)
    assert repr(nl) == "<broadphase.NeighborList half, cutoff 2.5 + skin 0.3, orthorhombic cell, not built>"
    nl.update(np.array([[0, 0, 0], [1, 0, 0], [9, 0, 0]], np.float64))
    assert repr(nl) == ("<broadphase.NeighborList half, cutoff 2.5 + skin 0.3, orthorhombic cell: 3 particles, "
                        "float64, 3 entries, 1 build>")


def test_every_public_class_has_its_own_repr():
    """No class in broadphase.__all__ falls back to object's '<... object at 0x...>'."""
    classes = [getattr(broadphase, n) for n in broadphase.__all__ if isinstance(getattr(broadphase, n), type)]
    classes = [c for c in classes if not issubclass(c, BaseException)]  # exceptions: Python's own repr
    assert {c.__name__ for c in classes} == {"Index", "NeighborList", "PairFinder", "Scene"}
    for c in classes:
        assert c.__repr__ is not object.__repr__, c
