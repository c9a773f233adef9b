#!/usr/bin/env bash
# A/B of two builds of this repository, one thread, interleaved (old, new,
# old, new, ...), ROUNDS rounds (default 3), the median of the rounds: the
# seed's scenes and the other pair scenes (`broadphase bench`), the Scene on
# motion sequences (`broadphase-lab bench`), the open world
# (broadphase_open_world_bench: adding 2M statics, then a frame with 2,000
# movers) and a neighbour list on a 256,000-atom LJ liquid (lj_build.cpp,
# compiled here against each build's library: its first build in a fresh
# process and a warm one). Writes docs/benchmarks/<machine>-ab-<label>.csv
# (round,side,kind,what,ms) and prints a Markdown table.
#   OLD=build-dir NEW=build-dir LABEL=issue55 bash bench/ab/ab_bench.sh
# Each build dir needs broadphase_cli, broadphase_lab and
# broadphase_open_world_bench built (Release), and its source tree one level
# up (OLD_SRC/NEW_SRC override) for the headers.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
cd "$bp_repo_root"
bp_results_setup
: "${OLD:?OLD=old build dir}" "${NEW:?NEW=new build dir}"
OLD_SRC="${OLD_SRC:-$(dirname "$OLD")}" NEW_SRC="${NEW_SRC:-$(dirname "$NEW")}"
[ -d "$NEW_SRC/include" ] || NEW_SRC="$bp_repo_root"
LABEL="${LABEL:-ab}" ROUNDS="${ROUNDS:-3}"
work="$(mktemp -d)"
for side in old new; do
    b=$OLD s=$OLD_SRC; [ $side = new ] && b=$NEW s=$NEW_SRC
    # The old layout's headers wanted BROADPHASE_EXTERN_TEMPLATES=1 beside the library; the new ignore it.
    g++ -std=c++17 -O2 -DNDEBUG -DBROADPHASE_THREADS=1 -DBROADPHASE_EXTERN_TEMPLATES=1 -I"$s/include" \
        bench/ab/lj_build.cpp "$b/libbroadphase.a" -pthread -o "$work/lj_$side"
done
csv="${bp_results}-ab-${LABEL}.csv"
echo "round,side,kind,what,ms" > "$csv"
field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
for round in $(seq "$ROUNDS"); do
    for side in old new; do
        b=$OLD; [ $side = new ] && b=$NEW
        for s in dense20k clusters40k sparse20k sphere-mesh:88928 pile:100000 uniform:1000000; do
            ms=$("$b/tools/broadphase" bench "$s" --algorithm automatic --threads 1 --frames 30 --json | head -1 | field median_ms)
            echo "$round,$side,pairs,$s,$ms" >> "$csv"
        done
        for s in game:100000:0.01 brownian:100000:0.01 brownian:100000:0.1; do
            ms=$("$b/bench/lab/broadphase-lab" bench "$s" --mode automatic --threads 1 --json | tail -1 | field median_ms)
            echo "$round,$side,scene,$s,$ms" >> "$csv"
        done
        line=$("$b/bench/broadphase_open_world_bench" --statics 2000000 --movers 2000 --frames 30 | tail -1)
        echo "$round,$side,open_world,add 2M statics,$(echo "$line" | sed 's/.*add_ms=\([0-9.]*\).*/\1/')" >> "$csv"
        echo "$round,$side,open_world,frame,$(echo "$line" | sed 's/.*median_ms=\([0-9.]*\).*/\1/')" >> "$csv"
        line=$("$work/lj_$side" 40)
        echo "$round,$side,neighbor_list,lj256k first build,$(echo "$line" | sed 's/.*first_ms=\([0-9.]*\).*/\1/')" >> "$csv"
        echo "$round,$side,neighbor_list,lj256k warm build,$(echo "$line" | sed 's/.*warm_ms=\([0-9.]*\).*/\1/')" >> "$csv"
    done
done
rm -rf "$work"
bp_log "wrote $csv"
"$bp_python" bench/ab/ab_table.py "$csv"
