#!/usr/bin/env bash
# automatic against the best of our algorithms, scene by scene (docs/choosing.md):
# `broadphase bench SCENE --algorithm ours --threads 1 --json` on every
# built-in one-set scene at its default size, then the real-data scenes at
# 10^6 boxes. Writes docs/benchmarks/<machine>-automatic.csv with the columns
#   scene,n,pairs,sweep_and_prune_ms,uniform_grid_ms,hybrid_grid_ms,adaptive_grid_ms,
#   automatic_ms,automatic_algorithm,best_ms,best_algorithm,automatic_over_best
# (ms: the minimum per frame over the frames run; best: the fastest of the
# four; brute force left out, it only wins below ~200 boxes) and prints the
# same as a Markdown table.
# Environment:
#   BUILD_DIR   the build to use (build/release); the CLI is built there
#   SCENES      the scenes (default: all of the above)
#   FRAMES      timed frames per algorithm (15; each stops after 2 s)
#   MACHINE     the results' file name (default from lscpu)
# Takes about 5 minutes here.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

bp_results_setup
csv="${bp_results}-automatic.csv"
build="${BUILD_DIR:-build/release}"
frames="${FRAMES:-15}"
cli="$build/tools/broadphase"

bp_ensure_deps "${bp_deps[@]}"
bp_log "release build ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_TOOLS=ON >/dev/null
cmake --build "$build" --parallel "$bp_jobs" --target broadphase_cli

default_scenes="sparse20k dense20k stretched40k clusters40k mixed20k pointclouds10k identical:20000 uniform:100000
sphere-mesh torus-mesh terrain soup scan pile voxels hair refined-mesh spread-clusters stadium:100000 clusters:100000
uniform:1000000 sphere-mesh:1000000 torus-mesh:1000000 terrain:1000000 soup:1000000 scan:1000000 pile:1000000"
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
for scene in ${SCENES:-$default_scenes}; do
    bp_log "$scene"
    "$cli" bench "$scene" --algorithm ours --threads 1 --frames "$frames" --json 2>/dev/null >>"$results"
done

# One JSON object a line: pick the fields by name.
awk '
function field(line, name,    m) {
    if (match(line, "\"" name "\":\"?[^,\"}]*")) {
        m = substr(line, RSTART, RLENGTH)
        sub("\"" name "\":\"?", "", m)
        return m
    }
    return ""
}
{
    s = field($0, "scene"); a = field($0, "algorithm"); c = field($0, "chosen")
    if (!(s in seen)) { seen[s] = 1; order[++count] = s; n[s] = field($0, "n"); pairs[s] = field($0, "pairs") }
    ms[s, a] = field($0, "min_ms")
    if (a == "automatic") chosen[s] = c
}
END {
    print "scene,n,pairs,sweep_and_prune_ms,uniform_grid_ms,hybrid_grid_ms,adaptive_grid_ms,automatic_ms,automatic_algorithm,best_ms,best_algorithm,automatic_over_best"
    split("sweep_and_prune uniform_grid hybrid_grid adaptive_grid", algos, " ")
    for (i = 1; i <= count; ++i) {
        s = order[i]; best = ""; best_algo = ""; line = s "," n[s] "," pairs[s]
        for (k = 1; k <= 4; ++k) {
            t = ms[s, algos[k]]; line = line "," t
            if (t != "" && (best == "" || t + 0 < best + 0)) { best = t; best_algo = algos[k] }
        }
        ratio = (best != "" && ms[s, "automatic"] != "") ? sprintf("%.2f", ms[s, "automatic"] / best) : ""
        print line "," ms[s, "automatic"] "," chosen[s] "," best "," best_algo "," ratio
    }
}' "$results" >"$csv"

bp_log "wrote $csv"
awk -F, 'NR == 1 { print "| scene | n | sweep and prune | uniform grid | hybrid grid | adaptive grid | automatic | automatic picks | automatic / best |"
                   print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"; next }
         { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $4, $5, $6, $7, $8, $9, $12 }' "$csv"
