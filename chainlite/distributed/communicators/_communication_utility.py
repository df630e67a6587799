"""MPI helpers the communicators share: where each rank runs, and chunked broadcasts."""
from __future__ import annotations

import pickle
from typing import Any

from chainlite.distributed import _mpi

INT_MAX = 2 ** 31 - 1


def init_ranks(mpi_comm: Any) -> list:
    """Returns ``[rank, intra_rank, intra_size, inter_rank, inter_size]`` of this process.

    Machines are told apart by ``MPI.Get_processor_name()``, numbered in the order of their
    lowest rank; ranks on one machine are numbered in order.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm`` (every process of it must call this).

    Returns:
        The five numbers, as a list.
    """
    name = _mpi.mpi().Get_processor_name()
    names = mpi_comm.allgather(name)
    nodes = list(dict.fromkeys(names))
    local = [r for r, n in enumerate(names) if n == name]
    return [mpi_comm.rank, local.index(mpi_comm.rank), len(local), nodes.index(name),
            len(nodes)]


def chunked_bcast_obj(obj: Any, mpi_comm: Any, max_buf_len: int = 256 * 1024 * 1024,
                      root: int = 0) -> Any:
    """Broadcasts a picklable object from ``root`` in pieces of at most ``max_buf_len`` bytes.

    MPI counts are 32-bit, so one message tops out at 2 GiB; the pickled object is sent in
    pieces instead.

    Args:
        obj: The object on root; ignored elsewhere.
        mpi_comm: An ``mpi4py.MPI.Comm``.
        max_buf_len: The largest piece, in bytes (``1 .. 2**31 - 1``).
        root: The sending rank.

    Returns:
        Root's object.
    """
    if not 0 < max_buf_len <= INT_MAX:
        raise ValueError('bcast_obj: max_buf_len must be in 1 .. 2**31 - 1, got %r'
                         % (max_buf_len,))
    if mpi_comm.rank == root:
        data = bytearray(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
        mpi_comm.bcast(len(data), root=root)
    else:
        data = bytearray(mpi_comm.bcast(None, root=root))
    view = memoryview(data)
    for b in range(0, len(data), max_buf_len):
        mpi_comm.Bcast(view[b:b + max_buf_len], root=root)
    return obj if mpi_comm.rank == root else pickle.loads(data)
