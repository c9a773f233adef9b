#!/usr/bin/env python3
"""The distributed mode's time per frame at 64 to 1,024 ranks, from figures
measured on one machine (docs/distributed.md, "A model").

    python3 bench/mpi_model.py docs/benchmarks/amd-epyc-2core-mpi.csv
    python3 bench/mpi_model.py CSV --boxes 1e9 --bandwidth 10e9 --latency 2e-6

From the CSV (bench/mpi_bench.sh), the latest speed rows on uniform:
  - 1 rank: the local find's ns per box on one core (find_ms / boxes);
  - 2 ranks from slabs (distribute "sorted": each rank starts with about
    its region, as a simulation's own domain decomposition gives): the
    pass that checks, walks and copies each box (exchange_ms per box a rank);
  - 2 ranks from random slices, less the slabs: the extra ns per box that
    moves (packing, the copy through MPI's shared memory, unpacking);
and the partition rows on uniform at the most ranks: the ghost fraction g0
at n0 boxes a rank. Ghosts are the boxes within one box width of a
region's faces, so g scales with the region's side: g(n) = g0 (n0 / n)^(1/3).
Assumed (named on the command line): one core per rank, a network of
`bandwidth` bytes/s per rank and `latency` s per message, a message to
every other rank each frame (the worst case; neighbours only would be 26),
32-byte records (float boxes), the find's cost per box unchanged at scale.
Two inputs: "aligned" (each rank holds about its region: only ghosts move)
and "arbitrary" (boxes in any order: all but 1/P of them move).
"""
import argparse
import csv


def latest(rows, part, scene_prefix, pick):
    found = [r for r in rows if r["part"] == part and r["scene"].startswith(scene_prefix) and pick(r)]
    if not found:
        raise SystemExit(f"no {part} row for {scene_prefix} in the CSV: run bench/mpi_bench.sh")
    return found[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--boxes", type=float, default=1e9)
    ap.add_argument("--bandwidth", type=float, default=10e9, help="bytes/s per rank (100 Gb/s links: ~10e9)")
    ap.add_argument("--latency", type=float, default=2e-6, help="seconds per message")
    ap.add_argument("--record", type=int, default=32, help="bytes a box on the wire (float 3-D)")
    args = ap.parse_args()

    rows = list(csv.DictReader(open(args.csv)))
    one = latest(rows, "speed", "uniform:", lambda r: r["mode"] == "mpi" and r["ranks"] == "1")
    slab = latest(rows, "speed", "uniform:", lambda r: r["mode"] == "mpi" and r["ranks"] == "2"
                  and r["distribute"] == "sorted")
    rand = latest(rows, "speed", "uniform:", lambda r: r["mode"] == "mpi" and r["ranks"] == "2"
                  and r["distribute"] == "slice")
    n1 = float(one["boxes"])
    ns_find = float(one["find_ms"]) * 1e6 / n1
    ns_pass = float(slab["exchange_ms"]) * 1e6 / (n1 / 2)
    moved = float(rand["bytes_sent_mean"]) / args.record
    ns_move = max(0.0, float(rand["exchange_ms"]) - float(slab["exchange_ms"])) * 1e6 / moved if moved else 0.0
    parts = [r for r in rows if r["part"] == "partition" and r["scene"].startswith("uniform:")]
    if not parts:
        raise SystemExit("no partition rows for uniform: run bench/mpi_bench.sh")
    top = max(parts, key=lambda r: (int(r["ranks"]), r["utc"]))
    p0 = int(top["ranks"])
    g0 = float(top["ghost_fraction"])
    n0 = float(top["boxes"]) / p0

    print(f"measured ({one['scene']}, one core a rank): local find {ns_find:.1f} ns a box, the pass over "
          f"a rank's boxes {ns_pass:.1f} ns a box, {ns_move:.1f} ns more a box that moves; ghost fraction "
          f"{g0:.3%} at {n0:,.0f} boxes a rank ({p0} ranks)")
    print(f"assumed: {args.boxes:.3g} boxes, {args.bandwidth / 1e9:g} GB/s and {args.latency * 1e6:g} us "
          f"a message per rank, {args.record} B a box")
    print()
    print("| ranks | boxes a rank | ghosts | sent a rank, aligned | sent a rank, arbitrary "
          "| compute ms | network ms, aligned / arbitrary | ms a frame, aligned / arbitrary |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in (64, 128, 256, 512, 1024):
        n = args.boxes / p
        g = g0 * (n0 / n) ** (1.0 / 3.0)
        held = n * (1 + g)
        moved_a = g * n
        moved_r = (1 - 1 / p) * held
        compute = (ns_pass * n + ns_find * held) * 1e-6
        lat = (p - 1) * args.latency * 1e3
        net_a = moved_a * args.record / args.bandwidth * 1e3 + lat + ns_move * moved_a * 1e-6
        net_r = moved_r * args.record / args.bandwidth * 1e3 + lat + ns_move * moved_r * 1e-6
        print(f"| {p:,} | {n:,.0f} | {g:.3%} | {moved_a * args.record / 1e6:.2f} MB | "
              f"{moved_r * args.record / 1e6:,.0f} MB | {compute:,.0f} | {net_a:.1f} / {net_r:,.0f} "
              f"| {compute + net_a:,.0f} / {compute + net_r:,.0f} |")


if __name__ == "__main__":
    main()
