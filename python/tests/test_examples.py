"""The Python example runs (a few steps, no picture)."""

import os
import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "dem.py"


def test_dem_example_runs(tmp_path):
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--n", "300", "--steps", "20", "--out", str(tmp_path / "dem.png")],
        capture_output=True, text=True, env=dict(os.environ, MPLBACKEND="Agg"), timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "contacts" in out.stdout
