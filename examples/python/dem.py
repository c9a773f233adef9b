"""A small DEM (discrete element method) loop on broadphase's sphere pairs.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/dem.py [--steps 1500] [--out dem.png]

Spheres fall under gravity into a box; contacts are linear spring-dashpots
(normal direction only, no friction) between the touching pairs that
broadphase.find_sphere_pairs returns each step, and against the floor and
walls. Semi-implicit Euler. Prints the contact count and kinetic energy as
the pile settles; with matplotlib installed it renders the final pile (side
view, coloured by height) to --out.
"""

import argparse
import time

import numpy as np

import broadphase


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--out", default="dem.png")
    args = ap.parse_args()

    rng = np.random.default_rng(1)
    n = args.n
    radius = rng.uniform(0.4, 0.6, n)
    mass = 4.0 / 3.0 * np.pi * radius**3
    width = 12.0  # box [0, width] in x and y, floor at z = 0
    # Start on a loose lattice (no overlaps), jittered, and let it fall.
    side = int(width / 1.3)
    cells = np.arange(n)
    lattice = np.column_stack([cells % side, (cells // side) % side, cells // (side * side)]) * 1.3 + 0.75
    pos = lattice + rng.uniform(-0.1, 0.1, (n, 3))
    vel = np.zeros((n, 3))
    g = np.array([0.0, 0.0, -9.81])
    k, damping, dt = 1.0e4, 20.0, 5.0e-4  # stiffness, normal damping, time step (sqrt(k/m) dt < 0.2)

    t0 = time.perf_counter()
    broad = 0.0
    for step in range(args.steps + 1):
        b0 = time.perf_counter()
        pairs = broadphase.find_sphere_pairs(pos, radius).astype(np.int64)
        broad += time.perf_counter() - b0
        force = mass[:, None] * g
        if len(pairs):
            i, j = pairs[:, 0], pairs[:, 1]
            d = pos[j] - pos[i]
            dist = np.linalg.norm(d, axis=1)
            nrm = d / np.maximum(dist, 1e-12)[:, None]
            overlap = radius[i] + radius[j] - dist
            vn = np.einsum("ij,ij->i", vel[j] - vel[i], nrm)
            f = np.maximum(k * overlap - damping * vn, 0.0)[:, None] * nrm  # push j away from i, no pulling
            np.add.at(force, i, -f)
            np.add.at(force, j, f)
        # Floor and walls: the same spring-dashpot against planes.
        for axis, lo, hi in ((0, 0.0, width), (1, 0.0, width), (2, 0.0, np.inf)):
            pen_lo = radius - (pos[:, axis] - lo)
            m = pen_lo > 0
            force[m, axis] += np.maximum(k * pen_lo[m] - damping * vel[m, axis], 0.0)
            pen_hi = radius - (hi - pos[:, axis])
            m = pen_hi > 0
            force[m, axis] -= np.maximum(k * pen_hi[m] + damping * vel[m, axis], 0.0)
        vel += dt * force / mass[:, None]
        pos += dt * vel
        if step % 1000 == 0:
            ke = 0.5 * np.sum(mass * np.sum(vel**2, axis=1))
            print(f"step {step:5d}  contacts {len(pairs):6d}  kinetic energy {ke:10.3f}  top {pos[:, 2].max():6.2f}")
    total = time.perf_counter() - t0
    print(f"{args.steps} steps of {n} spheres in {total:.1f} s, of which find_sphere_pairs {broad:.1f} s")

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no picture")
        return
    fig, ax = plt.subplots(figsize=(5, 6))
    order = np.argsort(pos[:, 1])[::-1]  # far spheres first
    for idx in order:
        ax.add_patch(plt.Circle((pos[idx, 0], pos[idx, 2]), radius[idx], color=plt.cm.viridis(pos[idx, 2] / max(pos[:, 2].max(), 1)), ec="k", lw=0.2))
    ax.set_xlim(0, width)
    ax.set_ylim(0, max(pos[:, 2].max() + 1, width))
    ax.set_aspect("equal")
    ax.set_title(f"{n} spheres after {args.steps} steps (side view)")
    ax.set_xlabel("x")
    ax.set_ylabel("z")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
