"""find_sphere_pairs against scipy.spatial.cKDTree.query_pairs on equal-radius spheres.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python/bench_spheres.py \
        --out docs/benchmarks/amd-epyc-2core-python-spheres.csv

Centers uniform in a cube sized for a solid fraction of 0.3 (each sphere
touches about 2.4 others on average, as in a loose granular packing), radius
0.5, float64. scipy's time is cKDTree(centers) + query_pairs(2 r,
output_type='ndarray') (its fastest output; one thread: query_pairs takes no
workers), ours is find_sphere_pairs(centers, r) on all cores and on one (its
own grid for similar radii), and for comparison the box path it takes with
a named algorithm (algorithm='hybrid_grid', one thread).
Both pair sets are sorted and compared: they must be identical. Median (and
minimum) wall time of --repeats runs, the two libraries alternating; the
process's CPU time too (on a shared machine it shows the work done, not the
waiting; for the threaded run it is the sum over threads).
"""

import argparse
import statistics
import sys
import time

import numpy as np

import broadphase
from bench_csv import write_csv

try:
    from scipy import __version__ as scipy_version
    from scipy.spatial import cKDTree
except ImportError:  # pragma: no cover
    sys.exit("scipy is needed for this benchmark (Debian: apt-get install python3-scipy)")


def sorted_pairs(p):
    p = np.asarray(p, np.int64)
    return p[np.lexsort((p[:, 1], p[:, 0]))]


def timed(f):
    """(wall ms, CPU ms of this process, result)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = f()
    return (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--radius", type=float, default=0.5)
    ap.add_argument("--fraction", type=float, default=0.3, help="solid volume fraction")
    ap.add_argument("--machine", default="amd-epyc-2core")
    ap.add_argument("--out", help="CSV file to write")
    args = ap.parse_args()

    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        r = args.radius
        side = (n * 4.0 / 3.0 * np.pi * r**3 / args.fraction) ** (1.0 / 3.0)
        centers = np.random.default_rng(n).uniform(0.0, side, (n, 3))
        variants = {
            "scipy_ckdtree_build_and_query_pairs": lambda: cKDTree(centers).query_pairs(2 * r, output_type="ndarray"),
            "broadphase_find_sphere_pairs_all_threads": lambda: broadphase.find_sphere_pairs(centers, r),
            "broadphase_find_sphere_pairs_1_thread": lambda: broadphase.find_sphere_pairs(centers, r, threads=1),
            # The box path (a named algorithm): boxes, the library's grid, then the exact test.
            "broadphase_box_path_hybrid_grid_1_thread": lambda: broadphase.find_sphere_pairs(
                centers, r, algorithm="hybrid_grid", threads=1
            ),
        }
        tree = cKDTree(centers)
        variants["scipy_query_pairs_only_tree_prebuilt"] = lambda: tree.query_pairs(2 * r, output_type="ndarray")
        times = {k: [] for k in variants}
        cpu = {k: [] for k in variants}
        results = {}
        for _ in range(args.repeats):
            for name, f in variants.items():
                ms, cms, out = timed(f)
                times[name].append(ms)
                cpu[name].append(cms)
                results[name] = out
        want = sorted_pairs(results["scipy_ckdtree_build_and_query_pairs"])
        for name, out in results.items():
            same = np.array_equal(sorted_pairs(out), want)
            if not same:
                sys.exit(f"{name}: pairs differ from scipy's at n={n}")
        base = statistics.median(times["scipy_ckdtree_build_and_query_pairs"])
        base_cpu = statistics.median(cpu["scipy_ckdtree_build_and_query_pairs"])
        for name, ts in times.items():
            med = statistics.median(ts)
            rows.append(
                {
                    "machine": args.machine,
                    "n": n,
                    "radius": r,
                    "fraction": args.fraction,
                    "variant": name,
                    "threads": {"broadphase_find_sphere_pairs_all_threads": broadphase.default_threads()}.get(
                        name, 1
                    ),
                    "median_ms": round(med, 3),
                    "min_ms": round(min(ts), 3),
                    "repeats": len(ts),
                    "pairs": len(want),
                    "same_pairs_as_scipy": True,
                    "speedup_vs_scipy_build_and_query": round(base / med, 2),
                    "cpu_median_ms": round(statistics.median(cpu[name]), 3),
                    "cpu_speedup_vs_scipy_build_and_query": round(base_cpu / statistics.median(cpu[name]), 2),
                }
            )
            print(f"n={n:>8} {name:45s} median {med:9.2f} ms  min {min(ts):9.2f} ms  "
                  f"pairs {len(want)}  x{base / med:6.2f} vs scipy (CPU time "
                  f"{statistics.median(cpu[name]):9.2f} ms, x{base_cpu / statistics.median(cpu[name]):6.2f})", flush=True)
    print(f"numpy {np.__version__}, scipy {scipy_version}, broadphase {broadphase.__version__}, "
          f"threads=0 means {broadphase.default_threads()}")
    write_csv(args.out, rows)


if __name__ == "__main__":
    main()
