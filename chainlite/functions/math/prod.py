"""Product of elements over given axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.array import broadcast
from chainlite.functions.array import get_item
from chainlite.functions.array import reshape
from chainlite.functions.array import transpose
from chainlite.functions.math import cumprod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _exclusive_cumprod(x):
    # prod(x[:k]) along axis 0 for every k: a cumulative product shifted down by one, with
    # 1 in front. Only multiplications, so zeros in x are harmless.
    n = x.shape[0]
    xp = backend.get_array_module(x.array)
    c = get_item.get_item(cumprod.cumprod(x, 0), xp.roll(xp.arange(n), 1))
    head = xp.zeros((n,) + (1,) * (x.ndim - 1), x.dtype)
    head[0] = 1
    return c * (1 - head) + head


class Prod(function_node.FunctionNode):

    def __init__(self, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> None:
        self.axis: Any = axis  # normalized by forward to a tuple of ints or None
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis = _axis.normalize_axes(self.axis, x.ndim, self.label)
        self.retain_inputs((0,))
        return x.prod(axis=self.axis, keepdims=self.keepdims),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        axes = tuple(range(x.ndim)) if self.axis is None else self.axis
        others = tuple(i for i in range(x.ndim) if i not in axes)
        perm = axes + others
        rest = tuple(x.shape[i] for i in others)
        n = x.size // max(int(numpy.prod(rest)), 1) if x.size else 0
        if n == 0:
            xp = backend.get_array_module(x.array)
            return xp.zeros(x.shape, x.dtype),
        # gx[k] = gy * prod_{j != k} x[j] = gy * prod(x[:k]) * prod(x[k+1:]), with the reduced
        # axes moved to the front and flattened into one.
        xt = reshape.reshape(transpose.transpose(x, perm), (n,) + rest)
        flip = (slice(None, None, -1),)
        left = _exclusive_cumprod(xt)
        right = get_item.get_item(_exclusive_cumprod(get_item.get_item(xt, flip)), flip)
        g = broadcast.broadcast_to(reshape.reshape(gy, (1,) + rest), (n,) + rest)
        gx = reshape.reshape(left * right * g, tuple(x.shape[i] for i in perm))
        return transpose.transpose(gx, tuple(numpy.argsort(perm))),


def prod(x: VariableOrArray, axis: int | Sequence[int] | None = None,
         keepdims: bool = False) -> Variable:
    """Product of elements over the given axes.

    The gradient is the product of the other elements, computed without division, so it is
    exact when ``x`` holds zeros.

    Args:
        x: A float Variable or array.
        axis: None (all axes), an int, or a tuple of ints; negative values count from the end.
        keepdims: Keep the reduced axes with length 1.

    Returns:
        A Variable of the same dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.prod(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1).array
        array([ 2., 12.])
    """
    _axis.check_type(axis, 'prod')
    return Prod(axis, keepdims).apply((x,))[0]
