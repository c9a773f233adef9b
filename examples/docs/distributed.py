"""Every pair among the boxes of all MPI ranks, from Python: mpirun -n 2 python3 distributed.py"""
import numpy as np
from mpi4py import MPI

import broadphase.mpi as bpm

comm = MPI.COMM_WORLD
# 1,000 unit boxes along x, each touching the next (999 pairs); box i (global id i) on rank i % size.
ids = np.arange(comm.rank, 1000, comm.size, dtype=np.uint64)
boxes = np.zeros((len(ids), 6), dtype=np.float32)  # this rank's (N, 6) rows
boxes[:, 0] = ids
boxes[:, 3] = ids + 1
boxes[:, 4:] = 1

pairs = bpm.find_pairs(comm, boxes, ids)  # (K, 2) uint64 global ids, each pair on one rank
every = bpm.find_pairs(comm, boxes, ids, delivery="gather")  # all pairs on rank 0
finder = bpm.DistributedPairFinder(comm)  # keeps its partition frame to frame
for step in range(3):
    mine, rep = finder.find_pairs(boxes, ids, return_report=True, delivery="to_holders")
assert rep.total_pairs == 999 and comm.allreduce(len(pairs)) == 999
assert len(every) == (999 if comm.rank == 0 else 0)
if comm.rank == 0:
    print(rep.total_pairs, "pairs over", comm.size, "ranks")
