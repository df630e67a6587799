"""The ``'non_cuda_aware'`` communicator: NCCL within a machine, MPI on host memory between.

ChainerMN's communicator for an MPI that cannot read GPU memory. It needs CuPy with NCCL and
a GPU per process, as in ChainerMN (creating one without them raises RuntimeError saying
what is missing).
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlite.distributed import _mpi
from chainlite.distributed.communicators import _communication_utility
from chainlite.distributed.communicators import _packing
from chainlite.distributed.communicators import mpi_communicator_base
from chainlite.distributed.communicators import pure_nccl_communicator


class NonCudaAwareCommunicator(pure_nccl_communicator._NcclCommunicatorBase):
    """Averages GPU gradients in float32 in three steps, as ChainerMN does: an NCCL reduce
    onto each machine's first process, an MPI all-reduce of those sums between machines in
    host memory, and an NCCL broadcast back within each machine.

    Parameters and other arrays go through host memory with MPI.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.

    Raises:
        RuntimeError: Without CuPy, a GPU, or NCCL in CuPy (the message says which).
    """

    def __init__(self, mpi_comm: Any) -> None:
        super().__init__(mpi_comm)
        self.inter_mpi_comm: Any = None

    def _init_comms(self) -> None:
        if self.nccl_comm is not None:
            return
        intra = _communication_utility.init_intra_mpi_comm(self.mpi_comm, self.intra_rank,
                                                           self.inter_rank)
        self.inter_mpi_comm = _communication_utility.init_inter_mpi_comm(
            self.mpi_comm, self.intra_rank, self.inter_rank)
        self.nccl_comm = _communication_utility.init_nccl_comm(intra)

    def _transfer_dtype(self, dtype: numpy.dtype) -> numpy.dtype:
        return numpy.dtype(numpy.float32)

    def _mean_gpu(self, arrays: list, dtype: numpy.dtype, n: int, device: Any) -> None:
        self._init_comms()
        stream = pure_nccl_communicator._stream_ptr()
        type_id = self._nccl_type(dtype)
        with device:
            buf = self._device_buffers.get(dtype, n, device)
            _packing.pack(arrays, buf)
            ptr = buf.data.ptr
            self.nccl_comm.reduce(ptr, ptr, n, type_id, self._nccl.NCCL_SUM, 0, stream)
            if self.intra_rank == 0:
                host = self._buffers.get(dtype, n)
                buf.get(out=host)
                self.inter_mpi_comm.Allreduce(_mpi.mpi().IN_PLACE, host)
                buf.set(host)
            self.nccl_comm.bcast(ptr, n, type_id, 0, stream)
            self._check_finite(buf)
            _packing.unpack(buf, arrays, 1.0 / self.size)

    # Everything else crosses through host memory, as in ChainerMN.
    _bcast_gpu = mpi_communicator_base.MpiCommunicatorBase._bcast_gpu
    _allreduce_gpu = mpi_communicator_base.MpiCommunicatorBase._allreduce_gpu
    _multi_node_mean_gpu = mpi_communicator_base.MpiCommunicatorBase._multi_node_mean_gpu

