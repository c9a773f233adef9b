#!/usr/bin/env bash
# Our find_pairs against other libraries' broad phases used one-shot (issue
# 16): every built-in scene at one thread, `broadphase-lab bench SCENE
# --algorithm all --threads 1 --verify --json` (the lab, bench/lab/), i.e.
# every algorithm of ours, automatic, then
# the peers this build has (bench/peers/: CGAL's box_self_intersection_d,
# FCL's DynamicAABBTreeCollisionManager, Bullet's btDbvtBroadphase; see
# docs/peers.md), each frame = build + every pair, all in one process per scene.
# Writes docs/benchmarks/<machine>-peers.csv with the columns
#   scene,n,pairs,automatic_algorithm,ours_automatic_ms,best_ours_ms,best_ours_algorithm,ours_verified,
#   bullet_dbvt_ms,bullet_dbvt_ratio,bullet_dbvt_check, fcl_..., cgal_...
#   [,boxpruning_ms,boxpruning_ratio,boxpruning_check]
# (ms: median per frame; ratio: peer ms / ours_automatic_ms, > 1 means ours is
# faster; check: equal / superset / differs against brute force with
# --verify, else count-equal / count-differs against our pair count, empty
# when the peer was not run) and prints the same as a Markdown table.
#
# Installs libcgal-dev, libfcl-dev and libbullet-dev first when it can (each
# optional: without one, its columns stay empty).
# Environment:
#   BUILD_DIR    the build to use (build/release); configured, the CLI and the
#                lab built
#   SCENES       the scenes (default: the adaptive-grid article's scenes, then every real-data
#                scene `broadphase scenes` lists, at REAL_N boxes)
#   REAL_N       size of the real-data scenes (100000)
#   FRAMES       timed frames per algorithm (10; each stops after 2 s, at least 1)
#   VERIFY_MAX   --verify (brute force, O(n^2)) up to this many boxes (200000);
#                above, the peers' pair counts are compared with ours
#   PEER_MAX_N   no peers above this many boxes (2000000): at 10^6 boxes each
#                peer takes 2-3 s a frame here, so the cap only guards bigger runs
#   BOXPRUNING_DRIVER  optional: an executable run as `DRIVER FILE.npy` on each
#                scene's boxes (written by `broadphase bench SCENE --save-boxes`),
#                that prints the median ms of one complete box pruning as the
#                first number of its first line, optionally the pair count as
#                the second; adds the boxpruning columns. Not part of this
#                repository (docs/peers.md says how it was measured).
#   MACHINE      the results' file name (default from lscpu)
# Takes about 30 minutes on the loaded 2-core EPYC: brute-force verification of the
# 100k-face meshes and Bullet's seconds-long one-shot builds there dominate.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

bp_results_setup
csv="${bp_results}-peers.csv"
build="${BUILD_DIR:-build/release}"
frames="${FRAMES:-10}"
real_n="${REAL_N:-100000}"
verify_max="${VERIFY_MAX:-200000}"
peer_max_n="${PEER_MAX_N:-2000000}"
driver="${BOXPRUNING_DRIVER:-}"
cli="$build/tools/broadphase"      # the scenes, their boxes saved
lab="$build/bench/lab/broadphase-lab"  # ours and the peers timed

bp_ensure_deps "${bp_deps[@]}"
for pkg in libcgal-dev libfcl-dev libbullet-dev; do
    bp_ensure_deps "$pkg" || bp_log "$pkg not installed: its peer is left out"
done
bp_log "release build ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_TOOLS=ON >/dev/null
cmake --build "$build" --parallel "$bp_jobs" --target broadphase_cli broadphase_lab

if [ -n "${SCENES:-}" ]; then
    read -r -a scenes <<<"$SCENES"
else
    scenes=(sparse20k dense20k stretched40k clusters40k mixed20k uniform:1000000 identical:20000 pointclouds10k)
    # The real-data scenes (fixtures/include/broadphase_fixtures/real_scenes.hpp), those this build lists.
    listed="$("$cli" scenes | awk '{print $1}')"
    for kind in sphere-mesh torus-mesh terrain soup scan pile voxels hair refined-mesh spread-clusters stadium clusters; do
        if printf '%s\n' "$listed" | grep -qx "$kind:N"; then scenes+=("$kind:$real_n"); fi
    done
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
results="$work/results.jsonl"
: >"$results"
for scene in "${scenes[@]}"; do
    # The box count decides --verify and the peers; one untimed-size frame finds it.
    n="$("$cli" bench "$scene" --algorithm automatic --threads 1 --frames 1 --json |
        sed -n 's/.*"n":\([0-9]*\).*/\1/p')"
    args=(--algorithm all --threads 1 --frames "$frames" --json)
    if [ "$n" -gt "$peer_max_n" ]; then
        args[1]=ours
        bp_log "$scene: $n boxes, more than PEER_MAX_N=$peer_max_n: no peers"
    fi
    if [ "$n" -le "$verify_max" ]; then args+=(--verify); fi
    bp_log "$scene ($n boxes): bench ${args[*]}"
    "$lab" bench "$scene" "${args[@]}" | tee -a "$results"
    if [ -n "$driver" ]; then
        "$cli" bench "$scene" --save-boxes "$work/boxes.npy"
        # The driver prints "MS PAIRS", or "median_ms=MS min_ms=... pairs=PAIRS"
        # (../shared/peers' driver).
        read -r bp_ms bp_pairs _ < <("$driver" "$work/boxes.npy" | head -n 1 |
            sed -E 's/.*median_ms=([^ ]+).* pairs=([^ ]+).*/\1 \2/') || true
        printf '{"scene":"%s","n":%s,"algorithm":"boxpruning","median_ms":%s,"pairs":%s}\n' \
            "$scene" "$n" "${bp_ms:-}" "${bp_pairs:-}" | tee -a "$results"
        rm -f "$work/boxes.npy"
    fi
done

awk -v with_driver="${driver:+1}" '
    function field(key,    v) {
        if (!match($0, "\"" key "\":(\"[^\"]*\"|[^,}]*)")) return ""
        v = substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
        gsub(/"/, "", v)
        return v
    }
    function ratio(ms) { return (ms == "" || automatic_ms[s] + 0 == 0) ? "" : sprintf("%.2f", ms / automatic_ms[s]) }
    function check(p,    rel) {
        if (!((s, p) in ms)) return ""
        if (rel_of[s, p] != "") return rel_of[s, p]
        if (pairs_of[s, p] == "") return ""
        return pairs_of[s, p] == pairs[s] ? "count-equal" : "count-differs"
    }
    {
        s = field("scene"); a = field("algorithm")
        if (!(s in seen)) { seen[s] = 1; order[++count] = s; ours_ok[s] = "true" }
        n[s] = field("n")
        if (a == "automatic") {
            automatic_ms[s] = field("median_ms"); pairs[s] = field("pairs"); chosen[s] = field("chosen")
        }
        if (field("peer") == "" && a != "boxpruning") {
            m = field("median_ms")
            if (!(s in best) || m + 0 < best[s] + 0) { best[s] = m; best_alg[s] = a == "automatic" ? "automatic (" field("chosen") ")" : a }
            v = field("verified")
            if (v == "false") ours_ok[s] = "false"
            else if (v == "null" && ours_ok[s] == "true") ours_ok[s] = "-"
        } else {
            ms[s, a] = field("median_ms"); pairs_of[s, a] = field("pairs"); rel_of[s, a] = field("relation")
        }
    }
    END {
        split("bullet-dbvt fcl cgal", peer, " ")
        peers = 3
        if (with_driver) peer[++peers] = "boxpruning"
        header = "scene,n,pairs,automatic_algorithm,ours_automatic_ms,best_ours_ms,best_ours_algorithm,ours_verified"
        for (k = 1; k <= peers; k++) {
            c = peer[k]; gsub(/-/, "_", c)
            header = header "," c "_ms," c "_ratio," c "_check"
        }
        print header
        for (i = 1; i <= count; i++) {
            s = order[i]
            row = s "," n[s] "," pairs[s] "," chosen[s] "," automatic_ms[s] "," best[s] "," best_alg[s] "," ours_ok[s]
            for (k = 1; k <= peers; k++) {
                p = peer[k]
                m = ((s, p) in ms) ? ms[s, p] : ""
                row = row "," m "," ratio(m) "," check(p)
            }
            print row
        }
    }' "$results" >"$csv"
bp_log "wrote $csv"

# The same as a Markdown table (docs/peers.md): ms, and in brackets peer / ours (automatic).
awk -F, '
    NR == 1 {
        for (k = 1; k <= NF; k++) col[$k] = k
        line = "| scene | boxes | pairs | ours: automatic ms | best of ours ms |"
        rule = "| --- | ---: | ---: | ---: | ---: |"
        np = 0
        for (k = 9; k <= NF; k += 3) {
            name = $k; sub(/_ms$/, "", name); gsub(/_/, "-", name)
            peer_col[++np] = k; line = line " " name " ms (x ours) |"; rule = rule " ---: |"
        }
        print line; print rule
        next
    }
    {
        line = "| " $1 " | " $2 " | " $3 " | " $5 " (" $4 ") | " $6 " |"
        for (j = 1; j <= np; j++) {
            k = peer_col[j]
            cell = $k == "" ? "-" : $k " (" $(k + 1) "x)"
            if ($(k + 2) != "" && $(k + 2) != "equal" && $(k + 2) != "count-equal") cell = cell " " $(k + 2)
            line = line " " cell " |"
        }
        print line
    }' "$csv"
