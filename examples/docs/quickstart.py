"""The Python module: pairs among numpy boxes, a kept finder, an index, a scene."""
import numpy as np

import broadphase

rng = np.random.default_rng(1)
boxes = np.empty((10_000, 6), dtype=np.float32)  # rows minx miny minz maxx maxy maxz
boxes[:, :3] = rng.random((10_000, 3), dtype=np.float32) * 50
boxes[:, 3:] = boxes[:, :3] + 1

pairs = broadphase.find_pairs(boxes)  # (K, 2) uint32, i < j, each pair once
finder = broadphase.PairFinder()  # keeps its memory between frames
assert np.array_equal(finder.find_pairs(boxes, sorted=True), pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))])

index = broadphase.Index(boxes)
hits = index.query(boxes[0])  # every box overlapping box 0, itself included
assert 0 in hits

scene = broadphase.Scene()  # objects kept between frames, begin/end events
ids = scene.add_batch(boxes)
scene.update()
assert len(scene.pairs()) == len(scene.begun()) == len(pairs)
print(f"{len(pairs)} pairs; box 0 meets {len(hits) - 1} others")
