"""Scattering variables from one rank to all, differentiably."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from chainlite import backend
from chainlite import function_node
from chainlite.distributed.functions import _delegate

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray
    from chainlite.distributed.communicators.communicator_base import CommunicatorBase


class Scatter(function_node.FunctionNode):
    """Rank ``i`` gets root's ``inputs[i]``; backward gathers the gradients on root."""

    def __init__(self, comm: CommunicatorBase, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.comm.rank == self.root:
            y = self.comm.scatter(inputs, self.root)
        else:
            y = self.comm.scatter(None, self.root)
        self._spec = (y.shape, y.dtype, backend.get_array_module(y))
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainlite.distributed.functions.gather import Gather
        g, = grad_outputs
        if g is None:
            g = _delegate.zeros_for(*self._spec)
        gs = Gather(self.comm, self.root).apply((g,))
        return tuple(gs)


def scatter(comm: CommunicatorBase, xs: Optional[Sequence[VariableOrArray]],
            root: int = 0) -> Variable:
    """Sends root's ``xs[i]`` to rank ``i``; backward gathers the gradients back on root.

    Args:
        comm: A communicator.
        xs: On root, a tuple/list of ``comm.size`` Variables of one dtype; ignored
            elsewhere.
        root: The sending rank.

    Returns:
        This rank's Variable.

    Example:
        ::

            part = scatter(comm, F.split_axis(x, comm.size, 0) if comm.rank == 0 else None)
    """
    if comm.rank == root:
        if xs is None:
            raise ValueError('scatter: xs is None on the root rank (%d), which sends it' % root)
        xs = tuple(xs)
        if len(xs) != comm.size:
            raise ValueError('scatter: xs has %d variables; it needs one per rank (%d)'
                             % (len(xs), comm.size))
        return Scatter(comm, root).apply(xs)[0]
    return Scatter(comm, root).apply((_delegate.dummy(),))[0]
