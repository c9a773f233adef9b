"""broadphase.neighbor_list against ASE's neighbor_list (and vesin's C++ call) on small periodic systems.

    flock /tmp/bp-bench.lock env PYTHONPATH=build/release/python /usr/bin/python3 bench/python/bench_ase.py \\
        --machine intel-xeon-2core --vesin ../scratch/peers/bin/vesin_driver \\
        --out docs/benchmarks/intel-xeon-2core-ase.csv

Systems: n atoms uniform at random in a periodic cube at copper's number
density (0.0847 per cubic angstrom), cutoff 5 angstrom (an ML potential's):
about 44 neighbours an atom; at 64 atoms the cube (9.1 angstrom) is under
twice the cutoff, so atoms see several images of each other. Ours is
broadphase.neighbor_list(q, atoms, cutoff) with q = "ijdDS" (ASE's quantities
for a potential) and "ij"; ASE's is ase.neighborlist.neighbor_list("ijdDS",
...). Every call's output is checked: ours equals ASE's sorted by (i, j, S),
D and d to the last bit. One thread (the library's lists use one below
8,192 atoms anyway).

Times per call: the median (and minimum) of --repeats timed loops, each the
mean over enough calls to last about 20 ms; "first" is the first call in a
fresh interpreter (after imports and building the Atoms), median of
--fresh processes. The batch row: --batch systems of 64 atoms in one
neighbor_list_batch call, against the same systems through neighbor_list
one by one and through ASE one by one.

vesin (--vesin: the driver built by ../shared/peers/build.sh with
PARTS=vesin, Luthaf/vesin's CPU cell list, -O3): its C++ call alone
(vesin_driver POS.npy L L L CUTOFF --full --shifts: a full list with shifts,
i j S, vectors and distances; its own memory reused, no Python and no
output arrays), so the row is labelled vesin_cpp_call: a C++ time beside
our Python-call times, not the same measurement.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import broadphase
from bench_csv import write_csv

try:
    import ase
    from ase import Atoms
    from ase.neighborlist import neighbor_list as ase_neighbor_list
except ImportError:  # pragma: no cover
    sys.exit("ASE is needed for this benchmark (Debian: apt-get install python3-ase)")

DENSITY = 0.0847  # atoms per cubic angstrom (copper)


def system(n, seed):
    rng = np.random.default_rng(seed)
    L = (n / DENSITY) ** (1 / 3)
    return Atoms(numbers=np.full(n, 29), positions=rng.uniform(0, L, (n, 3)), cell=[L, L, L], pbc=True), L


def same_as_ase(a, cutoff):
    i, j, d, D, S = ase_neighbor_list("ijdDS", a, cutoff)
    o = np.lexsort((S[:, 2], S[:, 1], S[:, 0], j, i))
    ours = broadphase.neighbor_list("ijdDS", a, cutoff)
    return all(np.array_equal(x, y[o]) for x, y in zip(ours, (i, j, d, D, S))), len(i)


def per_call_ms(f, repeats, target_s=0.02):
    """Median and minimum over `repeats` loops of the mean time of one call (ms)."""
    f()
    t0 = time.perf_counter()
    f()
    one = max(time.perf_counter() - t0, 1e-7)
    calls = max(1, int(target_s / one))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        times.append((time.perf_counter() - t0) / calls * 1e3)
    return statistics.median(times), min(times)


FRESH = r"""
import sys, time, numpy as np
n, seed, cutoff, which = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
from ase import Atoms
import broadphase
from ase.neighborlist import neighbor_list as ase_neighbor_list
rng = np.random.default_rng(seed)
L = (n / %r) ** (1 / 3)
a = Atoms(numbers=np.full(n, 29), positions=rng.uniform(0, L, (n, 3)), cell=[L, L, L], pbc=True)
f = (lambda: broadphase.neighbor_list("ijdDS", a, cutoff)) if which == "ours" else (lambda: ase_neighbor_list("ijdDS", a, cutoff))
t0 = time.perf_counter()
f()
print((time.perf_counter() - t0) * 1e3)
""" % DENSITY


def first_call_ms(n, seed, cutoff, which, fresh):
    times = []
    for _ in range(fresh):
        out = subprocess.run([sys.executable, "-c", FRESH, str(n), str(seed), str(cutoff), which],
                             capture_output=True, text=True, check=True)
        times.append(float(out.stdout.split()[-1]))
    return statistics.median(times)


def vesin(driver, a, L, cutoff, reps):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pos.npy")
        np.save(path, np.ascontiguousarray(a.positions, np.float64))
        out = subprocess.run([driver, path, str(L), str(L), str(L), str(cutoff), "--full", "--shifts", "--reps", str(reps)],
                             capture_output=True, text=True, check=True).stdout
    v = dict(re.findall(r"(\w+)=([0-9.eE+-]+)", out))
    return float(v["first_ms"]), float(v["median_ms"]), float(v["min_ms"]), int(float(v["pairs"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="64,100,216,512,1000")
    ap.add_argument("--cutoff", type=float, default=5.0)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--fresh", type=int, default=3, help="fresh processes for the first call")
    ap.add_argument("--batch", type=int, default=100, help="systems of 64 atoms in the batch row (0: none)")
    ap.add_argument("--vesin", help="path to vesin_driver (../shared/peers); left out when not given")
    ap.add_argument("--machine", default="intel-xeon-2core")
    ap.add_argument("--out", help="CSV file to write")
    args = ap.parse_args()
    c = args.cutoff
    rows = []

    def row(n, entries, variant, quantities, first, med, mn, same, ase_med):
        rows.append(dict(machine=args.machine, n=n, cutoff=c, entries=entries, variant=variant, quantities=quantities,
                         first_call_ms=None if first is None else round(first, 4), median_ms=round(med, 4),
                         min_ms=round(mn, 4), same_as_ase=same,
                         speedup_vs_ase=None if ase_med is None else round(ase_med / med, 1)))
        r = rows[-1]
        print(f"n={n:5d} K={entries:7d} {variant:28s} {quantities:6s} first {r['first_call_ms']} ms, "
              f"warm {r['median_ms']:.4f} ms (min {r['min_ms']:.4f}) x{r['speedup_vs_ase']} vs ASE", flush=True)

    for seed, n in enumerate(int(s) for s in args.sizes.split(",")):
        a, L = system(n, seed)
        same, K = same_as_ase(a, c)
        if not same:
            sys.exit(f"n={n}: broadphase.neighbor_list differs from ASE's")
        ase_med, ase_min = per_call_ms(lambda: ase_neighbor_list("ijdDS", a, c), args.repeats)
        ase_first = first_call_ms(n, seed, c, "ase", args.fresh)
        row(n, K, "ase_neighbor_list", "ijdDS", ase_first, ase_med, ase_min, True, ase_med)
        first = first_call_ms(n, seed, c, "ours", args.fresh)
        for q in ("ijdDS", "ij"):
            med, mn = per_call_ms(lambda: broadphase.neighbor_list(q, a, c), args.repeats)
            row(n, K, "broadphase_neighbor_list", q, first if q == "ijdDS" else None, med, mn, same, ase_med)
        if args.vesin:
            vf, vm, vmin, pairs = vesin(args.vesin, a, L, c, max(20, 2000 // n))
            row(n, pairs, "vesin_cpp_call", "ijSdD", vf, vm, vmin, None, ase_med)

    if args.batch:
        systems = [system(64, 1000 + s)[0] for s in range(args.batch)]
        x = np.concatenate([s.positions for s in systems])
        cells = np.array([s.cell.array for s in systems])
        pbc = np.ones((len(systems), 3), bool)
        index = np.repeat(np.arange(len(systems)), 64)
        out = broadphase.neighbor_list_batch("ijdDS", x, cells, pbc, index, c)
        ref = [broadphase.neighbor_list("ijdDS", s, c) for s in systems]
        same = bool(np.array_equal(out[0], np.concatenate([r[0] + 64 * k for k, r in enumerate(ref)])) and
                    np.array_equal(out[3], np.concatenate([r[3] for r in ref])))
        same = same and all(same_as_ase(s, c)[0] for s in systems[:10])
        n, K = len(x), len(out[0])
        ase_med, ase_min = per_call_ms(lambda: [ase_neighbor_list("ijdDS", s, c) for s in systems], max(3, args.repeats // 2))
        row(n, K, f"ase_loop_{len(systems)}x64", "ijdDS", None, ase_med, ase_min, True, ase_med)
        med, mn = per_call_ms(lambda: [broadphase.neighbor_list("ijdDS", s, c) for s in systems], args.repeats)
        row(n, K, f"broadphase_loop_{len(systems)}x64", "ijdDS", None, med, mn, same, ase_med)
        med, mn = per_call_ms(lambda: broadphase.neighbor_list_batch("ijdDS", x, cells, pbc, index, c), args.repeats)
        row(n, K, f"broadphase_batch_{len(systems)}x64", "ijdDS", None, med, mn, same, ase_med)

    print(f"ase {ase.__version__}, numpy {np.__version__}, broadphase {broadphase.__version__}")
    write_csv(args.out, rows)


if __name__ == "__main__":
    main()
