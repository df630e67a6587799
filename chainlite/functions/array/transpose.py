"""Permute the axes of an array (a view)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import function_node
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class Transpose(function_node.FunctionNode):

    def __init__(self, axes: Sequence[int] | None = None) -> None:
        self.axes = axes

    @property
    def label(self) -> str:
        return 'Transpose'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        if self.axes is not None:
            type_check.expect(in_types[0].ndim == len(self.axes))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return x.transpose(self.axes),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        axes = self.axes
        inv = None if axes is None else tuple(numpy.argsort([a % len(axes) for a in axes]))
        return Transpose(inv).apply((gy,))


def transpose(x: VariableOrArray, axes: Sequence[int] | None = None) -> Variable:
    """Permutes the axes of ``x``.

    Args:
        x: A Variable or array.
        axes: A permutation of ``range(x.ndim)`` (negative values allowed); None reverses
            the axes.

    Returns:
        A Variable (a view of ``x``'s data).

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> F.transpose(np.zeros((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
    """
    if axes is not None:
        axes = tuple(axes)
        ndim = getattr(x, 'ndim', None)
        # A wrong length is left to check_type_forward (InvalidType); checking the range
        # before `a % ndim` keeps (0, 3) on a 2-d input from passing as (0, 1).
        if ndim is not None and len(axes) == ndim and (
                not all(-ndim <= a < ndim for a in axes)
                or sorted(a % ndim for a in axes) != list(range(ndim))):
            raise ValueError('transpose: axes %s is not a permutation of range(%d)'
                             % (axes, ndim))
    return Transpose(axes).apply((x,))[0]
