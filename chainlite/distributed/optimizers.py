"""Data-parallel optimizers: every rank's gradients are averaged before each update."""
from __future__ import annotations

import atexit
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy

from chainlite.distributed.communicators import _packing

if TYPE_CHECKING:
    from chainlite.optimizer import Optimizer
    from chainlite.link import Link
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


def _param_layout(target: Any) -> list:
    return [(name, p.array is not None) for name, p in sorted(target.namedparams())]


class _MultiNodeOptimizer:
    """Wraps an optimizer: averages gradients over the ranks, then lets it update.

    Every attribute not defined here is the wrapped optimizer's (read and written through).
    """

    def __init__(self, actual_optimizer: Optimizer, communicator: CommunicatorBase,
                 zero_fill: bool) -> None:
        object.__setattr__(self, 'communicator', communicator)
        object.__setattr__(self, 'actual_optimizer', actual_optimizer)
        object.__setattr__(self, 'zero_fill', zero_fill)
        object.__setattr__(self, 'target_params', [])
        if getattr(actual_optimizer, 'target', None) is not None:
            self._broadcast(actual_optimizer.target)

    def setup(self, link: Link) -> '_MultiNodeOptimizer':
        """Sets up the wrapped optimizer on ``link`` and gives every rank rank 0's parameters.

        Args:
            link: The model (the same architecture on every rank).

        Returns:
            This optimizer.
        """
        self.actual_optimizer.setup(link)
        self._broadcast(link)
        return self

    def _broadcast(self, target: Any) -> None:
        self.communicator.bcast_data(target)
        object.__setattr__(self, 'target_params', _param_layout(target))

    def update(self, lossfun: Optional[Callable[..., Any]] = None, *args: Any, **kwds: Any) -> None:
        """Computes the gradients (if ``lossfun`` is given), averages them, and updates.

        If parameters were initialized since the last call (lazily sized links), rank 0's
        values are broadcast instead and this update is skipped: the gradients were computed
        from each rank's own initial values.

        Args:
            lossfun: A callable returning the loss, or None when the gradients are set.
            args: Arguments of ``lossfun``.
            kwds: Keyword arguments of ``lossfun``.
        """
        target = self.target
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(self.actual_optimizer, '_use_cleargrads', True):
                target.cleargrads()
            else:
                target.zerograds()
            loss.backward(loss_scale=self.actual_optimizer._loss_scale)
            del loss
        if _param_layout(target) != self.target_params:
            self._broadcast(target)
            return
        self.communicator.multi_node_mean_grad(target, self.zero_fill)
        self.actual_optimizer.update(None, *args, **kwds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.actual_optimizer, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_optimizer, name, value)


class _DoubleBufferingOptimizer(_MultiNodeOptimizer):
    """Averages the gradients in the background while the next ones are computed.

    Each update applies the averaged gradients of the previous step (so the first update
    only starts averaging) while this step's gradients travel with a non-blocking
    ``MPI_Iallreduce``: communication overlaps the next forward and backward.
    """

    def __init__(self, actual_optimizer: Optimizer, communicator: CommunicatorBase,
                 zero_fill: bool) -> None:
        object.__setattr__(self, '_pending', None)
        object.__setattr__(self, '_buffers', [_packing.Buffers(), _packing.Buffers()])
        super().__init__(actual_optimizer, communicator, zero_fill)
        # An averaging still in flight when the program ends must finish before MPI does
        # (mpi4py finalizes MPI at exit; handlers registered later run first).
        atexit.register(self.wait)

    def _broadcast(self, target: Any) -> None:
        self.wait()
        object.__setattr__(self, '_pending', None)
        super()._broadcast(target)

    def update(self, lossfun: Optional[Callable[..., Any]] = None, *args: Any, **kwds: Any) -> None:
        """Like the plain multi-node optimizer's update, one step behind (see the class)."""
        target = self.target
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            target.cleargrads()
            loss.backward(loss_scale=self.actual_optimizer._loss_scale)
            del loss
        if _param_layout(target) != self.target_params:
            self._broadcast(target)
            return
        params = _packing.grad_params(target, self.zero_fill)
        grads = [p.grad for p in params]
        dtype = self.communicator._transfer_dtype(grads[0].dtype) if grads else numpy.float32
        buffers = self._buffers[0]
        buf = buffers.get(dtype, sum(g.size for g in grads))
        _packing.pack(grads, buf)
        previous = self._pending
        if previous is not None:
            previous.Wait()
            if previous.buf.size != buf.size or previous.buf.dtype != buf.dtype:
                raise ValueError('double buffering: the gradients changed size between two '
                                 'updates (%d, then %d elements); pass zero_fill=True'
                                 % (previous.buf.size, buf.size))
            _packing.unpack(previous.buf, grads)
        object.__setattr__(self, '_pending', self.communicator._start_reduce_mean(buf))
        # The two buffers alternate: the one in flight is never packed into.
        self._buffers.reverse()
        if previous is not None:
            self.actual_optimizer.update(None, *args, **kwds)

    def wait(self) -> None:
        """Waits for the averaging in flight, if any (its result is then discarded)."""
        if self._pending is not None:
            self._pending.Wait()
            object.__setattr__(self, '_pending', None)


def create_multi_node_optimizer(actual_optimizer: Optimizer, communicator: CommunicatorBase,
                                double_buffering: bool = False,
                                zero_fill: bool = True) -> Any:
    """Wraps an optimizer for data-parallel training over the ranks of ``communicator``.

    At ``setup`` rank 0's parameters are broadcast, so every rank starts from the same model;
    then each ``update`` averages the gradients over the ranks (one packed ``MPI_Allreduce``)
    before the wrapped optimizer's update. With every rank on ``B / N`` examples, the result
    equals one process on the whole batch of ``B``.

    Args:
        actual_optimizer: A chainlite (Chainer) optimizer, e.g. ``optimizers.Adam()``.
        communicator: A communicator from :func:`create_communicator`.
        double_buffering: If True, each step's gradients are averaged in the background and
            applied at the next step (communication overlaps computation; the update uses
            gradients one step old, which may change convergence).
        zero_fill: If True, parameters unused in a step (no gradient) take part with zero
            gradients; if False they are skipped, and must then be unused on every rank.

    Returns:
        The wrapped optimizer: use it as the original (``setup``, ``update``, ``serialize``,
        hyperparameters).

    Example:
        ::

            comm = chainlite.distributed.create_communicator('naive')
            optimizer = chainlite.distributed.create_multi_node_optimizer(
                chainlite.optimizers.Adam(), comm)
            optimizer.setup(model)
    """
    cls = _DoubleBufferingOptimizer if double_buffering else _MultiNodeOptimizer
    return cls(actual_optimizer, communicator, zero_fill)
