#!/usr/bin/env bash
# A/B of the Scene between two builds (issue 55: the Scene behind its
# pointer), one thread, interleaved (old, new; new, old; ...), ROUNDS rounds
# (default 9): the frames of broadphase-lab bench (automatic) on the game
# and brownian motion, the open world (2M statics, 2,000 movers), and the
# per-call costs of scene_calls.cpp (compiled here against each build),
# written as ms for 1,000 calls. Writes
# docs/benchmarks/<machine>-ab-<label>.csv (round,side,what,ms) and prints
# the medians.
#   OLD=build-dir NEW=build-dir LABEL=issue55-scene bash bench/ab/ab_scene.sh
# Each build dir needs broadphase_lab and broadphase_open_world_bench
# (Release), and its source tree two levels up (OLD_SRC/NEW_SRC override).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
cd "$bp_repo_root"
bp_results_setup
: "${OLD:?OLD=old build dir}" "${NEW:?NEW=new build dir}"
OLD_SRC="${OLD_SRC:-$(dirname "$(dirname "$OLD")")}" NEW_SRC="${NEW_SRC:-$(dirname "$(dirname "$NEW")")}"
LABEL="${LABEL:-ab-scene}" ROUNDS="${ROUNDS:-9}"
work="$(mktemp -d)"
for side in old new; do
    b=$OLD s=$OLD_SRC; [ $side = new ] && b=$NEW s=$NEW_SRC
    g++ -std=c++17 -O2 -DNDEBUG -DBROADPHASE_THREADS=1 -I"$s/include" bench/ab/scene_calls.cpp "$b/libbroadphase.a" \
        -pthread -o "$work/calls_$side"
done
csv="${bp_results}-ab-${LABEL}.csv"
echo "round,side,what,ms" > "$csv"
field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
key() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p"; }
for round in $(seq "$ROUNDS"); do
    order="old new"; [ $((round % 2)) = 0 ] && order="new old"
    for side in $order; do
        b=$OLD; [ $side = new ] && b=$NEW
        for s in game:100000:0.01 brownian:100000:0.1 brownian:100000:0.01; do
            ms=$("$b/bench/lab/broadphase-lab" bench "$s" --mode automatic --threads 1 --json | tail -1 | field median_ms)
            echo "$round,$side,$s frame,$ms" >> "$csv"
        done
        line=$("$b/bench/broadphase_open_world_bench" --statics 2000000 --movers 2000 --frames 30 | tail -1)
        echo "$round,$side,open world frame,$(echo "$line" | key median_ms)" >> "$csv"
        echo "$round,$side,open world add 2M statics,$(echo "$line" | key add_ms)" >> "$csv"
        line=$("$work/calls_$side")
        per1000() { awk -v x="$1" 'BEGIN { printf "%.5f", x / 1000 }'; }  # ns a call -> ms for 1,000 calls
        echo "$round,$side,1000 move() of random bodies,$(per1000 "$(echo "$line" | key move_ns)")" >> "$csv"
        echo "$round,$side,1000 move() of bodies in cache,$(per1000 "$(echo "$line" | key cached_move_ns)")" >> "$csv"
        echo "$round,$side,1000 box() + contains(),$(per1000 "$(echo "$line" | key box_ns)")" >> "$csv"
        echo "$round,$side,1000 for_each_overlap(),$(per1000 "$(echo "$line" | key query_ns)")" >> "$csv"
    done
done
rm -rf "$work"
bp_log "wrote $csv"
"$bp_python" bench/ab/ab_table.py "$csv"
