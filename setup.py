"""pip install . for the Python module, offline, with Debian's packages.

    python3 -m venv --system-site-packages /tmp/bp-venv
    /tmp/bp-venv/bin/pip install --no-build-isolation --no-index .

The package's metadata is in pyproject.toml ([project]); this file adds
what setuptools cannot say there: the version, read from
include/broadphase/version.hpp (the one place it is written), and the
extension, built by the project's CMake (BROADPHASE_BUILD_PYTHON=ON, the
C++ tests and tools off) for the interpreter running pip. Needs cmake, a
C++17 compiler, pybind11-dev, python3-dev, python3-numpy,
python3-setuptools and python3-wheel; downloads nothing
(--no-build-isolation: setuptools and wheel come from the system).

BROADPHASE_CMAKE_BUILD_DIR=DIR: build the extension in DIR, an existing
build tree configured with BROADPHASE_BUILD_PYTHON=ON for the same
interpreter, instead of configuring a new one (DIR is not reconfigured; its
target broadphase_python is brought up to date). The ctest python_pip uses
it so as not to compile the library a second time.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def header_version():
    """MAJOR.MINOR.PATCH from include/broadphase/version.hpp, the one place it is written."""
    text = (ROOT / "include" / "broadphase" / "version.hpp").read_text()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        found = re.search(rf"^#define BROADPHASE_VERSION_{part} +([0-9]+) *$", text, re.MULTILINE)
        if not found:
            raise RuntimeError(f"include/broadphase/version.hpp: no #define BROADPHASE_VERSION_{part} N")
        parts.append(found.group(1))
    return ".".join(parts)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        existing = os.environ.get("BROADPHASE_CMAKE_BUILD_DIR")
        if existing:
            build = pathlib.Path(existing).resolve()
            if not (build / "CMakeCache.txt").is_file():
                raise RuntimeError(f"BROADPHASE_CMAKE_BUILD_DIR={existing}: not a configured CMake build tree")
        else:
            build = pathlib.Path(self.build_temp).resolve() / "cmake"
            args = [
                "cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                "-DBROADPHASE_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}",
                "-DBROADPHASE_BUILD_TESTS=OFF", "-DBROADPHASE_BUILD_TOOLS=OFF", "-DBROADPHASE_BUILD_BENCH=OFF",
                "-DBROADPHASE_BUILD_EXAMPLES=OFF", "-DBROADPHASE_CUDA=OFF",
            ]
            try:  # pybind11 from PyPI (an isolated build): its CMake files; Debian's pybind11-dev needs nothing
                import pybind11

                args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
            except ImportError:
                pass
            subprocess.check_call(args)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "--build", str(build), "--target", "broadphase_python", "--parallel", jobs])
        built = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        built.parent.mkdir(parents=True, exist_ok=True)
        (so,) = (build / "python" / "broadphase").glob("_core*.so")
        shutil.copyfile(so, built)


# name, description, dependencies, classifiers...: pyproject.toml's [project].
setup(
    version=header_version(),
    packages=["broadphase"],
    package_dir={"": "python"},
    package_data={"broadphase": ["__init__.pyi", "mpi.pyi", "py.typed"]},
    ext_modules=[Extension("broadphase._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
