#!/usr/bin/env bash
# Scaling: ms per frame against the number of boxes, at constant density
# (the uniform:N scenes), for each algorithm on one thread and on all, plus
# the peak memory of each run; then the plot.
#   docs/benchmarks/<machine>-scaling.csv   one row per (N, algorithm, threads)
#   docs/benchmarks/<machine>-scaling.png   log-log plot, from the CSV
# Usage: scripts/scaling.sh [MAX_N]      (default 10000000)
#        scripts/scaling.sh --plot-only  (redraw the PNG from the CSV)
# Peak memory is the whole process's maximum resident set (GNU time's %M),
# input boxes included; the input alone is 24 bytes per box.
# Takes about ten minutes on two cores with MAX_N = 10^7.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$bp_repo_root"

machine="${MACHINE:-$(bp_machine_name)}"
csv="docs/benchmarks/${machine}-scaling.csv"
png="docs/benchmarks/${machine}-scaling.png"
cli=build/release/tools/broadphase
mkdir -p docs/benchmarks

if [ "${1:-}" != "--plot-only" ]; then
    max_n="${1:-10000000}"
    bp_ensure_deps "${bp_deps[@]}" time
    bp_log "release build (build/release)"
    bp_configure_release >/dev/null
    cmake --build build/release --parallel "$bp_jobs" --target broadphase_cli
    all_threads="$(nproc 2>/dev/null || echo 2)"

    echo "n,algorithm,chosen,threads,median_ms,min_ms,pairs,frames,peak_rss_mb,ns_per_box" >"$csv"
    for n in 10000 30000 100000 300000 1000000 3000000 10000000; do
        [ "$n" -le "$max_n" ] || continue
        frames=20
        [ "$n" -ge 3000000 ] && frames=5
        for algorithm in uniform_grid hybrid_grid adaptive_grid sweep_and_prune auto; do
            # Sweep and prune's window grows with N: past a million it takes seconds.
            [ "$algorithm" = sweep_and_prune ] && [ "$n" -gt 1000000 ] && continue
            for threads in 1 "$all_threads"; do
                out="$(mktemp)"
                /usr/bin/time -f '%M' -o "$out.rss" \
                    "$cli" bench "uniform:$n" --algorithm "$algorithm" --threads "$threads" --frames "$frames" --json >"$out"
                awk -v rss="$(tail -n 1 "$out.rss")" -v n="$n" -F'[,:{}"]+' '
                    /^\{/ {
                        for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
                        printf "%s,%s,%s,%s,%s,%s,%s,%s,%.1f,%.1f\n", n, v["algorithm"], v["chosen"], v["threads"],
                            v["median_ms"], v["min_ms"], v["pairs"], v["frames"], rss / 1024, v["median_ms"] * 1e6 / n
                    }' "$out" | tee -a "$csv"
                rm -f "$out" "$out.rss"
            done
        done
    done
fi

bp_ensure_deps gnuplot-nox
bp_log "plot -> $png"
# One line per algorithm and thread count; the seed's library (001) as
# points: its published figures (20k boxes, one thread, FX8150 and Xeon;
# 40k, seven threads) and those measured on this kind of machine quoted in
# the project's issues (40k and 1M boxes, two threads).
gnuplot <<EOF
set terminal pngcairo size 1100,750 font ",11"
set output "$png"
set datafile separator ","
set logscale xy
set grid
set key outside right top
set xlabel "boxes (uniform:N, about 0.6 overlaps per box)"
set ylabel "ms per frame (build + all pairs)"
set title "broadphase scaling on $machine: ms per frame against N (log-log)"
set format x "10^{%L}"
set xrange [5000:20000000]
seed = "$csv"
plot \
  for [a in "uniform_grid hybrid_grid adaptive_grid sweep_and_prune auto"] \
    seed using (strcol(2) eq a && \$4 == 1 ? \$1 : 1/0):5 with linespoints lw 2 title a." 1 thread", \
  for [a in "uniform_grid hybrid_grid adaptive_grid sweep_and_prune auto"] \
    seed using (strcol(2) eq a && \$4 > 1 ? \$1 : 1/0):5 with linespoints dt 2 lw 2 title a." all threads", \
  "-" using 1:2:3:4 with yerrorbars pt 7 ps 1.5 lc rgb "black" title "seed 001, published (20k: 1 thread; 40k: 7 threads)", \
  "-" using 1:2:3:4 with yerrorbars pt 5 ps 1.5 lc rgb "red" title "seed 001 on this machine, 2 threads (issue 4)"
20000 14 11 17
40000 15.5 13 18
e
40000 7.65 6.9 8.4
1000000 280 200 360
e
EOF
bp_log "wrote $csv and $png"
