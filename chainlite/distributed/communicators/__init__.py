"""Communicators: who talks to whom, and how gradients are averaged."""
from __future__ import annotations

from typing import Any

from chainlite.distributed import _mpi
from chainlite.distributed.communicators.communicator_base import CommunicatorBase  # noqa: F401

_CPU = ('naive', 'flat', 'dummy')
_GPU = ('pure_nccl', 'non_cuda_aware')
_REMOVED = ('hierarchical', 'two_dimensional', 'single_node')


def create_communicator(communicator_name: str = 'naive', mpi_comm: Any = None,
                        **kwargs: Any) -> CommunicatorBase:
    """Creates a communicator over the processes of an MPI job.

    ====================  ====================================================================
    ``'naive'``           gradients averaged in their own dtype, one buffer each
    ``'flat'``            all gradients averaged in one float32 buffer
    ``'dummy'``           packs gradients but does not average them (profiling)
    ``'pure_nccl'``       GPU gradients averaged by NCCL on the GPUs, in
                          ``allreduce_grad_dtype`` (default ``chainlite.config.dtype``)
    ``'non_cuda_aware'``  NCCL within a machine, MPI on host memory between machines (float32)
    ====================  ====================================================================

    Every communicator accepts CuPy arrays (models on GPUs, and the arrays of ``bcast``,
    ``allreduce``, ``send``...): ``'naive'``, ``'flat'`` and ``'dummy'`` stage them through
    host memory, one packed buffer per call, and put the results back on the GPU.
    ``'pure_nccl'`` and ``'non_cuda_aware'`` need CuPy with NCCL and a GPU per process, as in
    ChainerMN: without them they raise RuntimeError saying what is missing, before any
    communication. Each process uses its own GPU, usually the one of its ``intra_rank``
    (``chainlite.backends.cuda.get_device_from_id(comm.intra_rank).use()``).
    ``'hierarchical'``, ``'two_dimensional'`` and ``'single_node'`` were removed in ChainerMN
    7 and are unknown names here too.

    Creating the first communicator of a job with more than one process also installs
    :func:`~chainlite.distributed.global_except_hook.add_hook`, so an uncaught exception on
    one rank aborts the whole job instead of leaving the others waiting; every communicator
    of more than one process also checks that the ranks make the same collective calls, and
    stops the job when a rank leaves while others wait for it (see "What happens when a
    rank stops" in docs/distributed.md).

    Args:
        communicator_name: One of the names above.
        mpi_comm: An ``mpi4py.MPI.Comm``; ``MPI.COMM_WORLD`` if None.
        kwargs: ``allreduce_grad_dtype`` (only for ``'pure_nccl'``) and ``batched_copy``
            (accepted; gradients are always packed).

    Returns:
        A :class:`CommunicatorBase`.

    Raises:
        ImportError: If mpi4py is not installed (the message says how to install it).
        ValueError: For an unknown name, or a keyword that does not apply.
        RuntimeError: For ``'pure_nccl'`` or ``'non_cuda_aware'`` where NCCL cannot be used.

    Example:
        The usual start of a data-parallel script, run with ``mpiexec -n 4 python train.py``::

            comm = chainlite.distributed.create_communicator('naive')
            print(comm.rank, comm.size)
    """
    allreduce_grad_dtype = kwargs.pop('allreduce_grad_dtype', None)
    batched_copy = kwargs.pop('batched_copy', True)
    if kwargs:
        raise TypeError('create_communicator: unexpected keyword argument(s) %s'
                        % ', '.join(sorted(kwargs)))
    if communicator_name not in _CPU + _GPU:
        removed = (' (ChainerMN 7 removed it too; use \'pure_nccl\' on GPUs with NCCL, '
                   'or \'naive\' or \'flat\', which move GPU arrays through host memory)'
                   if communicator_name in _REMOVED else '')
        raise ValueError('create_communicator: unknown communicator %r%s; the available ones '
                         'are %s' % (communicator_name, removed,
                                     ', '.join(map(repr, _CPU + _GPU))))
    if allreduce_grad_dtype is not None and communicator_name != 'pure_nccl':
        raise ValueError("create_communicator: allreduce_grad_dtype is only available with "
                         "the 'pure_nccl' communicator, not %r" % communicator_name)
    if communicator_name in _GPU:
        # Where NCCL cannot be used, say so before MPI starts.
        from chainlite.distributed import nccl
        nccl._module('create_communicator(%r)' % communicator_name)
    if mpi_comm is None:
        mpi_comm = _mpi.mpi().COMM_WORLD
    if communicator_name == 'naive':
        from chainlite.distributed.communicators import naive_communicator
        comm: Any = naive_communicator.NaiveCommunicator(mpi_comm=mpi_comm)
    elif communicator_name == 'flat':
        from chainlite.distributed.communicators import flat_communicator
        comm = flat_communicator.FlatCommunicator(mpi_comm=mpi_comm)
    elif communicator_name == 'pure_nccl':
        from chainlite.distributed.communicators import pure_nccl_communicator
        comm = pure_nccl_communicator.PureNcclCommunicator(mpi_comm=mpi_comm)
        comm.set_config('allreduce_grad_dtype', allreduce_grad_dtype)
    elif communicator_name == 'non_cuda_aware':
        from chainlite.distributed.communicators import non_cuda_aware_communicator
        comm = non_cuda_aware_communicator.NonCudaAwareCommunicator(mpi_comm=mpi_comm)
    else:
        from chainlite.distributed.communicators import dummy_communicator
        comm = dummy_communicator.DummyCommunicator(mpi_comm=mpi_comm)
    comm.set_config('batched_copy', batched_copy)
    if comm.size > 1:
        from chainlite.distributed import global_except_hook
        global_except_hook._add_hook_once()
    return comm
