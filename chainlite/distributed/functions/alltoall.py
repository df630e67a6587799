"""Exchanging one variable with every rank, differentiably."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from chainlite import backend
from chainlite import function_node
from chainlite.distributed.functions import _delegate

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class AllToAll(function_node.FunctionNode):
    """Rank ``j`` gets this rank's ``inputs[j]``; backward exchanges the gradients back."""

    def __init__(self, comm: CommunicatorBase) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        ys = self.comm.alltoall(inputs)
        self._specs = [(y.shape, y.dtype, backend.get_array_module(y)) for y in ys]
        return ys

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gys = tuple(_delegate.zeros_for(*spec) if g is None else g
                    for g, spec in zip(grad_outputs, self._specs))
        return AllToAll(self.comm).apply(gys)


def alltoall(comm: CommunicatorBase, xs: Sequence[VariableOrArray]) -> tuple[Variable, ...]:
    """Sends ``xs[j]`` to rank ``j`` and returns what each rank sent here.

    Args:
        comm: A communicator.
        xs: A tuple/list of ``comm.size`` Variables of one dtype.

    Returns:
        A tuple of ``comm.size`` Variables, by sender rank.

    Example:
        ::

            ys = alltoall(comm, F.split_axis(x, comm.size, axis=1))
    """
    xs = tuple(xs)
    if len(xs) != comm.size:
        raise ValueError('alltoall: xs has %d variables; it needs one per rank (%d)'
                         % (len(xs), comm.size))
    return AllToAll(comm).apply(xs)
