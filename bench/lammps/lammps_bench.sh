#!/usr/bin/env bash
# LAMMPS as a peer: its neighbour-list build against find_sphere_pairs,
# NeighborList (and scipy's cKDTree, ASE's neighbor_list beside our drop-in
# for it when python3-ase is installed, and vesin with VESIN_DRIVER) on the particles LAMMPS itself made, pairs
# checked against LAMMPS's own list and its neighbour count; a triclinic LJ
# box (NeighborList only), and a Verlet-skin run replayed through
# NeighborList.update against a build every step
# (bench/lammps/compare_lammps.py says what is run and compared).
# Installs Debian's lammps, the Python module's packages and scipy if
# missing, builds the Python module in build/release, and writes
# docs/benchmarks/<machine>-lammps.csv.
# Environment: SIZES (LJ lattice cells a side, default 20,40: 32,000 and
# 256,000 atoms; 80 gives 2,048,000), GRANULAR (granular bed sizes, default
# 12000,100000), TRICLINIC (triclinic LJ sizes, default 20), SKIN_SIZE
# (Verlet-skin LJ sizes, default 20) and SKIN_STEPS (its steps, each dumped:
# 100), STEPS (20), REPEATS (5), PAIRS_DUMP_MAX (LAMMPS dumps its pairs only
# up to this many atoms, 300000), BUILD_DIR (build/release), MACHINE (file
# name), VESIN_DRIVER (vesin's program, built in scratch space by
# ../shared/peers/build.sh with PARTS=vesin: a vesin column; unset: none).
# Empty SIZES, GRANULAR, TRICLINIC or SKIN_SIZE: none of that case. First
# calls are timed in fresh processes (ours_first_ms, nl_first_ms).
# Run it on an otherwise idle machine.
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

bp_log "LAMMPS against find_sphere_pairs and NeighborList"
PYTHONPATH="$build/python" "$bp_python" bench/lammps/compare_lammps.py \
    --sizes "${SIZES-20,40}" --granular "${GRANULAR-12000,100000}" --triclinic "${TRICLINIC-20}" \
    --skin-size "${SKIN_SIZE-20}" --skin-steps "${SKIN_STEPS:-100}" --steps "${STEPS:-20}" \
    --repeats "${REPEATS:-5}" --pairs-dump-max "${PAIRS_DUMP_MAX:-300000}" --out "${bp_results}-lammps.csv"
bp_log "wrote ${bp_results}-lammps.csv"
