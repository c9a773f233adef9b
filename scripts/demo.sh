#!/usr/bin/env bash
# The demo: builds the `broadphase` CLI (Release, build/release) and times
# every algorithm on the challenge scenes, checking each one's pairs against
# brute force, then on a million boxes (brute force skipped there, and the
# algorithms checked against each other instead), and on the GPU when there
# is one. Prints one table.
# Installs cmake, g++, make, GoogleTest and Google Benchmark with apt-get
# first if any is missing (Debian/Ubuntu). Exits non-zero on any mismatch.
# FRAMES=K sets the timed frames per algorithm (the CLI's default is 20,
# and it stops early once the frames add up to 2 s).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$bp_repo_root"

bp_ensure_deps "${bp_deps[@]}"

bp_log "release build of the CLI (build/release)"
bp_configure_release >/dev/null
cmake --build build/release --parallel "$bp_jobs" --target broadphase_cli
cli=build/release/tools/broadphase

frames=()
if [ -n "${FRAMES:-}" ]; then frames=(--frames "$FRAMES"); fi

results="$(mktemp)"
trap 'rm -f "$results"' EXIT

run() {
    echo "\$ $cli $*" >&2
    "$cli" "$@" "${frames[@]}" --json >>"$results"
}

bp_log "benchmarks (each: one warm-up frame, then timed frames on one reused PairFinder)"
for scene in sparse20k dense20k stretched40k clusters40k mixed20k; do
    run bench "$scene" --algorithm all --verify
done
# A million boxes: brute force (the --verify oracle) would take hours, so no
# --verify; `all` skips brute force above 50,000 boxes. The summary still
# checks that every algorithm found the same number of pairs.
run bench uniform:1000000 --algorithm all
# The seed's challenge 5 (80,000 boxes) and a million boxes on the GPU, when
# the CUDA backend is built and a device is present (docs/cuda.md).
if "$cli" bench uniform:80000 --device gpu --frames 1 >/dev/null 2>&1; then
    run bench uniform:80000 --device gpu --verify
    run bench uniform:1000000 --device gpu
else
    bp_log "no GPU here (or the CUDA backend is not built): the GPU rows are skipped"
fi

echo
awk -f scripts/summarize_bench.awk "$results"
