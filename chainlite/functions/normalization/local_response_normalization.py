"""Local response normalization across neighbouring channels."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import function_node
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _window_sum_array(a, half):
    # Sum over the channels [c - half, c + half] (zeros beyond the edges): a loop over the
    # n // 2 offsets, each a vectorized add of two shifted views.
    s = a.copy()
    for i in range(1, min(half, a.shape[1] - 1) + 1):
        s[:, i:] += a[:, :-i]
        s[:, :-i] += a[:, i:]
    return s


class _ChannelWindowSum(function_node.FunctionNode):
    # A linear map whose window is symmetric, so it is its own adjoint.

    def __init__(self, half):
        self.half = half

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        return _window_sum_array(inputs[0], self.half),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _ChannelWindowSum(self.half).apply(grad_outputs)


class LocalResponseNormalization(function_node.FunctionNode):

    def __init__(self, n: int, k: float, alpha: float, beta: float) -> None:
        self.half = int(n) // 2
        self.k = k
        self.alpha = alpha
        self.beta = beta

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim >= 2)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        scale = _window_sum_array(x * x, self.half)
        scale *= self.alpha
        scale += self.k
        scale **= -self.beta
        scale *= x
        return scale,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        # gx = gy * scale ** -beta
        #      - 2 alpha beta x * window_sum(gy * x * scale ** (-beta - 1)),
        # from differentiable functions of x, so the gradient can be differentiated again.
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        scale = _ChannelWindowSum(self.half).apply((x * x,))[0] * self.alpha + self.k
        p = scale ** -self.beta
        t = _ChannelWindowSum(self.half).apply((gy * x * p / scale,))[0]
        return gy * p - x * t * (2 * self.alpha * self.beta),


def local_response_normalization(x: VariableOrArray, n: int = 5, k: float = 2, alpha: float = 1e-4,
                                 beta: float = 0.75) -> Variable:
    """Local response normalization across neighbouring channels.

    ``y[:, c] = x[:, c] / (k + alpha * sum(x[:, j] ** 2)) ** beta``, the sum running over the
    channels ``j`` from ``c - n // 2`` to ``c + n // 2`` that exist (the second axis of ``x``
    holds the channels).

    Args:
        x: A float Variable or array with at least two axes.
        n (int): The window width (an even ``n`` covers ``n + 1`` channels, as in Chainer).
        k (float): The additive constant.
        alpha (float): The scale of the sum of squares.
        beta (float): The exponent.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np
        >>> x = np.array([[1.0, 2.0, 2.0]])
        >>> local_response_normalization(x, n=3, k=0.0, alpha=1.0, beta=0.5).array
        array([[0.4472136 , 0.66666667, 0.70710678]])
    """
    return LocalResponseNormalization(n, k, alpha, beta).apply((x,))[0]
