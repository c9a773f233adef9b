"""pytest on every rank of an MPI job (ctest python_mpi_np*):

    mpirun -n P python3 python/tests/mpi_pytest.py -q -p no:cacheprovider python/tests/test_mpi.py

Rank 0 prints its output as pytest does; another rank prints its output only
when it fails (then under a "rank r" line). The exit status is each rank's
pytest's, so mpirun fails when any rank does. The tests in test_mpi.py make
their collective calls in the same order on every rank and assert after
them, so that a failure on one rank does not leave the others waiting.
"""

import contextlib
import io
import os
import sys

import pytest


def world_rank():
    # Set by the launcher (OpenMPI, PMIx, MPICH/Hydra, MVAPICH), read
    # before MPI is initialized.
    for var in ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK"):
        if var in os.environ:
            return int(os.environ[var])
    return 0


def main():
    os.environ.setdefault("BROADPHASE_MPI_TESTS", "1")
    rank = world_rank()
    args = sys.argv[1:]
    if rank == 0:
        return int(pytest.main(args))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        code = int(pytest.main(args))
    if code != 0:
        sys.stdout.write(f"---------------- rank {rank}: pytest exit status {code} ----------------\n")
        sys.stdout.write(buf.getvalue())
        sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
