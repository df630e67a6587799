"""A stand-in for ``cupy.cuda.nccl`` (CuPy built with NCCL), for the GPU checks without a GPU.

The CuPy stand-in is a CuPy whose NCCL cannot load (``cupy.cuda.nccl.available`` False).
To run the NCCL communicators' code, check_gpu.py puts this module in its place, in its own
processes only: the names and call signatures of CuPy's NCCL bindings
(``NcclCommunicator(ndev, commId, rank)``, ``allReduce(sendbuf, recvbuf, count, datatype,
op, stream)``, ``reduce``, ``bcast``, ``destroy``, the ``NCCL_*`` constants), done with MPI
on the memory the pointers address (the stand-in's device memory is host memory). Every
call is logged in ``CALLS``, so the checks can see what went through NCCL.
"""
import ctypes
import itertools

import numpy as np
from mpi4py import MPI

available = True
NCCL_SUM = 0
NCCL_FLOAT16, NCCL_FLOAT32, NCCL_FLOAT64, NCCL_INT32, NCCL_INT64 = 6, 7, 8, 2, 4
NCCL_INT8, NCCL_UINT8, NCCL_UINT32, NCCL_UINT64 = 0, 1, 3, 5
_DTYPES = {NCCL_FLOAT16: np.float16, NCCL_FLOAT32: np.float32, NCCL_FLOAT64: np.float64,
           NCCL_INT32: np.int32, NCCL_INT64: np.int64, NCCL_INT8: np.int8,
           NCCL_UINT8: np.uint8, NCCL_UINT32: np.uint32, NCCL_UINT64: np.uint64}
CALLS = []
_ids = itertools.count(1)


def get_build_version():
    return 21803


def get_version():
    return 21803


def get_unique_id():
    return (next(_ids),) + (0,) * 127


def _view(ptr, count, datatype):
    dtype = np.dtype(_DTYPES[datatype])
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(ptr)
    return np.frombuffer(raw, dtype, count)


class NcclCommunicator:
    def __init__(self, ndev, commId, rank):
        # Every process of the job creates its NCCL communicators at the same time (as
        # ChainerMN's do), so a split of the world by the id finds the members.
        self.comm = MPI.COMM_WORLD.Split(commId[0], rank)
        assert (self.comm.size, self.comm.rank) == (ndev, rank)

    def _sum(self, data, dtype):
        parts = self.comm.allgather(data.copy())
        total = parts[0].copy()
        for p in parts[1:]:
            total += p   # in the buffer's dtype (float16 sums in float16, as NCCL)
        return total

    def allReduce(self, sendbuf, recvbuf, count, datatype, op, stream):  # noqa: N802
        assert op == NCCL_SUM
        CALLS.append(('allReduce', count, datatype))
        _view(recvbuf, count, datatype)[...] = self._sum(_view(sendbuf, count, datatype),
                                                         datatype)

    def reduce(self, sendbuf, recvbuf, count, datatype, op, root, stream):
        assert op == NCCL_SUM
        CALLS.append(('reduce', count, datatype))
        total = self._sum(_view(sendbuf, count, datatype), datatype)
        if self.comm.rank == root:
            _view(recvbuf, count, datatype)[...] = total

    def bcast(self, buff, count, datatype, root, stream):
        CALLS.append(('bcast', count, datatype))
        self.comm.Bcast(_view(buff, count, datatype).view(np.uint8), root=root)

    def destroy(self):
        CALLS.append(('destroy',))
        self.comm.Free()
