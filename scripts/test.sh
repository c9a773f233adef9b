#!/usr/bin/env bash
# Builds everything and runs every test, twice:
#   build/release  Release build, then ctest
#   build/asan     RelWithDebInfo with AddressSanitizer + UBSan, then ctest
# Installs cmake, g++, make, GoogleTest and Google Benchmark with apt-get
# first if any is missing (Debian/Ubuntu). Exits non-zero if anything fails.
# JOBS=N overrides the parallelism (default: the number of CPUs).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$bp_repo_root"

start=$SECONDS
bp_ensure_deps "${bp_deps[@]}"

bp_log "release build (build/release)"
bp_configure_release
cmake --build build/release --parallel "$bp_jobs"

bp_log "release tests"
(cd build/release && ctest --output-on-failure --no-tests=error --parallel "$bp_jobs")

bp_log "sanitizer build (build/asan: AddressSanitizer + UndefinedBehaviorSanitizer)"
# -g1 (line tables only) instead of -g: sanitizer reports keep file:line,
# and the build, the slowest step of CI, takes about a quarter less time.
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBROADPHASE_SANITIZE=ON \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
    -DBROADPHASE_BUILD_TOOLS=ON -DBROADPHASE_BUILD_TESTS=ON -DBROADPHASE_BUILD_BENCH=OFF
cmake --build build/asan --parallel "$bp_jobs"

bp_log "sanitizer tests"
(cd build/asan && \
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    ctest --output-on-failure --no-tests=error --parallel "$bp_jobs")

bp_log "all tests passed in both builds ($((SECONDS - start)) s)"
