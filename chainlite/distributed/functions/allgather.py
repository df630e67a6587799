"""Gathering every rank's variable on every rank, differentiably."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chainlite import backend
from chainlite import function_node
from chainlite.distributed.functions import _delegate

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class AllGather(function_node.FunctionNode):
    """Every rank gets every rank's input; backward sums each input's gradients."""

    def __init__(self, comm: CommunicatorBase) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        ys = self.comm.allgather(x)
        self._specs = [(y.shape, y.dtype, backend.get_array_module(y)) for y in ys]
        return ys

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainlite.distributed.functions.alltoall import AllToAll
        gys = tuple(_delegate.zeros_for(*spec) if g is None else g
                    for g, spec in zip(grad_outputs, self._specs))
        gs = AllToAll(self.comm).apply(gys)
        gx = gs[0]
        for g in gs[1:]:
            gx = gx + g
        return gx,


def allgather(comm: CommunicatorBase, x: VariableOrArray) -> tuple[Variable, ...]:
    """Gives every rank a tuple of all ranks' ``x``; backward sums their gradients.

    Args:
        comm: A communicator.
        x: This rank's Variable (one dtype on all ranks; shapes may differ).

    Returns:
        A tuple of ``comm.size`` Variables, by rank.

    Example:
        ::

            hs = allgather(comm, h)        # every rank sees every rank's h
            y = F.concat(hs, axis=1)
    """
    return AllGather(comm).apply((x,))
