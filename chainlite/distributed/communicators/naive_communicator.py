"""The ``'naive'`` communicator: gradients travel in their own dtype."""
from __future__ import annotations

from chainlite.distributed.communicators import mpi_communicator_base


class NaiveCommunicator(mpi_communicator_base.MpiCommunicatorBase):
    """MPI communicator whose gradient averaging keeps each gradient's dtype.

    Gradients are packed into one buffer per dtype (float16 ones travel as float32) and
    averaged with one ``MPI_Allreduce`` each, so a float64 model is averaged in float64.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.
    """
