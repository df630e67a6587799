"""Construct an array by tiling a given array."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.functions.math import sum as sum_mod

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Tile(function_node.FunctionNode):

    def __init__(self, reps: tuple[int, ...]) -> None:
        self.reps = reps

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return numpy.tile(x, self.reps),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        shape = in_nodes[0].shape
        n = max(len(shape), len(self.reps))
        reps = (1,) * (n - len(self.reps)) + self.reps
        padded = (1,) * (n - len(shape)) + shape
        # Split every output axis into (copy, element) and add the copies up.
        split = tuple(d for pair in zip(reps, padded) for d in pair)
        gx = sum_mod.sum(reshape.reshape(gy, split), axis=tuple(range(0, 2 * n, 2)))
        return reshape.reshape(gx, shape),


def tile(x: VariableOrArray, reps: int | Sequence[int]) -> Variable:
    """Constructs an array by repeating ``x`` the number of times given by ``reps``.

    As :func:`numpy.tile`: with ``d = len(reps)``, an ``x`` of fewer than ``d`` axes gets
    leading axes of length 1, and a shorter ``reps`` gets leading ones.

    Args:
        x: A Variable or array.
        reps: An int or a tuple of ints (each ``>= 0``): how many times ``x`` is repeated
            along each axis.

    Returns:
        A Variable with ``max(d, x.ndim)`` axes; its gradient adds up the copies.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.tile(np.array([0.0, 1.0]), (2, 2)).array
        array([[0., 1., 0., 1.],
               [0., 1., 0., 1.]])
    """
    reps_t = tuple(reps) if isinstance(reps, (tuple, list)) else (reps,)
    for r in reps_t:
        if not isinstance(r, (int, numpy.integer)) or isinstance(r, bool):
            raise TypeError('tile: reps must be an int or a tuple of ints, got %r' % (reps_t,))
        if r < 0:
            raise ValueError('tile: all elements of reps must be zero or larger, got %r'
                             % (reps_t,))
    return Tile(tuple(int(r) for r in reps_t)).apply((x,))[0]
