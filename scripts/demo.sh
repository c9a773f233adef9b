#!/usr/bin/env bash
# The demo: builds the `broadphase` CLI (Release, build/release) and runs
# `broadphase demo`: the seed article's five challenges with this library,
# each answer checked against brute force (the 80,000-box challenge on the GPU when the
# CUDA backend is built and a device is present), in one table beside the
# adaptive-grid article's published figures; then the particle simulation (100,000 spheres
# falling into a pile), rendered to PNG frames, an animation (when ffmpeg is
# installed) and a plot, in particles-out/ (named at the end).
# Installs cmake, g++, make, GoogleTest, Google Benchmark and libpng with
# apt-get first if any is missing (Debian/Ubuntu). Exits non-zero on any
# mismatch.
#   DEMO_ARGS="..."   options for `broadphase demo` (see broadphase --help),
#                     e.g. DEMO_ARGS="--particles 20000 --model elastic"
#   ALGORITHMS=1      first, the former main job: every algorithm on every
#                     challenge scene and on a million boxes, each checked
#                     against brute force (a few more minutes)
#   FRAMES=K          timed frames per algorithm there (the CLI's default is
#                     20, and it stops early once the frames add up to 2 s)
# On a loaded machine (load average above the CPU count) OpenMP's threads are
# made to sleep rather than spin while they wait (OMP_WAIT_POLICY=passive,
# unless already set): spinning threads that share two cores with other
# jobs made the simulation's steps 4x slower.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$bp_repo_root"

bp_ensure_deps "${bp_deps[@]}"

bp_log "release build of the CLI (build/release)"
bp_configure_release >/dev/null
cmake --build build/release --parallel "$bp_jobs" --target broadphase_cli
cli=build/release/tools/broadphase

if [ "${ALGORITHMS:-0}" = 1 ]; then
    frames=()
    if [ -n "${FRAMES:-}" ]; then frames=(--frames "$FRAMES"); fi
    results="$(mktemp)"
    trap 'rm -f "$results"' EXIT
    run() {
        echo "\$ $cli $*" >&2
        "$cli" "$@" "${frames[@]}" --json >>"$results"
    }
    bp_log "every algorithm (each: one warm-up frame, then timed frames on one reused PairFinder)"
    for scene in sparse20k dense20k stretched40k clusters40k mixed20k; do
        run bench "$scene" --algorithm ours --verify
    done
    # A million boxes: brute force would take hours, so no --verify; the
    # summary checks that every algorithm found the same number of pairs.
    run bench uniform:1000000 --algorithm ours
    if "$cli" bench uniform:80000 --device cuda --frames 1 >/dev/null 2>&1; then
        run bench uniform:80000 --device cuda --verify
        run bench uniform:1000000 --device cuda
    fi
    echo
    awk -f bench/summarize_bench.awk "$results"
fi

if [ -z "${OMP_WAIT_POLICY:-}" ]; then
    load="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)"
    if awk -v l="$load" -v n="$(nproc 2>/dev/null || echo 1)" 'BEGIN { exit !(l + 0 > n + 0) }'; then
        bp_log "load average $load is above the CPU count: OMP_WAIT_POLICY=passive"
        export OMP_WAIT_POLICY=passive
    fi
fi

bp_log "broadphase demo ${DEMO_ARGS:-}"
# shellcheck disable=SC2086
"$cli" demo ${DEMO_ARGS:-}
