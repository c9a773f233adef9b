#include "commands.hpp"

#ifndef BROADPHASE_VERSION
#define BROADPHASE_VERSION "unknown"
#endif

namespace broadphase_cli {

const char* usage_text() {
    return R"(broadphase: every overlapping pair among axis-aligned boxes

Usage:
  broadphase pairs A.npy|A.csv [B.npy|B.csv] -o PAIRS.npy|PAIRS.csv [--algorithm NAME] [--sorted]
  broadphase bench SCENE|FILE [--algorithm NAME|all] [--frames K] [--threads T] [--verify] [--json]
  broadphase scenes
  broadphase --help | --version

pairs   With one file, every overlapping pair (i, j), i < j, within it; with
        two, every pair (index in A, index in B) between them. Written to
        PAIRS, replaced only once everything has succeeded.
          -o, --output FILE     where the pairs go (.npy or .csv)
          -a, --algorithm NAME  auto (default), brute_force, sweep_and_prune,
                                uniform_grid, hybrid_grid
          --sorted              sort the pairs by (i, j); otherwise the order
                                is unspecified but the same on every run
bench   Times full frames (build + find) on one kept finder: one untimed
        warm-up frame, then K frames (stopping early after 2 s, at least 1).
        Prints the median and minimum milliseconds per frame and the pairs.
          -a, --algorithm NAME  one algorithm, or "all": every algorithm
                                (brute_force only up to 50,000 boxes), then auto
          --frames K            timed frames per algorithm (default 20)
          --threads T           recorded in the output (default 1); the
                                library is single-threaded for now
          --verify              compare the sorted pairs with brute force's
          --json                one JSON object per line per algorithm
scenes  Lists the built-in scenes: their names, box counts, descriptions.

Box files: .npy with shape (N, 6), dtype float32 '<f4' or float64 '<f8'
  (rounded to float), C order; or .csv with six numbers per line. Columns:
  minx miny minz maxx maxy maxz. In a .csv, fields are separated by commas
  with optional spaces, blank lines are ignored, and a first line of six
  fields with no number among them is a header and skipped.
Pair files: .npy with shape (K, 2), dtype uint32 '<u4'; or .csv with one
  "i,j" line per pair and no header.
Boxes touching on a face, edge or corner overlap. Invalid boxes (NaN, or
  min > max on some axis) take part in no pair; a note on stderr counts them.
Exit status: 0 success, 1 bad input or failure, 2 bad command line. Every
  error is one line on stderr.
)";
}

std::string version_text() { return std::string("broadphase ") + BROADPHASE_VERSION; }

}  // namespace broadphase_cli
