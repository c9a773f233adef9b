#!/usr/bin/env bash
# The distributed mode's measurements (docs/distributed.md), with
# broadphase-mpi bench on the built-in scenes:
#
#   1. speed: 1 and 2 ranks (one thread each) against one process on one and
#      two threads (broadphase bench), ms per frame and its split;
#   2. partition: for P = 1..16 ranks (oversubscribed past the cores, so
#      times are not meaningful there), the ghost fraction, the bytes each
#      rank sends and the largest rank's boxes against the mean.
#
#   bash bench/mpi_bench.sh                      # 10^7 boxes, both parts
#   bash bench/mpi_bench.sh --n 1000000 --max-ranks 8 --frames 5
#   bash bench/mpi_bench.sh --only speed         # or: --only partition
#
# Appends rows to docs/benchmarks/<machine>-mpi.csv (UTC time, commit, part,
# scene, ranks, threads per rank, mode, how boxes start on the ranks, frames, median and min ms per frame,
# the phases' ms (largest over the ranks), boxes, pairs, ghost fraction,
# largest/mean boxes held, bytes sent per rank (mean and largest), and
# whether rank 0 verified the pairs against one process).
# Environment: BUILD_DIR (default build/release), MACHINE (file name), JOBS.
# On the 2-core EPYC, 10^7 boxes: about 15 minutes for both parts.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

n=10000000
max_ranks=16
frames=5
only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --n) n="$2"; shift 2 ;;
        --max-ranks) max_ranks="$2"; shift 2 ;;
        --frames) frames="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        -h | --help) sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

bp_ensure_deps "${bp_deps[@]}" libopenmpi-dev openmpi-bin
build="${BUILD_DIR:-build/release}"
if [ "$build" = build/release ]; then
    bp_configure_release >/dev/null
fi
cmake --build "$build" --parallel "$bp_jobs" --target broadphase_cli broadphase_mpi_cli
cli="$build/tools/broadphase"
mpicli="$(find "$build/tools" -maxdepth 1 -name broadphase-mpi -type f | head -n 1)"
[ -x "$cli" ] && [ -n "$mpicli" ] || { echo "error: broadphase or broadphase-mpi not built in $build" >&2; exit 1; }

bp_results_setup
csv="$bp_results-mpi.csv"
header="utc,commit,part,scene,ranks,threads_per_rank,mode,distribute,frames,median_ms,min_ms,partition_ms,exchange_ms,find_ms,delivery_ms,boxes,pairs,ghost_fraction,imbalance,bytes_sent_mean,bytes_sent_max,verified"
[ -s "$csv" ] || echo "$header" >"$csv"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
utc="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

# mpirun as root needs these; oversubscription lets P pass the core count.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# One CSV row from a JSON line (broadphase-mpi bench --json or broadphase bench --json).
row() { # part scene ranks threads mode json
    "$bp_python" - "$utc" "$commit" "$@" <<'EOF'
import json, sys
utc, commit, part, scene, ranks, threads, mode, text = sys.argv[1:9]
o = json.loads(text)
per = o.get("per_rank", {})
def worst(key):
    v = per.get(key)
    return "%.3f" % max(v) if v else ""
sent = per.get("bytes_sent") or []
fields = [utc, commit, part, scene, ranks, threads, mode, o.get("distribute", ""), str(o.get("frames", "")),
          "%.3f" % o["median_ms"], "%.3f" % o["min_ms"],
          worst("ms_partition"), worst("ms_exchange"), worst("ms_find"), worst("ms_delivery"),
          str(o.get("total_boxes", o.get("n", ""))), str(o.get("total_pairs", o.get("pairs", ""))),
          "%.5f" % o["ghost_fraction"] if "ghost_fraction" in o else "",
          "%.4f" % o["imbalance"] if "imbalance" in o else "",
          "%.0f" % (sum(sent) / len(sent)) if sent else "", "%.0f" % max(sent) if sent else "",
          {True: "true", False: "false", None: ""}[o.get("verified")]]
print(",".join(fields))
EOF
}

run_mpi() { # part scene ranks threads distribute
    local part="$1" scene="$2" ranks="$3" threads="$4" distribute="$5"
    shift 5
    local out
    out="$(mpirun -n "$ranks" "$mpicli" bench "$scene" --frames "$frames" --threads "$threads" --distribute "$distribute" --verify --json | tail -n 1)"
    row "$part" "$scene" "$ranks" "$threads" mpi "$out" | tee -a "$csv"
}

run_single() { # part scene threads
    local out
    out="$("$cli" bench "$2" --frames "$frames" --threads "$3" --json | tail -n 1)"
    row "$1" "$2" 1 "$3" single "$out" | tee -a "$csv"
}

if [ -z "$only" ] || [ "$only" = speed ]; then
    bp_log "speed: 1 and 2 ranks against one process, $n boxes"
    for scene in "uniform:$n" "clusters:$n"; do
        run_single speed "$scene" 1
        run_single speed "$scene" 2
        run_mpi speed "$scene" 1 1 slice
        # Random slices (half the boxes cross to the other rank each frame)
        # and slabs in x (each rank starts with about its region, as a
        # simulation's own domain decomposition would give: ghosts cross).
        run_mpi speed "$scene" 2 1 slice
        run_mpi speed "$scene" 2 1 sorted
    done
fi

if [ -z "$only" ] || [ "$only" = partition ]; then
    bp_log "partition: P = 1..$max_ranks (oversubscribed: times not meaningful), $n boxes"
    for scene in "uniform:$n" "clusters:$n" "stadium:$n"; do
        for ((p = 1; p <= max_ranks; p++)); do
            frames_saved="$frames"
            frames=1
            run_mpi partition "$scene" "$p" 1 slice
            frames="$frames_saved"
        done
    done
fi
bp_log "results appended to $csv"
