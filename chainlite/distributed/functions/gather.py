"""Gathering every rank's variable on one rank, differentiably."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chainlite import backend
from chainlite import function_node
from chainlite.distributed.functions import _delegate

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class Gather(function_node.FunctionNode):
    """Root gets every rank's input; backward scatters root's gradients back."""

    def __init__(self, comm: CommunicatorBase, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        ys = self.comm.gather(x, self.root)
        if self.comm.rank != self.root or ys is None:
            return _delegate.empty(),
        self._specs = [(y.shape, y.dtype, backend.get_array_module(y)) for y in ys]
        return ys

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainlite.distributed.functions.scatter import Scatter
        node = Scatter(self.comm, self.root)
        if self.comm.rank == self.root:
            gys = tuple(_delegate.zeros_for(*spec) if g is None else g
                        for g, spec in zip(grad_outputs, self._specs))
            return node.apply(gys)[0],
        g, = grad_outputs
        return node.apply((_delegate.dummy() if g is None else g,))[0],


def gather(comm: CommunicatorBase, x: VariableOrArray,
           root: int = 0) -> tuple[Variable, ...] | Variable:
    """Gathers every rank's ``x`` on root; backward sends each rank its gradient back.

    Args:
        comm: A communicator.
        x: This rank's Variable (the dtype is the same on all ranks, shapes may differ).
        root: The receiving rank.

    Returns:
        On root, a tuple of Variables by rank; elsewhere a delegate Variable (empty) whose
        ``backward()`` receives the gradient of ``x`` from root.

    Example:
        ::

            ys = gather(comm, h)
            if comm.rank == 0:
                F.sum(F.concat(ys, axis=0)).backward()
            else:
                ys.backward()
    """
    ys = Gather(comm, root).apply((x,))
    if comm.rank == root:
        return ys
    return _delegate.mark(ys[0])
