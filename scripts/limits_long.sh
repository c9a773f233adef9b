#!/usr/bin/env bash
# The long hard-limit runs of tests/core/limits_test.cpp, left out
# of ctest: every algorithm streams the pairs of 100,000 identical boxes
# (4,999,950,000 pairs, more than 2^32) through PairFinder::for_each_pair,
# and two sets of 65,537 identical boxes (4,295,098,369 pairs) through the
# two-set for_each_pair with brute force, sweep and prune and the uniform
# grid; each checks the 64-bit count, Report::pairs and two checksums.
# Builds broadphase_limits_tests (Release) first. About 1.5 minutes on the
# 2-core EPYC (about 1.1-1.7 ns a pair).
# Environment: BUILD_DIR (default build/release), JOBS.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$bp_repo_root"

build="${BUILD_DIR:-build/release}"
bp_ensure_deps cmake g++ make libgtest-dev
bp_log "release build of the limits tests ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --parallel "$bp_jobs" --target broadphase_limits_tests

bp_log "LimitsLong.*: more than 2^32 pairs, every algorithm"
BROADPHASE_LIMITS_LONG=1 "$build/tests/core/broadphase_limits_tests" --gtest_filter='LimitsLong.*'
