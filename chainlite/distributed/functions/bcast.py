"""Broadcasting a variable from one rank, differentiably."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from chainlite import backend
from chainlite import function_node
from chainlite.distributed.functions import _delegate

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class Bcast(function_node.FunctionNode):
    """Root's input reaches every rank; backward sums the ranks' gradients on root."""

    def __init__(self, comm: CommunicatorBase, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        if self.comm.rank == self.root:
            y = self.comm.bcast(x, self.root).copy()
        else:
            y = self.comm.bcast(None, self.root)
        self._spec = (y.shape, y.dtype, backend.get_array_module(y))
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainlite.distributed.functions.gather import Gather
        gy, = grad_outputs
        if gy is None:
            gy = _delegate.zeros_for(*self._spec)
        gs = Gather(self.comm, self.root).apply((gy,))
        if self.comm.rank != self.root:
            return gs[0],   # the empty delegate: the dummy input's gradient
        gx = gs[0]
        for g in gs[1:]:
            gx = gx + g
        return gx,


def bcast(comm: CommunicatorBase, x: Optional[VariableOrArray], root: int = 0) -> Variable:
    """Broadcasts root's ``x`` to every rank; backward sums every rank's gradient into root's.

    Args:
        comm: A communicator.
        x: The Variable on root; ignored (may be None) on the other ranks.
        root: The sending rank.

    Returns:
        A Variable with root's data, on every rank.

    Example:
        ::

            w = bcast(comm, w if comm.rank == 0 else None)
            loss = F.sum(w * x_local)
            loss.backward()          # on rank 0, w's gradient sums every rank's
    """
    if comm.rank == root:
        return Bcast(comm, root).apply((x,))[0]
    return Bcast(comm, root).apply((_delegate.dummy(),))[0]
