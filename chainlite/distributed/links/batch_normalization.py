"""Batch normalization over the batches of all ranks."""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import configuration
from chainlite import initializers
from chainlite import link
from chainlite import variable
from chainlite.distributed.functions.batch_normalization import get_communication_backend
from chainlite.distributed.functions.batch_normalization import multi_node_batch_normalization
from chainlite.functions.normalization import fixed_batch_normalization

if TYPE_CHECKING:
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase
    from chainlite.types import DTypeSpec


def _check_backend(comm: CommunicatorBase, communication_backend: str) -> str:
    if communication_backend not in ('mpi', 'nccl', 'auto'):
        raise ValueError("MultiNodeBatchNormalization: communication_backend must be 'mpi', "
                         "'nccl' or 'auto', got %r" % (communication_backend,))
    return get_communication_backend(comm, communication_backend)


class MultiNodeBatchNormalization(link.Link):
    """Batch normalization whose statistics are over every rank's batch.

    With small per-rank batches, each rank's own mean and variance are noisy; this layer
    computes them over the global batch (one all-reduce per forward and one per backward),
    so training behaves as one process on the whole batch. In test mode it normalizes with
    the running averages, as :class:`~chainlite.links.BatchNormalization`.

    Args:
        size: The channel size (an int) or shape (a tuple).
        comm: A communicator.
        decay: The decay rate of the running averages.
        eps: Added to the variance.
        dtype: The dtype of the parameters and statistics (None: ``chainlite.config.dtype``).
        use_gamma: If False, there is no scale parameter.
        use_beta: If False, there is no shift parameter.
        initial_gamma: The initializer of ``gamma`` (None: 1).
        initial_beta: The initializer of ``beta`` (None: 0).
        communication_backend: ``'mpi'``, ``'nccl'`` (needs a ``'pure_nccl'``
            communicator) or ``'auto'``. Either way the statistics are averaged by the
            communicator, with NCCL on a ``'pure_nccl'`` one.

    Attributes:
        avg_mean: The running mean (persistent).
        avg_var: The running unbiased variance (persistent).
        N: The number of fine-tuning calls (persistent).
    """

    def __init__(self, size: Any, comm: CommunicatorBase, decay: float = 0.9, eps: float = 2e-5,
                 dtype: DTypeSpec = None, use_gamma: bool = True, use_beta: bool = True,
                 initial_gamma: Any = None, initial_beta: Any = None,
                 communication_backend: str = 'auto') -> None:
        super().__init__()
        self._communication_backend = _check_backend(comm, communication_backend)
        self.comm = comm
        shape = (size,) if isinstance(size, (int, numpy.integer)) else tuple(size)
        self._highprec_dtype = configuration.get_dtype(dtype, map_mixed16=numpy.float32)
        self.avg_mean = numpy.zeros(shape, self._highprec_dtype)
        self.register_persistent('avg_mean')
        self.avg_var = numpy.zeros(shape, self._highprec_dtype)
        self.register_persistent('avg_var')
        self.N = 0
        self.register_persistent('N')
        self.decay = decay
        self.eps = eps
        with self.init_scope():
            if use_gamma:
                init = initializers._get_initializer(1 if initial_gamma is None
                                                     else initial_gamma)
                self.gamma = variable.Parameter(
                    initializers.generate_array(init, shape, numpy,
                                                dtype=self._highprec_dtype))
            if use_beta:
                init = initializers._get_initializer(0 if initial_beta is None
                                                     else initial_beta)
                self.beta = variable.Parameter(
                    initializers.generate_array(init, shape, numpy,
                                                dtype=self._highprec_dtype))

    def forward(self, x: Any, finetune: bool = False) -> variable.Variable:
        """Normalizes ``x``; in training mode with the global batch statistics.

        Args:
            x: This rank's batch.
            finetune: Average the statistics over all batches seen since
                :meth:`start_finetuning` instead of decaying them.

        Returns:
            The normalized Variable.
        """
        gamma = getattr(self, 'gamma', None)
        if gamma is None:
            gamma = variable.Variable(numpy.ones(self.avg_mean.shape, self._highprec_dtype),
                                      requires_grad=False)
        beta = getattr(self, 'beta', None)
        if beta is None:
            beta = variable.Variable(numpy.zeros(self.avg_mean.shape, self._highprec_dtype),
                                     requires_grad=False)
        if configuration.config.train:
            if finetune:
                self.N += 1
                decay = 1.0 - 1.0 / self.N
            else:
                decay = self.decay
            return multi_node_batch_normalization(
                x, gamma, beta, self.comm, self.eps, self.avg_mean, self.avg_var, decay)
        return fixed_batch_normalization.fixed_batch_normalization(
            x, gamma, beta, self.avg_mean, self.avg_var, self.eps)

    def start_finetuning(self) -> None:
        """Restarts the count of fine-tuning batches."""
        self.N = 0

    def __deepcopy__(self, memo: dict) -> 'MultiNodeBatchNormalization':
        # The communicator is shared, never copied.
        comm = self.comm
        self.__dict__['comm'] = None
        try:
            cls = type(self)
            new = cls.__new__(cls)
            memo[id(self)] = new
            for k, v in self.__dict__.items():
                new.__dict__[k] = copy.deepcopy(v, memo)
        finally:
            self.__dict__['comm'] = comm
        new.__dict__['comm'] = comm
        return new
