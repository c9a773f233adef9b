"""Shared helpers: numpy brute force, the oracle of every test here.

The module under test is whatever `import broadphase` finds: the build tree
(PYTHONPATH=build/release/python, as ctest sets it) or an installed copy.
"""

import numpy as np
import pytest

try:
    import broadphase  # noqa: F401
except ImportError as e:  # pragma: no cover - a setup problem, said clearly
    raise ImportError(
        f"cannot import broadphase ({e}): build it (cmake -S . -B build/release -DPython3_EXECUTABLE=/usr/bin/python3 "
        "&& cmake --build build/release) and run with PYTHONPATH=build/release/python"
    ) from e


def valid_mask(boxes):
    boxes = np.asarray(boxes)
    return np.all(boxes[:, :3] <= boxes[:, 3:], axis=1)  # False for NaN


def overlap_matrix(a, b):
    """ov[i, j]: closed boxes a[i] and b[j] overlap (both valid)."""
    a = np.asarray(a)
    b = np.asarray(b)
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)), bool)
    ov = np.all(~((a[:, None, 3:] < b[None, :, :3]) | (b[None, :, 3:] < a[:, None, :3])), axis=2)
    return ov & valid_mask(a)[:, None] & valid_mask(b)[None, :]


def brute_pairs(a, b=None):
    """Sorted (K, 2) pairs: within a (i < j), or between a and b.

    Every pair of boxes is looked at: an all-pairs test on x first, then the
    other axes on the pairs that overlap on x (the same answer as
    overlap_matrix, several times faster)."""
    a = np.asarray(a)
    bb = a if b is None else np.asarray(b)
    if len(a) == 0 or len(bb) == 0:
        return np.zeros((0, 2), np.uint32)
    va, vb = valid_mask(a), valid_mask(bb)
    ov = ~((a[:, None, 3] < bb[None, :, 0]) | (bb[None, :, 3] < a[:, None, 0]))
    if b is None:
        ov = np.triu(ov, 1)
    i, j = np.nonzero(ov)
    keep = va[i] & vb[j]
    for k in (1, 2):
        keep &= ~((a[i, 3 + k] < bb[j, k]) | (bb[j, 3 + k] < a[i, k]))
    return np.stack([i[keep], j[keep]], axis=1).astype(np.uint32).reshape(-1, 2)


def sort_pairs(p):
    p = np.asarray(p).reshape(-1, 2)
    if len(p) == 0:
        return p.astype(np.uint32)
    order = np.lexsort((p[:, 1], p[:, 0]))
    return p[order]


def assert_same_pairs(got, want):
    got = np.asarray(got)
    assert got.dtype == np.uint32
    assert got.ndim == 2 and got.shape[1] == 2
    np.testing.assert_array_equal(sort_pairs(got), sort_pairs(want))


def random_boxes(rng, n, offset=0.0, spread=100.0, size=(0.0, 8.0), dtype=np.float64):
    lo = offset + rng.uniform(-spread / 2, spread / 2, (n, 3))
    ext = rng.uniform(size[0], size[1], (n, 3))
    return np.hstack([lo, lo + ext]).astype(dtype)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
