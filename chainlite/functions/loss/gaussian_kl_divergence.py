"""KL divergence of a diagonal Gaussian from the standard normal."""
from __future__ import annotations

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


class GaussianKLDivergence(function_node.FunctionNode):

    def __init__(self, reduce: str = 'sum') -> None:
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('mean', 'ln_var'))
        mean, ln_var = in_types
        type_check.expect(mean.dtype.kind == 'f', mean.dtype == ln_var.dtype,
                          mean.shape == ln_var.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        mean, ln_var = inputs
        loss = (mean * mean + numpy.exp(ln_var) - ln_var - 1) * 0.5
        xp = backend.get_array_module(mean)
        if self.reduce == 'sum':
            return xp.asarray(_accumulate.wide_sum(loss), mean.dtype),
        if self.reduce == 'mean':
            return xp.asarray(loss.mean(), mean.dtype),
        return loss.astype(mean.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        mean, ln_var = self.get_retained_inputs()
        gy, = grad_outputs
        if self.reduce == 'mean':
            gy = gy * (1.0 / max(mean.size, 1))
        return gy * mean, gy * (exp.exp(ln_var) - 1.0) * 0.5


def gaussian_kl_divergence(mean: VariableOrArray, ln_var: VariableOrArray,
                           reduce: str = 'sum') -> Variable:
    """KL divergence of ``N(mean, exp(ln_var))`` (diagonal) from ``N(0, I)``.

    Elementwise, ``(mean ** 2 + exp(ln_var) - ln_var - 1) / 2``.

    Args:
        mean: A float Variable or array: the means.
        ln_var: A Variable or array of the shape and dtype of ``mean``: the log variances.
        reduce: ``'sum'`` or ``'mean'`` of the elementwise values, or ``'no'``.

    Returns:
        A Variable of the dtype of ``mean``: a scalar, or of its shape with ``reduce='no'``.

    Raises:
        ValueError: For an invalid ``reduce``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.gaussian_kl_divergence(np.array([0.0, 2.0]), np.zeros(2)).array
        array(2.)
    """
    if reduce not in ('sum', 'mean', 'no'):
        raise ValueError("gaussian_kl_divergence: reduce must be 'sum', 'mean' or 'no', got %r"
                         % (reduce,))
    return GaussianKLDivergence(reduce).apply((mean, ln_var))[0]
