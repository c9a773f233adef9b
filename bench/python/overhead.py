"""The Python call's overhead over the same C++ call, on the same boxes.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python/overhead.py \
        --out docs/benchmarks/amd-epyc-2core-python-overhead.csv

The scene is the CLI's uniform:100000 (broadphase.builtin_scene gives the
same boxes as `broadphase bench uniform:100000`), as an (N, 6) float32
C-contiguous array. Each Python call is compared with the C++ code it runs,
timed in C++ by a hook compiled into the module (broadphase._core.
_time_cpp_find_pairs: same compiler, same flags, same boxes):

  find_pairs(rows)            vs rows_oneshot: Boxes::assign_rows + a new
                                PairFinder per call (what find_pairs does)
  PairFinder.find_pairs(rows) vs rows_kept: assign_rows into kept Boxes +
                                a kept PairFinder
  PairFinder.find_pairs(rows) vs soa_kept: a kept PairFinder on ready Boxes
                                with a kept output vector, what `broadphase
                                bench` times (no transposition, no new array)

The Python time is perf_counter around the call: argument checks, the
transposition, the search, the array around the result. The machine is
shared and noisy, so C++ and Python frames alternate one by one and the
medians over all frames are compared; every result is freed outside the
timed region.
"""

import argparse
import statistics
import sys
import time

import broadphase
from bench_csv import write_csv
from broadphase import _core


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scene", default="uniform:100000")
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--threads", default="1,0")
    ap.add_argument("--machine", default="amd-epyc-2core")
    ap.add_argument("--out")
    args = ap.parse_args()

    boxes = broadphase.builtin_scene(args.scene)
    comparisons = [
        ("find_pairs", "rows_oneshot"),
        ("PairFinder.find_pairs", "rows_kept"),
        ("PairFinder.find_pairs", "soa_kept"),
    ]
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        finder = broadphase.PairFinder()
        calls = {
            "find_pairs": lambda: broadphase.find_pairs(boxes, threads=threads),
            "PairFinder.find_pairs": lambda: finder.find_pairs(boxes, threads=threads),
        }
        for pyname, cname in comparisons:
            py_ms, cpp_ms = [], []
            for f in range(args.frames + 2):  # two warm-up frames each
                c, cpp_pairs = _core._time_cpp_find_pairs(boxes, threads, cname)
                t0 = time.perf_counter()
                p = calls[pyname]()
                t1 = time.perf_counter()
                py_pairs = len(p)
                del p
                if cpp_pairs != py_pairs:
                    sys.exit(f"pair counts differ: C++ {cpp_pairs}, Python {py_pairs}")
                if f >= 2:
                    cpp_ms.append(c)
                    py_ms.append((t1 - t0) * 1e3)
            p, c = statistics.median(py_ms), statistics.median(cpp_ms)
            # Frame by frame ratio: both sides of a frame saw nearly the same load.
            ratio = statistics.median([a / b for a, b in zip(py_ms, cpp_ms)])
            nthreads = threads or broadphase.default_threads()
            rows.append(
                {
                    "machine": args.machine,
                    "scene": args.scene,
                    "n": len(boxes),
                    "threads": nthreads,
                    "python_call": pyname,
                    "cpp_call": cname,
                    "python_median_ms": round(p, 3),
                    "cpp_median_ms": round(c, 3),
                    "overhead_pct": round(100 * (p / c - 1), 1),
                    "median_frame_ratio_pct": round(100 * (ratio - 1), 1),
                    "python_min_ms": round(min(py_ms), 3),
                    "cpp_min_ms": round(min(cpp_ms), 3),
                    "pairs": py_pairs,
                    "frames": len(py_ms),
                }
            )
            print(f"threads {nthreads}: {pyname:22s} {p:8.3f} ms  vs C++ {cname:12s} {c:8.3f} ms  "
                  f"overhead {100 * (p / c - 1):+5.1f}% (median of frame ratios {100 * (ratio - 1):+5.1f}%; "
                  f"min {min(py_ms):.3f} vs {min(cpp_ms):.3f} ms)", flush=True)
    write_csv(args.out, rows)


if __name__ == "__main__":
    main()
