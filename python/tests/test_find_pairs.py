"""find_pairs and PairFinder against the numpy brute force."""

import threading
import time
import warnings

import numpy as np
import pytest

import broadphase
from conftest import assert_same_pairs, brute_pairs, random_boxes, sort_pairs

ALGORITHMS = ["automatic"] + broadphase.algorithms()


def test_algorithm_names():
    assert set(broadphase.algorithms()) == {"brute_force", "sweep_and_prune", "uniform_grid", "hybrid_grid", "adaptive_grid", "cluster_pairs"}
    assert broadphase.default_threads() >= 1


_random_cache = {}


def random_case(n, dtype):
    """Random boxes and their brute-force pairs, computed once per size and dtype."""
    key = (n, dtype)
    if key not in _random_cache:
        boxes = random_boxes(np.random.default_rng(n), n, spread=60.0 * max(1.0, (n / 1000) ** (1 / 3)), dtype=dtype)
        _random_cache[key] = (boxes, brute_pairs(boxes))
    return _random_cache[key]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 50, 700, 3000])
def test_random(algorithm, dtype, n):
    boxes, want = random_case(n, dtype)
    got = broadphase.find_pairs(boxes, algorithm=algorithm, threads=2)
    assert_same_pairs(got, want)
    if len(got):
        assert np.all(got[:, 0] < got[:, 1])


def adversarial_scenes():
    rng = np.random.default_rng(7)
    scenes = {}
    scenes["identical"] = np.tile(np.array([[1, 2, 3, 4, 5, 6]], np.float32), (300, 1))
    pts = rng.integers(0, 6, (800, 3)).astype(np.float32)
    scenes["points"] = np.hstack([pts, pts])  # zero-size, many coincident
    g = np.stack(np.meshgrid(np.arange(8), np.arange(8), np.arange(8), indexing="ij"), -1).reshape(-1, 3)
    scenes["touching_faces"] = np.hstack([g, g + 1]).astype(np.float32)
    scenes["negative"] = random_boxes(rng, 1500, offset=-5000.0, spread=80.0)
    scenes["offset_1e7_f32"] = random_boxes(rng, 1500, offset=1e7, spread=200.0, size=(1.0, 9.0), dtype=np.float32)
    scenes["offset_1e7_f64"] = random_boxes(rng, 1500, offset=1e7, spread=200.0)
    scenes["huge_and_tiny"] = np.vstack(
        [random_boxes(rng, 1000, spread=100.0, size=(0.0, 0.01)), random_boxes(rng, 20, spread=100.0, size=(50.0, 400.0))]
    )
    slabs = random_boxes(rng, 600, spread=50.0)
    slabs[:5] = [[-np.inf, -np.inf, -1, np.inf, np.inf, 0]] * 5  # ground planes
    slabs[5] = [9e6, 9e6, 9e6, 9e6 + 1, 9e6 + 1, 9e6 + 1]  # a far outlier
    scenes["slabs_outliers"] = slabs
    return scenes


@pytest.mark.parametrize("name", sorted(adversarial_scenes()))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_adversarial(name, algorithm):
    boxes = adversarial_scenes()[name]
    got = broadphase.find_pairs(boxes, algorithm=algorithm, threads=2)
    assert_same_pairs(got, brute_pairs(boxes))


def test_identical_count():
    boxes = np.tile(np.array([[0, 0, 0, 1, 1, 1]], np.float32), (2000, 1))
    assert len(broadphase.find_pairs(boxes)) == 2000 * 1999 // 2


def test_touching_counts():
    a = np.array([[0, 0, 0, 1, 1, 1], [1, 1, 1, 2, 2, 2], [2.0001, 0, 0, 3, 1, 1]], np.float64)
    assert broadphase.find_pairs(a, sorted=True).tolist() == [[0, 1]]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_invalid_boxes_skipped(rng, algorithm):
    boxes = random_boxes(rng, 900, spread=40.0)
    bad = [3, 10, 11, 500, 899]
    boxes[3, 0] = np.nan
    boxes[10, 5] = np.nan
    boxes[11, 1] = boxes[11, 4] + 1  # min > max
    boxes[500] = np.nan
    boxes[899, 2] = np.inf  # min = inf > max
    got = broadphase.find_pairs(boxes, algorithm=algorithm, invalid="skip")
    assert_same_pairs(got, brute_pairs(boxes))
    assert not np.isin(got, bad).any()
    with pytest.warns(broadphase.InvalidBoxWarning, match="5 invalid box"):
        broadphase.find_pairs(boxes, algorithm=algorithm)
    with pytest.raises(broadphase.InvalidBoxError) as e:
        broadphase.find_pairs(boxes, algorithm=algorithm, invalid="raise")
    assert e.value.indices.tolist() == bad
    assert isinstance(e.value, ValueError)


def test_all_nan():
    boxes = np.full((50, 6), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert broadphase.find_pairs(boxes, invalid="skip").shape == (0, 2)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("sizes", [(0, 10), (1, 1), (5, 3000), (1200, 1700)])
def test_two_sets(rng, algorithm, sizes):
    a = random_boxes(rng, sizes[0], spread=50.0, dtype=np.float32)
    b = random_boxes(rng, sizes[1], spread=50.0, dtype=np.float32)
    got = broadphase.find_pairs(a, b, algorithm=algorithm)
    assert_same_pairs(got, brute_pairs(a, b))


def test_two_sets_invalid(rng):
    a = random_boxes(rng, 300, spread=30.0)
    b = random_boxes(rng, 400, spread=30.0)
    a[7] = np.nan
    b[[1, 2]] = np.nan
    with pytest.raises(broadphase.InvalidBoxError) as e:
        broadphase.find_pairs(a, b, invalid="raise")
    assert e.value.indices.tolist() == [7]
    assert e.value.other_indices.tolist() == [1, 2]
    assert_same_pairs(broadphase.find_pairs(a, b, invalid="skip"), brute_pairs(a, b))


def test_mixed_precision_is_exact():
    # 1 + 2^-30 is not a float32; the float64 set must not be rounded.
    a = np.array([[0, 0, 0, 1, 1, 1]], np.float32)
    b = np.array([[1 + 2.0**-30, 0, 0, 2, 1, 1]], np.float64)
    assert broadphase.find_pairs(a, b).shape == (0, 2)
    assert broadphase.find_pairs(a, b - [2.0**-30, 0, 0, 0, 0, 0]).tolist() == [[0, 0]]


def test_layouts_and_dtypes(rng):
    base = random_boxes(rng, 1500, spread=60.0)
    want = brute_pairs(base)
    variants = {
        "fortran": np.asfortranarray(base),
        "strided": np.repeat(base, 2, axis=0)[::2],
        "column_view": np.hstack([base, base])[:, :6],
        "big_endian": base.astype(">f8"),
        "list": base.tolist(),
    }
    for name, v in variants.items():
        assert_same_pairs(broadphase.find_pairs(v), want), name
    ints = rng.integers(-50, 50, (800, 3))
    iboxes = np.hstack([ints, ints + rng.integers(0, 6, (800, 3))])
    for dt in (np.int32, np.int64, np.uint16 if iboxes.min() >= 0 else np.int16, np.float16):
        assert_same_pairs(broadphase.find_pairs(iboxes.astype(dt)), brute_pairs(iboxes.astype(dt).astype(np.float64)))


def test_empty_inputs():
    assert broadphase.find_pairs(np.empty((0, 6))).shape == (0, 2)
    assert broadphase.find_pairs([]).shape == (0, 2)
    assert broadphase.find_pairs(np.empty((0, 6)), np.zeros((3, 6))).shape == (0, 2)
    assert broadphase.find_pairs(np.zeros((1, 6), np.float32)).shape == (0, 2)


def test_sorted_and_deterministic(rng):
    boxes = random_boxes(rng, 6000, spread=200.0, dtype=np.float32)
    for algorithm in ALGORITHMS:
        p1 = broadphase.find_pairs(boxes, algorithm=algorithm, threads=1)
        p2 = broadphase.find_pairs(boxes, algorithm=algorithm, threads=2)
        np.testing.assert_array_equal(p1, p2)  # same order for every thread count
        s = broadphase.find_pairs(boxes, algorithm=algorithm, sorted=True)
        np.testing.assert_array_equal(s, sort_pairs(p1))


def test_output_owns_library_buffer(rng):
    p = broadphase.find_pairs(random_boxes(rng, 500, spread=20.0))
    assert p.dtype == np.uint32 and p.flags.c_contiguous
    assert not p.flags.owndata  # the library's vector, not a copy
    p[0, 0] = 7  # writable
    del p


def test_pair_budget():
    boxes = np.zeros((100, 6), np.float32)
    with pytest.raises(broadphase.PairBudgetError) as e:
        broadphase.find_pairs(boxes, max_pairs=1000)
    assert e.value.pairs.shape == (1000, 2)
    assert len(broadphase.find_pairs(boxes, max_pairs=4950)) == 4950


def test_errors():
    with pytest.raises(ValueError, match=r"shape \(N, 6\).*got shape \(4, 5\)"):
        broadphase.find_pairs(np.zeros((4, 5)))
    with pytest.raises(ValueError, match=r"got shape \(6,\)"):
        broadphase.find_pairs(np.zeros(6))
    with pytest.raises(ValueError, match=r"other must have shape"):
        broadphase.find_pairs(np.zeros((4, 6)), np.zeros((4, 6, 1)))
    with pytest.raises(TypeError, match="complex128"):
        broadphase.find_pairs(np.zeros((4, 6), complex))
    with pytest.raises(TypeError, match="bool"):
        broadphase.find_pairs(np.zeros((4, 6), bool))
    with pytest.raises(TypeError):
        broadphase.find_pairs([["a"] * 6])
    with pytest.raises(ValueError, match="unknown algorithm 'quadtree'"):
        broadphase.find_pairs(np.zeros((4, 6)), algorithm="quadtree")
    # The automatic choice has one name; the former 'auto' says which.
    with pytest.raises(ValueError, match="spelt 'automatic'"):
        broadphase.find_pairs(np.zeros((4, 6)), algorithm="auto")
    with pytest.raises(ValueError, match="threads"):
        broadphase.find_pairs(np.zeros((4, 6)), threads=-1)
    with pytest.raises(ValueError, match="invalid must be"):
        broadphase.find_pairs(np.zeros((4, 6)), invalid="ignore")


def test_threads_beyond_32_bits_refused():
    # threads=2**32 + 1 was cut to 32 bits: silently one thread (2**32: all).
    for t in (2**32, 2**32 + 1, 2**40):
        with pytest.raises(ValueError, match="threads"):
            broadphase.find_pairs(np.zeros((4, 6)), threads=t)
        with pytest.raises(ValueError, match="threads"):
            broadphase.Index(np.zeros((4, 6)), threads=t)
    assert len(broadphase.find_pairs(np.zeros((4, 6)), threads=2**32 - 1)) == 6


@pytest.mark.skipif(np.finfo(np.longdouble).max <= np.finfo(np.float64).max, reason="long double is double here")
def test_conversion_errors_propagate():
    # A long double past float64's range makes numpy warn while converting;
    # with warnings as errors the conversion fails. The module crashed
    # (segfault: a null array from array_t::ensure, which also cleared the
    # error); the error must reach the caller, as any conversion error
    # (MemoryError) does.
    big = np.zeros((3, 6), np.longdouble)
    big[:, 3:] = 1
    big[0, 4] = np.longdouble(np.finfo(np.float64).max) * 4
    index32 = broadphase.Index(np.zeros((2, 6), np.float32))
    scene = broadphase.Scene()
    calls = [
        lambda: broadphase.find_pairs(big),
        lambda: broadphase.find_pairs(np.zeros((2, 6)), big),
        lambda: broadphase.PairFinder().find_pairs(big),
        lambda: broadphase.Index(big),
        lambda: index32.query(big[0]),
        lambda: index32.query_batch(big),
        lambda: broadphase.find_sphere_pairs(big[:, 3:], 1.0),
        lambda: broadphase.find_sphere_pairs(np.zeros((3, 3)), big[:, 4]),
        lambda: scene.add(big[0]),
        lambda: scene.add_batch(big),
        lambda: scene.query_box(big[0]),
        lambda: scene.query_point(big[0, 3:]),
    ]
    for call in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(RuntimeWarning, match="overflow"):
                call()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()  # without: converted, as numpy does (to an infinity)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert len(broadphase.find_pairs(big, invalid="skip")) == 3


def test_pair_finder_reuse(rng):
    finder = broadphase.PairFinder()
    for n in (3000, 100, 4000, 0, 3000):
        boxes = random_boxes(rng, n, spread=120.0, dtype=np.float32)
        assert_same_pairs(finder.find_pairs(boxes), brute_pairs(boxes))
        assert finder.last_algorithm in broadphase.algorithms()
    b64 = random_boxes(rng, 300, spread=20.0)
    assert_same_pairs(finder.find_pairs(b64, b64[:50]), brute_pairs(b64, b64[:50]))


def test_builtin_scene_matches_cli_names():
    boxes = broadphase.builtin_scene("uniform:1000")
    assert boxes.shape == (1000, 6) and boxes.dtype == np.float32
    assert len(broadphase.find_pairs(broadphase.builtin_scene("identical:10"))) == 45
    with pytest.raises(ValueError, match="unknown scene"):
        broadphase.builtin_scene("nope")


def test_gil_released():
    """Another Python thread runs while find_pairs computes."""
    boxes = np.zeros((3000, 6), np.float32)  # 4.5 million pairs: tens of milliseconds
    counter = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            counter[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        advanced = 0
        for _ in range(5):
            time.sleep(0.01)
            before = counter[0]
            broadphase.find_pairs(boxes, threads=1)
            advanced = counter[0] - before
            if advanced > 0:
                break
    finally:
        stop.set()
        t.join()
    assert advanced > 0


def test_threads_share_a_finder(rng):
    finder = broadphase.PairFinder()
    sets = [random_boxes(rng, 2000, spread=80.0, dtype=np.float32) for _ in range(4)]
    want = [sort_pairs(brute_pairs(s)) for s in sets]
    errors = []

    def work(k):
        try:
            for _ in range(3):
                got = finder.find_pairs(sets[k], sorted=True)
                np.testing.assert_array_equal(got, want[k])
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_oracle_agrees_with_full_matrix(rng):
    from conftest import overlap_matrix

    a = random_boxes(rng, 400, spread=30.0)
    a[5] = np.nan
    b = random_boxes(rng, 300, spread=30.0)
    i, j = np.nonzero(np.triu(overlap_matrix(a, a), 1))
    np.testing.assert_array_equal(sort_pairs(brute_pairs(a)), sort_pairs(np.stack([i, j], 1)))
    i, j = np.nonzero(overlap_matrix(a, b))
    np.testing.assert_array_equal(sort_pairs(brute_pairs(a, b)), sort_pairs(np.stack([i, j], 1)))


@pytest.mark.parametrize("offset", [0.0, 1e7])
def test_float64_one_ulp_apart_is_exact(offset):
    # float64 boxes one float64 ulp apart do not touch, and min > max by one
    # ulp is invalid: nothing is rounded to float32 (where both would change).
    x = np.float64(offset) + 0.1 + 0.2
    y = np.nextafter(x, np.inf)
    assert np.float32(x) == np.float32(y)
    apart = np.array([[offset, 0, 0, x, 1, 1], [y, 0, 0, offset + 2, 1, 1]], np.float64)
    touching = np.array([[offset, 0, 0, x, 1, 1], [x, 0, 0, offset + 2, 1, 1]], np.float64)
    for algorithm in ALGORITHMS:
        assert broadphase.find_pairs(apart, algorithm=algorithm).shape == (0, 2)
        assert broadphase.find_pairs(touching, algorithm=algorithm).tolist() == [[0, 1]]
        assert broadphase.find_pairs(apart[:1], apart[1:], algorithm=algorithm).shape == (0, 2)
    inverted = np.array([[y, 0, 0, x, 1, 1], [offset - 1, -1, -1, offset + 1, 2, 2]], np.float64)
    with pytest.raises(broadphase.InvalidBoxError) as e:
        broadphase.find_pairs(inverted, invalid="raise")
    assert e.value.indices.tolist() == [0]
    # Mixed precision: a float32 set against float64 boxes one ulp past its face.
    f = np.array([[offset, 0, 0, np.float32(x), 1, 1]], np.float32)
    g = np.array([[np.nextafter(np.float64(np.float32(x)), np.inf), 0, 0, offset + 2, 1, 1]], np.float64)
    assert broadphase.find_pairs(f, g).shape == (0, 2)
    assert broadphase.find_pairs(g, f).shape == (0, 2)
