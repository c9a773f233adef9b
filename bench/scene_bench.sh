#!/usr/bin/env bash
# Motion benchmarks of the incremental Scene: the table in docs/scene.md,
# every motion sequence at 100,000 boxes in every mode of `broadphase-lab
# bench` (the lab, bench/lab/: the Scene's update modes, and Bullet's
# btDbvtBroadphase when the lab was built with Bullet), each frame checked
# (--verify):
#   fall:100000, brownian:100000:{0.01,0.1,1}, static-world:100000:{0.01,0.1,1}
# Writes docs/benchmarks/<machine>-scenes.csv with the columns
#   sequence,n,fraction,mode,median_ms,min_ms,pairs,verified
# (median_ms/min_ms: ms per frame for applying the frame's moves and finding
# the pairs and events; pairs: the mean over the timed frames; verified:
# true/false for the exact Scene modes, "superset" for Bullet when its pair
# cache held every exact pair: Bullet's pairs are fat, not exact).
# bullet-sap is left out at this size: its setup is O(N^2) (minutes).
# Installs libbullet-dev first when it can (optional: without it, no Bullet rows).
# Environment: THREADS (default 1: Bullet runs on one thread), FRAMES (30),
# N (100000), BUILD_DIR (build/release), MACHINE (file name).
# Takes about 15 minutes on the 2-core EPYC.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

bp_results_setup
csv="${bp_results}-scenes.csv"
build="${BUILD_DIR:-build/release}"
threads="${THREADS:-1}"
frames="${FRAMES:-30}"
n="${N:-100000}"
lab="$build/bench/lab/broadphase-lab"

bp_ensure_deps "${bp_deps[@]}"
bp_ensure_deps "${bp_optional_deps[@]}" || bp_log "libbullet-dev not installed: no Bullet peers"
bp_log "release build ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_TOOLS=ON >/dev/null
cmake --build "$build" --parallel "$bp_jobs" --target broadphase_lab

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
for sequence in "fall:$n" "brownian:$n:0.01" "brownian:$n:0.1" "brownian:$n:1" \
    "static-world:$n:0.01" "static-world:$n:0.1" "static-world:$n:1"; do
    bp_log "$sequence"
    "$lab" bench "$sequence" --mode all --frames "$frames" --threads "$threads" --verify --json | tee -a "$results"
done

{
    echo "sequence,n,fraction,mode,median_ms,min_ms,pairs,verified"
    awk '
        function field(key,    v) {
            if (!match($0, "\"" key "\":(\"[^\"]*\"|[^,}]*)")) return ""
            v = substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
            gsub(/"/, "", v)
            return v
        }
        {
            verified = field("verified")
            if (field("exact") == "false") verified = field("covers_exact") == "true" ? "superset" : "MISSES"
            print field("kind") "," field("n") "," field("fraction") "," field("mode") "," field("median_ms") "," \
                  field("min_ms") "," field("pairs") "," verified
        }' "$results"
} >"$csv"
bp_log "wrote $csv"
cat "$csv"
