"""What the benchmarks here share: writing their rows as CSV."""

import csv


def write_csv(path, rows):
    """Writes rows (dicts with the same keys, in order) to path, when a path is given."""
    if not path:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("wrote", path)
