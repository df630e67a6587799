"""Negative log-likelihood of data under a diagonal Gaussian."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _accumulate
from chainlite.functions.math import exp
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray

_LOG_2PI = math.log(2 * math.pi)


class GaussianNLL(function_node.FunctionNode):

    def __init__(self, reduce: str = 'sum') -> None:
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'mean', 'ln_var'))
        x, mean, ln_var = in_types
        type_check.expect(x.dtype.kind == 'f', x.dtype == mean.dtype, x.dtype == ln_var.dtype,
                          x.shape == mean.shape, x.shape == ln_var.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x, mean, ln_var = inputs
        diff = x - mean
        loss = (diff * diff * numpy.exp(-ln_var) + ln_var + _LOG_2PI) * 0.5
        xp = backend.get_array_module(x)
        if self.reduce == 'sum':
            return xp.asarray(_accumulate.wide_sum(loss), x.dtype),
        if self.reduce == 'mean':
            return xp.asarray(loss.mean(), x.dtype),
        return loss.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, mean, ln_var = self.get_retained_inputs()
        gy, = grad_outputs
        if self.reduce == 'mean':
            gy = gy * (1.0 / max(x.size, 1))
        diff = x - mean
        scaled = diff * exp.exp(-ln_var)  # (x - mean) / var
        gx = gy * scaled
        return gx, -gx, gy * (1.0 - diff * scaled) * 0.5


def gaussian_nll(x: VariableOrArray, mean: VariableOrArray, ln_var: VariableOrArray,
                 reduce: str = 'sum') -> Variable:
    """Negative log-likelihood of ``x`` under ``N(mean, exp(ln_var))`` (diagonal).

    Elementwise, ``(log(2 pi) + ln_var + (x - mean) ** 2 / exp(ln_var)) / 2``.

    Args:
        x: A float Variable or array: the data.
        mean: A Variable or array of the shape and dtype of ``x``: the means.
        ln_var: A Variable or array of the shape and dtype of ``x``: the log variances.
        reduce: ``'sum'`` or ``'mean'`` of the elementwise values, or ``'no'``.

    Returns:
        A Variable of the dtype of ``x``: a scalar, or of its shape with ``reduce='no'``.

    Raises:
        ValueError: For an invalid ``reduce``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.gaussian_nll(np.array([1.0]), np.zeros(1), np.zeros(1)).array
        array(1.41893853)
    """
    if reduce not in ('sum', 'mean', 'no'):
        raise ValueError("gaussian_nll: reduce must be 'sum', 'mean' or 'no', got %r"
                         % (reduce,))
    return GaussianNLL(reduce).apply((x, mean, ln_var))[0]
