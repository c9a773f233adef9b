#!/usr/bin/env bash
# Runs a Python example from the manual against the module of this build.
#   bash tests/docs/run_python_example.sh PYTHON MODULE_DIR SCRIPT
# Exits 77 (ctest: skipped) when this build has no Python module.
set -euo pipefail
python="$1"
module_dir="$2"
script="$3"
if ! compgen -G "$module_dir/broadphase/_core*.so" >/dev/null; then
    echo "SKIP: no Python module in this build ($module_dir; BROADPHASE_BUILD_PYTHON, pybind11-dev python3-dev python3-numpy)"
    exit 77
fi
export PYTHONPATH="$module_dir${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
exec "$python" "$script"
