"""Group normalization: channels split into groups, each normalized per sample."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _vjp
from chainlite.functions.array import cast
from chainlite.functions.array import reshape
from chainlite.functions.math import mean as mean_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class GroupNormalization(function_node.FunctionNode):

    def __init__(self, groups: int, eps: float) -> None:
        self.groups = groups
        self.eps = eps
        self.inv_std: Any = None  # per (sample, group) row, kept by forward for backward

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta'))
        x, gamma, beta = in_types
        type_check.expect(
            x.dtype.kind == 'f',
            x.ndim >= 2,
            gamma.ndim == 1,
            gamma.dtype.kind == 'f',
            beta.dtype == gamma.dtype,
            gamma.shape == beta.shape,
            x.shape[1] == gamma.shape[0],
        )

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gamma, beta = inputs
        channels = x.shape[1]
        if channels % self.groups:
            raise ValueError('GroupNormalization: groups (%d) must divide the number of '
                             'channels (%d)' % (self.groups, channels))
        xp = backend.get_array_module(x)
        # Mixed dtypes (float16 data, float32 parameters) compute in the promoted dtype;
        # float16 statistics in float32, as Chainer's batch normalization does.
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        if dtype == numpy.float16:
            dtype = numpy.dtype(numpy.float32)
        rows = x.shape[0] * self.groups
        xc = x.astype(dtype, copy=False).reshape(rows, -1)
        xc = xc - xc.mean(axis=1, keepdims=True)
        var = xp.einsum('ij,ij->i', xc, xc) / max(xc.shape[1], 1)
        self.inv_std = 1 / xp.sqrt(var + self.eps)
        xc *= self.inv_std[:, None]
        kept = (1, channels) + (1,) * (x.ndim - 2)
        y = xc.reshape(x.shape) * gamma.astype(dtype, copy=False).reshape(kept)
        y += beta.astype(dtype, copy=False).reshape(kept)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        # Built from differentiable functions of x (the inverse standard deviation through
        # _MulInvStd, which knows its derivative), so it can be differentiated again.
        x, gamma = self.get_retained_inputs()
        gy, = grad_outputs
        x_dtype, p_dtype = x.dtype, gamma.dtype
        if x_dtype != p_dtype:
            # Mixed dtypes: differentiate in the promoted dtype; cast each gradient back.
            dtype = numpy.promote_types(x_dtype, p_dtype)
            x, gamma, gy = (cast.cast_to(v, dtype) for v in (x, gamma, gy))
        shape = x.shape
        rows = shape[0] * self.groups
        axis = (0,) + tuple(range(2, len(shape)))

        def E(v):
            return mean_mod.mean(v, axis=1, keepdims=True)

        xg = reshape.reshape(x, (rows, x.size // max(rows, 1)))
        inv_std = self.inv_std.astype(xg.dtype, copy=False)
        x_hat = _MulInvStd(self.eps, None, inv_std, None).apply((xg, xg - E(xg)))[0]
        ret: list[Any] = []
        if 0 in indexes:
            kept = (1, shape[1]) + (1,) * (len(shape) - 2)
            g = reshape.reshape(gy * reshape.reshape(gamma, kept), xg.shape)
            gx, = _MulInvStd(self.eps, None, inv_std, None).apply(
                (xg, g - E(g) - x_hat * E(g * x_hat)))
            ret.append(reshape.reshape(gx, shape))
        if 1 in indexes:
            ret.append(sum_mod.sum(gy * reshape.reshape(x_hat, shape), axis=axis))
        if 2 in indexes:
            ret.append(sum_mod.sum(gy, axis=axis))
        if x_dtype != p_dtype:
            ret = [cast.cast_to(g, x_dtype if i == 0 else p_dtype) for i, g in zip(indexes, ret)]
        return tuple(ret)


class _MulInvStd(function_node.FunctionNode):
    """``z = inv_std[:, None] * y`` for 2-d ``x`` and ``y``, where ``inv_std`` (given) is the
    inverse standard deviation of each row of ``x``: differentiable in ``x`` and ``y`` to any
    order. ``mean`` and ``dummy_gamma`` are Chainer's arguments and unused here."""

    def __init__(self, eps: float, mean: Any, inv_std: Any, dummy_gamma: Any) -> None:
        self.eps = eps
        self.mean = mean
        self.inv_std = inv_std
        self.dummy_gamma = dummy_gamma

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        _, y = inputs
        return (self.inv_std[:, None] * y).astype(y.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, y = self.get_retained_inputs()
        gz, = grad_outputs

        def mul_inv_std(v: Any) -> Variable:
            return _MulInvStd(self.eps, self.mean, self.inv_std, self.dummy_gamma).apply((x, v))[0]

        # d inv_std_i / d x_ik = -inv_std_i ** 2 * x_hat_ik / n, n the row length.
        x_hat = mul_inv_std(x - mean_mod.mean(x, axis=1, keepdims=True))
        gy = mul_inv_std(gz)
        gx = -mul_inv_std(x_hat * mean_mod.mean(gy * y, axis=1, keepdims=True))
        return gx, gy


def _rows_mean(v):
    return mean_mod.mean(v, axis=1, keepdims=True)


def _x_hat_of(node, x):
    # (x - row mean) * inv_std as a differentiable function of x (inv_std depends on x).
    return _MulInvStd(node.eps, node.mean, node.inv_std, node.dummy_gamma).apply(
        (x, x - _rows_mean(x)))[0]


class _ScaleShiftGrad(function_node.FunctionNode):
    # Chainer's gradient of y = gamma * x_hat + beta, applied to (x_hat, gamma, gy):
    # x_hat is (batch * groups, -1), gy (batch, channels, ...); returns (gx_hat, ggamma,
    # gbeta).

    def _grads(self, x_hat, gamma, gy, reshape_, total, expand):
        b, c = gy.shape[:2]
        gy3 = reshape_(gy, (b, c, -1))
        xh3 = reshape_(x_hat, (b, c, -1))
        gx_hat = reshape_(gy3 * expand(gamma), x_hat.shape)
        return gx_hat, total(gy3 * xh3), total(gy3)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x_hat, gamma, gy = inputs
        return self._grads(x_hat, gamma, gy, lambda a, s: a.reshape(s),
                           lambda a: a.sum(axis=(0, 2)), lambda g: g[:, None])

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        def formula(x_hat, gamma, gy):
            return self._grads(x_hat, gamma, gy, reshape.reshape,
                               lambda a: sum_mod.sum(a, axis=(0, 2)),
                               lambda g: reshape.reshape(g, (-1, 1)))
        return _vjp.vjp(formula, self.get_retained_inputs(), grad_outputs, indexes)


class _XHat(function_node.FunctionNode):
    # Chainer's x_hat = (x - mean) * inv_std on (batch * groups, -1) rows, with the given
    # statistics; its gradient counts their dependence on x (through _MulInvStd).

    def __init__(self, eps, mean, inv_std, dummy_gamma):
        self.eps = eps
        self.mean = mean
        self.inv_std = inv_std
        self.dummy_gamma = dummy_gamma

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, = inputs
        return ((x - self.mean[:, None]) * self.inv_std[:, None]).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _vjp.vjp(lambda x: (_x_hat_of(self, x),), self.get_retained_inputs(),
                        grad_outputs, indexes)


class _XHatGrad(function_node.FunctionNode):
    # Chainer's gradient of _XHat, applied to (x, gx_hat): inv_std * (gx_hat - mean(gx_hat)
    # - x_hat * mean(gx_hat * x_hat)) per row.

    def __init__(self, eps, mean, inv_std, dummy_gamma, x_hat):
        self.eps = eps
        self.mean = mean
        self.inv_std = inv_std
        self.dummy_gamma = dummy_gamma
        self.x_hat = x_hat

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        _, gx_hat = inputs
        x_hat = self.x_hat
        g = gx_hat - gx_hat.mean(axis=1, keepdims=True) - \
            x_hat * (gx_hat * x_hat).mean(axis=1, keepdims=True)
        return (self.inv_std[:, None] * g).astype(gx_hat.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        def formula(x, gx_hat):
            x_hat = _x_hat_of(self, x)
            g = gx_hat - _rows_mean(gx_hat) - x_hat * _rows_mean(gx_hat * x_hat)
            return _MulInvStd(self.eps, self.mean, self.inv_std, self.dummy_gamma).apply(
                (x, g))
        return _vjp.vjp(formula, self.get_retained_inputs(), grad_outputs, indexes)


def group_normalization(x: VariableOrArray, groups: int, gamma: VariableOrArray,
                        beta: VariableOrArray, eps: float = 1e-5) -> Variable:
    """Group normalization: per sample, the channels of each group share one mean and variance.

    The ``C`` channels of ``x`` (its second axis) are split into ``groups`` groups of
    consecutive channels; each group of each sample is normalized by the mean and (biased)
    variance of all its values, then ``gamma`` and ``beta`` scale and shift each channel.

    Args:
        x: A float Variable or array of shape ``(N, C, ...)``.
        groups (int): The number of groups; it must divide ``C``.
        gamma: The scale, of shape ``(C,)``, a float dtype: ``x``'s or another one (float16
            data with float32 parameters, as in mixed16; the result is computed in the
            promoted dtype and returned in ``x``'s).
        beta: The shift, of ``gamma``'s shape and dtype.
        eps: Added to the variance for numerical stability.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Raises:
        TypeError: If ``groups`` is not an int.
        ValueError: If ``groups`` is not positive or does not divide the number of channels.

    Example:
        >>> import numpy as np
        >>> x = np.array([[[1.0], [3.0], [10.0], [30.0]]])
        >>> group_normalization(x, 2, np.ones(4), np.zeros(4), eps=0.0).array[0, :, 0]
        array([-1.,  1., -1.,  1.])
    """
    if not isinstance(groups, (int, numpy.integer)) or isinstance(groups, bool):
        raise TypeError('group_normalization: groups must be an int, got %r' % (groups,))
    if groups < 1:
        raise ValueError('group_normalization: groups must be positive, got %d' % groups)
    return GroupNormalization(int(groups), eps).apply((x, gamma, beta))[0]
