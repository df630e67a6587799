"""Log of the softmax along an axis."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import _lazy
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions.math import exp
from chainlite.functions.math import sum as sum_

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _log_softmax(x: numpy.ndarray, axis: int = 1) -> numpy.ndarray:
    # The log-softmax of an array (no graph), shifted by the maximum so exp cannot overflow.
    y = x - x.max(axis=axis, keepdims=True)
    y -= numpy.log(numpy.exp(y).sum(axis=axis, keepdims=True))
    return y


class LogSoftmax(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        axis = self.axis = _axis.normalize_axis(self.axis, x.ndim, self.label)
        self.retain_outputs((0,))
        # x - logsumexp(x), shifted by the maximum: no overflow, and no log of an underflowed
        # softmax (log(softmax(x)) would give -inf where this gives the exact value).
        y = x - x.max(axis=axis, keepdims=True)
        y -= numpy.log(numpy.exp(y).sum(axis=axis, keepdims=True))
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        # gx = gy - softmax(x) * sum(gy); softmax(x) = exp(y), with y a Variable, so the
        # second derivative flows through it.
        return gy - exp.exp(y) * sum_.sum(gy, axis=self.axis, keepdims=True),


class LogSoftmaxGrad(function_node.FunctionNode):
    """Log-softmax's gradient ``gy - exp(y) * sum(gy)`` as Chainer's node, on ``(y, gy)``.

    Args:
        x_xp: The array module of the input (NumPy here).
        x_shape: The input's shape.
        x_dtype: The input's dtype.
        axis: The softmax axis.
    """

    def __init__(self, x_xp: Any, x_shape: tuple[int, ...], x_dtype: Any,
                 axis: int) -> None:
        self._x_xp = x_xp
        self._x_shape = x_shape
        self._x_dtype = x_dtype
        self.axis = axis

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return gy - self._x_xp.exp(y) * gy.sum(axis=self.axis, keepdims=True),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        y, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        p = exp.exp(y)
        ret = []
        if 0 in indexes:
            ret.append(-ggx * p * sum_.sum(gy, axis=self.axis, keepdims=True))
        if 1 in indexes:
            ret.append(ggx - sum_.sum(ggx * p, axis=self.axis, keepdims=True))
        return tuple(ret)


def log_softmax(x: VariableOrArray, axis: int = 1) -> Variable:
    """Log of the softmax along ``axis``: ``x - logsumexp(x, axis)``, computed stably.

    Args:
        x: A float Variable or array with at least ``axis + 1`` dimensions.
        axis: The axis along which the softmax is taken (negative values count from the
            end).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> np.exp(F.log_softmax(np.log(np.array([[1.0, 3.0]]))).array)
        array([[0.25, 0.75]])
    """
    return LogSoftmax(axis).apply((x,))[0]


# Chainer's module also has logsumexp; chainlite keeps it in its own module (which may import
# this one), imported on first use.
__getattr__, __dir__ = _lazy.attach(
    __name__, {'logsumexp': 'chainlite.functions.math.logsumexp'})[:2]
