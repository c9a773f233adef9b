#!/usr/bin/env bash
# The Scene against Jolt Physics' BroadPhaseQuadTree on the same moves
# (issue 31), two ways:
# - random subsets (JOLT_DRIVER): for each scene, `broadphase bench SCENE
#   --save-boxes`, then the Jolt driver moves a random fraction of the boxes
#   by a small gaussian step each frame, times its own update +
#   FindCollidingPairs and writes every move to a file;
# - a game (JOLT_BUILD): `broadphase bench game:N:F --save-moves` writes the
#   moves of bodies that wake in neighbourhoods, move, settle and sleep, and
#   bench/jolt/jolt_replay.cpp (ours, built here against that Jolt build)
#   replays them through Jolt;
# and `broadphase bench jolt-moves:FILE` replays each file through the
# Scene's modes (one thread, pairs read through the events). Writes
# docs/benchmarks/<machine>-scene-jolt.csv with the columns
#   scene,bodies,fraction,moved,jolt_ms,automatic_ms,grid_ms,multi_box_pruning_ms,rebuild_ms,
#   jolt_over_automatic,queries_ms,automatic_over_queries,moved_pairs,peer_pairs
# (ms: median per frame; queries: the floor, the movers' boxes queried
# against an Index built before each frame, untimed) and prints the same as a Markdown table. The pair
# counts with a moved body are checked against Jolt's on every frame by a
# separate `--verify` run (untimed).
# Environment (at least one of the first two):
#   JOLT_DRIVER  jolt_incremental, built from Jolt's public source in scratch
#                space (../shared/peers/README.md; not part of this
#                repository), run as `DRIVER FILE.npy --frames F --fractions
#                LIST --moves OUT`
#   JOLT_BUILD   a CMake build directory of Jolt's Build/ (its libJolt.a and
#                compile_commands.json, as ../shared/peers/build.sh makes):
#                jolt_replay is compiled with that build's own flags
#   SCENES       the scenes (pile:100000 uniform:100000)
#   GAMES        the game sequences (game:100000:0.01 game:100000:0.1)
#   FRACTIONS    the fractions moved a frame (0.001,0.01,0.1,1)
#   FRAMES       frames per fraction (15)
#   BUILD_DIR    the build to use (build/release)
#   MACHINE      the results' file name (default from lscpu)
# Takes about 3 minutes here.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

if [ -z "${JOLT_DRIVER:-}" ] && [ -z "${JOLT_BUILD:-}" ]; then
    echo "set JOLT_DRIVER (jolt_incremental) and/or JOLT_BUILD (a Jolt build): ../shared/peers/README.md" >&2
    exit 2
fi
bp_results_setup
csv="${bp_results}-scene-jolt.csv"
build="${BUILD_DIR:-build/release}"
cli="$build/tools/broadphase"
fractions="${FRACTIONS:-0.001,0.01,0.1,1}"
frames="${FRAMES:-15}"

bp_log "release build ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_TOOLS=ON >/dev/null
cmake --build "$build" --parallel "$bp_jobs" --target broadphase_cli

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "scene,bodies,fraction,moved,jolt_ms,automatic_ms,grid_ms,multi_box_pruning_ms,rebuild_ms,jolt_over_automatic,queries_ms,automatic_over_queries,moved_pairs,peer_pairs" >"$csv"
# One row per fraction of a move file: Jolt's "fraction=F ... median_ms=X"
# lines ($work/jolt.txt) and our replay's JSON.
rows() {
    "$cli" bench "jolt-moves:$moves" --mode automatic,grid,multi_box_pruning,rebuild,queries --threads 1 --json >"$work/ours.json"
    "$cli" bench "jolt-moves:$moves" --mode automatic --threads 1 --verify >/dev/null  # fails on any difference
    awk -v scene="$1" '
        FNR == NR {  # jolt: fraction=F moved=M median_ms=X ...
            for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            jolt[v["fraction"] + 0] = v["median_ms"]
            next
        }
        {
            line = $0; gsub(/[{}"]/, "", line); n = split(line, f, ",")
            delete o
            for (i = 1; i <= n; i++) { split(f[i], kv, ":"); o[kv[1]] = kv[2] }
            fr = o["fraction"] + 0
            if (!(fr in seen)) { seen[fr] = 1; order[++count] = fr }
            ms[fr, o["mode"]] = o["median_ms"]; bodies = o["bodies"]; moved[fr] = o["moved"]
            if (o["mode"] != "queries") { mp[fr] = o["moved_pairs"]; pp[fr] = o["peer_pairs"] }
        }
        END {
            for (k = 1; k <= count; k++) {
                fr = order[k]; a = ms[fr, "automatic"]
                q = ms[fr, "queries"]
                printf "%s,%s,%g,%s,%s,%s,%s,%s,%s,%.2f,%s,%.2f,%s,%s\n", scene, bodies, fr, moved[fr], jolt[fr], a,
                       ms[fr, "grid"], ms[fr, "multi_box_pruning"], ms[fr, "rebuild"], jolt[fr] / a, q, a / q, mp[fr], pp[fr]
            }
        }' "$work/jolt.txt" "$work/ours.json" >>"$csv"
}
if [ -n "${JOLT_DRIVER:-}" ]; then
    for scene in ${SCENES:-pile:100000 uniform:100000}; do
        bp_log "$scene"
        boxes="$work/boxes.npy" moves="$work/moves.bin"
        "$cli" bench "$scene" --save-boxes "$boxes" >/dev/null
        "$JOLT_DRIVER" "$boxes" --frames "$frames" --fractions "$fractions" --moves "$moves" 2>/dev/null >"$work/jolt.txt"
        rows "$scene"
    done
fi
if [ -n "${JOLT_BUILD:-}" ]; then
    bp_log "jolt_replay against $JOLT_BUILD"
    # Jolt checks at RegisterTypes that its user was compiled with the
    # library's feature defines: take that build's own command line.
    flags=$(python3 - "$JOLT_BUILD/compile_commands.json" <<'PY'
import json, shlex, sys
entry = next(e for e in json.load(open(sys.argv[1])) if e['file'].endswith('BroadPhaseQuadTree.cpp'))
args, keep, skip = shlex.split(entry['command'])[1:], [], False
for a in args:
    if skip:
        skip = False
    elif a in ('-o', '-c', '-include'):
        skip = True
    elif a not in ('-Werror', '-Winvalid-pch') and a != entry['file']:
        keep.append(a)
print(' '.join(shlex.quote(a) for a in keep))
PY
)
    eval "set -- $flags"
    "${CXX:-g++}" "$@" -o "$work/jolt_replay" bench/jolt/jolt_replay.cpp "$JOLT_BUILD/libJolt.a" -pthread
    for game in ${GAMES:-game:100000:0.01 game:100000:0.1}; do
        bp_log "$game"
        moves="$work/moves.bin"
        "$cli" bench "$game" --frames "$frames" --mode automatic --threads 1 --save-moves "$moves" >/dev/null
        "$work/jolt_replay" "$moves" >"$work/jolt.txt"
        rows "$game"
    done
fi
bp_log "wrote $csv"
awk -F, 'NR == 1 { print "| scene | fraction | moved | Jolt ms | automatic ms | grid | multi box pruning | rebuild | Jolt / automatic | queries ms | automatic / queries |"
                   print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"; next }
         { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' "$csv"
