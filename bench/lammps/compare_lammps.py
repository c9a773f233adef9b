"""LAMMPS's neighbour-list build against find_sphere_pairs and cKDTree, on LAMMPS's own particles.

    bash bench/lammps/lammps_bench.sh            # installs lammps, builds the module, runs this

or, with the module built and Debian's lammps installed:

    PYTHONPATH=build/release/python /usr/bin/python3 bench/lammps/compare_lammps.py \\
        --sizes 20,40 --out docs/benchmarks/amd-epyc-2core-lammps.csv

For each size (LAMMPS lattice cells a side: 20 -> 32,000 atoms, 40 -> 256,000,
80 -> 2,048,000), LAMMPS (the `lmp` program, one MPI rank, one thread) runs
the Lennard-Jones liquid of its own benchmark, bench/in.lj: fcc lattice at
density 0.8442, cutoff 2.5, skin 0.3 (`neighbor 0.3 bin`,
`neigh_modify delay 0 every 1 check no`: a full neighbour-list build every
step), periodic in x, y and z. Its "Neigh" time over the run divided by its
"Neighbor list builds" is its cost of one build. At the last step it dumps
the positions and, through `compute property/local patom1 patom2`, the
pairs of its list within the force cutoff.

The same positions (wrapped into the box) then go to
  - broadphase.find_sphere_pairs(x, 1.4, boxsize=L): every pair within
    2.8 = cutoff + skin, what LAMMPS's build finds; one thread and two;
  - scipy.spatial.cKDTree(x, boxsize=L).query_pairs(2.8): tree built and
    queried, as it is used;
  - ase.neighborlist.neighbor_list('ij', ...) when ASE is installed
    (python3-ase), up to 40,000 atoms (at 256,000 it ran out of 24 GB):
    a full list, so twice the pairs.
Times are the median of --repeats warm calls (the first call is also
reported for ours). Pairs: find_sphere_pairs(x, 1.25, ...) must give exactly
LAMMPS's pairs within the force cutoff (LAMMPS's test is r < 2.5, ours r <= 2.5:
a tie at exactly 2.5 would show as a difference), and its pairs within 2.8
must equal cKDTree's.

A granular bed (--granular, sizes in spheres): LAMMPS's granular pair
style (gran/hooke, skin 0.1) on polydisperse spheres (diameters uniform in
0.5 to 1, centres uniform at a solid fraction of 0.3, read from a data
file), and the same comparison: find_sphere_pairs(x, radii + skin/2) is
what LAMMPS's build finds (pairs within the sum of the radii plus the
skin), and its pairs closer than the type's force cutoff (twice the
largest radius: what property/local gives of LAMMPS's list) must be
LAMMPS's.

Run it on an otherwise idle machine: LAMMPS and the library run one after
the other, and a compile on the other core slows them differently.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import broadphase

try:
    from scipy.spatial import cKDTree
except ImportError:  # pragma: no cover
    cKDTree = None
try:
    from ase import Atoms
    from ase.neighborlist import neighbor_list
except ImportError:  # pragma: no cover
    neighbor_list = None

LJ_INPUT = """
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 {n} 0 {n} 0 {n}
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 1.44 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    delay 0 every 1 check no
fix             1 all nve
thermo          {steps}
run             {steps}
dump            d all custom 1 pos.dump id x y z
dump_modify     d sort id format float %.17g
compute         p all property/local patom1 patom2
dump            l all local 1 pairs.dump c_p[1] c_p[2]
run             0
"""

# A polydisperse granular bed: diameters uniform in 0.5 to 1, centres
# uniform at a solid fraction of 0.3 (written by write_bed as a data file),
# LAMMPS's Hookean granular pair style, skin 0.1. The dynamics hardly
# matter: only the neighbour builds are measured.
GRANULAR_INPUT = """
units           lj
atom_style      sphere
atom_modify     map array
boundary        p p p
comm_modify     vel yes
read_data       bed.data
pair_style      gran/hooke 2000.0 NULL 50.0 NULL 0.5 0
pair_coeff      * *
neighbor        0.1 bin
neigh_modify    delay 0 every 1 check no
fix             1 all nve/sphere
timestep        0.00001
thermo          {steps}
run             {steps}
dump            d all custom 1 pos.dump id x y z radius
dump_modify     d sort id format float %.17g
compute         p all property/local patom1 patom2
dump            l all local 1 pairs.dump c_p[1] c_p[2]
run             0
"""


def write_bed(path, n, seed=1):
    """A LAMMPS data file: n spheres, diameters uniform in [0.5, 1], centres uniform, solid fraction 0.3."""
    rng = np.random.default_rng(seed)
    d = rng.uniform(0.5, 1.0, n)
    side = (np.sum(np.pi / 6 * d**3) / 0.3) ** (1 / 3)
    x = rng.uniform(0, side, (n, 3))
    with open(path, "w") as f:
        f.write(f"granular bed\n\n{n} atoms\n1 atom types\n\n")
        for k in "xyz":
            f.write(f"0 {side!r} {k}lo {k}hi\n")
        f.write("\nAtoms # sphere\n\n")
        for i in range(n):
            f.write(f"{i + 1} 1 {d[i]!r} 1.0 {x[i, 0]!r} {x[i, 1]!r} {x[i, 2]!r}\n")


def run_lammps(lmp, script, workdir):
    """Runs LAMMPS on script in workdir; returns (ms per neighbour build, builds)."""
    with open(os.path.join(workdir, "in.case"), "w") as f:
        f.write(script)
    out = subprocess.run([lmp, "-in", "in.case", "-log", "log.case", "-screen", "none"], cwd=workdir,
                         capture_output=True, text=True)
    log = open(os.path.join(workdir, "log.case")).read() if os.path.exists(os.path.join(workdir, "log.case")) else ""
    if out.returncode != 0:
        sys.exit("lmp failed:\n" + out.stdout[-2000:] + out.stderr[-2000:] + log[-2000:])
    # The first run's timing block (the second is `run 0`, for the dumps).
    neigh = re.search(r"^Neigh\s*\|\s*([0-9.eE+-]+)", log, re.M)
    builds = re.search(r"^Neighbor list builds = (\d+)", log, re.M)
    if not neigh or not builds:
        sys.exit("no neighbour timing in LAMMPS's log")
    return 1e3 * float(neigh.group(1)) / max(int(builds.group(1)), 1), int(builds.group(1))


def last_frame(path):
    """The last frame of a LAMMPS dump: (its header lines, its body as one string)."""
    text = open(path).read()
    start = text.rindex("ITEM: TIMESTEP")
    lines = text[start:].split("\n", 9)
    return lines[:9], lines[9] if len(lines) > 9 else ""


def read_dump(path, columns):
    """The last frame of a LAMMPS custom dump: (box lo (3,), box hi (3,), array of the columns), by atom id."""
    head, body = last_frame(path)
    lo = np.array([float(head[5 + k].split()[0]) for k in range(3)])
    hi = np.array([float(head[5 + k].split()[1]) for k in range(3)])
    names = head[8].split()[2:]
    data = np.array(body.split(), dtype=np.float64).reshape(int(head[3]), len(names))
    data = data[np.argsort(data[:, names.index("id")])]
    return lo, hi, np.stack([data[:, names.index(c)] for c in columns], axis=1)


def read_pairs(path):
    """LAMMPS's local dump of atom-id pairs, as 0-based index pairs (i < j), sorted."""
    head, body = last_frame(path)
    p = np.array(body.split(), dtype=np.int64).reshape(int(head[3]), 2) - 1
    return sorted_pairs(np.sort(p, axis=1))


def sorted_pairs(p):
    p = np.asarray(p, np.int64).reshape(-1, 2)
    return p[np.lexsort((p[:, 1], p[:, 0]))]


def median_ms(f, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), out


ASE_MAX = 40000  # ASE's neighbor_list: 12 s and several GB at 32,000 atoms; 256,000 ran out of 24 GB


def compare(case, atoms, lmp_ms, builds, x, box, radii_cut, radii_list, lmp_pairs, repeats, rows):
    """Times ours, cKDTree and ASE on x and checks the pairs; appends a row."""
    t0 = time.perf_counter()
    ours = broadphase.find_sphere_pairs(x, radii_list, threads=1, boxsize=box)
    first_ms = (time.perf_counter() - t0) * 1e3
    ours_ms, ours = median_ms(lambda: broadphase.find_sphere_pairs(x, radii_list, threads=1, boxsize=box), repeats)
    ours2_ms, _ = median_ms(lambda: broadphase.find_sphere_pairs(x, radii_list, threads=2, boxsize=box), repeats)
    within_cut = sorted_pairs(broadphase.find_sphere_pairs(x, radii_cut[0], boxsize=box))
    if radii_cut[1] is not None:  # and closer than LAMMPS's per-type force cutoff
        d = x[within_cut[:, 1]] - x[within_cut[:, 0]]
        d -= box * np.round(d / box)
        within_cut = within_cut[np.einsum("ij,ij->i", d, d) < radii_cut[1] ** 2]
    same_as_lammps = within_cut.shape == lmp_pairs.shape and bool(np.array_equal(within_cut, lmp_pairs))
    kd_ms, same_as_kd = float("nan"), ""
    if cKDTree is not None and np.isscalar(radii_list):
        kd_ms, kd = median_ms(lambda: cKDTree(x, boxsize=box).query_pairs(2 * radii_list, output_type="ndarray"),
                              max(1, repeats // 2))
        same_as_kd = bool(np.array_equal(sorted_pairs(kd), sorted_pairs(ours)))
    ase_ms = float("nan")
    if neighbor_list is not None and np.isscalar(radii_list) and len(x) <= ASE_MAX:
        a = Atoms(positions=x, cell=np.diag(box), pbc=True)
        ase_ms, _ = median_ms(lambda: neighbor_list("ij", a, 2 * radii_list), max(1, repeats // 2))
    row = dict(case=case, atoms=atoms, pairs=len(ours), lammps_build_ms=lmp_ms, lammps_builds=builds,
               ours_ms=ours_ms, ours_first_ms=first_ms, ours_2t_ms=ours2_ms, ckdtree_ms=kd_ms, ase_ms=ase_ms,
               lammps_over_ours=lmp_ms / ours_ms, same_pairs_as_lammps=same_as_lammps,
               same_pairs_as_ckdtree=same_as_kd, lammps_pairs_within_cutoff=len(lmp_pairs))
    rows.append(row)
    print(f"{case:>12} {atoms:>9,} atoms {len(ours):>11,} pairs | LAMMPS build {lmp_ms:8.1f} ms | ours {ours_ms:8.1f} ms "
          f"(first {first_ms:.1f}, 2 threads {ours2_ms:.1f}) | cKDTree {kd_ms:8.1f} ms | ASE {ase_ms:8.1f} ms | "
          f"LAMMPS/ours {lmp_ms / ours_ms:5.2f}x | same pairs as LAMMPS: {same_as_lammps}, as cKDTree: {same_as_kd}",
          flush=True)
    return same_as_lammps and same_as_kd is not False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="20,40", help="LJ lattice cells a side (20: 32,000 atoms; 80: 2,048,000)")
    ap.add_argument("--granular", default="12000,100000", help="granular bed sizes (empty: none)")
    ap.add_argument("--steps", type=int, default=20, help="LAMMPS steps (each a neighbour build)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--lmp", default=shutil.which("lmp") or "lmp")
    ap.add_argument("--out", help="CSV file to write")
    args = ap.parse_args()

    rows, ok = [], True
    for cells in [int(s) for s in args.sizes.split(",") if s]:
        with tempfile.TemporaryDirectory() as work:
            lmp_ms, builds = run_lammps(args.lmp, LJ_INPUT.format(n=cells, steps=args.steps), work)
            lo, hi, x = read_dump(os.path.join(work, "pos.dump"), ["x", "y", "z"])
            lmp_pairs = read_pairs(os.path.join(work, "pairs.dump"))
        box = hi - lo
        x = np.mod(x - lo, box)  # wrapped into [0, L)
        x[x >= box] = 0.0
        ok &= compare("lj", len(x), lmp_ms, builds, x, box, (1.25, None), 1.4, lmp_pairs, args.repeats, rows)
    for n in [int(s) for s in args.granular.split(",") if s]:
        with tempfile.TemporaryDirectory() as work:
            write_bed(os.path.join(work, "bed.data"), n)
            lmp_ms, builds = run_lammps(args.lmp, GRANULAR_INPUT.format(steps=args.steps), work)
            lo, hi, xr = read_dump(os.path.join(work, "pos.dump"), ["x", "y", "z", "radius"])
            lmp_pairs = read_pairs(os.path.join(work, "pairs.dump"))
        box = hi - lo
        x = np.mod(xr[:, :3] - lo, box)
        x[x >= box] = 0.0
        r = np.ascontiguousarray(xr[:, 3])
        # LAMMPS's list: r_ij < r_i + r_j + skin; property/local gives those of
        # them closer than the type's force cutoff, twice the largest radius.
        skin = 0.1
        ok &= compare("granular", len(x), lmp_ms, builds, x, box, (r + skin / 2, 2 * r.max()), r + skin / 2, lmp_pairs,
                      args.repeats, rows)
    if args.out and rows:
        with open(args.out, "w") as f:
            f.write(",".join(rows[0].keys()) + "\n")
            for r in rows:
                f.write(",".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in r.values()) + "\n")
        print("wrote", args.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
