#!/usr/bin/env bash
# LAMMPS as a peer: its neighbour-list build against find_sphere_pairs (and
# scipy's cKDTree, and ASE's neighbor_list when python3-ase is installed) on
# the particles LAMMPS itself made, pairs checked against LAMMPS's own list
# (bench/lammps/compare_lammps.py says what is run and compared).
# Installs Debian's lammps, the Python module's packages and scipy if
# missing, builds the Python module in build/release, and writes
# docs/benchmarks/<machine>-lammps.csv.
# Environment: SIZES (LJ lattice cells a side, default 20,40: 32,000 and
# 256,000 atoms; 80 gives 2,048,000), GRANULAR (granular bed sizes, default
# 12000,100000), STEPS (20), REPEATS (5), BUILD_DIR (build/release),
# MACHINE (file name). Run it on an otherwise idle machine.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"
cd "$bp_repo_root"

bp_results_setup
build="${BUILD_DIR:-build/release}"
bp_ensure_deps "${bp_deps[@]}" "${bp_python_deps[@]}" lammps
bp_ensure_deps python3-ase || bp_log "python3-ase not installed: no ASE column"
bp_log "Python module ($build/python)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBROADPHASE_BUILD_PYTHON=ON "-DPython3_EXECUTABLE=$bp_python" >/dev/null
cmake --build "$build" --parallel "$bp_jobs" --target broadphase_python broadphase_python_files

bp_log "LAMMPS against find_sphere_pairs"
PYTHONPATH="$build/python" "$bp_python" bench/lammps/compare_lammps.py \
    --sizes "${SIZES:-20,40}" --granular "${GRANULAR:-12000,100000}" --steps "${STEPS:-20}" \
    --repeats "${REPEATS:-5}" --out "${bp_results}-lammps.csv"
bp_log "wrote ${bp_results}-lammps.csv"
