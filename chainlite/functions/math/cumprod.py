"""Cumulative product along an axis."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.functions.array import broadcast
from chainlite.functions.array import flip
from chainlite.functions.array import reshape
from chainlite.functions.array import split_axis
from chainlite.functions.math import cumsum as cumsum_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class Cumprod(function_node.FunctionNode):

    def __init__(self, axis: int | None = None) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.axis = cumsum_mod._check_axis(self.axis, x.ndim, self.label)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return x.cumprod(axis=self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        axis = 0 if self.axis is None else self.axis
        if self.axis is None:
            x = reshape.reshape(x, y.shape)
        # gx[k] = sum_{i >= k} gy[i] * prod_{j <= i, j != k} x[j]. Before the first zero x[z]
        # that is reverse_cumsum(gy * y)[k] / x[k]; at z, the same sum with x[z] replaced by 1
        # (y1); after z, up to the next zero, x[z] * reverse_cumsum(gy * y1)[k] / x[k], which
        # is 0 but keeps its derivative in x[z] for double backprop. No division by 0.
        xa = x.array
        zero = xa == 0
        seen = zero.cumsum(axis=axis)
        before = (seen == 0).astype(xa.dtype)
        x_safe = x * before + (1 - before)
        gx = cumsum_mod.reverse_cumsum(gy * y, axis) / x_safe * before
        # On a GPU the zero branch always runs (it adds zeros where x has none): no
        # device-to-host wait for zero.any().
        if zero.__class__ is not numpy.ndarray or zero.any():
            first = (zero & (seen == 1)).astype(xa.dtype)
            r1 = cumsum_mod.reverse_cumsum(gy * cumprod(x * (1 - first) + first, axis), axis)
            after = ((seen == 1) & ~zero).astype(xa.dtype)
            xz = broadcast.broadcast_to(sum_mod.sum(x * first, axis, keepdims=True), xa.shape)
            gx = gx + r1 * first + xz * r1 / (x * after + (1 - after)) * after
        if self.axis is None:
            gx = reshape.reshape(gx, in_nodes[0].shape)
        return gx,


class Cumprodsum(function_node.FunctionNode):
    """The linear recurrence Chainer's cumprod gradient runs on (Chainer's node):
    ``Cumprodsum(axis).apply((xmul, xadd))`` is ``y`` with ``y[0] = xadd[0]`` and
    ``y[i] = y[i - 1] * xmul[i - 1] + xadd[i]`` along ``axis`` (a non-negative int), where
    ``xmul`` is one shorter than ``xadd`` along it."""

    _float_inputs = True
    _arg_names = ('xmul', 'xadd')

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        xmul, xadd = inputs
        m, a = numpy.moveaxis(xmul, self.axis, 0), numpy.moveaxis(xadd, self.axis, 0)
        y = numpy.empty_like(a)
        y[0] = a[0]
        for i in range(1, len(a)):
            y[i] = y[i - 1] * m[i - 1] + a[i]
        return numpy.moveaxis(y, 0, self.axis),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        xmul, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        axis = self.axis
        # The transposed recurrence runs backwards: g[i] = gy[i] + xmul[i] * g[i + 1].
        gxadd = _flipcumprodsum(xmul, gy, axis)
        n = y.shape[axis]
        gxmul = split_axis.split_axis(gxadd, (1,), axis)[1] * \
            split_axis.split_axis(y, (n - 1,), axis)[0]
        return tuple([(gxmul, gxadd)[i] for i in indexes])


def _flipcumprodsum(xmul: VariableOrArray, xadd: VariableOrArray, axis: int) -> Variable:
    # Cumprodsum run from the end of the axis to its start.
    z, = Cumprodsum(axis).apply((flip.flip(xmul, axis), flip.flip(xadd, axis)))
    return flip.flip(z, axis)


def cumprod(x: VariableOrArray, axis: int | None = None) -> Variable:
    """Cumulative product of elements along an axis.

    The gradient is exact with any zeros in ``x`` (it never divides by them); its own
    derivative (double backprop) is exact with up to one zero per slice along ``axis``.

    Args:
        x: A float Variable or array.
        axis: An int, or None to multiply over the flattened array (the result is then 1-D).

    Returns:
        A Variable of the same dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.cumprod(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1).array
        array([[ 1.,  2.],
               [ 3., 12.]])
    """
    return Cumprod(axis).apply((x,))[0]
