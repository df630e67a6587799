"""DeCov loss: penalises the covariance between the units of a hidden layer."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any


from chainlite import backend
from chainlite import function
from chainlite import variable
from chainlite.functions.loss import _composite_check
from chainlite.functions.math import matmul as matmul_mod
from chainlite.functions.math import mean as mean_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class DeCov(function.Function):
    """DeCov loss as Chainer's old-style function, ``DeCov(reduce)(h)``.

    It computes what :func:`decov` does (Chainer's is an old-style function, so its
    gradient is differentiable once); ``h_centered`` and ``covariance`` keep the centred
    input and the off-diagonal covariance after a call.

    Args:
        reduce: ``'half_squared_sum'`` or ``'no'``.
    """

    def __init__(self, reduce: str = 'half_squared_sum') -> None:
        if reduce not in ('half_squared_sum', 'no'):
            raise ValueError("DeCov: reduce must be 'half_squared_sum' or 'no', got %r"
                             % (reduce,))
        self.reduce = reduce
        self.h_centered: Any = None
        self.covariance: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('h',))
        h_type, = in_types
        type_check.expect(h_type.dtype.kind == 'f', h_type.ndim == 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        h, = inputs
        xp = backend.get_array_module(h)
        n = h.dtype.type(max(len(h), 1))
        self.h_centered = h - h.mean(axis=0, keepdims=True)
        cov = self.h_centered.T @ self.h_centered / n
        xp.fill_diagonal(cov, 0)
        self.covariance = cov
        if self.reduce == 'no':
            return cov,
        return xp.asarray((cov * cov).sum() * h.dtype.type(0.5), h.dtype),

    def backward(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        h, = inputs
        g, = grad_outputs
        g = g / g.dtype.type(max(len(h), 1))
        if self.reduce == 'half_squared_sum':
            # d(0.5 |C|^2)/dh = 2 hc C / n; centring drops out since the columns of hc sum
            # to 0.
            return (2 * g * (self.h_centered @ self.covariance)).astype(h.dtype, copy=False),
        g = g.copy()
        backend.get_array_module(g).fill_diagonal(g, 0)
        return (self.h_centered @ (g + g.T)).astype(h.dtype, copy=False),


def decov(h: VariableOrArray, reduce: str = 'half_squared_sum') -> Variable:
    """DeCov loss (Cogswell et al., 2016): the off-diagonal covariance of the units.

    With ``hc = h - mean(h, axis=0)`` and ``C = hc^T hc / N`` with its diagonal set to 0,
    the loss is ``0.5 * ||C||_F^2``, or ``C`` itself with ``reduce='no'``. A composition of
    differentiable functions: differentiable to any order.

    Args:
        h: The activations ``(N, U)``, a float Variable or array (rows are samples).
        reduce (str): ``'half_squared_sum'`` or ``'no'``.

    Returns:
        A scalar Variable, or the ``(U, U)`` covariance matrix with ``reduce='no'``.

    Raises:
        ValueError: For an invalid ``reduce``.
        InvalidType: For an input that is not a 2-d float array.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> h = np.array([[1.0, 1.0], [-1.0, -1.0]])  # perfectly correlated units
        >>> F.decov(h, reduce='no').array
        array([[0., 1.],
               [1., 0.]])
        >>> F.decov(h).array
        array(1.)
    """
    if reduce not in ('half_squared_sum', 'no'):
        raise ValueError("decov: reduce must be 'half_squared_sum' or 'no', got %r"
                         % (reduce,))

    def condition(in_types):
        h_type, = in_types
        type_check.expect(h_type.dtype.kind == 'f', h_type.ndim == 2)
    _composite_check.check('decov', ('h',), (h,), condition)
    h = variable.as_variable(h)
    xp = backend.get_array_module(h.array)
    n, units = h.shape
    hc = h - mean_mod.mean(h, axis=0, keepdims=True)
    off_diagonal = (1 - xp.eye(units, dtype=h.dtype)) / h.dtype.type(max(n, 1))
    cov = matmul_mod.matmul(hc, hc, transa=True) * off_diagonal
    if reduce == 'no':
        return cov
    return sum_mod.sum(cov * cov) * h.dtype.type(0.5)

