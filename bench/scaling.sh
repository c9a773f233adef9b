#!/usr/bin/env bash
# Threads and scale. First the challenge scenes, every algorithm, on one
# thread and on all, checked against brute force; then ms per frame against
# the number of boxes at constant density (the uniform:N scenes), for each
# algorithm on one thread and on all, with the peak memory of each run; then
# the plot.
#   docs/benchmarks/<machine>-threads.csv   `broadphase bench SCENE --algorithm ours
#                                           --threads T --verify --json`, T = 1, all
#   docs/benchmarks/<machine>-scaling.csv   one row per (N, algorithm, threads)
#   docs/benchmarks/<machine>-scaling.png   log-log plot, from the CSV
# Usage: bench/scaling.sh [MAX_N]      (default 10000000)
#        bench/scaling.sh --plot-only  (redraw the PNG from the CSV)
# Peak memory is the whole process's maximum resident set (GNU time's %M),
# input boxes included; the input alone is 24 bytes per box.
# Takes about ten minutes on two cores with MAX_N = 10^7.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$bp_repo_root"

bp_results_setup
csv="${bp_results}-scaling.csv"
threads_csv="${bp_results}-threads.csv"
png="${bp_results}-scaling.png"
cli=build/release/tools/broadphase

if [ "${1:-}" != "--plot-only" ]; then
    max_n="${1:-10000000}"
    bp_ensure_deps "${bp_deps[@]}" time
    bp_log "release build (build/release)"
    bp_configure_release >/dev/null
    cmake --build build/release --parallel "$bp_jobs" --target broadphase_cli
    all_threads="$(nproc 2>/dev/null || echo 2)"

    bp_log "challenge scenes, 1 and $all_threads threads -> $threads_csv"
    results="$(mktemp)"
    for scene in sparse20k dense20k stretched40k clusters40k mixed20k; do
        for threads in 1 "$all_threads"; do
            "$cli" bench "$scene" --algorithm ours --threads "$threads" --verify --json >>"$results"
        done
    done
    awk -v csv=1 -f bench/summarize_bench.awk "$results" >"$threads_csv"
    rm -f "$results"

    bp_log "uniform:N up to $max_n, 1 and $all_threads threads -> $csv"
    echo "n,algorithm,chosen,threads,median_ms,min_ms,pairs,frames,peak_rss_mb,ns_per_box" >"$csv"
    for n in 10000 30000 100000 300000 1000000 3000000 10000000; do
        [ "$n" -le "$max_n" ] || continue
        frames=20
        [ "$n" -ge 3000000 ] && frames=5
        for algorithm in uniform_grid hybrid_grid adaptive_grid sweep_and_prune automatic; do
            # Sweep and prune's window grows with N: past a million it takes seconds.
            [ "$algorithm" = sweep_and_prune ] && [ "$n" -gt 1000000 ] && continue
            for threads in 1 "$all_threads"; do
                out="$(mktemp)"
                /usr/bin/time -f '%M' -o "$out.rss" \
                    "$cli" bench "uniform:$n" --algorithm "$algorithm" --threads "$threads" --frames "$frames" --json >"$out"
                awk -v rss="$(tail -n 1 "$out.rss")" -v n="$n" '
                    function field(key,    v) {
                        if (!match($0, "\"" key "\":(\"[^\"]*\"|[^,}]*)")) return ""
                        v = substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
                        gsub(/"/, "", v)
                        return v
                    }
                    /^\{/ {
                        printf "%s,%s,%s,%s,%s,%s,%s,%s,%.1f,%.1f\n", n, field("algorithm"), field("chosen"),
                            field("threads"), field("median_ms"), field("min_ms"), field("pairs"), field("frames"),
                            rss / 1024, field("median_ms") * 1e6 / n
                    }' "$out" | tee -a "$csv"
                rm -f "$out" "$out.rss"
            done
        done
    done
fi

bp_ensure_deps gnuplot-nox
bp_log "plot -> $png"
# One line per algorithm and thread count; the adaptive-grid article's library as
# points: its published figures (20k boxes, one thread, FX8150 and Xeon;
# 40k, seven threads) and those measured on this kind of machine quoted in
# the project's issues (40k and 1M boxes, two threads).
series="$(mktemp -d)"
trap 'rm -rf "$series"' EXIT
plot_lines=""
colour=0
for algorithm in uniform_grid hybrid_grid adaptive_grid sweep_and_prune automatic; do
    colour=$((colour + 1))
    for kind in one all; do
        file="$series/$algorithm-$kind.dat"
        awk -F, -v a="$algorithm" -v kind="$kind" \
            'NR > 1 && $2 == a && ((kind == "one" && $4 == 1) || (kind == "all" && $4 > 1)) { print $1, $5 }' "$csv" >"$file"
        [ -s "$file" ] || continue
        if [ "$kind" = one ]; then style="lw 2 pt 7"; title="$algorithm, 1 thread"; else style="dt 2 lw 2 pt 6"; title="$algorithm, all threads"; fi
        style="$style lc $colour"
        plot_lines="$plot_lines \"$file\" using 1:2 with linespoints $style title \"$title\","
    done
done
printf '20000 14 11 17\n40000 15.5 13 18\n' >"$series/seed_published.dat"
printf '40000 7.65 6.9 8.4\n1000000 280 200 360\n' >"$series/seed_here.dat"
gnuplot <<EOF
set terminal pngcairo size 1100,800 font ",11"
set termoption noenhanced
set output "$png"
set logscale xy
set grid
set key inside left top box opaque font ",9" spacing 0.9
set xlabel "boxes (uniform:N: sparse20k's density, boxes 4 wide)"
set ylabel "ms per frame (build + all pairs), median"
set title "broadphase on $bp_machine: ms per frame against N, log-log (bench/scaling.sh)"
set format x "%.0e"
set xrange [5000:20000000]
plot $plot_lines \
  "$series/seed_published.dat" using 1:2:3:4 with yerrorbars pt 7 ps 1.5 lc rgb "black" title "adaptive-grid article, as published (20k: 1 thread, FX8150/Xeon; 40k: 7 threads)", \
  "$series/seed_here.dat" using 1:2:3:4 with yerrorbars pt 5 ps 1.5 lc rgb "red" title "the article's library on this machine, 2 threads"
EOF
bp_log "wrote $csv and $png"
