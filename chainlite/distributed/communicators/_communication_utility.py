"""MPI helpers the communicators share: where each rank runs, and chunked broadcasts."""
from __future__ import annotations

import pickle
from typing import Any

from chainlite.distributed import _mpi
from chainlite.distributed import nccl

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


def init_intra_mpi_comm(mpi_comm: Any, intra_rank: int, inter_rank: int) -> Any:
    """Splits ``mpi_comm`` into one communicator per machine (ranks ordered by intra rank).

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.
        intra_rank: This process's rank on its machine (from :func:`init_ranks`).
        inter_rank: The number of its machine.

    Returns:
        The ``mpi4py.MPI.Comm`` of the processes on this machine.
    """
    return mpi_comm.Split(inter_rank, intra_rank)


def init_inter_mpi_comm(mpi_comm: Any, intra_rank: int, inter_rank: int) -> Any:
    """Splits ``mpi_comm`` into one communicator per intra rank, across the machines.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.
        intra_rank: This process's rank on its machine (from :func:`init_ranks`).
        inter_rank: The number of its machine.

    Returns:
        The ``mpi4py.MPI.Comm`` joining the processes of this intra rank on each machine.
    """
    return mpi_comm.Split(intra_rank, inter_rank)


def init_nccl_comm(mpi_comm: Any) -> Any:
    """Creates an NCCL communicator over the processes of ``mpi_comm`` (a collective call).

    Rank 0 draws NCCL's unique id and broadcasts it; each process then joins with its rank.
    NCCL binds the communicator to the current CUDA device, so each process selects its GPU
    first (``cuda.get_device_from_id(comm.intra_rank).use()``).

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm``.

    Returns:
        A ``cupy.cuda.nccl.NcclCommunicator``.

    Raises:
        RuntimeError: Where NCCL cannot be used (no CuPy, no GPU, or a CuPy without NCCL),
            before any communication.
    """
    module = nccl._module('NcclCommunicator')
    uid = module.get_unique_id() if mpi_comm.rank == 0 else None
    uid = mpi_comm.bcast(uid, root=0)
    return module.NcclCommunicator(mpi_comm.size, uid, mpi_comm.rank)


def inter_allreduce_gpu(inter_mpi_comm: Any, size: int, gpu_buffer_a: Any, gpu_buffer_b: Any,
                        n_bytes_buffer: int, n_elems_per_node: int, n_bytes_per_node: int,
                        cuda_stream: Any) -> None:
    """Averages float32 data across machines, each machine reducing one slice (ChainerMN's
    two-step hierarchical all-reduce).

    ``gpu_buffer_b`` holds this process's data, ``inter_size`` slices of ``n_elems_per_node``
    elements; after an all-to-all each process sums its slice from every machine, divides by
    ``size`` and writes the result into every slice of ``gpu_buffer_a``, and a second
    all-to-all leaves the mean in ``gpu_buffer_b``. The buffers are ChainerMN's
    ``DeviceMemory`` (whose ``buffer`` is GPU memory: an MPI that reads GPU memory is
    needed, as in ChainerMN) or any objects with its methods ``buffer(n_bytes)``,
    ``array(count)`` and ``from_device(array, n_bytes, offset)``.

    Args:
        inter_mpi_comm: The ``mpi4py.MPI.Comm`` across machines.
        size: The number of processes the mean is over.
        gpu_buffer_a: The work buffer.
        gpu_buffer_b: The data, replaced by its mean.
        n_bytes_buffer: The bytes of data in each buffer.
        n_elems_per_node: The float32 elements of each slice.
        n_bytes_per_node: The bytes of each slice.
        cuda_stream: Anything with ``synchronize()``, called before each exchange.
    """
    mpi = _mpi.mpi()
    inter_size = inter_mpi_comm.size
    cuda_stream.synchronize()
    inter_mpi_comm.Alltoall([gpu_buffer_b.buffer(n_bytes_buffer), mpi.FLOAT],
                            [gpu_buffer_a.buffer(n_bytes_buffer), mpi.FLOAT])
    mine = gpu_buffer_a.array(inter_size * n_elems_per_node).reshape(
        inter_size, n_elems_per_node).sum(axis=0) * (1.0 / size)
    for i in range(inter_size):
        gpu_buffer_a.from_device(mine, n_bytes_per_node, i * n_bytes_per_node)
    cuda_stream.synchronize()
    inter_mpi_comm.Alltoall([gpu_buffer_a.buffer(n_bytes_buffer), mpi.FLOAT],
                            [gpu_buffer_b.buffer(n_bytes_buffer), mpi.FLOAT])
