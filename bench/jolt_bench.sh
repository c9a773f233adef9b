#!/usr/bin/env bash
# The Scene against Jolt Physics' BroadPhaseQuadTree on the same moves
# (issue 31), two ways:
# - random subsets (JOLT_DRIVER): for each scene, `broadphase bench SCENE
#   --save-boxes`, then the Jolt driver moves a random fraction of the boxes
#   by a small gaussian step each frame, times its own update +
#   FindCollidingPairs and writes every move to a file;
# - a game (JOLT_BUILD): `broadphase-lab bench game:N:F --save-moves` writes the
#   moves of bodies that wake in neighbourhoods, move, settle and sleep, and
#   bench/jolt/jolt_replay.cpp (ours, built here against that Jolt build)
#   replays them through Jolt;
# and `broadphase-lab bench jolt-moves:FILE` (the lab, bench/lab/) replays each file through the
# Scene's modes (one thread, pairs read through the events); and
# - an open world (JOLT_BUILD; issue 45): S static tiles and M boxes that
#   all move every frame (bench/open_world.hpp), through the Scene
#   (build/release/bench/broadphase_open_world_bench, automatic mode) and
#   through Jolt set up as for a game (bench/jolt/jolt_open_world.cpp:
#   NON_MOVING and MOVING layers, static tiles, dynamic movers), compiled
#   like jolt_replay. Per world, REPS runs of each, interleaved (ours,
#   Jolt's, ours, ...), and the median of their per-frame medians. Writes
#   docs/benchmarks/<machine>-open-world.csv with the columns
#     statics,movers,stream,jolt_add_ms,scene_add_ms,jolt_ms,scene_ms,jolt_over_scene,scene_pairs,jolt_pairs
#   (add: creating and adding the world once, Jolt's Optimize and the
#   Scene's first update included; ms: median per frame; pairs: with a
#   mover, after the last frame, which must be equal) and prints it as a
#   Markdown table; one untimed `--verify` of ours (OPEN_WORLD_VERIFY)
#   checks the Scene's events against find_pairs every frame first.
# The first two write
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
#   ONLY         open-world: only the open world (needs JOLT_BUILD; SCENES,
#                GAMES and the CLI's and the lab's builds are skipped)
#   SCENES       the scenes (pile:100000 uniform:100000)
#   GAMES        the game sequences (game:100000:0.01 game:100000:0.1)
#   FRACTIONS    the fractions moved a frame (0.001,0.01,0.1,1)
#   FRAMES       frames per fraction (15)
#   OPEN_WORLDS  the open worlds, STATICS:MOVERS[:STREAM] (200000:2000
#                2000000:2000 2000000:20000 2000000:2000:20000); STREAM
#                tiles leave and STREAM come back each frame (--stream,
#                issue 56: a level streamed as the player walks)
#   OPEN_WORLD_FRAMES  timed frames of an open-world run (30, after 3 warm-up)
#   OPEN_WORLD_VERIFY  the world of the untimed --verify run (20000:500)
#   REPS         interleaved runs of each side per open world (3)
#   BUILD_DIR    the build to use (build/release)
#   MACHINE      the results' file name (default from lscpu)
# Takes about 3 minutes here, and the open world about 2 more (its 2M-tile
# worlds take 1-2 GB of memory a run).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

if [ -z "${JOLT_DRIVER:-}" ] && [ -z "${JOLT_BUILD:-}" ]; then
    echo "set JOLT_DRIVER (jolt_incremental) and/or JOLT_BUILD (a Jolt build): ../shared/peers/README.md" >&2
    exit 2
fi
only="${ONLY:-}"
case "$only" in
    "" | open-world) ;;
    *) echo "ONLY must be empty or open-world" >&2; exit 2 ;;
esac
if [ "$only" = open-world ] && [ -z "${JOLT_BUILD:-}" ]; then
    echo "ONLY=open-world needs JOLT_BUILD (a Jolt build): ../shared/peers/README.md" >&2
    exit 2
fi
bp_results_setup
csv="${bp_results}-scene-jolt.csv"
build="${BUILD_DIR:-build/release}"
cli="$build/tools/broadphase"      # the scenes' boxes saved
lab="$build/bench/lab/broadphase-lab"  # games' moves saved, move files replayed
fractions="${FRACTIONS:-0.001,0.01,0.1,1}"
frames="${FRAMES:-15}"

bp_log "release build ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_TOOLS=ON >/dev/null
targets=(broadphase_cli broadphase_lab)
if [ "$only" = open-world ]; then targets=(); fi
if [ -n "${JOLT_BUILD:-}" ]; then targets+=(broadphase_open_world_bench); fi
cmake --build "$build" --parallel "$bp_jobs" --target "${targets[@]}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# jolt_compile SOURCE OUTPUT: a program against $JOLT_BUILD's libJolt.a,
# with that build's own flags (Jolt checks at RegisterTypes that its user
# was compiled with the library's feature defines): that build's command
# line for one of its files, less what is that file's own.
jolt_compile() {
    local src="$1" out="$2" flags
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
    "${CXX:-g++}" "$@" -o "$out" "$src" "$JOLT_BUILD/libJolt.a" -pthread
}

# ---------------------------------------------------------------- random subsets and games (issue 31)
if [ "$only" != open-world ]; then
echo "scene,bodies,fraction,moved,jolt_ms,automatic_ms,grid_ms,multi_box_pruning_ms,rebuild_ms,jolt_over_automatic,queries_ms,automatic_over_queries,moved_pairs,peer_pairs" >"$csv"
# One row per fraction of a move file: Jolt's "fraction=F ... median_ms=X"
# lines ($work/jolt.txt) and our replay's JSON.
rows() {
    "$lab" bench "jolt-moves:$moves" --mode automatic,grid,multi_box_pruning,rebuild,queries --threads 1 --json >"$work/ours.json"
    "$lab" bench "jolt-moves:$moves" --mode automatic --threads 1 --verify >/dev/null  # fails on any difference
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
    jolt_compile bench/jolt/jolt_replay.cpp "$work/jolt_replay"
    for game in ${GAMES:-game:100000:0.01 game:100000:0.1}; do
        bp_log "$game"
        moves="$work/moves.bin"
        "$lab" bench "$game" --frames "$frames" --mode automatic --threads 1 --save-moves "$moves" >/dev/null
        "$work/jolt_replay" "$moves" >"$work/jolt.txt"
        rows "$game"
    done
fi
bp_log "wrote $csv"
awk -F, 'NR == 1 { print "| scene | fraction | moved | Jolt ms | automatic ms | grid | multi box pruning | rebuild | Jolt / automatic | queries ms | automatic / queries |"
                   print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"; next }
         { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' "$csv"
fi

# ---------------------------------------------------------------- the open world (issue 45)
if [ -n "${JOLT_BUILD:-}" ]; then
    ow_csv="${bp_results}-open-world.csv"
    ours="$build/bench/broadphase_open_world_bench"
    bp_log "jolt_open_world against $JOLT_BUILD"
    jolt_compile bench/jolt/jolt_open_world.cpp "$work/jolt_open_world"
    verify_world="${OPEN_WORLD_VERIFY:-20000:500}"
    bp_log "open world ${verify_world}: the Scene's events checked against find_pairs (untimed)"
    "$ours" --statics "${verify_world%%:*}" --movers "${verify_world##*:}" --frames 30 --verify >/dev/null
    ow_frames="${OPEN_WORLD_FRAMES:-30}"
    reps="${REPS:-3}"
    echo "statics,movers,stream,jolt_add_ms,scene_add_ms,jolt_ms,scene_ms,jolt_over_scene,scene_pairs,jolt_pairs" >"$ow_csv"
    mismatch=0
    for world in ${OPEN_WORLDS:-200000:2000 2000000:2000 2000000:20000 2000000:2000:20000}; do
        statics="${world%%:*}" rest="${world#*:}"
        movers="${rest%%:*}" stream=0
        [ "$rest" = "$movers" ] || stream="${rest#*:}"
        bp_log "open world $world ($reps runs of each, interleaved)"
        : >"$work/ow.txt"
        for ((r = 0; r < reps; r++)); do
            "$ours" --statics "$statics" --movers "$movers" --stream "$stream" --frames "$ow_frames" --mode automatic \
                >>"$work/ow.txt"
            "$work/jolt_open_world" --statics "$statics" --movers "$movers" --stream "$stream" --frames "$ow_frames" \
                >>"$work/ow.txt"
        done
        # Lines "statics=S movers=M mode=X stream=K add_ms=A median_ms=T min_ms=U pairs=P":
        # per side, the medians over the runs of add_ms and median_ms.
        awk -v statics="$statics" -v movers="$movers" -v stream="$stream" '
            function med(side, key,   n, i, j, t, v) {
                n = count[side]
                for (i = 1; i <= n; i++) v[i] = val[side, key, i]
                for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
                return v[int((n + 1) / 2)]
            }
            {
                delete kv
                for (i = 1; i <= NF; i++) { split($i, f, "="); kv[f[1]] = f[2] }
                side = kv["mode"] == "jolt" ? "jolt" : "scene"
                k = ++count[side]
                val[side, "add", k] = kv["add_ms"]; val[side, "ms", k] = kv["median_ms"]; pairs[side] = kv["pairs"]
            }
            END {
                j = med("jolt", "ms"); s = med("scene", "ms")
                printf "%s,%s,%s,%.1f,%.1f,%.3f,%.3f,%.2f,%s,%s\n", statics, movers, stream, med("jolt", "add"), med("scene", "add"),
                       j, s, j / s, pairs["scene"], pairs["jolt"]
            }' "$work/ow.txt" >>"$ow_csv"
        tail -n 1 "$ow_csv" | awk -F, '$9 != $10 { exit 1 }' || { mismatch=1; echo "open world $world: the pair counts differ" >&2; }
    done
    bp_log "wrote $ow_csv"
    awk -F, 'NR == 1 { print "| statics | movers | streamed | Jolt add ms | Scene add ms | Jolt ms | Scene ms | Jolt / Scene | pairs |"
                       print "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"; next }
             { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, ($9 == $10 ? $9 : $9 " / " $10) }' "$ow_csv"
    [ "$mismatch" = 0 ] || exit 1
fi
