"""A neighbour list kept between MD steps: periodic cell, cutoff + skin, CSR rows."""
import numpy as np

import broadphase

rng = np.random.default_rng(1)
L = 10.0
x = rng.uniform(0, L, (500, 3))

nl = broadphase.NeighborList(2.5, 0.3, cell=L, shifts=True)  # a half list: each pair once
assert nl.update(x)                                        # the first call builds
offsets, indices, shifts = nl.offsets, nl.indices, nl.shifts  # CSR rows; S per entry

for step in range(20):
    x += rng.normal(0, 0.01, x.shape)                      # ~0.017 a step: under skin / 2 = 0.15 for a while
    if nl.update(x):                                       # True only when some particle moved over 0.15
        offsets, indices, shifts = nl.offsets, nl.indices, nl.shifts
    i = np.repeat(np.arange(len(x)), np.diff(offsets.astype(np.int64)))
    d = x[indices] + shifts @ nl.cell - x[i]               # D = x_j + S h - x_i, now
    within = np.einsum("ij,ij->i", d, d) <= 2.5**2         # the pairs within the cutoff this step
# The same pairs as spheres of radius 1.25 touching across the periodic box:
assert within.sum() == len(broadphase.find_sphere_pairs(x, 1.25, boxsize=L))
print(nl.builds, "builds,", nl.entries, "entries,", int(within.sum()), "pairs within 2.5")

# A triclinic cell (rows a, b, c, as ASE's atoms.cell) and a full list: (i, j, S) and (j, i, -S).
cell = [[4.0, 0, 0], [1.0, 4.0, 0], [0.5, -0.5, 4.0]]
full = broadphase.NeighborList(4.5, cell=cell, full=True, vectors=True, shifts=True)
full.update(rng.uniform(0, 1, (20, 3)) @ np.array(cell))
pairs = full.pairs()                                       # (K, 2) rows (i, j): with a cutoff over the cell's
assert (pairs[:, 0] == pairs[:, 1]).any()                  # width, a particle lists its own images (i, i, S != 0)
D = full.vectors                                           # D = x_j + S h - x_i per entry
assert np.all(np.einsum("ij,ij->i", D, D) <= 4.5**2)
