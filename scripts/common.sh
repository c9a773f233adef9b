# Shared by scripts/*.sh (sourced, not run). Bash only.
#
#   bp_repo_root            the repository root (from this file's location)
#   bp_jobs                 parallel jobs: $JOBS, or the number of CPUs
#   bp_ensure_deps PKG...   installs the Debian packages that are missing
#   bp_configure_release    configures build/release (Release, CLI, tests, bench)
#   bp_python               the Python the module is built for (/usr/bin/python3)
#   bp_log MESSAGE          a visible progress line on stderr, with the seconds
#                           since the script started
#   bp_machine_name         this machine as a file name: amd-epyc-2core
#   bp_results_setup        where the benchmark scripts file their results:
#                           sets bp_machine and bp_results

bp_repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bp_jobs="${JOBS:-$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"

bp_log() { printf '\n==> [%s s] %s\n' "$SECONDS" "$*" >&2; }

# What each package provides, so that a tool already on PATH (installed some
# other way) counts as present.
bp_have_pkg() {
    case "$1" in
        cmake) command -v cmake >/dev/null 2>&1 ;;
        g++) command -v g++ >/dev/null 2>&1 || command -v c++ >/dev/null 2>&1 ;;
        make) command -v make >/dev/null 2>&1 || command -v ninja >/dev/null 2>&1 ;;
        ninja-build) command -v ninja >/dev/null 2>&1 ;;
        *) dpkg -s "$1" >/dev/null 2>&1 ;;
    esac
}

# Installs, with apt-get, whichever of the given Debian packages are missing.
# apt-get update runs once, and only when something has to be installed.
bp_ensure_deps() {
    local missing=() pkg
    for pkg in "$@"; do
        bp_have_pkg "$pkg" || missing+=("$pkg")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0

    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: missing ${missing[*]} and no apt-get to install them; install them by hand" >&2
        return 1
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "error: missing ${missing[*]}; run as root or install sudo" >&2
            return 1
        fi
    fi
    bp_log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update
    "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

# Everything the build, the tests and the benchmarks need (libpng-dev: the
# demo's pictures and their tests; ffmpeg, for the demo's animation, is used
# only when present: it is a large package, so it is not installed here;
# pkgconf: the package test compiles a program with pkg-config's flags;
# zlib1g-dev: the CLI reads np.savez_compressed files with it; libbullet-dev:
# the Bullet adapter, broadphase::bullet, and its tests, ctest -L bullet).
# ninja-build: the build folders use Ninja when it is there (bp_generator).
bp_deps=(cmake g++ make ninja-build libgtest-dev libbenchmark-dev libpng-dev pkgconf zlib1g-dev libbullet-dev)
# The ThreadSanitizer and fuzzing stages of the tests also need clang and
# its sanitizer and libFuzzer runtimes (libclang-rt-dev: only recommended by
# clang, so named here).
bp_clang_deps=(clang libclang-rt-dev)
# Bullet also gives the bullet-dbvt and bullet-sap peers of `broadphase-lab bench SEQUENCE`
# (bench/scene_bench.sh); without it the build leaves the adapter and the peers out.
bp_optional_deps=(libbullet-dev)
# The Python module (python/) and its tests; python3-meshio reads the demo's
# particle files back (tests/sim; python3-ase reads the XYZ file too);
# python3-ase: broadphase.neighbor_list is compared with ASE's own
# neighbor_list (python/tests/test_ase_neighbor_list.py; it pulls in
# matplotlib and sympy); python3-pip, -venv, -setuptools, -wheel: the
# offline pip install test; python3-scipy: the periodic tests compare with
# cKDTree(boxsize=...), and the benchmark measures against it.
bp_python_deps=(pybind11-dev python3-dev python3-numpy python3-pytest python3-hypothesis python3-meshio
    python3-pip python3-venv python3-setuptools python3-wheel python3-scipy python3-ase)
bp_python_bench_deps=(python3-scipy)
# The MPI component (mpi/include/broadphase/mpi/, CMake target broadphase::mpi)
# and its tests (tests/mpi/, ctest -L mpi: mpirun with 1 to 7 ranks): Open
# MPI's headers and compiler wrappers, mpirun, and mpi4py for the Python
# module's broadphase.mpi. Without them CMake leaves the component out.
bp_mpi_deps=(libopenmpi-dev openmpi-bin python3-mpi4py)
# The manual (docs/, mkdocs.yml) and its API reference (Doxyfile), built by
# the docs test (tests/docs, ctest -L docs): without them that test skips.
bp_docs_deps=(mkdocs python3-pymdownx doxygen)
# The system interpreter (Debian's, with the packages above), not one found first on PATH.
bp_python="$(command -v /usr/bin/python3 || command -v python3 || echo python3)"

# The generator for a new build folder: Ninja when it is installed, else
# CMake's default (Make). Ninja starts a target's compiles while the
# libraries it links are still compiling (Make's generator finishes each
# target's dependencies first: every test target waited for all of
# the compiled library and the test harness). A folder configured before keeps its
# generator (CMake refuses to switch). Prints the cmake argument, or nothing.
bp_generator() {
    if [ ! -f "$1/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then echo "-GNinja"; fi
}

# Options spelled out, so that a cache left by another configure cannot
# quietly turn the tests or the CLI off.
bp_configure_release() {
    # shellcheck disable=SC2046  # bp_generator prints one word or none
    cmake $(bp_generator "$bp_repo_root/build/release") -S "$bp_repo_root" -B "$bp_repo_root/build/release" \
        -DCMAKE_BUILD_TYPE=Release \
        -DBROADPHASE_BUILD_TOOLS=ON -DBROADPHASE_BUILD_TESTS=ON -DBROADPHASE_BUILD_BENCH=ON "$@"
}

# Configures build/fuzz: the libFuzzer targets (tests/fuzz/), clang, -O1
# with line tables, nothing else of the project.
bp_configure_fuzz() {
    # shellcheck disable=SC2046
    cmake $(bp_generator "$bp_repo_root/build/fuzz") -S "$bp_repo_root" -B "$bp_repo_root/build/fuzz" \
        -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG" -DBROADPHASE_FUZZ=ON \
        -DBROADPHASE_BUILD_TOOLS=OFF -DBROADPHASE_BUILD_TESTS=OFF -DBROADPHASE_BUILD_BENCH=OFF \
        -DBROADPHASE_BUILD_EXAMPLES=OFF -DBROADPHASE_BUILD_PYTHON=OFF -DBROADPHASE_CUDA=OFF "$@"
}

# This machine as a file name, from lscpu's model name and the CPU count,
# e.g. amd-epyc-2core; results in docs/benchmarks/ are filed under it.
bp_machine_name() {
    local model cores
    model="$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)"
    if [ -z "$model" ]; then
        model="$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)"
    fi
    [ -n "$model" ] || model="unknown-cpu"
    cores="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)"
    # "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz" -> intel-xeon-platinum-8375c
    printf '%s\n' "$model" | tr 'A-Z' 'a-z' |
        sed -e 's/([^)]*)//g' -e 's/@.*$//' -e 's/ cpu\b//g' -e 's/ processor\b//g' \
            -e 's/[0-9]*-core//g' -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//' -e 's/-$//' |
        sed "s/\$/-${cores}core/"
}

# The benchmark scripts' results are docs/benchmarks/<machine>*.csv (and
# .png). Sets bp_machine (MACHINE, or bp_machine_name) and bp_results, the
# path prefix from the repository root (docs/benchmarks/amd-epyc-2core), and
# makes the folder.
bp_results_setup() {
    bp_machine="${MACHINE:-$(bp_machine_name)}"
    bp_results="docs/benchmarks/$bp_machine"
    mkdir -p "$bp_repo_root/docs/benchmarks"
}
