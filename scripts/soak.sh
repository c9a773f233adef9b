#!/usr/bin/env bash
# The Scene soak: builds tests/soak/scene_soak.cpp (Release) and
# runs it: random add/remove/move/set_type/set_filter sequences through
# update() in every update mode (each alone and mixed, exact and fat pairs,
# one and two threads), checked against brute force every K updates
# (pairs, begun, ended; fat pairs a superset of the exact ones).
#
#   bash scripts/soak.sh --updates 1000000     # default: 10^6 updates
#   bash scripts/soak.sh --minutes 60          # as many as fit in an hour
#   bash scripts/soak.sh --updates 5000000 --check-every 10 --seed 7
#
# Options go to the program: --updates N, --minutes M (both: whichever
# comes first), --check-every K (default 1), --seed S, --episode E (only
# that episode of seed S: to reproduce a mismatch). It prints progress each
# minute and, at the end, what it ran (updates per mode, checks, operations,
# objects, seconds, "0 mismatches"); on a mismatch, the seed, the episode
# and the update, and it exits non-zero.
# Appends one line (UTC time, commit, options, the summary or the mismatch)
# to docs/benchmarks/<machine>-soak.txt.
# Environment: BUILD_DIR (default build/release), MACHINE (file name), JOBS.
# 10^6 updates took 556 s on the 2-core EPYC (the other core busy); K = 10 is faster.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$bp_repo_root"

args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --updates | --minutes | --check-every | --seed | --episode)
            [ $# -ge 2 ] || { echo "error: $1 needs a value" >&2; exit 2; }
            args+=("$1" "$2")
            shift 2
            ;;
        -h | --help)
            sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "error: unknown option $1 (see --help)" >&2
            exit 2
            ;;
    esac
done
[ "${#args[@]}" -gt 0 ] || args=(--updates 1000000)

bp_results_setup
out="${bp_results}-soak.txt"
build="${BUILD_DIR:-build/release}"

bp_ensure_deps cmake g++ make libgtest-dev
bp_log "release build of the soak ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --parallel "$bp_jobs" --target broadphase_scene_soak

# The commit the program was built from (HEAD may move during a long run).
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if ! git diff --quiet HEAD -- include tests/soak 2>/dev/null; then commit="$commit+dirty"; fi

bp_log "soak: ${args[*]}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
"$build/tests/soak/broadphase_scene_soak" "${args[@]}" | tee "$log" || status=$?  # (pipefail: the program's status)

result="$(grep -E '^(SUMMARY|MISMATCH):' "$log" | tail -n 1 || true)"
[ -n "$result" ] || result="FAILED: exit status $status, no summary"
echo "$(date -u +%Y-%m-%dT%H:%MZ) $commit [${args[*]}] $result" >>"$out"
bp_log "appended to $out"
tail -n 1 "$out"
exit "$status"
