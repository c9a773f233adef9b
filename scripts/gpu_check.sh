#!/usr/bin/env bash
# The CUDA backend on a machine with an NVIDIA GPU, in one go: configure and
# build (Release, build/gpu), run the GPU tests (every built-in and
# adversarial scene against the CPU), then benchmark with
# `broadphase bench SCENE --device cuda --json` (80k = the adaptive-grid article's fifth challenge,
# 1M and 10M boxes, and the other built-in scenes), plus the CPU's
# automatic choice on all cores for comparison.
#
# Results go to $OUT (default build/gpu-out): gpu.txt (nvidia-smi),
# gpu_tests.log, bench.jsonl (one JSON object per run), profile.log
# (per-stage times), and a summary table on stdout.
#
# Needs nvcc (CUDA 12+; /usr/local/cuda/bin/nvcc is picked up), CMake,
# ninja or make, and GoogleTest: the system's, or one carried in
# .carry/gtest/usr (headers, static libraries and CMake files).
# QUICK=1 skips the 10M-box scene and the slow verification.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-build/gpu-out}"
mkdir -p "$OUT"
jobs="$(nproc 2>/dev/null || echo 4)"
status=0

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
/usr/local/cuda/bin/nvcc --version | tail -n 2 | tee -a "$OUT/gpu.txt"

extra=()
if [ -d .carry/gtest/usr ] && [ ! -f /usr/include/gtest/gtest.h ]; then
    extra+=("-DGTest_DIR=$PWD/.carry/gtest/usr/lib/x86_64-linux-gnu/cmake/GTest")
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
start=$SECONDS
cmake -S . -B build/gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_BENCH=OFF \
    -DBROADPHASE_BUILD_EXAMPLES=OFF -DBROADPHASE_CUDA=ON "${extra[@]}" > "$OUT/build.log" 2>&1 \
    || { tail -n 30 "$OUT/build.log"; exit 1; }
cmake --build build/gpu --parallel "$jobs" --target broadphase_cli broadphase_cuda_gpu_tests \
    broadphase_cuda_logic_tests >> "$OUT/build.log" 2>&1 || { tail -n 40 "$OUT/build.log"; exit 1; }
echo "build: $((SECONDS - start)) s"

cli=build/gpu/tools/broadphase

echo "== GPU tests"
build/gpu/tests/cuda/broadphase_cuda_gpu_tests > "$OUT/tests.log" 2>&1 || status=1
grep -E "^device:|FAILED|PASSED|tests ran" "$OUT/tests.log" | tail -n 25
build/gpu/tests/cuda/broadphase_cuda_logic_tests >> "$OUT/tests.log" 2>&1 || status=1
grep -E "FAILED|PASSED|tests ran" "$OUT/tests.log" | tail -n 3

# compute-sanitizer (memcheck, then racecheck on shared memory) over the
# small-scene GPU tests, when it is installed. SANITIZER=0 skips it.
sanitizer=/usr/local/cuda/bin/compute-sanitizer
if [ "${SANITIZER:-1}" = 1 ] && [ -x "$sanitizer" ]; then
    echo "== compute-sanitizer"
    filter='GpuAdversarial.*:Gpu.HandCasesAndTinySets:Gpu.BudgetKeepsAPrefixAndReports:Gpu.MemoryCapGivesAClearError:Scenes/GpuBuiltinScene.*/mixed20k'
    for tool in memcheck racecheck; do
        timeout 300 "$sanitizer" --tool "$tool" --error-exitcode 3 build/gpu/tests/cuda/broadphase_cuda_gpu_tests \
            --gtest_filter="$filter" --gtest_brief=1 >> "$OUT/tests.log" 2>&1
        rc=$?
        echo "$tool: exit $rc"
        [ $rc = 0 ] || status=1
    done
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/tests.log" | tail -n 4
fi

echo "== benchmarks"
# Two scenes at a million boxes made here with numpy (fixed seeds; skipped
# without numpy): mixed sizes, and "teapot in stadium".
#   mixed1m:  1M boxes, edge lengths log-uniform 0.25..64 on each axis, every
#             1000th a slab spanning the region on two axes, region side
#             900*cbrt(50) (sparse20k's scale at 1M)
#   teapot1m: uniform:1000000-like 4-wide boxes, 1,000 boxes near (1e6, 1e6, 1e6),
#             10 near -1e30, and one box from -1e7 to 1e7 holding everything
mkdir -p build/gpu/scenes
python3 - build/gpu/scenes <<'PY' || echo "numpy scenes skipped"
import sys
import numpy as np
out = sys.argv[1]
n = 1000000
side = 900.0 * (n / 20000.0) ** (1.0 / 3.0)
r = np.random.default_rng(11)
c = r.uniform(0, side, (n, 3))
e = np.exp(r.uniform(np.log(0.25), np.log(64.0), (n, 3)))
slab = np.arange(n) % 1000 == 999
axis = np.arange(n) % 3
for k in range(3):
    e[slab & (axis != k), k] = side
np.save(out + "/mixed1m.npy", np.hstack([c - e / 2, c + e / 2]).astype(np.float32))
r = np.random.default_rng(12)
c = r.uniform(0, side, (n, 3))
c[:1000] = 1e6 + r.uniform(0, 50, (1000, 3))
c[1000:1010] = -1e30
lo, hi = c - 2, c + 2
lo[1010], hi[1010] = -1e7, 1e7
np.save(out + "/teapot1m.npy", np.hstack([lo, hi]).astype(np.float32))
PY
: > "$OUT/bench.jsonl"
: > "$OUT/profile.log"
: > "$OUT/bench.err"
bench() {  # scene, extra args...
    local scene="$1"
    shift
    if ! "$cli" bench "$scene" --json "$@" >> "$OUT/bench.jsonl" 2>> "$OUT/bench.err"; then
        echo "FAILED: bench $scene $*"
        tail -n 3 "$OUT/bench.err"
        status=1
    fi
}
scenes="uniform:80000 sparse20k dense20k stretched40k clusters40k mixed20k pointclouds10k identical:20000 uniform:1000000"
[ "${QUICK:-0}" = 1 ] || scenes="$scenes uniform:10000000"
for s in $scenes; do
    verify=(--verify)
    case "$s" in identical:20000) verify=() ;; esac
    [ "${QUICK:-0}" = 1 ] && [ "$s" = uniform:10000000 ] && verify=()
    [ "${QUICK:-0}" = 1 ] && [ "$s" = uniform:1000000 ] && verify=()
    bench "$s" --device cuda --frames 50 "${verify[@]}"
done
for f in build/gpu/scenes/mixed1m.npy build/gpu/scenes/teapot1m.npy; do
    [ -f "$f" ] || continue
    v=(--verify)
    [ "${QUICK:-0}" = 1 ] && v=()
    bench "$f" --device cuda --frames 50 "${v[@]}"
    bench "$f" --device cpu --frames 5
done
bench uniform:1000000 --device cuda --frames 50 --sorted
bench uniform:80000 --device cuda --frames 50 --sorted
# Stage times (each stage synchronised: a little slower than a frame).
for s in uniform:80000 mixed20k uniform:1000000 build/gpu/scenes/mixed1m.npy uniform:10000000; do
    [ "${QUICK:-0}" = 1 ] && [ "$s" = uniform:10000000 ] && continue
    echo "$s" >> "$OUT/profile.log"
    BROADPHASE_GPU_PROFILE=1 "$cli" bench "$s" --device cuda --frames 5 > /dev/null 2>> "$OUT/profile.log"
done
# The CPU on all cores, for comparison.
for s in uniform:80000 mixed20k uniform:1000000; do
    bench "$s" --device cpu --frames 10
done

echo "== summary (ms per frame: boxes on the device to pairs compacted there; upload and pair transfer apart)"
python3 - "$OUT/bench.jsonl" "$OUT/results.csv" <<'PY' | tee "$OUT/summary.txt"
import json, sys
print("%-18s %-4s %10s %10s %11s %10s %12s %9s %8s" % ("scene", "dev", "median_ms", "min_ms", "transfer_ms", "upload_ms", "pairs", "entries", "verified"))
for line in open(sys.argv[1]):
    r = json.loads(line)
    gpu = r.get("algorithm") == "cuda"
    name = r["scene"] + (" sorted" if r.get("sorted") else "")
    print("%-18s %-4s %10.3f %10.3f %11s %10s %12d %9s %8s" % (name, "gpu" if gpu else "cpu", r["median_ms"], r["min_ms"],
          "%.3f" % r["transfer_ms"] if gpu else "-", "%.3f" % r["upload_ms"] if gpu else "-", r["pairs"],
          r.get("entries", "-"), r["verified"]))
cols = ["scene", "n", "device", "algorithm", "chosen", "sorted", "median_ms", "min_ms", "upload_ms", "transfer_ms",
        "pairs", "entries", "levels", "key_bits", "cell_size", "device_mb", "frames", "threads", "verified", "oracle"]
with open(sys.argv[2], "w") as f:
    f.write(",".join(cols) + "\n")
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r.get("algorithm") != "cuda":
            r["device"] = "cpu"
        r["scene"] = r["scene"].replace("build/gpu/scenes/", "").replace(".npy", "")
        f.write(",".join("" if r.get(c) is None else str(r.get(c)).lower() if isinstance(r.get(c), bool) else str(r.get(c)) for c in cols) + "\n")
PY
tail -n 12 "$OUT/profile.log"
exit $status
