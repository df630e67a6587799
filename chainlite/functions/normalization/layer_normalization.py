"""Layer normalization: each row normalized by its own statistics."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.math import mean as mean_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class LayerNormalization(function_node.FunctionNode):

    def __init__(self, eps: float) -> None:
        self.eps = eps

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta'))
        x, gamma, beta = in_types
        type_check.expect(
            x.dtype.kind == 'f',
            x.ndim == 2,
            gamma.ndim == 1,
            gamma.dtype == x.dtype,
            beta.dtype == x.dtype,
            gamma.shape == beta.shape,
            x.shape[1] == gamma.shape[0],
        )

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        xp = backend.get_array_module(x)
        # float16 statistics in float32, as Chainer's batch normalization does.
        dtype = numpy.float32 if x.dtype == numpy.float16 else x.dtype
        xc = x.astype(dtype, copy=False)
        xc = xc - xc.mean(axis=1, keepdims=True)
        var = xp.einsum('ij,ij->i', xc, xc) / max(x.shape[1], 1)
        xc *= (1 / xp.sqrt(var + self.eps))[:, None]
        y = xc * gamma
        y += beta
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        # Built from differentiable functions of x (the statistics are recomputed), so the
        # gradient can be differentiated again.
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs

        def E(v):
            return mean_mod.mean(v, axis=1, keepdims=True)

        xc = x - E(x)
        inv_std = (E(xc * xc) + self.eps) ** -0.5
        x_hat = xc * inv_std
        ret = []
        if 0 in indexes:
            g = gy * gamma
            ret.append(inv_std * (g - E(g) - x_hat * E(g * x_hat)))
        if 1 in indexes:
            ret.append(sum_mod.sum(gy * x_hat, axis=0))
        if 2 in indexes:
            ret.append(sum_mod.sum(gy, axis=0))
        return tuple(ret)


def layer_normalization(x: VariableOrArray, gamma: VariableOrArray, beta: VariableOrArray,
                        eps: float = 1e-5) -> Variable:
    """Layer normalization: each row of ``x`` normalized by its mean and variance.

    ``y = gamma * (x - mean) / sqrt(var + eps) + beta``, with ``mean`` and ``var`` (biased)
    taken along the second axis of each row, and ``gamma`` and ``beta`` applied per unit.

    Args:
        x: A float Variable or array of shape ``(batch_size, unit_size)``.
        gamma: The scale, of shape ``(unit_size,)`` and ``x``'s dtype.
        beta: The shift, of the same shape and dtype.
        eps: Added to the variance for numerical stability.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np
        >>> x = np.array([[1.0, 3.0], [10.0, 30.0]])
        >>> layer_normalization(x, np.ones(2), np.zeros(2), eps=0.0).array
        array([[-1.,  1.],
               [-1.,  1.]])
    """
    return LayerNormalization(eps).apply((x, gamma, beta))[0]
