#!/usr/bin/env bash
# Runs the libFuzzer targets (tests/fuzz/) for longer than the tests do,
# keeps what they learn, and records what was run.
#
#   bash scripts/fuzz.sh [--seconds S] [--jobs J] [--targets "pairs index ..."]
#                        [--update-corpus] [--record]
#
#   --seconds S       per target (default 600); the targets run J at a time
#   --jobs J          targets run side by side (default: the number of CPUs)
#   --targets LIST    a subset of: pairs index scene tree spheres readers meshes
#                     (default: all)
#   --update-corpus   refresh the repository's seed corpus: a random sample
#                     of up to 100 (CORPUS_SAMPLE) inputs of the working
#                     corpus replaces tests/fuzz/corpus/<target>'s, except
#                     the seeds written by hand (seed-*) and the regressions
#                     (regress-*), which stay. Small on purpose: the working
#                     corpus (thousands of inputs) stays in build/fuzz
#   --record          append one line per target to
#                     docs/benchmarks/<machine>-fuzz.csv: date, commit,
#                     target, seconds, executions, executions a second,
#                     edges and features covered, corpus size, failures
#
# Builds build/fuzz with clang (-fsanitize=fuzzer,address,undefined).
# Working corpora live in build/fuzz/corpus/<target> (kept between runs:
# a second run starts where the first stopped); a failing input is written
# to build/fuzz/artifacts/ and the script exits 1 after every target ran.
# To keep one as a regression, copy it into tests/fuzz/corpus/<target>/
# (every test run replays the whole corpus first).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$bp_repo_root"

seconds=600
jobs="$bp_jobs"
targets="pairs index scene tree spheres readers meshes"
update=0
record=0
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --targets) targets="$2"; shift 2 ;;
        --update-corpus) update=1; shift ;;
        --record) record=1; shift ;;
        -h|--help) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

bp_ensure_deps cmake make "${bp_clang_deps[@]}"
bp_configure_fuzz
cmake --build build/fuzz --parallel "$bp_jobs" --target $(printf 'fuzz_%s ' $targets)

mkdir -p build/fuzz/artifacts build/fuzz/logs
run_one() {
    local t="$1"
    local max_len=1024  # as tests/fuzz/CMakeLists.txt
    case "$t" in readers|meshes) max_len=4096 ;; esac
    mkdir -p "build/fuzz/corpus/$t"
    ASAN_OPTIONS=allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "build/fuzz/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -malloc_limit_mb=512 \
        -max_len="$max_len" -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t-" \
        "build/fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"build/fuzz/logs/$t.log" 2>&1
}

# The commit the targets were built from (HEAD may move during a long run).
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if ! git diff --quiet HEAD -- include tests/fuzz tools 2>/dev/null; then commit="$commit+dirty"; fi

bp_log "fuzzing: $targets, ${seconds} s each, $jobs at a time"
failed=()
set -- $targets
while [ $# -gt 0 ]; do
    pids=() names=()
    for _ in $(seq 1 "$jobs"); do
        [ $# -gt 0 ] || break
        run_one "$1" & pids+=("$!"); names+=("$1")
        shift
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || failed+=("${names[$i]}")
    done
done

if [ "$record" -eq 1 ]; then
    bp_results_setup
    csv="$bp_results-fuzz.csv"
    [ -f "$csv" ] || echo "date,commit,target,seconds,executions,exec_per_s,edges,features,corpus,failures" >"$csv"
fi
printf '\n%-8s %12s %10s %8s %9s %7s %s\n' target executions exec/s edges features corpus result
for t in $targets; do
    log="build/fuzz/logs/$t.log"
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
    cov="$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)"
    ft="$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)"
    corpus="$(ls "build/fuzz/corpus/$t" | wc -l)"
    result=ok
    case " ${failed[*]:-} " in *" $t "*) result=FAILED ;; esac
    printf '%-8s %12s %10s %8s %9s %7s %s\n' "$t" "${execs:-0}" "${rate:-0}" "${cov:-0}" "${ft:-0}" "$corpus" "$result"
    if [ "$record" -eq 1 ]; then
        echo "$(date -u +%Y-%m-%d),$commit,$t,$seconds,${execs:-0},${rate:-0},${cov:-0},${ft:-0},$corpus,$([ "$result" = ok ] && echo 0 || echo 1)" >>"$csv"
    fi
done

if [ "$update" -eq 1 ]; then
    for t in $targets; do
        bp_log "sampling build/fuzz/corpus/$t into tests/fuzz/corpus/$t"
        find "tests/fuzz/corpus/$t" -type f ! -name 'seed-*' ! -name 'regress-*' -delete
        find "build/fuzz/corpus/$t" -type f | shuf -n "${CORPUS_SAMPLE:-100}" --random-source=<(yes) |
            while read -r f; do cp "$f" "tests/fuzz/corpus/$t/"; done
    done
fi

if [ "${#failed[@]}" -gt 0 ]; then
    echo "error: failing inputs found by ${failed[*]}: see build/fuzz/logs/ and build/fuzz/artifacts/" >&2
    exit 1
fi
