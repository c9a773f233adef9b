"""Property-based fuzzing of the Python module with Hypothesis.

Every generated input goes through the module and every answer is checked
against a numpy brute force written from the definitions (not from the
library): closed boxes a and b overlap iff on every axis
not (a.max < b.min or b.max < a.min); a box is invalid (in no pair) if it
holds a NaN or has min > max on some axis; each pair once. Comparisons are
made in float64 on the exact values the module was given, which is what
"exact in the input's precision" means (float32 converts to float64
exactly; integers and other dtypes as numpy converts them).

Inputs: (0, 6), (1, 6) and (N, 6) arrays (N up to 200; a few of several
thousand for the threaded paths), in float32, float64, float16, long double,
integers, big-endian, Fortran order, transposed, strided, interleaved,
negative strides, zero strides, read-only, unaligned and list layouts, with
NaN, infinities, -0.0, subnormals, the float32 and float64 extremes, 1e7
offsets with 1e-3 boxes, identical boxes, lattices whose boxes touch, faces
one ulp apart; wrong shapes and dtypes and other objects (which must raise
ValueError or TypeError naming the argument).

Profiles (BROADPHASE_HYPOTHESIS_PROFILE): "ci" (default) runs a fixed
(derandomized) set of about 7,000 examples in under a minute; "long" runs
50 times as many (BROADPHASE_HYPOTHESIS_SCALE sets the factor), freshly
random on each run, for soak runs:

    BROADPHASE_HYPOTHESIS_PROFILE=long PYTHONPATH=build/release/python \\
        python3 -m pytest -q -p no:cacheprovider python/tests/test_fuzz.py --hypothesis-show-statistics

A failure prints the falsifying example and a @reproduce_failure blob.

Needs Hypothesis (Debian: python3-hypothesis); skipped without it.
"""

import os
import warnings

import numpy as np
import pytest

pytest.importorskip("hypothesis", reason="Hypothesis not installed (Debian: python3-hypothesis)")

from hypothesis import HealthCheck, event, given, note, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import broadphase  # noqa: E402

# ---------------------------------------------------------------- profiles

_COMMON = dict(
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile("ci", derandomize=True, **_COMMON)
settings.register_profile("long", derandomize=False, **_COMMON)
PROFILE = os.environ.get("BROADPHASE_HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)
SCALE = float(os.environ.get("BROADPHASE_HYPOTHESIS_SCALE", 50 if PROFILE == "long" else 1))


def examples(n):
    """n examples under "ci", 50 n under "long" (BROADPHASE_HYPOTHESIS_SCALE
    sets the factor); the other settings from the profile."""
    return settings(max_examples=max(1, round(n * SCALE)))


ALGORITHMS = ["automatic"] + broadphase.algorithms()
MODES = broadphase.Scene.update_modes()
ALL = 0xFFFFFFFFFFFFFFFF
F32_MAX = float(np.finfo(np.float32).max)
F64_MAX = float(np.finfo(np.float64).max)
INF = float("inf")
NAN = float("nan")

# ---------------------------------------------------------------- values

SPECIAL = [
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1.0 / 3.0,
    5e-324, -5e-324, 2.2250738585072014e-308,  # float64 subnormal, smallest normal
    1.401298464324817e-45, -1.401298464324817e-45, 1.1754943508222875e-38,  # float32 subnormal, smallest normal
    F32_MAX, -F32_MAX, float(np.nextafter(F32_MAX, INF)), 3.4028235677973366e38,  # past float32's top
    F64_MAX, -F64_MAX, INF, -INF, NAN,
    1e7, -1e7, 1e7 + 1e-3, 2.0**24, 2.0**24 + 1, 2.0**53, 2.0**53 + 2, 1e15, 1e30, -1e30, 1e300,
]
VALUES = st.one_of(
    st.sampled_from(SPECIAL),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(width=32, allow_nan=True, allow_infinity=True),
    st.integers(-8, 8).map(float),
)
STYLES = ["uniform", "lattice", "offset", "identical", "pool", "clustered"]
FLOAT_DTYPES = ["<f4", "<f8", "<f4", "<f8", ">f4", ">f8", "<f2", "g"]
INT_DTYPES = ["<i1", "<i2", "<i4", "<i8", ">i4", "<u1", "<u2", "<u4", "<u8"]
DTYPES = FLOAT_DTYPES * 3 + INT_DTYPES
LAYOUTS = ["C", "C", "C", "F", "transposed", "strided", "interleaved", "reversed", "readonly", "unaligned", "list",
           "broadcast"]


def sizes(lo, hi):
    """Sizes: a quarter up to 3 (0 and 1 included), the rest spread up to hi."""
    edges = [min(max(lo, e), hi) for e in (lo, 3, 20, 80, hi)]
    return st.sampled_from(range(4)).flatmap(lambda k: st.integers(edges[k], edges[k + 1]))


def _base_boxes(draw, rng, n, style):
    """(n, 6) float64 boxes (mostly valid) in one of several styles."""
    pool = np.array(draw(st.lists(VALUES, min_size=1, max_size=6)))
    if style == "uniform":
        spread = draw(st.sampled_from([1.0, 10.0, 100.0, 1e4]))
        size = draw(st.sampled_from([0.0, 0.1, 1.0, 10.0, 1e3]))
        lo = rng.uniform(-spread / 2, spread / 2, (n, 3))
        ext = rng.uniform(0, size, (n, 3))
    elif style == "lattice":  # faces on a lattice: many boxes touch exactly
        step = draw(st.sampled_from([1.0, 0.5, 2.0**-20, 3.0, 0.1, 1e-3]))
        k = draw(st.integers(1, 8))
        lo = rng.integers(-k, k + 1, (n, 3)) * step
        ext = rng.integers(0, 3, (n, 3)) * step
    elif style == "offset":  # far from the origin, tiny boxes (1e7 + 1e-3 is not a float32)
        off = draw(st.sampled_from([1e7, -1e7, 1e7 + 0.5, 3e9, 1e15, -2.0**40]))
        size = draw(st.sampled_from([1e-3, 1e-4, 0.0, 0.25]))
        lo = off + rng.integers(0, 20, (n, 3)) * size + rng.uniform(0, size, (n, 3)) * rng.integers(0, 2, (n, 1))
        ext = np.full((n, 3), size)
    elif style == "identical":
        v = np.sort(rng.choice(pool, 2))
        row = rng.choice(pool, 3) if draw(st.booleans()) else np.zeros(3)
        lo = np.broadcast_to(np.minimum(row, v[0]), (n, 3)).copy()
        ext = np.broadcast_to(np.abs(v[1]) if np.isfinite(v[1]) else 1.0, (n, 3)).copy()
    elif style == "density":  # unit boxes at a given mean number of neighbours, on a lattice or not
        density = draw(st.sampled_from([0.3, 3.0, 12.0]))
        side = max(1.0, (n * 8.0 / density) ** (1.0 / 3.0))
        lo = rng.uniform(0, side, (n, 3))
        ext = rng.uniform(0, 1.0, (n, 3))
        if draw(st.booleans()):
            lo, ext = np.floor(lo * 4) / 4, np.floor(ext * 4) / 4
    elif style == "clustered":  # a few clumps of heavy overlap
        centres = rng.uniform(-50, 50, (max(1, draw(st.integers(1, 4))), 3))
        lo = centres[rng.integers(0, len(centres), n)] + rng.normal(0, 1, (n, 3))
        ext = rng.uniform(0, 3, (n, 3))
    else:  # pool: every value from the drawn pool, sorted per axis or not
        v = rng.choice(pool, (n, 6))
        if draw(st.booleans()):
            with np.errstate(invalid="ignore"):
                v = np.hstack([np.fmin(v[:, :3], v[:, 3:]), np.fmax(v[:, :3], v[:, 3:])])
        return v, pool
    with np.errstate(over="ignore", invalid="ignore"):
        return np.hstack([lo, lo + ext]), pool


def _derived_boxes(draw, rng, n, partner):
    """Boxes made from the partner set's: copies, shifted, grown or shrunk,
    flattened to a face or a point, faces moved one float64 ulp."""
    b = partner[rng.integers(0, len(partner), n)].copy()
    with np.errstate(invalid="ignore", over="ignore"):
        w = b[:, 3:] - b[:, :3]
        w = np.where(np.isfinite(w), w, 1.0)
        how = draw(st.sampled_from(["copy", "shift", "grow", "face", "point", "ulp"]))
        if how == "shift":
            b += np.tile(w * rng.choice([-1.0, -0.5, 0.5, 1.0], (n, 3)), 2)
        elif how == "grow":
            g = w * rng.uniform(-0.4, 0.4, (n, 3))
            b[:, :3] -= g
            b[:, 3:] += g
        elif how == "face":
            k = rng.integers(0, 3, n)
            b[np.arange(n), k] = b[np.arange(n), 3 + k]
        elif how == "point":
            b[:, 3:] = b[:, :3] if draw(st.booleans()) else b[:, 3:]
            b[:, :3] = b[:, 3:]
        if how in ("ulp", "face", "point") or draw(st.booleans()):
            m = rng.random(b.shape) < 0.3
            b[m] = np.nextafter(b[m], np.where(rng.random(int(m.sum())) < 0.5, INF, -INF))
    return b


def _overlays(draw, rng, b, pool, partner):
    """Edits in float64: pool values, exact touching (within the set and
    with the partner set), duplicates, -0.0, invalid rows."""
    n = len(b)
    if n == 0:
        return b
    with np.errstate(invalid="ignore", over="ignore"):
        p = draw(st.sampled_from([0.0, 0.0, 0.01, 0.1, 0.5]))
        if p:
            m = rng.random(b.shape) < p
            b[m] = rng.choice(pool, int(m.sum()))
        p = draw(st.sampled_from([0.0, 0.1, 0.4]))
        if p:  # b[i] starts where b[j] ends (or ends where it starts)
            for i in np.nonzero(rng.random(n) < p)[0]:
                j, k = int(rng.integers(0, n)), int(rng.integers(0, 3))
                if rng.random() < 0.5:
                    b[i, k] = b[j, 3 + k]
                    b[i, 3 + k] = np.fmax(b[i, 3 + k], b[i, k])
                else:
                    b[i, 3 + k] = b[j, k]
                    b[i, k] = np.fmin(b[i, k], b[i, 3 + k])
        if partner is not None and len(partner) and draw(st.booleans()):
            for i in np.nonzero(rng.random(n) < 0.5)[0]:  # touch the other set's faces
                j, k = int(rng.integers(0, len(partner))), int(rng.integers(0, 3))
                if rng.random() < 0.5:
                    b[i, k] = partner[j, 3 + k]
                    b[i, 3 + k] = np.fmax(b[i, 3 + k], b[i, k])
                else:
                    b[i, 3 + k] = partner[j, k]
                    b[i, k] = np.fmin(b[i, k], b[i, 3 + k])
        p = draw(st.sampled_from([0.0, 0.0, 0.1, 0.5]))
        if p:  # duplicated rows
            m = rng.random(n) < p
            b[m] = b[rng.integers(0, n, int(m.sum()))]
        if draw(st.booleans()):
            b[(b == 0) & (rng.random(b.shape) < 0.5)] = -0.0
        p = draw(st.sampled_from([0.0, 0.0, 0.0, 0.05, 0.3]))
        if p:  # invalid: a NaN, or an axis turned inside out
            for i in np.nonzero(rng.random(n) < p)[0]:
                k = int(rng.integers(0, 3))
                if rng.random() < 0.3:
                    b[i, int(rng.integers(0, 6))] = NAN
                else:
                    b[i, k], b[i, 3 + k] = b[i, 3 + k], b[i, k]
    return b


def _cast(draw, rng, b, dtype):
    """b (float64) into dtype, then edits in dtype: faces nudged one ulp
    (or one unit), min one ulp past max, integer extremes."""
    native = dtype.newbyteorder("=")
    n = len(b)
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype.kind == "f":
            a = b.astype(native)
            p = draw(st.sampled_from([0.0, 0.0, 0.05, 0.3]))
            if p and a.size:
                m = rng.random(a.shape) < p
                up = rng.random(a.shape) < 0.5
                a[m & up] = np.nextafter(a[m & up], native.type(INF))
                a[m & ~up] = np.nextafter(a[m & ~up], native.type(-INF))
            if n and a.shape[1] == 6 and draw(st.sampled_from([False, False, True])):
                i, k = int(rng.integers(0, n)), int(rng.integers(0, 3))
                a[i, k] = np.nextafter(a[i, 3 + k], native.type(INF))  # invalid by one ulp
        else:
            info = np.iinfo(native)
            hi = float(min(info.max, 2**62))
            lo = float(max(info.min, -(2**62)))
            x = np.nan_to_num(b, nan=0.0, posinf=hi, neginf=lo)
            a = np.floor(np.clip(x, lo, hi)).astype(native)
            p = draw(st.sampled_from([0.0, 0.0, 0.05]))
            if p and a.size:
                m = rng.random(a.shape) < p
                a[m] = rng.choice(np.array([info.min, info.max, info.max - 1, 0], native), int(m.sum()))
    return a.astype(dtype)


def _present(arr, layout):
    """The same values in another memory layout (gaps filled with garbage)."""
    n = len(arr)
    garbage = np.array(np.nan if arr.dtype.kind == "f" else 7).astype(arr.dtype)
    if layout == "F":
        return np.asfortranarray(arr)
    if layout == "transposed":
        return np.ascontiguousarray(arr.T).T
    if layout == "strided":
        big = np.full((2 * n,) + arr.shape[1:], garbage, arr.dtype)
        big[::2] = arr
        return big[::2]
    if layout == "interleaved":
        big = np.full((n, 2 * arr.shape[1]), garbage, arr.dtype)
        big[:, ::2] = arr
        return big[:, ::2]
    if layout == "reversed":
        return arr[::-1].copy()[::-1]
    if layout == "readonly":
        a = arr.copy()
        a.flags.writeable = False
        return a
    if layout == "unaligned" and arr.dtype.itemsize > 1:
        buf = bytearray(arr.nbytes + 1)
        a = np.ndarray(arr.shape, arr.dtype, buffer=memoryview(buf)[1:])
        a[...] = arr
        return a
    if layout == "list" and arr.dtype.kind == "f" and arr.dtype.itemsize <= 8:
        return arr.tolist()
    if layout == "broadcast" and n > 1:
        with np.errstate(invalid="ignore", over="ignore"):
            same = bool(np.all((arr == arr[0]) | (np.isnan(arr.astype(np.float64)) & np.isnan(arr[0].astype(np.float64)))))
        if same:
            return np.broadcast_to(arr[0], arr.shape)
    return arr


class Input:
    """What is passed (obj) and its exact values as float64 (ref)."""

    def __init__(self, obj, ref, dtype, layout, style):
        self.obj, self.ref, self.dtype, self.layout, self.style = obj, ref, dtype, layout, style
        self.is_f32 = layout != "list" and dtype.kind == "f" and dtype.itemsize == 4

    def __repr__(self):
        return (f"Input(style={self.style}, dtype={self.dtype.str}, layout={self.layout}, shape={self.ref.shape}, "
                f"values={self.ref.tolist()!r})")


@st.composite
def inputs(draw, min_n=0, max_n=200, cols=6, dtypes=None, partner=None, layouts=None, styles=None):
    """An (n, cols) input: boxes (cols 6) or points (cols 3)."""
    n = draw(sizes(min_n, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    style = draw(st.sampled_from((styles or STYLES) + (["derived"] * 5 if partner is not None and len(partner) else [])))
    if style == "derived":
        b, pool = _derived_boxes(draw, rng, n, partner), np.array(draw(st.lists(VALUES, min_size=1, max_size=3)))
    else:
        b, pool = _base_boxes(draw, rng, n, style)
    b = _overlays(draw, rng, b, pool, partner)
    if cols == 3:
        b = np.ascontiguousarray(b[:, :3])
    dtype = np.dtype(draw(st.sampled_from(dtypes or DTYPES)))
    arr = _cast(draw, rng, b, dtype)
    layout = draw(st.sampled_from(layouts or LAYOUTS))
    obj = _present(arr, layout)
    with np.errstate(over="ignore"):
        ref = np.array(obj, dtype=np.float64).reshape(n, cols)
        np.testing.assert_array_equal(ref, arr.astype(np.float64))  # the layouts keep the values
    return Input(obj, ref, dtype, layout, style)


# ---------------------------------------------------------------- the oracle


def valid_rows(b):
    """Rows without NaN and with min <= max on every axis."""
    return np.all(b[:, :3] <= b[:, 3:], axis=1)  # False for NaN


def overlap_matrix(a, b):
    """ov[i, j]: closed boxes a[i] and b[j] overlap, both valid (float64 compares)."""
    ov = np.ones((len(a), len(b)), bool)
    for k in range(3):
        ov &= ~((a[:, None, 3 + k] < b[None, :, k]) | (b[None, :, 3 + k] < a[:, None, k]))
    return ov & valid_rows(a)[:, None] & valid_rows(b)[None, :]


def keys_of(pairs):
    """Pairs as int64 keys a << 32 | b."""
    p = np.asarray(pairs).astype(np.int64).reshape(-1, 2)
    return (p[:, 0] << 32) | p[:, 1]


class Expected:
    """The oracle's answer: sorted pair keys and the invalid rows of each set."""

    def __init__(self, keys, invalid_a, invalid_b=()):
        self.keys = np.asarray(keys, np.int64)
        self.invalid_a = np.asarray(invalid_a, np.int64)
        self.invalid_b = np.asarray(invalid_b, np.int64)

    @property
    def has_invalid(self):
        return len(self.invalid_a) + len(self.invalid_b) > 0


def oracle_pairs(a, b=None):
    """Expected for find_pairs(a) (i < j) or find_pairs(a, b)."""
    if b is None:
        i, j = np.nonzero(np.triu(overlap_matrix(a, a), 1))
        return Expected((i.astype(np.int64) << 32) | j, np.nonzero(~valid_rows(a))[0])
    i, j = np.nonzero(overlap_matrix(a, b))
    return Expected((i.astype(np.int64) << 32) | j, np.nonzero(~valid_rows(a))[0], np.nonzero(~valid_rows(b))[0])


def check_pairs_array(got, one_set):
    assert isinstance(got, np.ndarray) and got.dtype == np.uint32, type(got)
    assert got.ndim == 2 and got.shape[1] == 2, got.shape
    k = keys_of(got)
    assert len(np.unique(k)) == len(k), "a pair reported twice"
    if one_set:
        assert np.all(got[:, 0] < got[:, 1])
    return k


def call_checked(fn, want, invalid="warn", max_pairs=None, sorted_=False, one_set=False, budget="exact", sources=(),
                 unbounded=None):
    """Runs fn() and checks its answer, exception and warnings against want.

    max_pairs: more pairs than it raise PairBudgetError, whose .pairs are
    max_pairs of the pairs (budget="exact"), or at most max_pairs of them
    (budget="at_most"); budget="maybe": the call may also raise when the
    pairs fit (sphere box path: the budget bounds the box pairs). Invalid
    boxes: InvalidBoxError (invalid='raise', with the rows),
    InvalidBoxWarning (invalid='warn') or nothing. Returns the pairs, or
    None after an exception. sources: the Inputs of the call; numpy's
    "overflow encountered in cast" is expected where one is long double
    (beyond float64's range: converted to an infinity, as numpy does).
    unbounded: the same call, unsorted and without max_pairs; given, the
    PairBudgetError's pairs must be its first max_pairs (sorted where
    sorted_: the first found, then sorted)."""
    over = max_pairs is not None and len(want.keys) > max_pairs
    outcome, got = "ok", None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got = fn()
        except broadphase.PairBudgetError as e:
            outcome = "budget"
            assert over or budget == "maybe", f"PairBudgetError with {len(want.keys)} pairs <= max_pairs {max_pairs}"
            assert "max_pairs" in str(e)
            part = check_pairs_array(e.pairs, one_set)
            if budget == "exact":
                assert len(part) == max_pairs
            else:
                assert len(part) <= max_pairs
            assert np.all(np.isin(part, want.keys)), "PairBudgetError.pairs holds a pair that does not overlap"
            if unbounded is not None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    first = unbounded()[:max_pairs]
                if sorted_:
                    first = first[np.argsort(keys_of(first), kind="stable")]
                np.testing.assert_array_equal(e.pairs, first, err_msg="PairBudgetError.pairs: not the first max_pairs")
        except broadphase.InvalidBoxError as e:
            outcome = "invalid"
            assert invalid == "raise" and want.has_invalid, f"InvalidBoxError: {e}"
            assert not over
            assert e.indices.dtype == np.uint32 and e.other_indices.dtype == np.uint32
            np.testing.assert_array_equal(np.sort(e.indices), want.invalid_a)
            np.testing.assert_array_equal(np.sort(e.other_indices), want.invalid_b)
            assert "invalid" in str(e)
    others = [w for w in caught if not issubclass(w.category, broadphase.InvalidBoxWarning)]
    if any(x.dtype.kind == "f" and x.dtype.itemsize > 8 for x in sources):
        others = [w for w in others if "overflow encountered in cast" not in str(w.message)]
    assert not others, [str(w.message) for w in others]
    warned = sum(issubclass(w.category, broadphase.InvalidBoxWarning) for w in caught)
    event(f"outcome: {outcome}")
    n = len(want.keys)
    event("pairs: " + ("0" if n == 0 else "1-9" if n < 10 else "10-999" if n < 1000 else ">= 1000"))
    if outcome != "ok":
        assert warned == 0
        return None
    assert not over, f"{len(want.keys)} pairs > max_pairs {max_pairs}, no PairBudgetError"
    assert not (invalid == "raise" and want.has_invalid), "invalid boxes, no InvalidBoxError"
    assert warned == (1 if invalid == "warn" and want.has_invalid else 0)
    k = check_pairs_array(got, one_set)
    if sorted_:
        assert np.all(np.diff(k) > 0), "sorted=True output not sorted"
    missing = np.setdiff1d(want.keys, k)
    extra = np.setdiff1d(k, want.keys)
    assert len(missing) == 0 and len(extra) == 0, (
        f"{len(missing)} pairs missing, e.g. {[(int(x >> 32), int(x & 0xFFFFFFFF)) for x in missing[:5]]}; "
        f"{len(extra)} extra, e.g. {[(int(x >> 32), int(x & 0xFFFFFFFF)) for x in extra[:5]]}")
    return got


@st.composite
def pair_options(draw):
    return dict(
        threads=draw(st.sampled_from([0, 1, 2, 3, 8])),
        sorted=draw(st.booleans()),
        invalid=draw(st.sampled_from(["warn", "skip", "raise"])),
        budget=draw(st.sampled_from([None, None, None, "below", "exact", "above", "zero", "one", "random"])),
        budget_random=draw(st.integers(0, 300)),
    )


def budget_of(opts, count):
    """max_pairs for a budget mode, relative to the true pair count."""
    mode = opts["budget"]
    return {None: None, "below": max(0, count - 1), "exact": count, "above": count + 1, "zero": 0, "one": 1,
            "random": opts["budget_random"]}[mode]


def call_options(opts, max_pairs):
    return dict(threads=opts["threads"], sorted=opts["sorted"], invalid=opts["invalid"], max_pairs=max_pairs)


# A PairFinder kept across examples: its memory is reused between inputs of
# every size, precision and algorithm.
FINDER = broadphase.PairFinder()

# ---------------------------------------------------------------- find_pairs


@examples(1200)
@given(a=inputs(), opts=pair_options(), finder_algorithm=st.sampled_from(ALGORITHMS))
def test_find_pairs_one_set(a, opts, finder_algorithm):
    want = oracle_pairs(a.ref)
    max_pairs = budget_of(opts, len(want.keys))
    note(f"want {len(want.keys)} pairs, invalid rows {want.invalid_a.tolist()}, max_pairs {max_pairs}")
    event(f"dtype {a.dtype.str}")
    event(f"layout {a.layout}")
    event(f"style {a.style}")
    event("invalid rows" if want.has_invalid else "no invalid row")
    kw = call_options(opts, max_pairs)
    check = dict(invalid=opts["invalid"], max_pairs=max_pairs, sorted_=opts["sorted"], one_set=True, sources=(a,))
    for algorithm in ALGORITHMS:
        got = call_checked(lambda: broadphase.find_pairs(a.obj, algorithm=algorithm, **kw), want, **check,
                           unbounded=lambda: broadphase.find_pairs(a.obj, algorithm=algorithm, invalid="skip"))
        if got is not None and not opts["sorted"] and opts["threads"] != 1:
            # The unsorted order is the same for every thread count.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                one = broadphase.find_pairs(a.obj, algorithm=algorithm, threads=1, invalid="skip", max_pairs=max_pairs)
            np.testing.assert_array_equal(got, one)
    call_checked(lambda: FINDER.find_pairs(a.obj, algorithm=finder_algorithm, **kw), want, **check)
    assert FINDER.last_algorithm in broadphase.algorithms()


@st.composite
def two_sets(draw):
    a = draw(inputs())
    b = draw(inputs(partner=a.ref))
    return a, b


@examples(1200)
@given(ab=two_sets(), opts=pair_options(), finder_algorithm=st.sampled_from(ALGORITHMS))
def test_find_pairs_two_sets(ab, opts, finder_algorithm):
    a, b = ab
    event("mixed float32 / float64" if a.is_f32 != b.is_f32 else "same precision")
    want = oracle_pairs(a.ref, b.ref)
    max_pairs = budget_of(opts, len(want.keys))
    note(f"want {len(want.keys)} pairs, invalid {want.invalid_a.tolist()} / {want.invalid_b.tolist()}, max_pairs {max_pairs}")
    kw = call_options(opts, max_pairs)
    check = dict(invalid=opts["invalid"], max_pairs=max_pairs, sorted_=opts["sorted"], sources=(a, b))
    for algorithm in ALGORITHMS:
        call_checked(lambda: broadphase.find_pairs(a.obj, b.obj, algorithm=algorithm, **kw), want, **check,
                     unbounded=lambda: broadphase.find_pairs(a.obj, b.obj, algorithm=algorithm, invalid="skip"))
    call_checked(lambda: FINDER.find_pairs(a.obj, b.obj, algorithm=finder_algorithm, **kw), want, **check)
    # Swapped sets: the same pairs, swapped.
    swapped = Expected(np.sort(((want.keys & 0xFFFFFFFF) << 32) | (want.keys >> 32)), want.invalid_b, want.invalid_a)
    call_checked(lambda: broadphase.find_pairs(b.obj, a.obj, **kw), swapped, **check)


@examples(8)
@given(a=inputs(min_n=9000, max_n=12000, dtypes=["<f4", "<f8"], layouts=["C"], styles=["density"]),
       algorithm=st.sampled_from(ALGORITHMS), threads=st.sampled_from([2, 3, 0]))
def test_find_pairs_threads_large(a, algorithm, threads):
    """Big enough for several threads (4096 boxes each at least): the same
    pairs as the oracle, and the same order as one thread."""
    ref = a.ref
    keys = []
    valid = valid_rows(ref)
    for s in range(0, len(ref), 1500):  # the oracle by blocks of rows
        blk = overlap_matrix(ref[s:s + 1500], ref)
        i, j = np.nonzero(blk)
        i = i + s
        keep = i < j
        keys.append((i[keep].astype(np.int64) << 32) | j[keep])
    want = Expected(np.sort(np.concatenate(keys)), np.nonzero(~valid)[0])
    got = call_checked(lambda: broadphase.find_pairs(a.obj, algorithm=algorithm, threads=threads, invalid="skip"), want,
                       "skip", one_set=True)
    np.testing.assert_array_equal(got, broadphase.find_pairs(a.obj, algorithm=algorithm, threads=1, invalid="skip"))


# ---------------------------------------------------------------- Index


def _is_f32(v):
    with np.errstate(over="ignore"):
        return np.array_equal(v.astype(np.float32).astype(np.float64), v, equal_nan=True)


@st.composite
def query_rows(draw, q):
    """Some rows of the queries, each passed as a row view, a (1, 6) array,
    a list or a float32 row where that is exact."""
    n = len(q.ref)
    rows = draw(st.lists(st.integers(0, max(0, n - 1)), max_size=min(n, 12), unique=True)) if n else []
    forms = draw(st.lists(st.sampled_from(["view", "2d", "list", "f32"]), min_size=len(rows), max_size=len(rows)))
    out = []
    for i, form in zip(rows, forms):
        v = q.ref[i]
        if form == "view" and not isinstance(q.obj, list):
            obj = q.obj[i]
        elif form == "2d":
            obj = q.ref[i:i + 1]
        elif form == "f32" and _is_f32(v):
            obj = v.astype(np.float32)
        else:
            obj = v.tolist()
        out.append((i, obj))
    return out


def _gap_axes(q):
    """Valid float64 query axes holding no float32 (for the statistics)."""
    with np.errstate(over="ignore", invalid="ignore"):
        lo, hi = q[:, :3], q[:, 3:]
        f, g = lo.astype(np.float32), hi.astype(np.float32)
        up = np.where(f.astype(np.float64) < lo, np.nextafter(f, np.float32(INF)), f)
        down = np.where(g.astype(np.float64) > hi, np.nextafter(g, np.float32(-INF)), g)
        return (lo <= hi) & (up > down)


@examples(1000)
@given(data=st.data(), built=inputs(), algorithm=st.sampled_from(ALGORITHMS), opts=pair_options(),
       build_invalid=st.sampled_from(["warn", "skip", "raise"]), build_threads=st.sampled_from([0, 1, 2]))
def test_index(data, built, algorithm, opts, build_invalid, build_threads):
    """Index (build, query, query_batch) against the oracle: float64 queries
    are exact on a float32 index (never rounded to nearest float32)."""
    queries = data.draw(inputs(partner=built.ref), label="queries")
    bad = np.nonzero(~valid_rows(built.ref))[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            idx = broadphase.Index(built.obj, algorithm=algorithm, threads=build_threads, invalid=build_invalid)
        except broadphase.InvalidBoxError as e:
            assert build_invalid == "raise" and len(bad)
            np.testing.assert_array_equal(np.sort(e.indices), bad)
            return
    assert not (build_invalid == "raise" and len(bad))
    warned = sum(issubclass(w.category, broadphase.InvalidBoxWarning) for w in caught)
    assert warned == (1 if build_invalid == "warn" and len(bad) else 0)
    assert len(idx) == len(built.ref)
    assert idx.dtype == ("float32" if built.is_f32 else "float64")
    assert idx.algorithm in broadphase.algorithms()

    ov = overlap_matrix(queries.ref, built.ref)
    for i, q in data.draw(query_rows(queries), label="single queries"):
        sorted_ = data.draw(st.booleans(), label="sorted")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = idx.query(q, sorted=sorted_)
        # No warning from a single query (but numpy's, converting a long double past float64's range).
        assert all("overflow encountered in cast" in str(w.message) and queries.dtype.itemsize > 8 for w in caught), [
            str(w.message) for w in caught]
        assert got.dtype == np.uint32 and got.ndim == 1
        assert len(np.unique(got)) == len(got)
        if sorted_:
            assert np.all(np.diff(got.astype(np.int64)) > 0)
        np.testing.assert_array_equal(np.sort(got), np.nonzero(ov[i])[0], err_msg=f"query row {i}: {queries.ref[i]!r}")

    if built.is_f32 and not queries.is_f32 and len(queries.ref):
        event("Index: float32 index, float64 queries")
        if np.any(_gap_axes(queries.ref)):
            event("Index: float64 query with no float32 between min and max on an axis")
    want = oracle_pairs(queries.ref, built.ref)
    want.invalid_b = np.zeros(0, np.int64)  # the built boxes were reported by the build
    max_pairs = budget_of(opts, len(want.keys))
    note(f"want {len(want.keys)} pairs, invalid queries {want.invalid_a.tolist()}, max_pairs {max_pairs}")
    kw = dict(threads=opts["threads"], sorted=opts["sorted"], invalid=opts["invalid"], max_pairs=max_pairs)
    call_checked(lambda: idx.query_batch(queries.obj, **kw), want, opts["invalid"], max_pairs, opts["sorted"],
                 sources=(built, queries), unbounded=lambda: idx.query_batch(queries.obj, invalid="skip"))


# ---------------------------------------------------------------- Scene queries


@examples(600)
@given(data=st.data(), built=inputs(), dtype=st.sampled_from(["float32", "float64"]),
       static=st.booleans())
def test_scene_queries(data, built, dtype, static):
    """query_box and query_point against the stored boxes, exact for float64
    input on a float32 scene."""
    scene = broadphase.Scene(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # long double past float64: numpy's overflow warning
        ids = scene.add_batch(built.obj, type="static" if static else "dynamic")
    assert ids.dtype == np.uint32 and len(ids) == len(built.ref)
    assert len(np.unique(ids)) == len(ids)
    with np.errstate(over="ignore"):
        stored = built.ref.astype(np.float32).astype(np.float64) if dtype == "float32" else built.ref
    for k in range(0, len(ids), max(1, len(ids) // 7)):
        b = scene.box(int(ids[k]))
        assert b.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(b.astype(np.float64), stored[k])
    valid = valid_rows(stored)
    queries = data.draw(inputs(max_n=12, partner=stored), label="queries")
    ov = overlap_matrix(queries.ref, stored)
    for i, q in data.draw(query_rows(queries), label="box queries"):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "overflow encountered in cast", RuntimeWarning)  # long double
            got = scene.query_box(q)
        assert got.dtype == np.uint32
        np.testing.assert_array_equal(got, np.sort(ids[ov[i]]), err_msg=f"query_box {queries.ref[i]!r}")
    # Points: the queries' corners (on faces, one ulp off them, special values).
    points = np.vstack([queries.ref[:, :3], queries.ref[:, 3:]]) if len(queries.ref) else np.zeros((0, 3))
    for p in points[: 2 * 12]:
        inside = np.all((stored[:, :3] <= p) & (p <= stored[:, 3:]), axis=1) & valid
        got = scene.query_point(p)
        np.testing.assert_array_equal(got, np.sort(ids[inside]), err_msg=f"query_point {p!r}")


# ---------------------------------------------------------------- spheres


def sphere_oracle(c, r):
    """Expected pairs (i < j) of find_sphere_pairs, from its documented rule:
    both valid (no NaN coordinate, radius >= 0), both centres finite, and
    (dx*dx + dy*dy) + dz*dz <= (ri + rj)^2 in float64."""
    valid = ~np.any(np.isnan(c), axis=1) & (r >= 0)
    finite = np.all(np.isfinite(c), axis=1)
    with np.errstate(invalid="ignore", over="ignore"):
        d = [c[:, None, k] - c[None, :, k] for k in range(3)]
        d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2]
        rr = r[:, None] + r[None, :]
        touch = d2 <= rr * rr
    ok = touch & (valid & finite)[:, None] & (valid & finite)[None, :]
    i, j = np.nonzero(np.triu(ok, 1))
    return Expected((i.astype(np.int64) << 32) | j, np.nonzero(~valid)[0])


@st.composite
def radii(draw, n):
    """One number (Python float or int, numpy scalar) or an (n,) array."""
    kind = draw(st.sampled_from(["scalar", "scalar", "array", "array", "array"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([0.0, 0.01, 0.5, 1.0, 3.0, 1e3]))
    if kind == "scalar":
        v = draw(st.one_of(st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0, NAN, INF, 1e300, 5e-324]),
                           st.floats(min_value=0, max_value=10)))
        form = draw(st.sampled_from(["float", "f32", "f64", "int"]))
        if form == "int":  # (a Python int past int64 would be an object array: TypeError)
            return int(v) if np.isfinite(v) and abs(v) < 2**62 else 1
        with np.errstate(over="ignore"):
            return {"float": float, "f32": np.float32, "f64": np.float64}[form](v)
    spread = draw(st.sampled_from([1.0, 1.0, 1.5, 3.0, 100.0]))  # within 2x of the mean: the grid path
    r = scale * rng.uniform(1.0, spread, n)
    p = draw(st.sampled_from([0.0, 0.0, 0.05, 0.3]))
    if p and n:
        m = rng.random(n) < p
        r[m] = rng.choice(np.array([0.0, -0.0, -1.0, -1e-30, NAN, INF, 1e300, 5e-324]), int(m.sum()))
    dt = np.dtype(draw(st.sampled_from(["<f8", "<f4", ">f8", "<i4", "<f2"])))
    with np.errstate(over="ignore", invalid="ignore"):
        if dt.kind == "i":
            return np.nan_to_num(r, nan=0, posinf=100, neginf=-1).clip(-5, 1000).astype(dt)
        return r.astype(dt)


@examples(1200)
@given(data=st.data(), centres=inputs(cols=3), algorithm=st.sampled_from(ALGORITHMS), opts=pair_options())
def test_find_sphere_pairs(data, centres, algorithm, opts):
    n = len(centres.ref)
    rad = data.draw(radii(n), label="radii")
    with np.errstate(over="ignore"):
        r = np.broadcast_to(np.asarray(rad, np.float64), (n,)).astype(np.float64)
    want = sphere_oracle(centres.ref, r)
    max_pairs = budget_of(opts, len(want.keys))
    note(f"radii {r.tolist()!r}; want {len(want.keys)} pairs, invalid {want.invalid_a.tolist()}, max_pairs {max_pairs}")
    # Past max_pairs pairs: PairBudgetError. Within, it may still come: on
    # the box path (a named algorithm; 'automatic' where its grid does not suit)
    # max_pairs bounds the box pairs, a superset of the pairs.
    budget = "maybe" if max_pairs is not None and len(want.keys) <= max_pairs else "at_most"
    kw = call_options(opts, max_pairs)
    call_checked(lambda: broadphase.find_sphere_pairs(centres.obj, rad, algorithm=algorithm, **kw), want,
                 opts["invalid"], max_pairs, opts["sorted"], one_set=True, budget=budget, sources=(centres,))


# ---------------------------------------------------------------- Scene sequences


@st.composite
def scene_box(draw, model):
    """One box: on a lattice (touching neighbours), of special values,
    touching a live object's face (or one ulp off it), or invalid."""
    kind = draw(st.sampled_from(["lattice", "lattice", "lattice", "special", "touch", "touch", "invalid"]))
    if kind == "touch" and model.objects:
        i = draw(st.sampled_from(sorted(model.objects)))
        b = model.objects[i][0].copy()
        k = draw(st.integers(0, 2))
        with np.errstate(invalid="ignore", over="ignore"):
            width = b[3 + k] - b[k]
            width = width if np.isfinite(width) and width >= 0 else 1.0
            b[k], b[3 + k] = (b[3 + k], b[3 + k] + width) if draw(st.booleans()) else (b[k] - width, b[k])
            ulp = draw(st.sampled_from([0, 0, 1, -1]))
            if ulp:
                b[k] = np.nextafter(b[k], ulp * INF)
    elif kind == "special":
        v = np.array(draw(st.lists(VALUES, min_size=6, max_size=6)))
        if draw(st.booleans()):
            v = np.concatenate([np.fmin(v[:3], v[3:]), np.fmax(v[:3], v[3:])])
        b = v
    else:  # mostly on the scene's own lattice, so that boxes meet
        step, off = model.lattice if draw(st.integers(0, 4)) else (
            draw(st.sampled_from([1.0, 0.5, 0.1, 2.0**-24])), draw(st.sampled_from([0.0, 1e7, -3.0])))
        lo = np.array(draw(st.lists(st.integers(-4, 4), min_size=3, max_size=3)), np.float64)
        ext = np.array(draw(st.lists(st.integers(0, 3), min_size=3, max_size=3)), np.float64)
        b = np.concatenate([off + lo * step, off + (lo + ext) * step])
        if kind == "invalid":
            k = draw(st.integers(0, 5))
            b[k] = NAN if draw(st.booleans()) else b[(k + 3) % 6] + (1.0 if k < 3 else -1.0)
    return tuple(b.tolist())  # (a tuple: cheap for Hypothesis to print)


def box_form(draw, b):
    """A box as the call gets it: a list, float64 or float32 array (where
    exact), (1, 6), or integers (where exact)."""
    form = draw(st.sampled_from(["list", "f64", "2d", "f32", "int"]))
    if form == "f32" and _is_f32(b):
        return b.astype(np.float32)
    if form == "int" and np.all(np.isfinite(b)) and np.all(b == np.round(b)) and np.all(np.abs(b) < 2**31):
        return b.astype(np.int32)
    if form == "2d":
        return b.reshape(1, 6)
    if form == "f64":
        return b.copy()
    return b.tolist()


FILTERS = [(1, ALL, 0), (1, ALL, 0), (2, ALL, 0), (1, ALL ^ 2, 0), (1, ALL, 7), (1, ALL, 7), (2, ALL, 7), (1, ALL, -1),
           (1 << 63, 1 << 63, 0), (4, 0, 0)]


class SceneModel:
    """The scene's expected state."""

    def __init__(self, dtype, lattice):
        self.dtype = dtype
        self.lattice = lattice  # (step, offset) of most boxes
        self.objects = {}  # id -> [stored box (float64 values), type, filter, user value]
        self.previous = set()
        self.removed = set()  # removed since the last update(): their ids are not reused yet
        self.issued = 0

    def stored(self, b):
        b = np.asarray(b, np.float64).reshape(6)
        if self.dtype == "float32":
            with np.errstate(over="ignore"):
                return b.astype(np.float32).astype(np.float64)
        return b.copy()

    def dead_id(self, draw, null=True):
        """An id that is not live: removed, never given, or the null id
        2^32 - 1 (not for the batch calls, which reject it)."""
        choices = sorted(self.removed) + [self.issued, self.issued + 5, 12345] + ([0xFFFFFFFF] if null else [])
        return int(draw(st.sampled_from([c for c in choices if c not in self.objects] or [0xFFFFFFFF])))

    def exact_pairs(self):
        ids = np.array(sorted(self.objects), np.int64)
        if len(ids) == 0:
            return set()
        boxes = np.array([self.objects[i][0] for i in ids]).reshape(-1, 6)
        out = set()
        for x, y in zip(*np.nonzero(np.triu(overlap_matrix(boxes, boxes), 1))):
            if self.may_meet(int(ids[x]), int(ids[y])):
                out.add((int(ids[x]), int(ids[y])))
            else:
                event("scene: overlapping objects kept apart (static or filter)")
        return out

    def may_meet(self, a, b):
        oa, ob = self.objects[a], self.objects[b]
        if oa[1] == "static" and ob[1] == "static":
            return False
        (ca, ma, ga), (cb, mb, gb) = oa[2], ob[2]
        if ga != 0 and ga == gb:
            event("scene: overlapping objects of one group")
        return (ma & cb) != 0 and (mb & ca) != 0 and (ga == 0 or ga != gb)


def _new_id(model, i):
    i = int(i)
    assert i not in model.objects, f"id {i} given twice"
    assert i not in model.removed, f"id {i} reused before the update that ends its pairs"
    model.issued = max(model.issued, i + 1)
    return i


@examples(700)
@given(data=st.data(), dtype=st.sampled_from(["float32", "float64"]), mode=st.sampled_from(MODES),
       fat=st.sampled_from([False, False, False, True]), n_ops=st.integers(1, 40),
       lattice=st.tuples(st.sampled_from([1.0, 0.5, 0.1, 2.0**-24]), st.sampled_from([0.0, 0.0, 1e7, -3.0])))
def test_scene_sequence(data, dtype, mode, fat, n_ops, lattice):
    """A random sequence of add/remove/move/set_*/update: after each update,
    pairs() against the oracle (exact; with fat pairs a superset), begun()
    and ended() the differences from the update before."""
    draw = data.draw
    scene = broadphase.Scene(dtype)
    scene.set_update_mode(mode)
    scene.fat_pairs = fat
    model = SceneModel(dtype, lattice)
    populate = draw(st.integers(0, 24), label="objects added first")
    for step in range(populate + n_ops + 1):
        live = sorted(model.objects)
        if step < populate:
            op = "add"
        elif step == populate + n_ops:
            op = "update"  # every sequence ends with a checked update
        else:
            op = draw(st.sampled_from(["add", "add", "add_batch", "remove", "remove_batch", "move", "move", "move_batch",
                                       "set_type", "set_filter", "set_user_value", "update", "update", "update",
                                       "mode", "options", "margin", "fat", "query"]), label="op")
        pick_live = bool(live) and draw(st.integers(0, 9)) > 0

        def target(null=True):
            return int(draw(st.sampled_from(live))) if pick_live else model.dead_id(draw, null)

        if op == "add":
            b = np.array(draw(scene_box(model)))
            t = draw(st.sampled_from(["dynamic", "dynamic", "static"]))
            f = draw(st.sampled_from(FILTERS))
            uv = draw(st.sampled_from([0, 1, ALL, 2**40]))
            i = _new_id(model, scene.add(box_form(draw, b), type=t, user_value=uv, category=f[0], mask=f[1], group=f[2]))
            model.objects[i] = [model.stored(b), t, f, uv]
        elif op == "add_batch":
            bs = np.array([np.array(draw(scene_box(model))) for _ in range(draw(st.integers(0, 8)))]).reshape(-1, 6)
            t = draw(st.sampled_from(["dynamic", "static"]))
            obj = bs.astype(np.float32) if draw(st.booleans()) and _is_f32(bs) else bs
            ids = scene.add_batch(obj, type=t)
            assert ids.dtype == np.uint32 and len(ids) == len(bs)
            for i, b in zip(ids, bs):
                model.objects[_new_id(model, i)] = [model.stored(b), t, (1, ALL, 0), 0]
        elif op == "remove":
            i = target()
            assert scene.remove(i) == (i in model.objects)
            if model.objects.pop(i, None) is not None:
                model.removed.add(i)
        elif op == "remove_batch":
            ids = [target(null=False) for _ in range(draw(st.integers(0, 4)))]
            done = 0
            for i in ids:
                if model.objects.pop(i, None) is not None:
                    model.removed.add(i)
                    done += 1
            assert scene.remove_batch(np.array(ids, np.int64)) == done
        elif op == "move":
            i = target()
            b = np.array(draw(scene_box(model)))
            assert scene.move(i, box_form(draw, b)) == (i in model.objects)
            if i in model.objects:
                model.objects[i][0] = model.stored(b)
        elif op == "move_batch":
            ids = [target(null=False) for _ in range(draw(st.integers(0, 4)))]
            bs = np.array([np.array(draw(scene_box(model))) for _ in ids]).reshape(-1, 6)
            done = 0
            for i, b in zip(ids, bs):
                if i in model.objects:
                    model.objects[i][0] = model.stored(b)
                    done += 1
            assert scene.move_batch(np.array(ids, np.uint32), bs) == done
        elif op == "set_type":
            i = target()
            t = draw(st.sampled_from(["dynamic", "static"]))
            assert scene.set_type(i, t) == (i in model.objects)
            if i in model.objects:
                model.objects[i][1] = t
        elif op == "set_filter":
            i = target()
            f = draw(st.sampled_from(FILTERS))
            assert scene.set_filter(i, category=f[0], mask=f[1], group=f[2]) == (i in model.objects)
            if i in model.objects:
                model.objects[i][2] = f
        elif op == "set_user_value":
            i = target()
            v = draw(st.integers(0, ALL))
            assert scene.set_user_value(i, v) == (i in model.objects)
            if i in model.objects:
                model.objects[i][3] = v
        elif op == "mode":
            m = draw(st.sampled_from(MODES))
            scene.set_update_mode(m.replace("-", "_") if draw(st.booleans()) else m)
            assert scene.update_mode == m
        elif op == "options":
            scene.set_options(algorithm=draw(st.sampled_from(ALGORITHMS)), threads=draw(st.sampled_from([0, 1, 2])))
        elif op == "margin":
            m = draw(st.sampled_from([0.0, 0.1, 1.0, 5.0, -1.0, NAN, INF, 1e300]))
            with np.errstate(over="ignore"):
                as_scene = float(np.array(m, np.float64).astype(np.float32 if dtype == "float32" else np.float64))
            ok = bool(np.isfinite(as_scene) and as_scene >= 0)
            before = scene.margin
            assert scene.set_margin(m) == ok
            assert scene.margin == (as_scene if ok else before)
        elif op == "fat":
            fat = draw(st.booleans())
            scene.fat_pairs = fat
            assert scene.fat_pairs == fat
        elif op == "query":
            q = np.array(draw(scene_box(model)))
            ids = np.array(sorted(model.objects), np.int64)
            boxes = np.array([model.objects[i][0] for i in ids]).reshape(-1, 6)
            hit = overlap_matrix(q.reshape(1, 6), boxes)[0]
            np.testing.assert_array_equal(scene.query_box(box_form(draw, q)), ids[hit].astype(np.uint32))
            p = q[:3]
            inside = np.all((boxes[:, :3] <= p) & (p <= boxes[:, 3:]), axis=1) & valid_rows(boxes)
            np.testing.assert_array_equal(scene.query_point(p), ids[inside].astype(np.uint32))
        if op == "update":
            count = scene.update()
            pairs = scene.pairs()
            k = check_pairs_array(pairs, one_set=True)
            assert np.all(np.diff(k) > 0), "pairs() not sorted"
            assert count == len(pairs)
            now = set(map(tuple, pairs.tolist()))
            exact = model.exact_pairs()
            if fat:
                assert exact <= now, f"fat pairs lack exact pairs {sorted(exact - now)[:5]}"
                for a, b in now:
                    assert a in model.objects and b in model.objects and model.may_meet(a, b), (a, b)
            else:
                assert now == exact, f"missing {sorted(exact - now)[:5]}, extra {sorted(now - exact)[:5]}"
            for name, want in (("begun", now - model.previous), ("ended", model.previous - now)):
                ev = getattr(scene, name)()
                kk = check_pairs_array(ev, one_set=True)
                assert np.all(np.diff(kk) > 0), f"{name}() not sorted"
                assert set(map(tuple, ev.tolist())) == want, name
            assert scene.last_method in MODES
            model.previous = now
            model.removed.clear()
            # The objects' fields (every object's, at the last update), and a dead id.
            assert len(scene) == len(model.objects)
            for i in model.objects if step == populate + n_ops else list(model.objects)[:4]:
                box, t, f, uv = model.objects[i]
                assert i in scene and scene.contains(i)
                np.testing.assert_array_equal(scene.box(i).astype(np.float64), box)
                assert scene.type(i) == t and scene.filter(i) == f and scene.user_value(i) == uv
            d = model.dead_id(draw)
            assert d not in scene
            with pytest.raises(KeyError):
                scene.box(d)
        else:
            assert len(scene) == len(model.objects)


# ---------------------------------------------------------------- wrong input


ODD_DTYPES = ["<f4", "<f8", "<i4", "<u8", "<f2", ">f8", "?", "<c8", "<c16", "O", "<U3", "S2", "<M8[s]", "<m8[s]", "V8",
              "struct"]
ODD_OBJECTS = [None, "abc", b"ab", {}, object(), 1.5, 7, True, 1 + 2j, [], [[]], [[1, 2, 3, 4, 5, 6]], [1, 2, 3, 4, 5, 6],
               (0, 0, 0, 1, 1, 1), [[1, 2, 3], [1, 2]], [[1] * 6, [1] * 5], [[None] * 6], [["1"] * 6], [[1 + 2j] * 6],
               [[2**70] * 6], [[0.5] * 3], [0.5, 0.5, 0.5], iter([1, 2]), np.float64(3.0)]


@st.composite
def odd_arrays(draw):
    """An array of any shape and dtype, or some other object."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(ODD_OBJECTS))
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7]), max_size=4)))
    dt = draw(st.sampled_from(ODD_DTYPES))
    dtype = np.dtype([("x", "<f8"), ("y", "<i4")]) if dt == "struct" else np.dtype(dt)
    a = np.zeros(shape, dtype)
    if draw(st.booleans()) and a.ndim >= 1 and a.shape[-1] > 1:
        a = a[..., ::2]  # a strided view (fewer columns)
    return a


def _rule(x, ok_shape):
    """Expected exception type for an argument: None (accepted), TypeError
    (not an array of real numbers) or ValueError (wrong shape)."""
    if isinstance(x, type(iter([]))):
        return TypeError
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = np.asarray(x)
    except Exception:
        return TypeError
    if a.dtype.kind not in "fiu":
        return TypeError
    return None if ok_shape(a.shape) else ValueError


def rows_ok(cols):
    return lambda s: (len(s) == 2 and s[1] == cols) or s == (0,)


def rows_ok_2d_or_3d(s):
    """Where (N, 6) boxes go, (N, 4) 2-D boxes go too."""
    return rows_ok(6)(s) or rows_ok(4)(s)


def box_ok(s):
    return s in ((6,), (1, 6))


def box_ok_2d(s):
    return s in ((4,), (1, 4))


def ids_rule(x):
    """Object ids: integers only, one-dimensional, in [0, 2^32 - 1)."""
    if isinstance(x, type(iter([]))):
        return TypeError
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = np.asarray(x)
    except Exception:
        return TypeError
    if a.dtype.kind not in "iu":
        return TypeError
    if a.ndim != 1:
        return ValueError
    return None


def _entry_points():
    idx32 = broadphase.Index(np.array([[0, 0, 0, 1, 1, 1]], np.float32))
    idx64 = broadphase.Index(np.array([[0, 0, 0, 1, 1, 1]], np.float64))
    flat32 = broadphase.Index(np.array([[0, 0, 1, 1]], np.float32))
    flat64 = broadphase.Index(np.array([[0, 0, 1, 1]], np.float64))
    scenes = [broadphase.Scene("float32"), broadphase.Scene("float64")]
    for s in scenes:
        s.add([0, 0, 0, 1, 1, 1])
    zeros = np.zeros((2, 6))
    q = dict(invalid="skip")

    def n_of(x):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a = np.asarray(x)
            return a.shape[0] if a.ndim else 1
        except Exception:
            return 1

    out = [
        ("boxes", rows_ok_2d_or_3d, lambda x: broadphase.find_pairs(x, **q)),
        ("other", rows_ok(6), lambda x: broadphase.find_pairs(zeros, x, **q)),  # (None: no other set)
        ("other", rows_ok(4), lambda x: broadphase.find_pairs(zeros[:, :4], x, **q)),
        ("boxes", rows_ok_2d_or_3d, lambda x: FINDER.find_pairs(x, **q)),
        ("boxes", rows_ok_2d_or_3d, lambda x: broadphase.Index(x, **q)),
        ("centers", rows_ok(3), lambda x: broadphase.find_sphere_pairs(x, 1.0, **q)),
        ("radii", lambda s: s in ((), (4,)), lambda x: broadphase.find_sphere_pairs(np.zeros((4, 3)), x, **q)),
    ]
    for idx in (idx32, idx64):
        out += [("box", box_ok, idx.query), ("boxes", rows_ok(6), lambda x, idx=idx: idx.query_batch(x, **q))]
    for idx in (flat32, flat64):
        out += [("box", box_ok_2d, idx.query), ("boxes", rows_ok(4), lambda x, idx=idx: idx.query_batch(x, **q))]
    for s in scenes:
        out += [
            ("box", box_ok, s.add),
            ("box", box_ok, lambda x, s=s: s.move(0, x)),
            ("boxes", rows_ok(6), lambda x, s=s: s.add_batch(x)),
            ("boxes", rows_ok(6), lambda x, s=s: s.move_batch(np.zeros(n_of(x), np.int64), x)),
            ("box", box_ok, s.query_box),
            ("point", lambda sh: sh == (3,), s.query_point),
            ("ids", None, s.remove_batch),
        ]
    return out


ENTRY_POINTS = _entry_points()


@examples(1000)
@given(x=odd_arrays())
def test_wrong_input_raises_clearly(x):
    """Any shape, dtype or object: accepted exactly when documented, else
    ValueError (shape) or TypeError (not real numbers) naming the argument;
    never a crash or another exception."""
    for name, ok_shape, fn in ENTRY_POINTS:
        if name == "other" and x is None:
            continue
        want = ids_rule(x) if ok_shape is None else _rule(x, ok_shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn(x)
                got = None
            except (TypeError, ValueError) as e:
                got = e
        if want is None:
            assert got is None, f"{name}: {x!r} rejected: {got!r}"
        else:
            assert got is not None, f"{name}: {x!r} accepted, expected {want.__name__}"
            assert type(got) is want or isinstance(got, want), f"{name}: {x!r}: {got!r}, expected {want.__name__}"
            assert name in str(got), f"{name}: {x!r}: the message does not name the argument: {got}"


@examples(300)
@given(algorithm=st.one_of(st.sampled_from(ALGORITHMS), st.text(max_size=12)),
       threads=st.one_of(st.integers(-3, 9), st.integers(-(2**63), 2**63 - 1), st.sampled_from([2**32, 2**32 + 1])),
       invalid=st.one_of(st.sampled_from(["warn", "skip", "raise"]), st.text(max_size=6)),
       max_pairs=st.one_of(st.none(), st.integers(-3, 2**64 - 1)))
def test_option_values(algorithm, threads, invalid, max_pairs):
    """Bad option values raise ValueError (or TypeError where the argument
    cannot be converted) before anything runs."""
    boxes = np.zeros((3, 6), np.float32)
    if max_pairs is not None and max_pairs < 0:  # not convertible: pybind11 refuses the call
        want = TypeError
    elif algorithm not in ALGORITHMS or invalid not in ("warn", "skip", "raise") or threads < 0 or threads > 0xFFFFFFFF:
        want = ValueError
    else:
        want = None
    calls = [lambda: broadphase.find_pairs(boxes, algorithm=algorithm, threads=threads, invalid=invalid,
                                           max_pairs=max_pairs),
             lambda: broadphase.find_sphere_pairs(boxes[:, :3], 1.0, algorithm=algorithm, threads=threads,
                                                  invalid=invalid, max_pairs=max_pairs)]
    for call in calls:
        try:
            got = call()
        except broadphase.PairBudgetError:
            assert want is None and max_pairs < 3
            continue
        except (TypeError, ValueError) as e:
            assert want is not None and isinstance(e, want), repr(e)
            continue
        assert want is None, f"accepted algorithm={algorithm!r} threads={threads} invalid={invalid!r} max_pairs={max_pairs}"
        assert len(got) == 3
