#!/usr/bin/env bash
# Real triangle meshes through the CLI's mesh reader: the example meshes of
# CGAL that Debian's libcgal-demo ships (data.tar.gz, found through
# libcgal-dev's doc folder, a link to libcgal-demo's; not in this repository),
# unpacked into build/cgal-data/, then either
#   bench/choosing_bench.sh on them (default): each of our algorithms and
#     automatic, writing docs/benchmarks/<machine>-automatic.csv; or
#   bench/peer_bench.sh on them (PEERS=1): automatic against Bullet, FCL,
#     CGAL and, with BOXPRUNING_DRIVER, Box Pruning, writing
#     docs/benchmarks/<machine>-peers.csv.
# Each prints its Markdown table too; docs/choosing.md has the figures.
# Environment:
#   MESHES      the meshes, as paths under data/meshes/ (default: the five
#               largest: refined_elephant bunny00 armadillo diplodocus
#               fandisk_large, 32,000 to 89,000 faces)
#   PEERS=1     the peers' run instead of ours alone
#   MACHINE, FRAMES, BUILD_DIR, BOXPRUNING_DRIVER as the two scripts take them
# Takes about 1 minute (ours) or 5 (peers) here.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

# libcgal-demo holds the archive: libcgal-dev alone leaves no data.tar.gz.
bp_ensure_deps libcgal-dev libcgal-demo
archive=/usr/share/doc/libcgal-dev/data.tar.gz
[ -f "$archive" ] || { echo "error: $archive not found (libcgal-demo's example data)" >&2; exit 1; }
data="build/cgal-data"
if [ ! -d "$data/data/meshes" ]; then
    mkdir -p "$data"
    tar -xzf "$archive" -C "$data" data/meshes
fi

scenes=""
for m in ${MESHES:-refined_elephant.off bunny00.off armadillo.off diplodocus.off fandisk_large.off}; do
    [ -f "$data/data/meshes/$m" ] || { echo "error: no mesh $m in $archive" >&2; exit 1; }
    scenes+="$data/data/meshes/$m "
done
if [ "${PEERS:-0}" = 1 ]; then
    SCENES="$scenes" exec bash bench/peer_bench.sh
fi
SCENES="$scenes" exec bash bench/choosing_bench.sh
