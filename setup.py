"""pip install . for the Python module, offline, with Debian's packages.

    python3 -m venv --system-site-packages /tmp/bp-venv
    /tmp/bp-venv/bin/pip install --no-build-isolation --no-index .

It runs the project's CMake (BROADPHASE_BUILD_PYTHON=ON, the C++ tests and
tools off) for the interpreter running pip and puts the built package in
the wheel. Needs cmake, a C++17 compiler, pybind11-dev, python3-dev,
python3-numpy, python3-setuptools and python3-wheel; downloads nothing
(--no-build-isolation: setuptools and wheel come from the system).
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
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        subprocess.check_call(
            [
                "cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                "-DBROADPHASE_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}",
                "-DBROADPHASE_BUILD_TESTS=OFF", "-DBROADPHASE_BUILD_TOOLS=OFF", "-DBROADPHASE_BUILD_BENCH=OFF",
                "-DBROADPHASE_BUILD_EXAMPLES=OFF", "-DBROADPHASE_CUDA=OFF",
            ]
        )
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "--build", str(build), "--target", "broadphase_python", "--parallel", jobs])
        built = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        built.parent.mkdir(parents=True, exist_ok=True)
        (so,) = (build / "python" / "broadphase").glob("_core*.so")
        shutil.copyfile(so, built)


setup(
    name="broadphase",
    version=header_version(),
    description="Every overlapping pair among axis-aligned boxes, exactly once (C++17, numpy)",
    packages=["broadphase"],
    package_dir={"": "python"},
    package_data={"broadphase": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("broadphase._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    install_requires=["numpy"],
    python_requires=">=3.8",
    zip_safe=False,
)
