"""broadphase.mpi's imports, in fresh interpreters that never start MPI:
`import broadphase` loads no MPI, and `import broadphase.mpi` fails with a
clear ImportError when mpi4py or the extension broadphase._mpi is missing.
(test_mpi.py tests the module itself, under mpirun.)"""

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

import broadphase

PACKAGE = pathlib.Path(broadphase.__file__).resolve().parent


def run(code, cwd=None, **env):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=cwd,
                         env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **env))
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_import_broadphase_loads_no_mpi():
    out = run("import sys, broadphase; "
              "print(sorted(m for m in sys.modules if m.startswith(('mpi4py', 'broadphase.mpi', 'broadphase._mpi'))))")
    assert out.strip() == "[]"


def test_without_mpi4py_the_import_error_says_so():
    out = run("import sys\n"
              "sys.modules['mpi4py'] = None  # as if not installed\n"
              "try:\n"
              "    import broadphase.mpi\n"
              "except ImportError as e:\n"
              "    print('ImportError:', e)\n"
              "import broadphase\n"
              "print(broadphase.find_pairs([[0, 0, 0, 1, 1, 1], [1, 1, 1, 2, 2, 2]]).tolist())\n")
    assert "ImportError: broadphase.mpi needs mpi4py" in out
    assert "[[0, 1]]" in out  # the rest of the package still works


@pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None, reason="mpi4py not installed")
def test_without_the_extension_the_import_error_says_so(tmp_path):
    # A copy of the package without broadphase._mpi (links to the rest).
    copy = tmp_path / "broadphase"
    copy.mkdir()
    for f in PACKAGE.iterdir():
        if not f.name.startswith("_mpi"):
            (copy / f.name).symlink_to(f)
    out = run("import sys\n"
              "try:\n"
              "    import broadphase.mpi\n"
              "except ImportError as e:\n"
              "    print('ImportError:', e)\n"
              "print('MPI loaded:', 'mpi4py.MPI' in sys.modules)\n",
              cwd=tmp_path, PYTHONPATH=str(tmp_path))
    assert "ImportError: broadphase.mpi: the extension broadphase._mpi is not available" in out
    assert "MPI loaded: False" in out
    assert str(tmp_path) in out  # the copy was the one imported
