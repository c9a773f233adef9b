#!/usr/bin/env bash
# Builds everything and runs every test, twice, then the threaded tests a
# third time under ThreadSanitizer, then the fuzz targets:
#   build/release  Release build, then ctest; the Python module (python/) is
#                  built there too and its pytest suite runs in the same ctest
#                  run (label python);
#                  the MPI component's tests (tests/mpi/, ctest -L mpi: mpirun
#                  with 1 to 7 ranks) run on their own once the background
#                  builds are done
#   build/asan     clang -O1 with AddressSanitizer + UBSan, then ctest
#                  (without the CLI, the MPI component and the example
#                  programs: their tests run in build/release, the CLI's
#                  readers are fuzzed under ASan below; leaving them out
#                  keeps CI inside its time limit). The fuzz targets
#                  (tests/fuzz/, libFuzzer) are built here too, on the same
#                  library, instrumented for coverage once for both: at the
#                  end each replays its corpus, then fuzzes for FUZZ_SECONDS
#                  (default 15) seconds (ctest -L fuzz): seven targets two at
#                  a time, four rounds of 15 s
#   build/tsan     clang with ThreadSanitizer, the threaded tests only
#                  (ctest -L threads: parallel, sphere and neighbour-list
#                  tests) and the compiled library they link, built with
#                  ThreadSanitizer too. The library's threads are
#                  std::thread (detail/task_pool.hpp), which TSan
#                  understands natively.
# The TSan build does not depend on the others: it is configured first and
# compiled in the background at the lowest priority (nice 19), so that it
# takes the cores only when the Release and ASan stages leave one idle (a
# link, a test that runs alone); its tests run at the end. Each stage's time is printed as it ends and again at the end.
# Installs cmake, g++, make, ninja, GoogleTest, Google Benchmark, clang, the
# Python module's packages and Open MPI with apt-get first if any is
# missing (Debian/Ubuntu). Exits non-zero if anything fails.
# JOBS=N overrides the parallelism (default: the number of CPUs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$bp_repo_root"

start=$SECONDS
stage_name="" stage_start=$SECONDS stage_times=()
# stage NAME: ends the stage running (its time printed and kept for the
# summary) and starts NAME.
stage() {
    if [ -n "$stage_name" ]; then
        stage_times+=("$(printf '%6d s  %s' $((SECONDS - stage_start)) "$stage_name")")
        bp_log "$stage_name: $((SECONDS - stage_start)) s"
    fi
    stage_name="$1" stage_start=$SECONDS
    [ -z "$1" ] || bp_log "$1"
}

stage "dependencies"
bp_ensure_deps "${bp_deps[@]}" "${bp_clang_deps[@]}" "${bp_python_deps[@]}" "${bp_mpi_deps[@]}" "${bp_docs_deps[@]}"

stage "configure the TSan build and start it in the background"
mkdir -p build
# shellcheck disable=SC2046  # bp_generator prints one word or none
cmake $(bp_generator build/tsan) -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DBROADPHASE_TSAN=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DBROADPHASE_TEST_SHARDS=ON \
    -DBROADPHASE_BUILD_TOOLS=OFF -DBROADPHASE_BUILD_TESTS=ON -DBROADPHASE_BUILD_BENCH=OFF -DBROADPHASE_BUILD_EXAMPLES=OFF \
    >build/tsan-configure.log 2>&1 || { cat build/tsan-configure.log; exit 1; }
# Its own process group (set -m), so that a failure stops all of it, in
# this script's session: Linux's autogroup scheduling shares the CPU equally
# between sessions whatever their nice values (a setsid'd build took half
# the cores from the Release build), and nice works only inside one.
set -m
(
    set -e
    nice -n 19 cmake --build build/tsan --parallel "$bp_jobs" --target broadphase_parallel_tests \
        broadphase_spheres_tests broadphase_neighbor_list_tests broadphase_simd_threads_tests
    echo "background build done at $SECONDS s"
) >build/background.log 2>&1 &
background=$!
set +m
trap 'kill -- "-$background" 2>/dev/null || true' EXIT

stage "release build (build/release)"
# One CUDA architecture (sm_90) when the toolkit is there: the tests need it
# to compile, not to run (CI has no GPU), and all-major, the default for
# users, costs three times the compile. CUDAARCHS=... overrides it.
# The test programs and examples at -Og (BROADPHASE_TEST_CXX_FLAGS): the
# library, the CLI and the Python module they test keep Release's -O3, as
# does the tests' scalar oracle (tests/core/reference.cpp). g++ 12 compiles
# a test file in about 60% of the time of -O1 (dynamic_tree_test.cpp: 10.7
# s against 18.6), and their run time is the library's: the release build
# 1,153 -> 917 CPU-s (2026-11-28, 2-core EPYC).
# Each test program runs as a few shards (BROADPHASE_TEST_SHARDS, as in the
# sanitizer stages below), not a process per GoogleTest test: 1,850 of the
# stage's 2,400 processes ran under 0.2 s, about 0.03 s of each the start.
CUDAARCHS="${CUDAARCHS:-90}" bp_configure_release -DBROADPHASE_BUILD_PYTHON=ON "-DPython3_EXECUTABLE=$bp_python" \
    -DBROADPHASE_TEST_CXX_FLAGS=-Og -DBROADPHASE_TEST_SHARDS=ON
cmake --build build/release --parallel "$bp_jobs"

stage "release tests (the Python module's pytest suite among them: label python)"
# The MPI tests (label mpi; their own stage below): CMake builds them whenever it
# finds MPI, which bp_mpi_deps installs, so a build without them is an error
# here rather than a silently smaller run.
mpi_tests="$(cd build/release && ctest -N -L mpi)"
if [[ "$mpi_tests" != *mpi.pairs.n7* ]]; then
    echo "error: no MPI tests in build/release (CMake did not find MPI: libopenmpi-dev openmpi-bin)" >&2
    exit 1
fi
# The Bullet adapter's tests likewise (bp_deps installs libbullet-dev).
if [[ "$(cd build/release && ctest -N -L bullet)" != *bullet.* ]]; then
    echo "error: no Bullet adapter tests in build/release (CMake did not find Bullet: libbullet-dev)" >&2
    exit 1
fi
# One ctest run for all of them, the Python tests included: ctest starts
# the tests of highest COST first (the package tests, the SIMD suites, the
# Python fuzz functions), so that no long test runs alone at the end of a
# stage while a core idles. Its label summary gives each label's time.
if [[ "$(cd build/release && ctest -N -L python)" != *python_pytest.* ]]; then
    echo "error: no Python tests in build/release (pytest or numpy missing: $bp_python)" >&2
    exit 1
fi
# The MPI tests (label mpi) run later, alone (see their stage below).
(cd build/release && ctest --output-on-failure --no-tests=error --parallel "$bp_jobs" -LE '^mpi$')

stage "sanitizer build (build/asan: AddressSanitizer + UndefinedBehaviorSanitizer, and the fuzz targets)"
# The build is the slowest step of CI, so it is kept to the library's own
# tests: -O1 and -g1 (line tables only: reports keep file:line) compile much
# faster than -O2 -g; the CLI, the example programs and the MPI component are
# left out (the Release stage runs their tests; the fuzz stage runs the CLI's
# file readers, the code that meets untrusted input, under ASan + UBSan).
# UBSan's per-pointer checks (null, alignment, object-size, pointer-overflow,
# vptr) are left out too: they doubled the compile time, and ASan covers
# null and out-of-bounds accesses.
# The test programs at -Og (BROADPHASE_TEST_CXX_FLAGS), the library at -O1.
# clang, with the fuzz targets (BROADPHASE_FUZZ): the library is compiled
# once, with ASan, UBSan and libFuzzer's coverage counters, for the tests
# and the fuzzers both, where g++'s ASan build and clang's fuzz build each
# compiled it (2-core EPYC, 2026-12-02: 577 + 376 CPU-s of compiles ->
# 653; the tests ran in 519 CPU-s against g++'s 611, counters included).
# The fuzzers thus meet the library without the five UBSan checks above;
# scripts/fuzz.sh, for longer runs, keeps clang's whole UBSan.
# Each test program runs as a few shards (BROADPHASE_TEST_SHARDS, see
# tests/CMakeLists.txt), not a process per GoogleTest test: a sanitized
# process takes 0.13 s to start, and 2,200 of them took about 290 of the
# stage's 1,070 CPU-seconds. The TSan stage does the same.
# shellcheck disable=SC2046
cmake $(bp_generator build/asan) -S . -B build/asan -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBROADPHASE_SANITIZE=ON \
    -DBROADPHASE_FUZZ=ON "-DBROADPHASE_FUZZ_SECONDS=${FUZZ_SECONDS:-15}" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DBROADPHASE_TEST_CXX_FLAGS=-Og \
    -DBROADPHASE_BUILD_TOOLS=OFF -DBROADPHASE_BUILD_TESTS=ON -DBROADPHASE_BUILD_BENCH=OFF -DBROADPHASE_MPI=OFF \
    -DBROADPHASE_BUILD_EXAMPLES=OFF -DBROADPHASE_UBSAN_SKIP=alignment,null,object-size,pointer-overflow,vptr \
    -DBROADPHASE_TEST_SHARDS=ON
cmake --build build/asan --parallel "$bp_jobs"

stage "sanitizer tests"
# Less the package and docs tests (labels package, docs): they install the
# library and compile consumers, or check the manual, with the compiler's
# plain flags, the same work the Release stage did; nothing in them is
# built with the sanitizers.
(cd build/asan && \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    ctest --output-on-failure --no-tests=error --parallel "$bp_jobs" -LE '^(package|docs|fuzz)$')
# The MPI tests under AddressSanitizer (leak detection off: Open MPI 4.1
# leaks about 120 KB at MPI_Init whatever the program does) were clean when
# last run; to run them again: configure build/asan with -DBROADPHASE_MPI=ON
# and ASAN_OPTIONS=detect_leaks=0 ctest -L mpi.

stage "thread sanitizer build (background, since the start): waiting for it"
if ! wait "$background"; then
    cat build/background.log
    echo "error: the TSan build failed (build/background.log)" >&2
    exit 1
fi
trap - EXIT
tail -n 1 build/background.log

stage "MPI tests (build/release, label mpi: alone, after the background builds)"
# Their ranks oversubscribe the cores and yield them while they wait, and
# next to the nice-19 background compiles that yielding cost them: 62 s of
# ctest time among the release tests, 35 s alone (2026-11-28, a second
# 2-core EPYC VM). Nothing else runs now.
(cd build/release && \
    ctest --output-on-failure --no-tests=error --parallel "$bp_jobs" -L '^mpi$')

stage "thread sanitizer tests (build/tsan: parallel, sphere and neighbour-list tests)"
(cd build/tsan && \
    TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 ignore_noninstrumented_modules=1}" \
    ctest --output-on-failure --no-tests=error --parallel "$bp_jobs" -L threads)

stage "fuzz tests (build/asan, each target ${FUZZ_SECONDS:-15} s; longer runs: scripts/fuzz.sh)"
(cd build/asan && ctest --output-on-failure --no-tests=error --parallel "$bp_jobs" -L fuzz)

stage ""
printf '%s\n' "${stage_times[@]}" >&2
bp_log "all tests passed in the three builds (Release, ASan + UBSan with the fuzzers, TSan) ($((SECONDS - start)) s)"
