"""Sending variables to another rank, differentiably."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from chainlite import backend
from chainlite import function_node
from chainlite.distributed.functions import _delegate

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class Send(function_node.FunctionNode):
    """Sends ``inputs[:-1]`` (the last input is a dummy); backward receives their gradients."""

    def __init__(self, comm: CommunicatorBase, peer_rank: int, peer_tag: int) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag

    @property
    def label(self) -> str:
        return 'Send (peer_rank: %d)' % self.peer_rank

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xs = inputs[:-1]
        self._dummy_xp = backend.get_array_module(inputs[-1])
        self.comm.send(xs[0] if len(xs) == 1 else xs, self.peer_rank, self.peer_tag)
        return _delegate.empty(),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainlite.distributed.functions.recv import Recv
        g, = grad_outputs
        if g is None:
            g = _delegate.dummy()
        gxs = Recv(self.comm, self.peer_rank, self.peer_tag).apply((g,))
        inputs = self.inputs
        assert inputs is not None  # set by apply, before any backward
        return tuple(gxs) + (_delegate.zeros_for((0,), inputs[-1].dtype, self._dummy_xp),)


def send(x: VariableOrArray | Sequence[VariableOrArray], communicator: CommunicatorBase,
         rank: int, tag: int = 0) -> Variable:
    """Sends ``x`` to rank ``rank``; backward receives the gradient of ``x`` from there.

    The returned *delegate* variable holds no data: it stands for the graph that continues
    on the other rank. Call its ``backward()`` (or join it to other outputs with
    :func:`pseudo_connect`) so that the gradient comes back and flows into ``x``.

    Args:
        x: A Variable or array, or a tuple/list of them (the peer then receives a tuple).
        communicator: A communicator.
        rank: The receiver's rank (not this rank: that would deadlock).
        tag: The message tag.

    Returns:
        The delegate Variable (empty, float32).

    Example:
        On rank 0 (rank 1 runs ``y = recv(comm, 0)`` and its own backward)::

            h = model0(x)
            delegate = send(h, comm, rank=1)
            delegate.backward()     # receives dL/dh from rank 1, fills model0's grads
    """
    if rank == communicator.rank:
        raise ValueError('send: rank must differ from this rank (%d): sending to oneself '
                         'deadlocks' % rank)
    xs = tuple(x) if isinstance(x, (tuple, list)) else (x,)
    y, = Send(communicator, rank, tag).apply(xs + (_delegate.dummy(),))
    return _delegate.mark(y)
