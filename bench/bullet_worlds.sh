#!/usr/bin/env bash
# The Bullet adapter in whole Bullet worlds (issue 31, docs/bullet.md):
# broadphase_bullet_worlds steps three btDiscreteDynamicsWorlds (3,000
# falling boxes, 10,000 poured spheres, 20,000 resting boxes) on
# btDbvtBroadphase, bt32BitAxisSweep3 and ours (exact, and with fat pairs:
# ours-fat), one after the other in one process, and reports per step the whole step and its broad phase
# (updateAabbs + computeOverlappingPairs; and the latter alone, "pairs":
# updateAabbs visits every body, awake or not, whatever the broad phase),
# with the worlds' end state to check they came out alike. Writes
# docs/benchmarks/<machine>-bullet-worlds.csv with the columns
#   world,bodies,steps,broadphase,step_median_ms,step_mean_ms,bp_median_ms,bp_mean_ms,
#   pairs_median_ms,pairs_mean_ms,mean_height,top,sleeping,pairs,dbvt_over_ours_step,
#   dbvt_over_ours_bp,dbvt_over_ours_pairs
# (the last three: btDbvtBroadphase's mean over ours, on our rows) and prints
# the same as a Markdown table. Needs Bullet (Debian: libbullet-dev).
# Environment:
#   BUILD_DIR    the build to use (build/release)
#   STEPS        steps of 1/60 s per world (300)
#   MACHINE      the results' file name (default from lscpu)
# Takes about 2 minutes here.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

bp_results_setup
csv="${bp_results}-bullet-worlds.csv"
build="${BUILD_DIR:-build/release}"
bp_ensure_deps libbullet-dev
bp_log "release build ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_TOOLS=ON -DBROADPHASE_BULLET=ON >/dev/null
cmake --build "$build" --parallel "$bp_jobs" --target broadphase_bullet_worlds
exe="$build/bench/bullet/broadphase_bullet_worlds"
[ -x "$exe" ] || { echo "broadphase_bullet_worlds was not built: is Bullet (libbullet-dev) found?" >&2; exit 1; }

bp_log "worlds"
"$exe" --steps "${STEPS:-300}" --json | awk '
    {
        line = $0; gsub(/[{}"]/, "", line); n = split(line, f, ",")
        delete o
        for (i = 1; i <= n; i++) { split(f[i], kv, ":"); o[kv[1]] = kv[2] }
        row[++count] = o["world"] "," o["bodies"] "," o["steps"] "," o["broadphase"] "," o["step_median_ms"] "," \
                       o["step_mean_ms"] "," o["bp_median_ms"] "," o["bp_mean_ms"] "," o["pairs_median_ms"] "," o["pairs_mean_ms"] "," o["mean_height"] "," o["top"] "," \
                       o["sleeping"] "," o["pairs"]
        world[count] = o["world"]; bp[count] = o["broadphase"]
        step[o["world"], o["broadphase"]] = o["step_mean_ms"]; bpms[o["world"], o["broadphase"]] = o["bp_mean_ms"]
        pms[o["world"], o["broadphase"]] = o["pairs_mean_ms"]
    }
    END {
        print "world,bodies,steps,broadphase,step_median_ms,step_mean_ms,bp_median_ms,bp_mean_ms,pairs_median_ms,pairs_mean_ms,mean_height,top,sleeping,pairs,dbvt_over_ours_step,dbvt_over_ours_bp,dbvt_over_ours_pairs"
        for (i = 1; i <= count; i++) {
            w = world[i]; extra = ",,"
            if (bp[i] == "ours" && step[w, "ours"] > 0 && bpms[w, "ours"] > 0 && pms[w, "ours"] > 0)
                extra = sprintf("%.2f,%.2f,%.2f", step[w, "dbvt"] / step[w, "ours"], bpms[w, "dbvt"] / bpms[w, "ours"],
                                pms[w, "dbvt"] / pms[w, "ours"])
            print row[i] "," extra
        }
    }' >"$csv"
bp_log "wrote $csv"
awk -F, 'NR == 1 { print "| world | bodies | broad phase | step ms (median / mean) | broad phase ms (median / mean) | of which pairs ms (median / mean) | mean height | sleeping | pairs |"
                   print "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"; next }
         { printf "| %s | %s | %s | %s / %s | %s / %s | %s / %s | %s | %s | %s |\n", $1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $13, $14 }' "$csv"
