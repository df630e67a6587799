"""The ``'flat'`` communicator: every gradient travels in one float32 buffer."""
from __future__ import annotations

import numpy

from chainlite.distributed.communicators import mpi_communicator_base


class FlatCommunicator(mpi_communicator_base.MpiCommunicatorBase):
    """MPI communicator that averages all gradients in a single float32 buffer.

    As ChainerMN's ``flat`` communicator: one ``MPI_Allreduce`` per step whatever the
    parameters' dtypes, in float32 (half the bytes of float64 gradients, at float32
    precision).

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.
    """

    def _transfer_dtype(self, dtype: numpy.dtype) -> numpy.dtype:
        return numpy.dtype(numpy.float32)
