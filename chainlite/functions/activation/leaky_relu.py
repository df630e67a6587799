"""Leaky rectified linear unit."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.backends import cuda

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class LeakyReLU(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def __init__(self, slope: float = 0.2) -> None:
        self.slope = slope

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        self.retain_inputs((0,))
        # A slope cast to x's dtype: a NumPy float64 scalar would promote float16/32.
        return numpy.where(x >= 0, x, x * x.dtype.type(self.slope)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        x = x.array
        # The per-element slope (1 or `slope`) is piecewise constant: a constant array keeps
        # double backprop exact.
        return gy * numpy.where(x >= 0, x.dtype.type(1), x.dtype.type(self.slope)),


def _get_kern() -> Any:
    # Chainer's CUDA kernel for the leaky ReLU; cuda.elementwise raises RuntimeError here,
    # as in Chainer without CuPy.
    return cuda.elementwise('T cond, T x, T slope', 'T y',
                            'y = cond <= 0 ? (T)(slope * x) : x', 'lrelu')


class _LeakyReLUGrad(function_node.FunctionNode):
    # Chainer's backward node: gx = gy, times slope where cond <= 0 (cond: y, or x if slope < 0).

    def __init__(self, cond: numpy.ndarray, slope: float) -> None:
        self.cond = cond
        self.slope = slope

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        return numpy.where(self.cond <= 0, gy * gy.dtype.type(self.slope), gy),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _LeakyReLUGrad(self.cond, self.slope).apply(grad_outputs)


def leaky_relu(x: VariableOrArray, slope: float = 0.2) -> Variable:
    """Leaky rectified linear unit: ``x`` where ``x >= 0``, ``slope * x`` elsewhere.

    The gradient at 0 is 1.

    Args:
        x: A float Variable or array.
        slope: The slope ``a`` for negative inputs (a scalar).

    Returns:
        A Variable of the same shape and dtype.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.leaky_relu(np.array([-2.0, 0.0, 3.0]), slope=0.5).array
        array([-1.,  0.,  3.])
    """
    return LeakyReLU(slope).apply((x,))[0]
