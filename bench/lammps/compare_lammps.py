"""LAMMPS's neighbour-list build against find_sphere_pairs, NeighborList, cKDTree, ASE and vesin, on LAMMPS's own particles.

    bash bench/lammps/lammps_bench.sh            # installs lammps, builds the module, runs this

or, with the module built and Debian's lammps installed:

    PYTHONPATH=build/release/python /usr/bin/python3 bench/lammps/compare_lammps.py \\
        --sizes 20,40 --out docs/benchmarks/amd-epyc-2core-lammps.csv

Four kinds of case, one CSV row each (columns that do not apply are empty or
nan).

"lj", for each --sizes (LAMMPS lattice cells a side: 20 -> 32,000 atoms, 40
-> 256,000, 80 -> 2,048,000): LAMMPS (the `lmp` program, one MPI rank, one
thread) runs the Lennard-Jones liquid of its own benchmark, bench/in.lj: fcc
lattice at density 0.8442, cutoff 2.5, skin 0.3 (`neighbor 0.3 bin`,
`neigh_modify delay 0 every 1 check no`: a full neighbour-list build every
step), periodic in x, y and z. Its "Neigh" time over the run divided by its
"Neighbor list builds" is its cost of one build; its "Total # of neighbors"
(the first run's) is the number of pairs in its half list, those within
cutoff + skin. At the last step it dumps the positions and, through
`compute property/local patom1 patom2`, the pairs of its list within the
force cutoff (not above --pairs-dump-max atoms: at 2,048,000 that dump would
be ~50M lines; then the checks against LAMMPS are the neighbour count and
NeighborList == find_sphere_pairs).

The same positions (wrapped into the box) then go to
  - broadphase.find_sphere_pairs(x, 1.4, boxsize=L): every pair within
    2.8 = cutoff + skin, what LAMMPS's build finds; one thread and two;
  - broadphase.NeighborList(2.5, 0.3, cell=L).build(x): the same pairs as
    a half list in CSR form, what an MD code keeps; one thread and two
    (threads=1, 2; the list uses one thread per 32,768 particles at most,
    so at 32,000 atoms "two" is one);
  - scipy.spatial.cKDTree(x, boxsize=L).query_pairs(2.8): tree built and
    queried, as it is used;
  - ase.neighborlist.neighbor_list('ij', ...) when ASE is installed
    (python3-ase), up to 40,000 atoms (at 256,000 it ran out of 24 GB):
    a full list, so twice the pairs; beside it broadphase.neighbor_list,
    our drop-in for it, on the same Atoms (its output must be ASE's);
  - vesin's CPU cell list (the ML-potential codes' neighbour list), a C++
    program built from vesin's public source (--vesin DRIVER, made by
    ../shared/peers/build.sh with PARTS=vesin; its column is empty without
    it): a half list within 2.8, one thread, its pair count checked.
Times are the median of --repeats warm calls; the first call is reported
too, each in a fresh Python process that imports the module, loads the
positions and times one call (ours_first_ms, nl_first_ms: what a user who
calls once pays; vesin's first call is its program's). Pairs:
  - find_sphere_pairs(x, 1.25, ...) must give exactly LAMMPS's pairs within
    the force cutoff (LAMMPS's test is r < 2.5, ours r <= 2.5: a tie at
    exactly 2.5 would show as a difference), and its pairs within 2.8 must
    equal cKDTree's;
  - NeighborList's entries, each taken as (min(i, j), max(i, j)) (every
    pair here has one image), must be find_sphere_pairs's pairs within 2.8
    (nl_same_pairs), their number LAMMPS's "Total # of neighbors"
    (nl_entries_equal_lammps_neighbors), and NeighborList(2.5, 0)'s pairs
    LAMMPS's pairs within the force cutoff (nl_cutoff_same_pairs_as_lammps).

"granular", for each --granular (sizes in spheres): LAMMPS's granular pair
style (gran/hooke, skin 0.1) on polydisperse spheres (diameters uniform in
0.5 to 1, centres uniform at a solid fraction of 0.3, read from a data
file), and the same comparison: find_sphere_pairs(x, radii + skin/2) and
NeighborList(0, 0.1, cell=L).build(x, radii) are what LAMMPS's build finds
(pairs within the sum of the radii plus the skin), and the pairs of each
(NeighborList(0.1, 0) for the list) closer than the type's force cutoff
(twice the largest radius: what property/local gives of LAMMPS's list) must
be LAMMPS's. The data file lists the spheres in random order and LAMMPS
sorts its atoms into bins when a run starts (atom_modify sort), so its
builds read memory in streams; NeighborList is timed twice: on the spheres
in id order (random, nl_ms) and in the order LAMMPS holds them (an unsorted
dump of the ids; nl_lammps_order_ms, its list must be the same pairs).

"lj-triclinic", for each --triclinic (lattice cells a side, default 20):
the LJ liquid as above, but LAMMPS makes the box triclinic before the run
(`change_box all triclinic`, then tilts xy = 0.1 L, xz = 0.05 L, yz =
-0.08 L, `remap units box`). The cell rows a = (lx, 0, 0), b = (xy, ly, 0),
c = (xz, yz, lz) (from the dump's bounds, as LAMMPS's Howto_triclinic
converts them) and the positions less the box's origin go to
NeighborList(2.5, 0.3, cell=rows), timed as above against LAMMPS's build;
its entries must number LAMMPS's neighbours and NeighborList(2.5, 0)'s pairs
must be LAMMPS's within the force cutoff. find_sphere_pairs, cKDTree and ASE
take no triclinic cell here: their columns are empty.

"lj-skin", for each --skin-size (lattice cells a side, default 20): the LJ
liquid run --skin-steps steps with `neigh_modify delay 0 every 1 check yes`
(LAMMPS rebuilds only when some atom moved more than skin / 2), the
positions dumped every step. LAMMPS's Neigh time per step and its number of
builds (the setup's build not counted) go in the row. The frames are then
replayed: (a) NeighborList(2.5, 0.3, cell=L).update(x_t) on every frame,
each call timed (frame 0, the first build, untimed: LAMMPS's setup build is
not in its Neigh time either), and (b) NeighborList.build(x_t) on every
frame; the row has the mean ms per step of each, (b) / (a), and our
rebuilds (which must be LAMMPS's builds: the same rule on the same
positions; LAMMPS wraps atoms into the box only when it rebuilds, our
update measures moves by the minimum image, so either way). Checks: the
kept list must be find_sphere_pairs's pairs within 2.8 at the frame of its
last build, number LAMMPS's neighbours at the end of the run, and hold all
of LAMMPS's pairs within the force cutoff at the last step
(nl_kept_covers_lammps_pairs); NeighborList(2.5, 0) on the last frame must
give exactly those pairs.

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

# The LJ liquid of LAMMPS's bench/in.lj; {box} may make the box triclinic.
LJ_SETUP = """
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 {n} 0 {n} 0 {n}
create_box      1 box
create_atoms    1 box
{box}mass            1 1.0
velocity        all create 1.44 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
"""

# A build every step; then `run 0` dumps the last positions and the pairs.
LJ_INPUT = LJ_SETUP + """
neigh_modify    delay 0 every 1 check no
fix             1 all nve
thermo          {steps}
run             {steps}
dump            d all custom 1 pos.dump id x y z
dump_modify     d sort id format float %.17g
{pairs}run             0
"""

PAIRS_DUMP = """compute         p all property/local patom1 patom2
dump            l all local {every} pairs.dump c_p[1] c_p[2]
"""

# The box made triclinic before the run (tilts well inside LAMMPS's limit
# of half the box length).
TRICLINIC_BOX = """change_box      all triclinic
change_box      all xy final {xy!r} xz final {xz!r} yz final {yz!r} remap units box
"""

# The Verlet skin as MD codes use it: a build only when some atom moved
# more than skin / 2; positions dumped every step, the pairs at the last.
LJ_SKIN_INPUT = LJ_SETUP + """
neigh_modify    delay 0 every 1 check yes
fix             1 all nve
thermo          {steps}
dump            d all custom 1 traj.dump id x y z
dump_modify     d sort id format float %.17g
{pairs}run             {steps}
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
dump            o all custom 1 order.dump id
{pairs}run             0
"""

LJ_CUTOFF, LJ_SKIN = 2.5, 0.3
GRANULAR_SKIN = 0.1
FCC_SIDE = (4 / 0.8442) ** (1 / 3)  # the lattice constant LAMMPS's `lattice fcc 0.8442` gives


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
    """Runs LAMMPS on script in workdir; returns a dict of its first run's
    neighbour figures: build_ms (Neigh time per build), builds, neigh_ms
    (Neigh time in all) and neighbors (its "Total # of neighbors": the
    pairs of its half list, within cutoff + skin)."""
    with open(os.path.join(workdir, "in.case"), "w") as f:
        f.write(script)
    out = subprocess.run([lmp, "-in", "in.case", "-log", "log.case", "-screen", "none"], cwd=workdir,
                         capture_output=True, text=True)
    log = open(os.path.join(workdir, "log.case")).read() if os.path.exists(os.path.join(workdir, "log.case")) else ""
    if out.returncode != 0:
        sys.exit("lmp failed:\n" + out.stdout[-2000:] + out.stderr[-2000:] + log[-2000:])
    # The first run's timing block (a second, if any, is `run 0`, for the dumps).
    neigh = re.search(r"^Neigh\s*\|\s*([0-9.eE+-]+)", log, re.M)
    builds = re.search(r"^Neighbor list builds = (\d+)", log, re.M)
    total = re.search(r"^Total # of neighbors = (\d+)", log, re.M)
    if not neigh or not builds or not total:
        sys.exit("no neighbour timing or count in LAMMPS's log")
    b = int(builds.group(1))
    return dict(build_ms=1e3 * float(neigh.group(1)) / max(b, 1), builds=b, neigh_ms=1e3 * float(neigh.group(1)),
                neighbors=int(total.group(1)))


def last_frame(path):
    """The last frame of a LAMMPS dump: (its header lines, its body as one string)."""
    text = open(path).read()
    start = text.rindex("ITEM: TIMESTEP")
    lines = text[start:].split("\n", 9)
    return lines[:9], lines[9] if len(lines) > 9 else ""


def box_of(head):
    """(origin (3,), cell rows (3, 3)) from a dump frame's header: rows a =
    (lx, 0, 0), b = (xy, ly, 0), c = (xz, yz, lz). A triclinic dump gives
    the bounding box and the tilts ("ITEM: BOX BOUNDS xy xz yz"); its
    xlo, xhi, ylo, yhi are recovered as LAMMPS's Howto_triclinic says."""
    b = [[float(v) for v in head[5 + k].split()] for k in range(3)]
    if "xy" in head[4]:
        xy, xz, yz = b[0][2], b[1][2], b[2][2]
        xlo, xhi = b[0][0] - min(0.0, xy, xz, xy + xz), b[0][1] - max(0.0, xy, xz, xy + xz)
        ylo, yhi = b[1][0] - min(0.0, yz), b[1][1] - max(0.0, yz)
    else:
        xy = xz = yz = 0.0
        (xlo, xhi), (ylo, yhi) = b[0][:2], b[1][:2]
    zlo, zhi = b[2][:2]
    return np.array([xlo, ylo, zlo]), np.array([[xhi - xlo, 0, 0], [xy, yhi - ylo, 0], [xz, yz, zhi - zlo]])


def read_dump(path, columns):
    """The last frame of a LAMMPS custom dump: (box origin (3,), cell rows (3, 3), array of the columns), by atom id."""
    head, body = last_frame(path)
    origin, h = box_of(head)
    names = head[8].split()[2:]
    data = np.array(body.split(), dtype=np.float64).reshape(int(head[3]), len(names))
    data = data[np.argsort(data[:, names.index("id")])]
    return origin, h, np.stack([data[:, names.index(c)] for c in columns], axis=1)


def read_trajectory(path, columns):
    """Every frame of a custom dump sorted by id (dump_modify sort id), the
    box fixed: (origin, cell rows, (frames, atoms, len(columns)) array)."""
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    n = int(lines[3])
    per = 9 + n
    frames = len(lines) // per
    head = [s.decode() for s in lines[:9]]
    origin, h = box_of(head)
    names = head[8].split()[2:]
    body = b"\n".join(b"\n".join(lines[k * per + 9:(k + 1) * per]) for k in range(frames))
    data = np.fromstring(body, dtype=np.float64, sep=" ").reshape(frames, n, len(names))
    if not np.array_equal(data[:, :, names.index("id")], np.broadcast_to(np.arange(1, n + 1), (frames, n))):
        sys.exit(f"{path}: frames not sorted by id")
    return origin, h, np.ascontiguousarray(data[:, :, [names.index(c) for c in columns]])


def read_order(path):
    """The atoms of an unsorted dump's last frame in LAMMPS's own memory
    order (a serial run writes its atoms as it stores them: sorted into
    bins, atom_modify sort), as 0-based indices into the id order."""
    head, body = last_frame(path)
    return np.array(body.split(), dtype=np.int64) - 1


def read_pairs(path):
    """LAMMPS's local dump of atom-id pairs, as 0-based index pairs (i < j), sorted."""
    head, body = last_frame(path)
    p = np.array(body.split(), dtype=np.int64).reshape(int(head[3]), 2) - 1
    return sorted_pairs(np.sort(p, axis=1))


def sorted_pairs(p):
    p = np.asarray(p, np.int64).reshape(-1, 2)
    return p[np.lexsort((p[:, 1], p[:, 0]))]


def same(a, b):
    return a.shape == b.shape and bool(np.array_equal(a, b))


def median_ms(f, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), out


def list_pairs(nl, below=None):
    """A half NeighborList's entries as sorted (min(i, j), max(i, j)) rows
    (those with |D| < below if given: the list needs vectors=True), and
    whether every pair had one entry (no repeats, no own images)."""
    p = np.sort(nl.pairs().astype(np.int64), axis=1)
    if below is not None:
        v = nl.vectors
        p = p[np.einsum("ij,ij->i", v, v) < below**2]
    p = sorted_pairs(p)
    one_image = not (np.any(p[:, 0] == p[:, 1]) or np.any(np.all(p[1:] == p[:-1], axis=1)))
    return p, one_image


def time_list(x, cell, cutoff, skin, radii, repeats):
    """NeighborList(cutoff, skin, cell=cell).build(x, radii) timed: (first
    call ms on a fresh list, median ms, median ms with threads=2, the
    one-thread list)."""
    nl = broadphase.NeighborList(cutoff, skin, cell=cell, threads=1)
    t0 = time.perf_counter()
    nl.build(x, radii)
    first_ms = (time.perf_counter() - t0) * 1e3
    ms, _ = median_ms(lambda: nl.build(x, radii), repeats)
    nl2 = broadphase.NeighborList(cutoff, skin, cell=cell, threads=2)
    nl2.build(x, radii)
    ms2, _ = median_ms(lambda: nl2.build(x, radii), repeats)
    return first_ms, ms, ms2, nl


def within(x, cell, cutoff, radii=None, below=None):
    """The pairs of NeighborList(cutoff, 0, cell=cell) on x (closer than below if given)."""
    nl = broadphase.NeighborList(cutoff, 0.0, cell=cell, vectors=below is not None)
    nl.build(x, radii)
    return list_pairs(nl, below)[0]


ASE_MAX = 40000  # ASE's neighbor_list: 12 s and several GB at 32,000 atoms; 256,000 ran out of 24 GB

# One call in a fresh process (the first call a user pays): the positions
# (and radii) from .npy files, one thread.
FIRST_CALL = """
import sys, time, numpy as np, broadphase
what, pos, radii = sys.argv[1], np.load(sys.argv[2]), sys.argv[3]
box, cutoff, skin = [float(b) for b in sys.argv[4].split(",")], float(sys.argv[5]), float(sys.argv[6])
r = np.load(radii) if radii.endswith(".npy") else float(radii)
if what == "spheres":
    t = time.perf_counter(); p = broadphase.find_sphere_pairs(pos, r, threads=1, boxsize=box)
else:
    nl = broadphase.NeighborList(cutoff, skin, cell=box, threads=1)
    rr = r if radii.endswith(".npy") else None
    t = time.perf_counter(); nl.build(pos, rr)
print((time.perf_counter() - t) * 1e3)
"""


def fresh_first_ms(what, x, box, radii, cutoff=0.0, skin=0.0, repeats=3):
    """The median over `repeats` fresh processes of one call's ms: what 'spheres'
    (find_sphere_pairs(x, radii, boxsize=box)) or 'list' (NeighborList(cutoff,
    skin, cell=box).build(x, radii)). In an orthorhombic box (three periods)."""
    with tempfile.TemporaryDirectory() as work:
        pos = os.path.join(work, "x.npy")
        np.save(pos, np.ascontiguousarray(x, np.float64))
        if np.isscalar(radii) or radii is None:
            r = repr(float(radii or 0.0))
        else:
            r = os.path.join(work, "r.npy")
            np.save(r, np.ascontiguousarray(radii, np.float64))
        times = []
        for _ in range(repeats):
            periods = ",".join(repr(float(b)) for b in box)
            out = subprocess.run([sys.executable, "-c", FIRST_CALL, what, pos, r, periods, repr(cutoff), repr(skin)],
                                 check=True, capture_output=True, text=True, env=os.environ)
            times.append(float(out.stdout.split()[-1]))
    return statistics.median(times)


def vesin_ms(driver, x, box, cutoff, repeats):
    """(first ms, median ms, pairs) of vesin's half list within cutoff, one thread, or nans without a driver."""
    if not driver:
        return float("nan"), float("nan"), None
    with tempfile.TemporaryDirectory() as work:
        pos = os.path.join(work, "x.npy")
        np.save(pos, np.ascontiguousarray(x, np.float64))
        out = subprocess.run([driver, pos, *(repr(float(b)) for b in box), repr(cutoff), "--reps", str(repeats)],
                             check=True, capture_output=True, text=True).stdout
    f = dict(kv.split("=") for kv in out.split() if "=" in kv)
    return float(f.get("first_ms", "nan")), float(f["median_ms"]), int(f["pairs"])

COLUMNS = ["case", "atoms", "pairs", "lammps_build_ms", "lammps_builds", "ours_ms", "ours_first_ms", "ours_2t_ms",
           "ckdtree_ms", "ase_ms", "ase_dropin_ms", "ase_dropin_same", "vesin_ms", "vesin_first_ms",
           "vesin_same_count", "lammps_over_ours", "same_pairs_as_lammps", "same_pairs_as_ckdtree",
           "lammps_pairs_within_cutoff",
           # NeighborList
           "lammps_neighbors", "nl_entries", "nl_ms", "nl_first_ms", "nl_2t_ms", "lammps_over_nl",
           "nl_lammps_order_ms", "lammps_over_nl_lammps_order", "nl_same_pairs",
           "nl_entries_equal_lammps_neighbors", "nl_cutoff_same_pairs_as_lammps",
           # the Verlet skin (lj-skin)
           "steps", "lammps_neigh_ms_per_step", "nl_update_ms_per_step", "nl_build_ms_per_step", "build_over_update",
           "nl_rebuilds", "same_rebuilds_as_lammps", "nl_kept_covers_lammps_pairs"]
NUMBERS = {"ours_ms", "ours_first_ms", "ours_2t_ms", "ckdtree_ms", "ase_ms", "ase_dropin_ms", "vesin_ms",
           "vesin_first_ms", "lammps_over_ours", "nl_ms",
           "nl_first_ms", "nl_2t_ms", "lammps_over_nl", "nl_lammps_order_ms", "lammps_over_nl_lammps_order",
           "lammps_neigh_ms_per_step", "nl_update_ms_per_step",
           "nl_build_ms_per_step", "build_over_update"}


def new_row(**kw):
    row = {c: (float("nan") if c in NUMBERS else "") for c in COLUMNS}
    row.update(kw)
    return row


def checks_pass(row):
    """Every check the row has (True/False columns; empty ones did not apply) passed."""
    return all(v is not False for v in row.values())


def compare(case, lmp, x, box, radii_cut, radii_list, lmp_pairs, nl_args, repeats, rows, order=None, vesin=None):
    """Times ours, NeighborList, cKDTree and ASE on x and checks the pairs;
    appends a row. lmp: run_lammps's figures; lmp_pairs: LAMMPS's pairs
    within the force cutoff (None: not dumped); nl_args: (cutoff, skin,
    radii) of NeighborList's list of LAMMPS's reach, and (cutoff, below) of
    the one checked against lmp_pairs; order: LAMMPS's memory order of the
    atoms (read_order), in which NeighborList is timed again."""
    atoms, lmp_ms = len(x), lmp["build_ms"]
    (nl_cutoff, nl_skin, nl_radii), (chk_cutoff, chk_below) = nl_args
    first_ms = fresh_first_ms("spheres", x, box, radii_list)
    nl_first = fresh_first_ms("list", x, box, nl_radii, nl_cutoff, nl_skin)
    ours_ms, ours = median_ms(lambda: broadphase.find_sphere_pairs(x, radii_list, threads=1, boxsize=box), repeats)
    ours_ms2, _ = median_ms(lambda: broadphase.find_sphere_pairs(x, radii_list, threads=2, boxsize=box), repeats)
    ours = sorted_pairs(ours)
    same_as_lammps = ""
    if lmp_pairs is not None:
        within_cut = sorted_pairs(broadphase.find_sphere_pairs(x, radii_cut[0], boxsize=box))
        if radii_cut[1] is not None:  # and closer than LAMMPS's per-type force cutoff
            d = x[within_cut[:, 1]] - x[within_cut[:, 0]]
            d -= box * np.round(d / box)
            within_cut = within_cut[np.einsum("ij,ij->i", d, d) < radii_cut[1] ** 2]
        same_as_lammps = same(within_cut, lmp_pairs)
    kd_ms, same_as_kd = float("nan"), ""
    if cKDTree is not None and np.isscalar(radii_list):
        kd_ms, kd = median_ms(lambda: cKDTree(x, boxsize=box).query_pairs(2 * radii_list, output_type="ndarray"),
                              max(1, repeats // 2))
        same_as_kd = same(sorted_pairs(kd), ours)
    ase_ms, dropin_ms, dropin_same = float("nan"), float("nan"), ""
    if neighbor_list is not None and np.isscalar(radii_list) and len(x) <= ASE_MAX:
        a = Atoms(positions=x, cell=np.diag(box), pbc=True)
        ase_ms, ase_ij = median_ms(lambda: neighbor_list("ij", a, 2 * radii_list), max(1, repeats // 2))
        dropin_ms, ij = median_ms(lambda: broadphase.neighbor_list("ij", a, 2 * radii_list), repeats)
        dropin_same = same(sorted_pairs(np.stack(ij, 1)), sorted_pairs(np.stack(ase_ij, 1)))
    v_first, v_ms, v_same = float("nan"), float("nan"), ""
    if vesin and np.isscalar(radii_list):
        v_first, v_ms, v_pairs = vesin_ms(vesin, x, box, 2 * radii_list, repeats)
        v_same = v_pairs == len(ours)
    _, nl_ms, nl_ms2, nl = time_list(x, box, nl_cutoff, nl_skin, nl_radii, repeats)
    nl_pairs, one_image = list_pairs(nl)
    nl_same = one_image and same(nl_pairs, ours)
    nl_order_ms = float("nan")
    if order is not None:  # the same atoms in the order LAMMPS holds them
        r = nl_radii[order] if nl_radii is not None and not np.isscalar(nl_radii) else nl_radii
        _, nl_order_ms, _, nl_o = time_list(np.ascontiguousarray(x[order]), box, nl_cutoff, nl_skin, r, repeats)
        o_pairs, _ = list_pairs(nl_o)
        nl_same = nl_same and same(sorted_pairs(np.sort(order[o_pairs], axis=1)), nl_pairs)
    nl_cut_same = "" if lmp_pairs is None else same(within(x, box, chk_cutoff, nl_radii, chk_below), lmp_pairs)
    row = new_row(case=case, atoms=atoms, pairs=len(ours), lammps_build_ms=lmp_ms, lammps_builds=lmp["builds"],
                  ours_ms=ours_ms, ours_first_ms=first_ms, ours_2t_ms=ours_ms2, ckdtree_ms=kd_ms, ase_ms=ase_ms,
                  ase_dropin_ms=dropin_ms, ase_dropin_same=dropin_same, vesin_ms=v_ms, vesin_first_ms=v_first,
                  vesin_same_count=v_same,
                  lammps_over_ours=lmp_ms / ours_ms, same_pairs_as_lammps=same_as_lammps,
                  same_pairs_as_ckdtree=same_as_kd,
                  lammps_pairs_within_cutoff="" if lmp_pairs is None else len(lmp_pairs),
                  lammps_neighbors=lmp["neighbors"], nl_entries=nl.entries, nl_ms=nl_ms, nl_first_ms=nl_first,
                  nl_2t_ms=nl_ms2, lammps_over_nl=lmp_ms / nl_ms, nl_lammps_order_ms=nl_order_ms,
                  lammps_over_nl_lammps_order=lmp_ms / nl_order_ms, nl_same_pairs=nl_same,
                  nl_entries_equal_lammps_neighbors=nl.entries == lmp["neighbors"],
                  nl_cutoff_same_pairs_as_lammps=nl_cut_same)
    rows.append(row)
    print(f"{case:>12} {atoms:>9,} atoms {len(ours):>11,} pairs | LAMMPS build {lmp_ms:8.1f} ms | ours {ours_ms:8.1f} ms "
          f"(first {first_ms:.1f}, 2 threads {ours_ms2:.1f}) | cKDTree {kd_ms:8.1f} ms | ASE {ase_ms:8.1f} ms "
          f"(drop-in {dropin_ms:.1f}, same: {dropin_same}) | vesin {v_ms:8.1f} ms (first {v_first:.1f}, "
          f"same count: {v_same}) | "
          f"LAMMPS/ours {lmp_ms / ours_ms:5.2f}x | same pairs as LAMMPS: {same_as_lammps}, as cKDTree: {same_as_kd}\n"
          f"{'':>12} NeighborList {nl_ms:8.1f} ms (first {nl_first:.1f}, 2 threads {nl_ms2:.1f}) | "
          f"LAMMPS/NeighborList {lmp_ms / nl_ms:5.2f}x; in LAMMPS's atom order {nl_order_ms:8.1f} ms, "
          f"{lmp_ms / nl_order_ms:5.2f}x | {nl.entries:,} entries, LAMMPS {lmp['neighbors']:,} | "
          f"same pairs as find_sphere_pairs: {nl_same}, within the cutoff as LAMMPS: {nl_cut_same}", flush=True)
    return checks_pass(row)


def triclinic_case(lmp, x, h, lmp_pairs, repeats, rows):
    """NeighborList in LAMMPS's triclinic cell (rows h), x relative to the box's origin; appends a row."""
    nl_first, nl_ms, nl_ms2, nl = time_list(x, h, LJ_CUTOFF, LJ_SKIN, None, repeats)
    nl_pairs, one_image = list_pairs(nl)
    nl_cut_same = "" if lmp_pairs is None else one_image and same(within(x, h, LJ_CUTOFF), lmp_pairs)
    lmp_ms = lmp["build_ms"]
    row = new_row(case="lj-triclinic", atoms=len(x), pairs=len(nl_pairs), lammps_build_ms=lmp_ms,
                  lammps_builds=lmp["builds"], lammps_pairs_within_cutoff="" if lmp_pairs is None else len(lmp_pairs),
                  lammps_neighbors=lmp["neighbors"], nl_entries=nl.entries, nl_ms=nl_ms, nl_first_ms=nl_first,
                  nl_2t_ms=nl_ms2, lammps_over_nl=lmp_ms / nl_ms,
                  nl_entries_equal_lammps_neighbors=one_image and nl.entries == lmp["neighbors"],
                  nl_cutoff_same_pairs_as_lammps=nl_cut_same)
    rows.append(row)
    print(f"{'lj-triclinic':>12} {len(x):>9,} atoms {len(nl_pairs):>11,} pairs | LAMMPS build {lmp_ms:8.1f} ms | "
          f"NeighborList {nl_ms:8.1f} ms (first {nl_first:.1f}, 2 threads {nl_ms2:.1f}) | "
          f"LAMMPS/NeighborList {lmp_ms / nl_ms:5.2f}x | {nl.entries:,} entries, LAMMPS {lmp['neighbors']:,} | "
          f"within the cutoff as LAMMPS: {nl_cut_same}", flush=True)
    return checks_pass(row)


def skin_case(lmp, steps, traj, box, lmp_pairs, rows):
    """Replays LAMMPS's frames traj (steps + 1, N, 3) through
    NeighborList.update and .build; appends a row."""
    nl = broadphase.NeighborList(LJ_CUTOFF, LJ_SKIN, cell=box, threads=1)
    nl.update(traj[0])  # LAMMPS's setup build
    update_ms, rebuilt, last_build = [], 0, 0
    for t in range(1, steps + 1):
        t0 = time.perf_counter()
        built = nl.update(traj[t])
        update_ms.append((time.perf_counter() - t0) * 1e3)
        if built:
            rebuilt, last_build = rebuilt + 1, t
    fresh = broadphase.NeighborList(LJ_CUTOFF, LJ_SKIN, cell=box, threads=1)
    fresh.build(traj[0])
    build_ms = []
    for t in range(1, steps + 1):
        t0 = time.perf_counter()
        fresh.build(traj[t])
        build_ms.append((time.perf_counter() - t0) * 1e3)
    up, bu = statistics.mean(update_ms), statistics.mean(build_ms)
    # The kept list: find_sphere_pairs's pairs at the frame it was built from.
    kept, one_image = list_pairs(nl)
    xb = np.mod(traj[last_build], box)
    xb[xb >= box] = 0.0
    nl_same = one_image and same(kept, sorted_pairs(broadphase.find_sphere_pairs(
        xb, (LJ_CUTOFF + LJ_SKIN) / 2, boxsize=box)))
    covers = cut_same = ""
    if lmp_pairs is not None:
        n = traj.shape[1]
        covers = bool(np.all(np.isin(lmp_pairs[:, 0] * n + lmp_pairs[:, 1], kept[:, 0] * n + kept[:, 1])))
        cut_same = same(within(traj[steps], box, LJ_CUTOFF), lmp_pairs)
    lmp_step = lmp["neigh_ms"] / steps
    row = new_row(case="lj-skin", atoms=traj.shape[1], pairs=len(kept), lammps_build_ms=lmp["build_ms"],
                  lammps_builds=lmp["builds"], lammps_pairs_within_cutoff="" if lmp_pairs is None else len(lmp_pairs),
                  lammps_neighbors=lmp["neighbors"], nl_entries=nl.entries, nl_same_pairs=nl_same,
                  nl_entries_equal_lammps_neighbors=nl.entries == lmp["neighbors"],
                  nl_cutoff_same_pairs_as_lammps=cut_same, steps=steps, lammps_neigh_ms_per_step=lmp_step,
                  nl_update_ms_per_step=up, nl_build_ms_per_step=bu, build_over_update=bu / up, nl_rebuilds=rebuilt,
                  same_rebuilds_as_lammps=rebuilt == lmp["builds"], nl_kept_covers_lammps_pairs=covers)
    rows.append(row)
    print(f"{'lj-skin':>12} {traj.shape[1]:>9,} atoms, {steps} steps | LAMMPS Neigh {lmp_step:6.2f} ms/step, "
          f"{lmp['builds']} builds | NeighborList update {up:6.2f} ms/step, {rebuilt} rebuilds; build every step "
          f"{bu:6.2f} ms/step: {bu / up:5.2f}x | {nl.entries:,} entries, LAMMPS {lmp['neighbors']:,} | "
          f"same rebuilds: {rebuilt == lmp['builds']}, kept list as find_sphere_pairs: {nl_same}, holds LAMMPS's "
          f"pairs: {covers}, within the cutoff as LAMMPS: {cut_same}", flush=True)
    return checks_pass(row)


def sizes(text):
    return [int(s) for s in text.split(",") if s]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="20,40", help="LJ lattice cells a side (20: 32,000 atoms; 80: 2,048,000)")
    ap.add_argument("--granular", default="12000,100000", help="granular bed sizes (empty: none)")
    ap.add_argument("--triclinic", default="20", help="triclinic LJ lattice cells a side (empty: none)")
    ap.add_argument("--skin-size", default="20", help="Verlet-skin LJ lattice cells a side (empty: none)")
    ap.add_argument("--skin-steps", type=int, default=100, help="steps of the Verlet-skin run (each dumped)")
    ap.add_argument("--steps", type=int, default=20, help="LAMMPS steps (each a neighbour build)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--pairs-dump-max", type=int, default=300000,
                    help="LAMMPS dumps its pairs only up to this many atoms")
    ap.add_argument("--lmp", default=shutil.which("lmp") or "lmp")
    ap.add_argument("--vesin", default=os.environ.get("VESIN_DRIVER", ""),
                    help="vesin_driver from ../shared/peers/build.sh (PARTS=vesin); empty: no vesin column")
    ap.add_argument("--out", help="CSV file to write")
    args = ap.parse_args()

    def pairs_dump(atoms, every=1):
        return PAIRS_DUMP.format(every=every) if atoms <= args.pairs_dump_max else ""

    rows, ok = [], True
    for cells in sizes(args.sizes):
        dump = pairs_dump(4 * cells**3)
        with tempfile.TemporaryDirectory() as work:
            lmp = run_lammps(args.lmp, LJ_INPUT.format(n=cells, box="", steps=args.steps, pairs=dump), work)
            lo, h, x = read_dump(os.path.join(work, "pos.dump"), ["x", "y", "z"])
            lmp_pairs = read_pairs(os.path.join(work, "pairs.dump")) if dump else None
        box = np.diag(h).copy()
        x = np.mod(x - lo, box)  # wrapped into [0, L)
        x[x >= box] = 0.0
        ok &= compare("lj", lmp, x, box, (LJ_CUTOFF / 2, None), (LJ_CUTOFF + LJ_SKIN) / 2, lmp_pairs,
                      ((LJ_CUTOFF, LJ_SKIN, None), (LJ_CUTOFF, None)), args.repeats, rows, vesin=args.vesin)
    for n in sizes(args.granular):
        dump = pairs_dump(n)
        with tempfile.TemporaryDirectory() as work:
            write_bed(os.path.join(work, "bed.data"), n)
            lmp = run_lammps(args.lmp, GRANULAR_INPUT.format(steps=args.steps, pairs=dump), work)
            lo, h, xr = read_dump(os.path.join(work, "pos.dump"), ["x", "y", "z", "radius"])
            order = read_order(os.path.join(work, "order.dump"))
            lmp_pairs = read_pairs(os.path.join(work, "pairs.dump")) if dump else None
        box = np.diag(h).copy()
        x = np.mod(xr[:, :3] - lo, box)
        x[x >= box] = 0.0
        r = np.ascontiguousarray(xr[:, 3])
        # LAMMPS's list: r_ij <= r_i + r_j + skin; property/local gives those of
        # them closer than the type's force cutoff, twice the largest radius.
        skin = GRANULAR_SKIN
        ok &= compare("granular", lmp, x, box, (r + skin / 2, 2 * r.max()), r + skin / 2, lmp_pairs,
                      ((0.0, skin, r), (skin, 2 * r.max())), args.repeats, rows, order)
    for cells in sizes(args.triclinic):
        L = cells * FCC_SIDE
        tilt = TRICLINIC_BOX.format(xy=0.1 * L, xz=0.05 * L, yz=-0.08 * L)
        dump = pairs_dump(4 * cells**3)
        with tempfile.TemporaryDirectory() as work:
            lmp = run_lammps(args.lmp, LJ_INPUT.format(n=cells, box=tilt, steps=args.steps, pairs=dump), work)
            lo, h, x = read_dump(os.path.join(work, "pos.dump"), ["x", "y", "z"])
            lmp_pairs = read_pairs(os.path.join(work, "pairs.dump")) if dump else None
        ok &= triclinic_case(lmp, np.ascontiguousarray(x - lo), h, lmp_pairs, args.repeats, rows)
    for cells in sizes(args.skin_size):
        dump = pairs_dump(4 * cells**3, args.skin_steps)
        with tempfile.TemporaryDirectory() as work:
            lmp = run_lammps(args.lmp, LJ_SKIN_INPUT.format(n=cells, box="", steps=args.skin_steps, pairs=dump),
                             work)
            t0 = time.perf_counter()
            lo, h, traj = read_trajectory(os.path.join(work, "traj.dump"), ["x", "y", "z"])
            print(f"{'':>12} read {traj.shape[0]} frames of {traj.shape[1]:,} atoms in "
                  f"{time.perf_counter() - t0:.1f} s", flush=True)
            lmp_pairs = read_pairs(os.path.join(work, "pairs.dump")) if dump else None
        if traj.shape[0] != args.skin_steps + 1:
            sys.exit(f"expected {args.skin_steps + 1} frames, read {traj.shape[0]}")
        ok &= skin_case(lmp, args.skin_steps, traj - lo, np.diag(h).copy(), lmp_pairs, rows)
    if args.out and rows:
        with open(args.out, "w") as f:
            f.write(",".join(COLUMNS) + "\n")
            for r in rows:
                f.write(",".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c]) for c in COLUMNS) + "\n")
        print("wrote", args.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
