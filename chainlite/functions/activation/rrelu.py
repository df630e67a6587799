"""Randomized leaky ReLU: a random slope for each negative element during training."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast, overload

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite.backends import cuda
from chainlite import variable
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _kern() -> Any:
    # Chainer's CUDA kernel for the randomized leaky ReLU; cuda.elementwise raises
    # RuntimeError here, as in Chainer without CuPy.
    return cuda.elementwise('T cond, T x, T slope', 'T y',
                            'y = cond >= 0 ? x : (T)(slope * x)', 'rrelu')


class RReLU(function_node.FunctionNode):

    def __init__(self, lower: float = 1. / 8, upper: float = 1. / 3,
                 r: numpy.ndarray | None = None) -> None:
        if not 0.0 <= lower < 1.0:
            raise ValueError('rrelu: l must be in the range [0, 1), got %r' % (lower,))
        if not 0.0 <= upper < 1.0:
            raise ValueError('rrelu: u must be in the range [0, 1), got %r' % (upper,))
        if not lower < upper:
            raise ValueError('rrelu: l must be less than u, got l=%r, u=%r' % (lower, upper))
        self.lower = lower
        self.upper = upper
        self.r = r

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f')
        if self.r is not None:
            type_check.expect(
                x.dtype == type_check.make_variable(self.r.dtype, 'r.dtype'),
                x.shape == type_check.make_variable(self.r.shape, 'r.shape'))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        if not configuration.config.train:
            # At test time the slope is the mean of U(l, u), as in Chainer.
            self.r = xp.full(x.shape, (self.lower + self.upper) / 2, dtype=x.dtype)
        elif self.r is None:
            self.r = xp.random.uniform(self.lower, self.upper, x.shape).astype(
                x.dtype, copy=False)
        self.positive = x >= 0
        return xp.where(self.positive, x, x * self.r),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _RReLUGrad(self.positive, self.r).apply(grad_outputs)


class _RReLUGrad(function_node.FunctionNode):
    # Linear in gy with a fixed mask and slope, so it is its own backward.

    def __init__(self, positive, r):
        self.positive = positive
        self.r = r

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        return numpy.where(self.positive, gy, gy * self.r).astype(gy.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _RReLUGrad(self.positive, self.r).apply(grad_outputs)


@overload
def rrelu(x: VariableOrArray, l: float = ..., u: float = ..., *,  # noqa: E741
          r: numpy.ndarray | None = ..., return_r: Literal[False] = ...) -> Variable: ...


@overload
def rrelu(x: VariableOrArray, l: float = ..., u: float = ..., *,  # noqa: E741
          r: numpy.ndarray | None = ...,
          return_r: Literal[True]) -> tuple[Variable, numpy.ndarray]: ...


@overload
def rrelu(x: VariableOrArray, l: float = ..., u: float = ..., *,  # noqa: E741
          r: numpy.ndarray | None = ...,
          return_r: bool = ...) -> Variable | tuple[Variable, numpy.ndarray]: ...


def rrelu(x: VariableOrArray, l: float = 1. / 8, u: float = 1. / 3, *,  # noqa: E741
          r: numpy.ndarray | None = None,
          return_r: bool = False) -> Variable | tuple[Variable, numpy.ndarray]:
    """Randomized leaky rectified linear unit, ``max(x, r * x)``.

    During training each element gets its own slope ``r`` drawn from the uniform distribution
    ``U(l, u)`` (NumPy's global random state), unless ``r`` is given. In test mode
    (``chainlite.config.train`` False) the slope is ``(l + u) / 2`` everywhere and ``r`` is
    ignored.

    Args:
        x: A float Variable or array.
        l (float): The lower bound of the slopes, in ``[0, 1)``.
        u (float): The upper bound of the slopes, in ``[0, 1)`` and above ``l``.
        r: An array of ``x``'s shape and dtype holding the slopes to use, or None to draw
            them. A ``r`` returned by an earlier call can be passed again.
        return_r (bool): Also return the slopes used.

    Returns:
        A Variable of ``x``'s shape and dtype, or ``(output, r)`` when ``return_r`` is True.

    Raises:
        ValueError: If ``l`` or ``u`` is outside ``[0, 1)`` or ``l >= u``.

    Example:
        >>> import numpy as np, chainlite, chainlite.functions as F
        >>> x = np.array([[-1.0, 2.0]], np.float32)
        >>> F.rrelu(x, r=np.array([[0.25, 0.3]], np.float32)).array
        array([[-0.25,  2.  ]], dtype=float32)
        >>> with chainlite.using_config('train', False):
        ...     F.rrelu(x, 0.1, 0.3).array
        array([[-0.2,  2. ]], dtype=float32)
    """
    func = RReLU(l, u, variable.as_array(r))
    out, = func.apply((x,))
    if return_r:
        return out, cast(numpy.ndarray, func.r)
    return out
