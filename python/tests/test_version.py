"""broadphase.__version__ and setup.py's version are the header's.

The version is written once, in include/broadphase/version.hpp; the
extension module is compiled from it and setup.py parses it.
"""

import pathlib
import re
import subprocess
import sys

import pytest

import broadphase

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "broadphase" / "version.hpp"


def header_version():
    text = HEADER.read_text()
    parts = [re.search(rf"^#define BROADPHASE_VERSION_{p} +([0-9]+) *$", text, re.MULTILINE) for p in ("MAJOR", "MINOR", "PATCH")]
    assert all(parts), f"{HEADER}: the BROADPHASE_VERSION_MAJOR/MINOR/PATCH defines are missing"
    return ".".join(m.group(1) for m in parts)


def test_module_version_is_the_headers():
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", broadphase.__version__), broadphase.__version__
    assert broadphase.__version__ == header_version()
    assert broadphase._core.__version__ == broadphase.__version__


def test_setup_py_version_is_the_headers():
    pytest.importorskip("setuptools")
    out = subprocess.run(
        [sys.executable, "setup.py", "--version"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == header_version()


def test_pyproject_metadata_leaves_the_version_to_the_header():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = data["project"]
    assert project["name"] == "broadphase"
    # Written once: setup.py reads the header; pyproject.toml must not say another number.
    assert "version" not in project and "version" in project["dynamic"]
    assert project["dependencies"] == ["numpy"]
    assert project["license"] == {"text": "MIT"}
    assert project["readme"] == "README.md" and project["requires-python"]
    assert "License :: OSI Approved :: MIT License" in project["classifiers"]
    requires = [r.split(">")[0].split("=")[0].strip() for r in data["build-system"]["requires"]]
    assert {"setuptools", "pybind11", "numpy"} <= set(requires)
