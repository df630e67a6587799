"""Batch normalization with the statistics of every rank's batch."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.backends import cuda
from chainlite import variable
from chainlite.functions import _axis
from chainlite.functions.array import cast
from chainlite.functions.array import concat
from chainlite.functions.array import reshape
from chainlite.functions.math import sum as sum_module

if TYPE_CHECKING:
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class _AllReduceSum(function_node.FunctionNode):
    # The sum over the ranks; its adjoint is the same sum of the gradients.

    def __init__(self, comm: CommunicatorBase) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        return self.comm.allreduce(x),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = grad_outputs
        return _AllReduceSum(self.comm).apply((gy,))


def multi_node_batch_normalization(x: Any, gamma: Any, beta: Any, comm: CommunicatorBase,
                                   eps: float = 2e-5, running_mean: Optional[Any] = None,
                                   running_var: Optional[Any] = None, decay: float = 0.9,
                                   axis: Any = None) -> variable.Variable:
    """Batch normalization whose mean and variance are over the batches of all ranks.

    Each rank sums ``x`` and ``x * x`` over ``axis`` and counts its examples; one
    all-reduce of the packed sums gives the global mean and (biased) variance, with which
    the rank normalizes its own ``x``. The result equals
    :func:`~chainlite.functions.batch_normalization` of the concatenated batches. Built from
    differentiable functions (the all-reduce's adjoint is itself), so it supports double
    backprop; float16 inputs are normalized in float32.

    Args:
        x: This rank's batch.
        gamma: The scale, of the channel shape.
        beta: The shift, of the channel shape.
        comm: A communicator.
        eps: Added to the variance.
        running_mean: None, or an array updated in place with the global mean.
        running_var: None, or an array updated in place with the global unbiased variance.
        decay: The decay rate of the running averages.
        axis: The axes to normalize over; by default the first and those after the
            channel axes.

    Returns:
        The normalized Variable, of ``x``'s shape and dtype.
    """
    x = variable.as_variable(x)
    gamma = variable.as_variable(gamma)
    beta = variable.as_variable(beta)
    if axis is None:
        axis = (0,) + tuple(range(gamma.ndim + 1, x.ndim))
    else:
        axis = _axis.normalize_axes(axis, x.ndim, 'multi_node_batch_normalization')
    kept = tuple(1 if i in axis else n for i, n in enumerate(x.shape))
    if int(numpy.prod(kept)) != gamma.size:
        raise ValueError('multi_node_batch_normalization: x of shape %s normalized over %s '
                         'leaves %s, which does not match gamma of shape %s'
                         % (x.shape, axis, kept, gamma.shape))
    dtype = x.dtype
    work = numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype
    xc = cast.cast(x, work) if dtype != work else x
    g = cast.cast(gamma, work) if gamma.dtype != work else gamma
    b = cast.cast(beta, work) if beta.dtype != work else beta
    c = gamma.size
    local_n = x.size // max(c, 1)
    xp = backend.get_array_module(x.array)
    stats = concat.concat((reshape.reshape(sum_module.sum(xc, axis=axis), (c,)),
                           reshape.reshape(sum_module.sum(xc * xc, axis=axis), (c,)),
                           xp.array([local_n], work)), axis=0)
    total = _AllReduceSum(comm).apply((stats,))[0]
    # The global count is needed on the host (a Python number); on a GPU this reads one
    # element of the sum that has just come back from the host.
    m = float(total.array[2 * c])
    mean = total[:c] / m
    var = total[c:2 * c] / m - mean * mean
    inv_std = (var + eps) ** -0.5
    y = (xc - reshape.reshape(mean, kept)) * reshape.reshape(inv_std * reshape.reshape(g, (c,)),
                                                             kept)
    y = y + reshape.reshape(b, kept)
    if running_mean is not None:
        running_mean *= decay
        running_mean += (1 - decay) * mean.array.reshape(running_mean.shape)
    if running_var is not None:
        adjust = m / max(m - 1.0, 1.0)
        running_var *= decay
        running_var += (1 - decay) * adjust * var.array.reshape(running_var.shape)
    return cast.cast(y, dtype) if y.dtype != dtype else y


def get_communication_backend(comm: Any, communication_backend: str = 'auto') -> str:
    """Chooses how ChainerMN's multi-node batch normalization communicates.

    Args:
        comm: A communicator.
        communication_backend: ``'mpi'``, ``'nccl'`` (needs a ``PureNcclCommunicator``) or
            ``'auto'`` (``'nccl'`` for a ``PureNcclCommunicator``, else ``'mpi'``).

    Returns:
        ``'mpi'`` or ``'nccl'``.

    Raises:
        ValueError: For another name, or ``'nccl'`` with a communicator that is not NCCL's.
    """
    if communication_backend not in ('mpi', 'nccl', 'auto'):
        raise ValueError('MultiNodeBatchNormalization does not support %s.'
                         % communication_backend)
    from chainlite.distributed.communicators import pure_nccl_communicator
    is_nccl = isinstance(comm, pure_nccl_communicator.PureNcclCommunicator)
    if communication_backend == 'auto':
        return 'nccl' if is_nccl else 'mpi'
    if communication_backend == 'nccl' and not is_nccl:
        raise ValueError('nccl is not supported in MultiNodeBatchNormalization when using %s.'
                         % type(comm))
    return communication_backend


class _MpiImpl:
    """The batch statistics averaged over the ranks with MPI (ChainerMN's implementation)."""

    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def get_mean_and_var(self, axis: Any, gamma: Any, x: Any, xp: Any,
                         interm_dtype: Any) -> tuple[Any, Any]:
        c = gamma.size
        tmp = backend.get_array_module(x).empty(2 * c, dtype=gamma.dtype)
        x.mean(axis=axis, out=tmp[:c], dtype=gamma.dtype)
        numpy.square(x).mean(axis=axis, out=tmp[c:], dtype=gamma.dtype)
        self.comm._multi_node_mean(None, tmp)
        mean = tmp[:c]
        return mean, tmp[c:] - numpy.square(mean)

    def get_ggamma_and_gbeta(self, axis: Any, gamma: Any, gy: Any, x_hat: Any,
                             xp: Any) -> tuple[Any, Any]:
        c = gamma.size
        tmp = backend.get_array_module(gy).empty(2 * c, dtype=gamma.dtype)
        gy.sum(axis=axis, out=tmp[:c], dtype=gamma.dtype)
        (gy * x_hat).sum(axis=axis, out=tmp[c:], dtype=gamma.dtype)
        self.comm._multi_node_mean(None, tmp)
        return tmp[:c], tmp[c:]  # gbeta, ggamma: Chainer's order


class _NcclImpl(_MpiImpl):
    """ChainerMN's NCCL implementation: for GPU arrays, averaged by the communicator (with
    NCCL on a ``PureNcclCommunicator``); NumPy arrays raise, as in ChainerMN."""

    def get_mean_and_var(self, axis: Any, gamma: Any, x: Any, xp: Any,
                         interm_dtype: Any) -> tuple[Any, Any]:
        if not cuda.is_gpu_array(x):
            raise self._no_device_memory()
        return super().get_mean_and_var(axis, gamma, x, xp, interm_dtype)

    def get_ggamma_and_gbeta(self, axis: Any, gamma: Any, gy: Any, x_hat: Any,
                             xp: Any) -> tuple[Any, Any]:
        if not cuda.is_gpu_array(gy):
            raise self._no_device_memory()
        return super().get_ggamma_and_gbeta(axis, gamma, gy, x_hat, xp)

    @staticmethod
    def _no_device_memory() -> RuntimeError:
        # The GPU buffers ChainerMN allocates here need CuPy arrays.
        from chainlite.distributed.communicators import _memory_utility
        return _memory_utility._no_cupy('DeviceMemory')


class MultiNodeBNImplSelector:
    """Picks ChainerMN's implementation of the statistics of a multi-node batch norm.

    Called as Chainer's batch normalization calls its ``impl_selector``, with the function
    and its inputs, it returns an object with ``get_mean_and_var(axis, gamma, x, xp,
    interm_dtype)`` (the mean and biased variance over all ranks' batches, each rank
    contributing equally) and ``get_ggamma_and_gbeta(axis, gamma, gy, x_hat, xp)`` (the
    gradients' sums averaged over the ranks, as ``(gbeta, ggamma)``).

    Args:
        comm: A communicator.
        communication_backend_name: ``'mpi'`` or ``'nccl'`` (see
            :func:`get_communication_backend`; NCCL needs GPUs).
    """

    def __init__(self, comm: Any, communication_backend_name: str) -> None:
        self.comm = comm
        self.communication_backend_name = communication_backend_name

    def __call__(self, batch_norm_func: Any, inputs: Any) -> _MpiImpl:
        if self.communication_backend_name == 'nccl':
            return _NcclImpl(self.comm)
        return _MpiImpl(self.comm)
