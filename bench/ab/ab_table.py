#!/usr/bin/env python3
"""Prints an A/B CSV of bench/ab/ (round, side, ..., ms) as a Markdown table:
per figure (every column but round, side and ms), the median ms of each side
over the rounds and new/old. Used by ab_bench.sh and ab_scene.sh.

    python3 bench/ab/ab_table.py FILE.csv
"""
import collections
import csv
import statistics
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
keys = [k for k in (rows[0].keys() if rows else []) if k not in ("round", "side", "ms")]
d = collections.defaultdict(list)
for r in rows:
    d[(tuple(r[k] for k in keys), r["side"])].append(float(r["ms"]))
print("| what | old ms | new ms | new/old |\n| --- | ---: | ---: | ---: |")
for what in dict.fromkeys(w for w, _ in d):  # in the order measured
    o, n = statistics.median(d[(what, "old")]), statistics.median(d[(what, "new")])
    print("| %s | %.4g | %.4g | %.3f |" % (": ".join(what), o, n, n / o))
