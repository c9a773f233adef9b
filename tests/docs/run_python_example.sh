#!/usr/bin/env bash
# Runs a Python example from the manual against the module of this build.
#   bash tests/docs/run_python_example.sh PYTHON MODULE_DIR SCRIPT [LAUNCHER...]
# With a launcher (mpiexec -n 2 ...), the script runs under it and needs the
# module's MPI part (broadphase.mpi) too. Exits 77 (ctest: skipped) when
# this build has no such module.
set -euo pipefail
python="$1"
module_dir="$2"
script="$3"
shift 3
if ! compgen -G "$module_dir/broadphase/_core*.so" >/dev/null; then
    echo "SKIP: no Python module in this build ($module_dir; BROADPHASE_BUILD_PYTHON, pybind11-dev python3-dev python3-numpy)"
    exit 77
fi
if [ "$#" -gt 0 ] && ! compgen -G "$module_dir/broadphase/_mpi*.so" >/dev/null; then
    echo "SKIP: no broadphase.mpi in this build ($module_dir; MPI and python3-mpi4py)"
    exit 77
fi
export PYTHONPATH="$module_dir${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
exec "$@" "$python" "$script"
