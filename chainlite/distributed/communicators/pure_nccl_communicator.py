"""ChainerMN's ``'pure_nccl'`` communicator needs GPUs: here it only says so."""
from __future__ import annotations

from typing import Any

from chainlite.distributed.communicators import mpi_communicator_base


class PureNcclCommunicator(mpi_communicator_base.MpiCommunicatorBase):
    """The NCCL communicator of ChainerMN; creating one raises ``RuntimeError``.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.
    """

    def __init__(self, mpi_comm: Any) -> None:
        raise RuntimeError("PureNcclCommunicator needs NVIDIA GPUs and NCCL, which chainlite "
                           "(a CPU framework) does not have; use the 'naive' or 'flat' "
                           "communicator")
