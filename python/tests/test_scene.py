"""Scene: random add/remove/move sequences against the numpy brute force,
in every update mode, events and queries checked after every update."""

import zlib

import numpy as np
import pytest

import broadphase
from conftest import brute_pairs, random_boxes, sort_pairs

MODES = broadphase.Scene.update_modes()
ALL = 0xFFFFFFFFFFFFFFFF


class Model:
    """The scene's expected state: live objects and their fields."""

    def __init__(self):
        self.objects = {}  # id -> [box, type, (category, mask, group)]

    def expected_pairs(self):
        ids = np.array(sorted(self.objects), dtype=np.int64)
        if len(ids) == 0:
            return np.zeros((0, 2), np.uint32)
        boxes = np.array([self.objects[i][0] for i in ids], np.float64)
        p = brute_pairs(boxes)
        out = []
        for a, b in ids[p]:
            oa, ob = self.objects[a], self.objects[b]
            if oa[1] == "static" and ob[1] == "static":
                continue
            (ca, ma, ga), (cb, mb, gb) = oa[2], ob[2]
            if (ma & cb) == 0 or (mb & ca) == 0 or (ga != 0 and ga == gb):
                continue
            out.append((min(a, b), max(a, b)))
        return sort_pairs(np.array(out, np.uint32).reshape(-1, 2))


def as_set(p):
    return set(map(tuple, np.asarray(p).tolist()))


def check_queries(scene, model, rng):
    ids = np.array(sorted(model.objects), dtype=np.int64)
    boxes = np.array([model.objects[i][0] for i in ids], np.float64).reshape(-1, 6)
    valid = np.all(boxes[:, :3] <= boxes[:, 3:], axis=1)
    for _ in range(5):
        q = random_boxes(rng, 1, spread=60.0, size=(0.0, 15.0))[0]
        hit = np.all(~((boxes[:, 3:] < q[:3]) | (q[3:] < boxes[:, :3])), axis=1) & valid
        np.testing.assert_array_equal(scene.query_box(q), ids[hit].astype(np.uint32))
        p = rng.uniform(-30, 30, 3)
        inside = np.all((boxes[:, :3] <= p) & (p <= boxes[:, 3:]), axis=1) & valid
        np.testing.assert_array_equal(scene.query_point(p), ids[inside].astype(np.uint32))
        c, r = rng.uniform(-30, 30, 3), rng.uniform(0, 8)
        nearest = np.clip(c, boxes[:, :3], boxes[:, 3:])
        touch = (np.sum((nearest - c) ** 2, axis=1) <= r * r) & valid
        np.testing.assert_array_equal(scene.query_sphere(c, r), ids[touch].astype(np.uint32))
        # A ray with no zero component (slab test in numpy).
        o = rng.uniform(-40, 40, 3)
        d = rng.uniform(0.2, 1.0, 3) * rng.choice([-1.0, 1.0], 3)
        t1 = (boxes[:, :3] - o) / d
        t2 = (boxes[:, 3:] - o) / d
        enter = np.maximum(np.max(np.minimum(t1, t2), axis=1), 0.0)
        leave = np.min(np.maximum(t1, t2), axis=1)
        max_t = 100.0
        hits = valid & (enter <= leave) & (enter <= max_t)
        got_ids, got_t = scene.ray_hits(o, d, max_t)
        assert set(got_ids.tolist()) == set(ids[hits].tolist())
        assert np.all(np.diff(got_t) >= 0)
        first = scene.ray_cast(o, d, max_t)
        if hits.any():
            assert first is not None
            assert first[1] == pytest.approx(enter[hits].min(), rel=1e-4, abs=1e-4)
        else:
            assert first is None


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_sequence(mode, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{mode} {dtype}".encode()))
    scene = broadphase.Scene(dtype)
    scene.set_update_mode(mode)
    assert scene.update_mode == mode
    model = Model()
    previous = set()
    for step in range(24):
        # Adds (batch and one by one, some static, some filtered).
        new = random_boxes(rng, int(rng.integers(0, 40)), spread=50.0)
        if dtype == "float32":
            new = new.astype(np.float32).astype(np.float64)
        kind = "static" if step % 3 == 0 else "dynamic"
        for i, b in zip(scene.add_batch(new, type=kind), new):
            model.objects[int(i)] = [b, kind, (1, ALL, 0)]
        for _ in range(int(rng.integers(0, 5))):
            b = random_boxes(rng, 1, spread=50.0)[0]
            if dtype == "float32":
                b = b.astype(np.float32).astype(np.float64)
            cat, mask, group = [(2, ALL, 0), (1, ALL ^ 2, 0), (1, ALL, 7)][int(rng.integers(0, 3))]
            i = scene.add(b, type="dynamic", user_value=step, category=cat, mask=mask, group=group)
            model.objects[i] = [b, "dynamic", (cat, mask, group)]
            assert scene.user_value(i) == step
            assert scene.filter(i) == (cat, mask, group)
        live = np.array(sorted(model.objects), dtype=np.int64)
        if len(live):
            # Moves: small and large, batch and one by one; some to invalid boxes.
            movers = rng.choice(live, size=min(len(live), int(rng.integers(0, 30))), replace=False)
            boxes = np.array([model.objects[i][0] for i in movers], np.float64).reshape(-1, 6)
            boxes += np.repeat(rng.normal(0, 2, (len(movers), 3)), 2, axis=1).reshape(-1, 6)[:, [0, 2, 4, 1, 3, 5]]
            if len(movers) and step % 4 == 1:
                boxes[0] = np.nan
            if dtype == "float32":
                boxes = boxes.astype(np.float32).astype(np.float64)
            assert scene.move_batch(movers, boxes) == len(movers)
            for i, b in zip(movers, boxes):
                model.objects[int(i)][0] = b
            if len(live) > 3:
                i = int(live[1])
                b = random_boxes(rng, 1, spread=50.0)[0].astype(np.float32).astype(np.float64)
                assert scene.move(i, b)
                model.objects[i][0] = b
            # Type changes and removes.
            i = int(rng.choice(live))
            t = "static" if model.objects[i][1] == "dynamic" else "dynamic"
            assert scene.set_type(i, t)
            model.objects[i][1] = t
            assert scene.type(i) == t
            gone = rng.choice(live, size=min(len(live), int(rng.integers(0, 8))), replace=False)
            assert scene.remove_batch(gone) == len(gone)
            for i in gone:
                del model.objects[int(i)]
            if len(gone):
                assert not scene.remove(int(gone[0]))  # already gone
                assert int(gone[0]) not in scene
        count = scene.update()
        want = model.expected_pairs()
        got = scene.pairs()
        np.testing.assert_array_equal(got, want)
        assert count == len(want)
        now = as_set(got)
        assert as_set(scene.begun()) == now - previous
        assert as_set(scene.ended()) == previous - now
        np.testing.assert_array_equal(scene.begun(), sort_pairs(scene.begun()))
        assert scene.last_method in MODES
        assert len(scene) == len(model.objects)
        previous = now
        check_queries(scene, model, rng)


def test_scene_basics():
    s = broadphase.Scene()
    ground = s.add([-np.inf, -np.inf, -1, np.inf, np.inf, 0], type="static")
    ball = s.add([0, 0, 0.5, 1, 1, 1.5])
    assert s.update() == 0
    assert s.move(ball, [0, 0, -0.5, 1, 1, 0.5])
    s.update()
    assert s.begun().tolist() == [[ground, ball]] and s.ended().shape == (0, 2)
    np.testing.assert_array_equal(s.box(ball), np.array([0, 0, -0.5, 1, 1, 0.5], np.float32))
    assert s.box(ball).dtype == np.float32
    assert s.ray_cast([0.5, 0.5, 10], [0, 0, -1]) == (ball, pytest.approx(9.5))
    hit = s.box_cast([5, 0, -0.25, 6, 1, 0.25], [-10, 0, 0])
    assert hit is not None and hit[0] in (ground, ball)
    s.remove(ball)
    s.update()
    assert s.ended().tolist() == [[ground, ball]] and s.pairs().shape == (0, 2)
    assert s.set_margin(0.5)
    s.set_options(algorithm="sweep_and_prune", threads=1)
    assert s.set_user_value(ground, 99) and s.user_value(ground) == 99
    assert s.set_filter(ground, category=4, mask=4)
    assert not s.move(ball, [0, 0, 0, 1, 1, 1])


def test_scene_fat_pairs():
    s = broadphase.Scene()
    assert s.margin == pytest.approx(0.1) and not s.fat_pairs
    a = s.add([0, 0, 0, 1, 1, 1])
    b = s.add([1.15, 0, 0, 2, 1, 1])  # 0.15 apart: the fat boxes overlap
    assert s.update() == 0
    s.fat_pairs = True
    assert s.fat_pairs and s.update() == 1
    assert s.begun().tolist() == [[a, b]]
    assert s.move(b, [1.17, 0, 0, 2.02, 1, 1])  # inside its fat box: nothing happens
    assert s.update() == 1 and s.begun().shape == (0, 2) and s.ended().shape == (0, 2)
    assert s.move(b, [1.6, 0, 0, 2.6, 1, 1])
    assert s.update() == 0 and s.ended().tolist() == [[a, b]]
    assert not s.set_margin(-1.0)


def test_scene_errors():
    s = broadphase.Scene("float64")
    with pytest.raises(ValueError, match="unknown update mode 'fast'"):
        s.set_update_mode("fast")
    # One name a mode: the former 'incremental' says which.
    assert "incremental" not in MODES
    with pytest.raises(ValueError, match="spelt 'multi_box_pruning'"):
        s.set_update_mode("incremental")
    with pytest.raises(ValueError, match="'dynamic' or 'static'"):
        s.add([0, 0, 0, 1, 1, 1], type="kinematic")
    with pytest.raises(KeyError):
        s.box(12)
    with pytest.raises(ValueError, match="same length"):
        s.move_batch([0, 1], np.zeros((3, 6)))
    with pytest.raises(ValueError, match="not an object id"):
        s.remove_batch([-1])
    with pytest.raises(TypeError, match="integers"):
        s.remove_batch([0.5])
    # Not an array at all: a TypeError naming ids (was numpy's bare ValueError).
    with pytest.raises(TypeError, match="ids must be an array of integers"):
        s.remove_batch([[1, 2], [3]])
    with pytest.raises(TypeError, match="ids must be an array of integers"):
        s.move_batch([[1, 2], [3]], np.zeros((2, 6)))
    with pytest.raises(ValueError, match="dtype"):
        broadphase.Scene("float16")
    with pytest.raises(ValueError, match="six numbers"):
        s.add([0, 0, 0])
    # '-' and '_' are interchangeable in mode names.
    for m in MODES:
        s.set_update_mode(m.replace("-", "_"))


@pytest.mark.parametrize("offset", [0.0, 1e7])
def test_float32_scene_answers_float64_box_and_point_queries_exactly(offset):
    # A float32 scene holds float32 boxes; float64 queries one float64 ulp
    # clear of a box do not hit it (to the nearest float32 they would touch).
    s = broadphase.Scene("float32")
    hi = np.float32(offset + 0.3) if offset == 0 else np.float32(offset + 1.0)
    a = s.add(np.array([offset - 1, 0, 0, hi, 1, 1], np.float32))
    hi64 = np.float64(hi)
    past, before = np.nextafter(hi64, np.inf), np.nextafter(hi64, -np.inf)
    assert np.float32(past) == hi
    s.update()
    assert s.query_box([past, 0, 0, past + 1, 1, 1]).tolist() == []
    assert s.query_box([hi64, 0, 0, past + 1, 1, 1]).tolist() == [a]
    assert s.query_box([past, 0.5, 0.5, past, 0.5, 0.5]).tolist() == []
    assert s.query_box([before, 0.5, 0.5, before, 0.5, 0.5]).tolist() == [a]
    assert s.query_box([past, 0, 0, hi64, 1, 1]).tolist() == []  # min > max by one ulp: invalid
    assert s.query_point([past, 0.5, 0.5]).tolist() == []
    assert s.query_point([before, 0.5, 0.5]).tolist() == [a]
    assert s.query_point([hi64, 0.5, 0.5]).tolist() == [a]


def test_float32_scene_float64_queries_match_float64_brute_force():
    rng = np.random.default_rng(7)
    s = broadphase.Scene("float32")
    boxes = random_boxes(rng, 500, spread=30.0, size=(0.0, 4.0), dtype=np.float32)
    ids = s.add_batch(boxes)
    s.update()
    b = boxes.astype(np.float64)
    pick = b[rng.integers(0, len(b), 200)]
    eps = rng.choice([-1.0, 1.0], (200, 3)) * 2.0**-28
    pts = pick[:, 3:] + eps * np.abs(pick[:, 3:])  # just inside or outside a max face, between float32s
    for p in pts:
        want = ids[np.all((b[:, :3] <= p) & (p <= b[:, 3:]), axis=1)]
        np.testing.assert_array_equal(s.query_point(p), np.sort(want).astype(np.uint32))
        q = np.concatenate([p, p + [0.0, 1e-9, 2.0]])
        want = ids[np.all(~((b[:, 3:] < q[:3]) | (q[3:] < b[:, :3])), axis=1)]
        np.testing.assert_array_equal(s.query_box(q), np.sort(want).astype(np.uint32))
