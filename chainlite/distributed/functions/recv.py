"""Receiving variables from another rank, differentiably."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import backend
from chainlite import function_node
from chainlite.distributed.functions import _delegate

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class Recv(function_node.FunctionNode):
    """Receives what the peer sends; backward sends the gradients back."""

    def __init__(self, comm: CommunicatorBase, peer_rank: int, peer_tag: int) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag

    @property
    def label(self) -> str:
        return 'Recv (peer_rank: %d)' % self.peer_rank

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._input_xps = [backend.get_array_module(x) for x in inputs]
        data = self.comm.recv(self.peer_rank, self.peer_tag)
        ys = data if isinstance(data, tuple) else (data,)
        self._specs = [(y.shape, y.dtype, backend.get_array_module(y)) for y in ys]
        return ys

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainlite.distributed.functions.pseudo_connect import PseudoConnect
        from chainlite.distributed.functions.send import Send
        gys = tuple(_delegate.zeros_for(*spec) if g is None else g
                    for g, spec in zip(grad_outputs, self._specs))
        sent, = Send(self.comm, self.peer_rank, self.peer_tag).apply(
            gys + (_delegate.dummy(),))
        grads = []
        inputs = self.inputs
        assert inputs is not None  # set by apply, before any backward
        for x, xp in zip(inputs, self._input_xps):
            zero = _delegate.zeros_for(x.shape, x.dtype, xp)
            grads.append(PseudoConnect().apply((sent, zero))[0])
        return tuple(grads)


def recv(communicator: CommunicatorBase, rank: int,
         delegate_variable: Optional[Variable] = None,
         tag: int = 0,
         force_tuple: bool = False) -> Variable | tuple[Variable, ...]:
    """Receives variables that rank ``rank`` sent with :func:`send`.

    Backward sends the gradients of the received variables back to the sender.

    Args:
        communicator: A communicator.
        rank: The sender's rank (not this rank).
        delegate_variable: The delegate of an earlier, separate part of this rank's graph
            (e.g. what an earlier :func:`send` returned): backward then continues into it,
            after sending. None when this is where the rank's graph starts.
        tag: The message tag.
        force_tuple: Return a tuple even when one variable was sent.

    Returns:
        The received Variable, or a tuple of them if a tuple was sent (or ``force_tuple``).

    Example:
        On rank 1, the continuation of :func:`send`'s example::

            h = recv(comm, rank=0)
            loss = model1(h)
            loss.backward()          # sends dL/dh to rank 0
    """
    if rank == communicator.rank:
        raise ValueError('recv: rank must differ from this rank (%d): receiving from oneself '
                         'deadlocks' % rank)
    if delegate_variable is None:
        delegate_variable = _delegate.dummy()
    else:
        delegate_variable.name = 'delegate_variable'
    ys = Recv(communicator, rank, tag).apply((delegate_variable,))
    if len(ys) == 1 and not force_tuple:
        return ys[0]
    return ys
