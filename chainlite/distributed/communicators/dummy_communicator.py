"""The ``'dummy'`` communicator: packs and unpacks gradients without communicating."""
from __future__ import annotations

import numpy

from chainlite.distributed.communicators import mpi_communicator_base


class DummyCommunicator(mpi_communicator_base.MpiCommunicatorBase):
    """Communicator whose gradient "averaging" only packs and unpacks the gradients.

    It measures the cost of packing: ``multi_node_mean_grad`` leaves every gradient as it
    was (so training is not data parallel). Everything else communicates as usual.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.
    """

    def _transfer_dtype(self, dtype: numpy.dtype) -> numpy.dtype:
        return numpy.dtype(numpy.float32)

    def _reduce_sum(self, buf: numpy.ndarray) -> float:
        return 1.0

    def _start_reduce_mean(self, buf: numpy.ndarray) -> mpi_communicator_base._PendingMean:
        return mpi_communicator_base._PendingMean(None, buf, 1.0)

    def _reduce_scatter_sum(self, buf: numpy.ndarray, counts: list) -> float:
        return 1.0

    def _allgather_segments(self, buf: numpy.ndarray, counts: list) -> None:
        pass

    def _reduce_scatter_arrays(self, groups: list) -> float:
        return 1.0
