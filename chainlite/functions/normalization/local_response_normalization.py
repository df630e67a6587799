"""Local response normalization across neighbouring channels."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backprop
from chainlite import function_node
from chainlite.backends import cuda
from chainlite.backends import intel64
from chainlite.functions import _vjp
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


def _cu_conv_sum(y: Any, x: Any, n: int) -> None:
    # Chainer's CUDA kernel for the channel-window sum (into y); it needs CuPy on a GPU
    # (cuda.elementwise raises RuntimeError without, as in Chainer).
    rdim = x.size // (x.shape[0] * x.shape[1])
    cuda.elementwise(
        'raw T x, int32 rdim, int32 N, int32 n_', 'raw T y',
        # One thread per (sample, position): a running sum along the channels.
        'int h = n_ / 2; int base = i / rdim * N * rdim + i % rdim; T s = 0;'
        'for (int c = 0; c < N + h; ++c) {'
        '  if (c < N) s += x[base + c * rdim];'
        '  if (c >= n_) s -= x[base + (c - n_) * rdim];'
        '  if (c >= h) y[base + (c - h) * rdim] = s; }',
        'lrn_conv_sum')(x, rdim, x.shape[1], n, y, size=x.shape[0] * rdim)


class LocalResponseNormalizationGrad(function_node.FunctionNode):
    """The input gradient of local response normalization as Chainer's node.

    Applied to ``(x, y, gy)`` (the input, the output and its gradient), it returns ``gx``;
    differentiable again (with respect to ``x`` and ``gy``; ``y`` is the forward's output,
    so its dependence on ``x`` is counted in ``x``'s gradient).

    Args:
        n: The window size over the channels.
        k: The bias.
        alpha: The scale of the window sum.
        beta: The exponent.
        use_ideep: Chainer's iDeep flag; iDeep is never available here, so it must be False.
        scale: ``unit_scale ** -beta`` from the forward, or None to recompute it.
        indexes: Chainer's iDeep workspace (unused).
        unit_scale: ``k + alpha * window_sum(x ** 2)`` from the forward, or None to
            recompute it.
    """

    def __init__(self, n: int, k: float, alpha: float, beta: float, use_ideep: bool,
                 scale: Any = None, indexes: Any = None, unit_scale: Any = None) -> None:
        self.n = n
        self.k = k
        self.alpha = alpha
        self.beta = beta
        self._use_ideep = use_ideep
        self.scale = scale
        self.indexes = indexes
        self.unit_scale = unit_scale

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        if self._use_ideep:
            intel64.check_ideep_available()
        self.retain_inputs((0, 1, 2))
        x, y, gy = inputs
        half = self.n // 2
        unit_scale = self.unit_scale
        if unit_scale is None:
            unit_scale = self.k + self.alpha * _window_sum_array(numpy.square(x), half)
        scale = self.scale if self.scale is not None else unit_scale ** -self.beta
        # d y_c / d x_j = scale_c [c == j] - 2 alpha beta x_j y_c / unit_scale_c over the
        # window: the transpose of the window is itself.
        s = _window_sum_array(y * gy / unit_scale, half)
        gx = gy * scale - 2 * self.alpha * self.beta * x * s
        return gx.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        def formula(x, y, gy):
            out = local_response_normalization(x, self.n, self.k, self.alpha, self.beta)
            gx, = backprop.grad([out], [x], grad_outputs=[gy], enable_double_backprop=True)
            return gx,
        return _vjp.vjp(formula, self.get_retained_inputs(), grad_outputs, indexes)


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
