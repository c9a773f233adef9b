"""ctest python_pip: `pip install --no-build-isolation --no-index .` of the
source tree into a scratch environment, then a fresh interpreter imports
broadphase from there (and only there) and finds a pair.

    python3 pip_install.py --source ROOT --build BUILD_DIR --work SCRATCH

The environment is a venv with --system-site-packages --without-pip (numpy,
setuptools, wheel and pip itself come from the system, as in docs/python.md);
where venv is missing, `pip install --target` (with --no-deps) instead.
Exit status 77 (ctest: skipped) when pip, setuptools or wheel is missing.
The extension is built in BUILD_DIR, the ctest build tree
(BROADPHASE_CMAKE_BUILD_DIR, see setup.py), not compiled a second time;
pip's in-tree build leaves build/ and python/broadphase.egg-info/ in the
source tree, which .gitignore lists.
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import sys

SKIP = 77

CHECK = r"""
import importlib.metadata, pathlib, sys
import numpy as np
import broadphase
where = pathlib.Path(broadphase.__file__).resolve()
scratch = pathlib.Path(sys.argv[1]).resolve()
assert scratch in where.parents, f"imported from {where}, not the scratch install {scratch}"
boxes = np.array([[0, 0, 0, 1, 1, 1], [1, 1, 1, 2, 2, 2], [5, 5, 5, 6, 6, 6]], np.float32)
assert broadphase.find_pairs(boxes).tolist() == [[0, 1]]
flat = np.array([[0, 0, 1, 1], [0.5, 0.5, 3, 3], [4, 4, 5, 5]], np.float64)
assert broadphase.find_pairs(flat).tolist() == [[0, 1]]
for f in ("__init__.pyi", "py.typed"):
    assert (where.parent / f).is_file(), f"{f} not installed"
meta = importlib.metadata.metadata("broadphase")
assert meta["Version"] == broadphase.__version__, (meta["Version"], broadphase.__version__)
assert any(r.split(";")[0].strip() == "numpy" for r in meta.get_all("Requires-Dist") or []), meta.get_all("Requires-Dist")
assert meta["License"] == "MIT", meta["License"]
print("installed", broadphase.__version__, "at", where.parent)
"""


def run(cmd, **kw):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run(cmd, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    py = sys.executable

    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if run([py, "-m", "pip", "--version"], **quiet).returncode != 0:
        print(f"SKIP: pip is not installed for {py} (Debian: apt-get install python3-pip)")
        return SKIP
    for module, package in (("setuptools", "python3-setuptools"), ("wheel", "python3-wheel")):
        if run([py, "-c", f"import {module}"], **quiet).returncode != 0:
            print(f"SKIP: {module} is not installed for {py} (Debian: apt-get install {package})")
            return SKIP

    work = pathlib.Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_TARGET", "PIP_PREFIX", "PIP_USER")}
    env.update(
        BROADPHASE_CMAKE_BUILD_DIR=str(pathlib.Path(args.build).resolve()),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    pip_args = ["install", "--no-build-isolation", "--no-index", "--no-cache-dir", str(pathlib.Path(args.source).resolve())]

    venv = work / "venv"
    made = run([py, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], cwd=work, **quiet).returncode == 0
    if made:
        vpy = venv / "bin" / "python"
        install = run([str(vpy), "-m", "pip", *pip_args], cwd=work, env=env)
        check_py, where, check_env = vpy, venv, env
    else:  # no venv module (Debian: python3-venv): a --target directory
        print("python3 -m venv failed (Debian: python3-venv); installing with pip --target instead")
        target = work / "site"
        install = run([py, "-m", "pip", *pip_args, "--target", str(target), "--no-deps"], cwd=work, env=env)
        check_py, where, check_env = py, target, dict(env, PYTHONPATH=str(target))
    if install.returncode != 0:
        print(f"FAIL: pip install exited with {install.returncode}")
        return 1
    # -I: a fresh interpreter that sees neither PYTHONPATH nor the working directory.
    flags = ["-I"] if made else []
    check = run([str(check_py), *flags, "-c", CHECK, str(where)], cwd=work, env=check_env)
    if check.returncode != 0:
        print("FAIL: the pip-installed module does not import or work")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
