#!/usr/bin/env bash
# Runs the benchmarks and writes them, as CSV, where the docs expect them:
#   docs/benchmarks/<machine>.csv      the Google Benchmark suite (bench/)
#   docs/benchmarks/<machine>-cli.csv  `broadphase bench SCENE --algorithm ours
#                                      --threads 1 --verify --json` on the
#                                      challenge scenes
# <machine> comes from lscpu's model name and the CPU count, e.g.
# amd-epyc-2core; MACHINE=name overrides it.
# Extra arguments go to the suite, e.g.
#   bench/bench_csv.sh --benchmark_filter='find_pairs/sparse20k' --benchmark_min_time=0.05
# (Google Benchmark 1.7: --benchmark_min_time takes plain seconds, no unit.)
# The full suite takes several minutes: identical:20000 writes 199,990,000
# pairs (1.6 GB) per frame.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

bp_ensure_deps "${bp_deps[@]}"

bp_log "release build (build/release)"
bp_configure_release >/dev/null
cmake --build build/release --parallel "$bp_jobs" --target broadphase_cli broadphase_bench

bp_results_setup
suite_csv="${bp_results}.csv"
cli_csv="${bp_results}-cli.csv"

results="$(mktemp)"
trap 'rm -f "$results"' EXIT

# JSON, then CSV: Google Benchmark's own CSV reporter insists that every run
# carries the same counters, and this suite's groups have different ones.
bp_log "Google Benchmark suite -> $suite_csv"
build/release/bench/broadphase_bench --benchmark_out="$results" --benchmark_out_format=json "$@"
awk -f bench/gbench_json_to_csv.awk "$results" >"$suite_csv"

bp_log "CLI on the challenge scenes -> $cli_csv"
: >"$results"
for scene in sparse20k dense20k stretched40k clusters40k mixed20k; do
    # One thread (bench/scaling.sh times all threads).
    build/release/tools/broadphase bench "$scene" --algorithm ours --threads 1 --verify --json >>"$results"
done
awk -v csv=1 -f bench/summarize_bench.awk "$results" >"$cli_csv"

bp_log "wrote $suite_csv and $cli_csv"
