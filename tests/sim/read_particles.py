"""The demo's particle files read by the tools users open them with.

Usage: read_particles.py DIR, where `broadphase demo --export xyz,vtu --out
DIR` wrote particles.xyz, particles_NNNN.vtu and particles.pvd. Reads every
.vtu the .pvd lists with meshio (points, the vertex cells, point data
radius, velocity and contact, the field data TIME) and particles.xyz with
ASE (ase.io.read(index=':')) when it is installed, else with a plain parser
here; checks that the two agree frame by frame (counts, positions, radii,
velocities, contacts, times), that the .pvd's times are those of the frames,
and that every centre lies in the lattice (the simulation's box).

Exits 77 (ctest: skipped) when meshio is missing (Debian: python3-meshio;
python3-ase for the ASE reader).
"""
import os
import sys
import xml.etree.ElementTree as ET

SKIP = 77


def _reexec_with_system_python():
    """Debian's python3-meshio lives in /usr/bin/python3's path; another
    python3 first on PATH (a pyenv, a venv) may not see it."""
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(system, os.X_OK) \
            and not os.environ.get("BROADPHASE_READ_PARTICLES_REEXEC"):
        os.environ["BROADPHASE_READ_PARTICLES_REEXEC"] = "1"
        os.execv(system, [system] + sys.argv)


try:
    import numpy as np
    import meshio
except ImportError:
    _reexec_with_system_python()
    print("SKIP: meshio (and numpy) not installed (Debian: apt-get install python3-meshio)")
    sys.exit(SKIP)

try:
    import ase.io
except ImportError:
    ase = None


def parse_comment(line):
    """key=value and key="a b c" pairs of an extended XYZ comment line."""
    out, i = {}, 0
    while i < len(line):
        while i < len(line) and line[i] == " ":
            i += 1
        eq = line.find("=", i)
        if eq < 0:
            break
        key = line[i:eq]
        if line[eq + 1:eq + 2] == '"':
            end = line.index('"', eq + 2)
            out[key] = line[eq + 2:end]
            i = end + 1
        else:
            end = line.find(" ", eq + 1)
            end = len(line) if end < 0 else end
            out[key] = line[eq + 1:end]
            i = end
    return out


def read_xyz_plain(path):
    """Frames as dicts: n, info, lattice (3x3), pos, radius, velo, contact."""
    frames = []
    with open(path) as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        n = int(lines[i])
        info = parse_comment(lines[i + 1])
        assert info["Properties"] == "species:S:1:pos:R:3:radius:R:1:velo:R:3:contact:I:1", info["Properties"]
        rows = [line.split() for line in lines[i + 2:i + 2 + n]]
        assert len(rows) == n, "a truncated frame"
        assert all(r[0] == "X" for r in rows)
        values = np.array([[float(v) for v in r[1:]] for r in rows]).reshape(n, 8)
        frames.append({
            "n": n,
            "time": float(info["Time"]),
            "step": int(info["Step"]),
            "lattice": np.array([float(v) for v in info["Lattice"].split()]).reshape(3, 3),
            "pos": values[:, 0:3], "radius": values[:, 3], "velo": values[:, 4:7],
            "contact": values[:, 7].astype(int),
        })
        i += 2 + n
    return frames


def read_xyz_ase(path):
    frames = []
    for atoms in ase.io.read(path, index=":", format="extxyz"):
        frames.append({
            "n": len(atoms),
            "time": float(atoms.info["Time"]),
            "step": int(atoms.info["Step"]),
            "lattice": np.array(atoms.cell[:]),
            "pos": atoms.get_positions(), "radius": atoms.arrays["radius"], "velo": atoms.arrays["velo"],
            "contact": atoms.arrays["contact"].astype(int),
        })
        assert not any(atoms.pbc), atoms.pbc
        assert set(atoms.get_chemical_symbols()) == {"X"}
    return frames


def close(a, b):
    """The .xyz file has 9 significant digits; the .vtu file float64."""
    return np.allclose(a, b, rtol=1e-8, atol=1e-12)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    folder = sys.argv[1]
    xyz_path = os.path.join(folder, "particles.xyz")
    pvd_path = os.path.join(folder, "particles.pvd")

    plain = read_xyz_plain(xyz_path)
    frames = plain
    reader = "a plain parser"
    if ase is not None:
        frames = read_xyz_ase(xyz_path)
        reader = "ASE " + ase.__version__
        assert len(frames) == len(plain)
        for a, b in zip(frames, plain):  # ASE reads what the plain parser reads
            assert a["n"] == b["n"] and a["time"] == b["time"] and a["step"] == b["step"]
            assert np.array_equal(a["pos"], b["pos"]) and np.array_equal(a["velo"], b["velo"])
            assert np.array_equal(a["radius"], b["radius"]) and np.array_equal(a["contact"], b["contact"])
            assert np.array_equal(a["lattice"], b["lattice"])
    assert len(frames) >= 2, f"{len(frames)} frames"

    collection = ET.parse(pvd_path).getroot()
    assert collection.get("type") == "Collection"
    datasets = collection.findall("./Collection/DataSet")
    assert len(datasets) == len(frames), f"{len(datasets)} data sets in the .pvd, {len(frames)} frames in the .xyz"

    previous_time = -1.0
    for k, (ds, frame) in enumerate(zip(datasets, frames)):
        time = float(ds.get("timestep"))
        assert time == frame["time"], (k, time, frame["time"])
        assert time > previous_time
        previous_time = time
        mesh = meshio.read(os.path.join(folder, ds.get("file")))
        n = frame["n"]
        assert mesh.points.shape == (n, 3), mesh.points.shape
        assert len(mesh.cells) == 1 and mesh.cells[0].type == "vertex", mesh.cells
        assert np.array_equal(mesh.cells[0].data.reshape(-1), np.arange(n))
        assert close(mesh.points, frame["pos"]), f"frame {k}: positions differ"
        assert close(mesh.point_data["radius"].reshape(-1), frame["radius"]), f"frame {k}: radii differ"
        assert close(mesh.point_data["velocity"].reshape(n, 3), frame["velo"]), f"frame {k}: velocities differ"
        assert np.array_equal(mesh.point_data["contact"].reshape(-1).astype(int), frame["contact"])
        assert float(np.asarray(mesh.field_data["TIME"]).reshape(-1)[0]) == time
        # Every centre inside the domain, which the lattice is.
        box = np.diag(frame["lattice"])
        assert np.count_nonzero(frame["lattice"] - np.diag(box)) == 0
        assert (mesh.points >= 0).all() and (mesh.points <= box).all(), f"frame {k}: a centre outside the box"
    print(f"{len(frames)} frames of {frames[0]['n']} particles: the .vtu files (meshio {meshio.__version__}) "
          f"and particles.xyz ({reader}) agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
