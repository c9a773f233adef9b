"""Pairs in a periodic domain: boxsize=, as scipy.spatial.cKDTree takes it."""
import numpy as np

import broadphase

boxes = np.array([[9.5, 0, 0, 10.5, 1, 1],     # crosses x = 10 ...
                  [0.25, 0.5, 0, 1, 1.5, 1],   # ... and meets this one there (10.5 wraps to 0.5)
                  [-5, 0, 0, -4, 1, 1]])       # x = -5 wraps to 5: alone
pairs = broadphase.find_pairs(boxes, boxsize=(10, 10, 0))  # x and y wrap with period 10; z is open
assert pairs.tolist() == [[0, 1]]

centers = np.array([[0.5, 5, 5], [9.5, 5, 5], [5, 5, 5]])
touching = broadphase.find_sphere_pairs(centers, 0.5, boxsize=10.0)  # minimum image: 0 and 1 are 1 apart
assert touching.tolist() == [[0, 1]]

finder = broadphase.PairFinder()  # kept between frames, as without boxsize
for frame in range(3):
    boxes[:, [0, 3]] += 4.0  # everything drifts along x; the pairs stay
    assert finder.find_pairs(boxes, boxsize=(10, 10, 0)).tolist() == [[0, 1]]
print(pairs.tolist(), touching.tolist())
