"""Batch normalization with given (fixed) statistics."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions import _axis
from chainlite.functions import _vjp
from chainlite.functions.array import cast
from chainlite.functions.array import reshape
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class FixedBatchNormalization(function_node.FunctionNode):

    def __init__(self, eps: float = 2e-5, axis: int | Sequence[int] | None = None) -> None:
        # Chainer's signature: an axis of None is the first axis and those after gamma's,
        # fixed when the node sees its inputs.
        self.eps = eps
        if isinstance(axis, int):
            axis = (axis,)
        elif axis is not None:
            axis = tuple(axis)
            if list(axis) != sorted(set(axis)):
                raise RuntimeError('FixedBatchNormalization: numbers in axis must be sorted '
                                   'in ascending order, got %s' % (axis,))
        self.axis: Any = axis

    def _fix_axis(self, x_ndim: int, gamma_ndim: int) -> None:
        if self.axis is None:
            self.axis = (0,) + tuple(range(gamma_ndim + 1, x_ndim))

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta', 'mean', 'var'))
        x, gamma, beta, mean, var = in_types
        self._fix_axis(type_check.eval(x.ndim), type_check.eval(gamma.ndim))
        type_check.expect(
            x.dtype.kind == 'f',
            # The statistics may have another float dtype than x (as in Chainer).
            gamma.dtype.kind == 'f',
            beta.dtype == gamma.dtype,
            mean.dtype == gamma.dtype,
            var.dtype == gamma.dtype,
            gamma.shape == beta.shape,
            gamma.shape == mean.shape,
            gamma.shape == var.shape,
            x.ndim == len(self.axis) + gamma.ndim,
        )
        key = [i for i in range(type_check.eval(x.ndim)) if i not in self.axis]
        for j, i in enumerate(key):
            type_check.expect(x.shape[i] == gamma.shape[j])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 3, 4))
        x, gamma, beta, mean, var = inputs
        self._fix_axis(x.ndim, gamma.ndim)
        kept = tuple([1 if i in self.axis else n for i, n in enumerate(x.shape)])
        # y = x * coef + (beta - mean * coef): two passes over x, one new array.
        coef = gamma / (var + self.eps) ** 0.5
        y = x * coef.reshape(kept)
        y += (beta - mean * coef).reshape(kept)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gamma, mean, var = self.get_retained_inputs()
        gy, = grad_outputs
        x_dtype, p_dtype = x.dtype, gamma.dtype
        if x_dtype != p_dtype:
            # Mixed dtypes: differentiate in the promoted dtype, then cast each gradient
            # back to its input's dtype.
            dtype = numpy.promote_types(x_dtype, p_dtype)
            x, gy, gamma, mean, var = (cast.cast_to(v, dtype) for v in (x, gy, gamma, mean, var))
        axis = self.axis
        kept = tuple([1 if i in axis else n for i, n in enumerate(x.shape)])
        inv_std = (var + self.eps) ** -0.5
        gbeta = sum_mod.sum(gy, axis=axis) if {2, 3} & set(indexes) else None
        ggamma = None
        if {1, 4} & set(indexes):
            x_hat = (x - reshape.reshape(mean, kept)) * reshape.reshape(inv_std, kept)
            ggamma = sum_mod.sum(gy * x_hat, axis=axis)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy * reshape.reshape(gamma * inv_std, kept))
            elif i == 1:
                ret.append(ggamma)
            elif i == 2:
                ret.append(gbeta)
            elif i == 3:
                ret.append(-gamma * inv_std * gbeta)
            else:
                # d y / d var = -gamma * x_hat * inv_std ** 2 / 2
                ret.append(gamma * inv_std * inv_std * ggamma * -0.5)
        if x_dtype != p_dtype:
            ret = [cast.cast_to(g, x_dtype if i == 0 else p_dtype) for i, g in zip(indexes, ret)]
        return tuple(ret)


def _expand(v, expander):
    # v (gamma's shape) reshaped to broadcast against x: gamma's axes where expander has a
    # slice, 1 where it has None (Chainer's v[expander], for Variables too).
    dims = iter(v.shape)
    return reshape.reshape(v, tuple(1 if e is None else next(dims) for e in expander))


class FixedBatchNormalizationGrad(function_node.FunctionNode):
    """The gradients of fixed batch normalization as Chainer's node.

    Applied to ``(x, gamma, mean, var, gy)``, it returns ``(gx, ggamma, gbeta, gmean,
    gvar)``; differentiable again.

    Args:
        eps: The epsilon added to the variance.
        expander: A tuple of ``None`` and ``slice(None)`` that broadcasts ``gamma``'s shape
            against ``x`` (slices at the channel axes).
        axis: The axes the statistics are taken over.
        inv_std: ``1 / sqrt(var + eps)``, or None to compute it from ``var``.
        inv_var: ``1 / (var + eps)``, or None to compute it from ``var``.
    """

    def __init__(self, eps: float, expander: tuple[Any, ...], axis: tuple[int, ...],
                 inv_std: Any, inv_var: Any) -> None:
        self.eps = eps
        self.expander = expander
        self.axis = axis
        self.inv_std = inv_std
        self.inv_var = inv_var

    def _grads(self, x, gamma, mean, var, gy, inv_std, inv_var, expand, total):
        # The five gradients, on arrays or on Variables.
        x_hat = (x - expand(mean)) * expand(inv_std)
        gbeta = total(gy)
        ggamma = total(x_hat * gy)
        return (expand(gamma * inv_std) * gy, ggamma, gbeta, -gamma * inv_std * gbeta,
                gamma * ggamma * inv_var * -0.5)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2, 3, 4))
        x, gamma, mean, var, gy = inputs
        if self.inv_std is None or self.inv_var is None:
            self.inv_var = numpy.reciprocal(var + var.dtype.type(self.eps))
            self.inv_std = numpy.sqrt(self.inv_var)
        grads = self._grads(x, gamma, mean, var, gy, self.inv_std, self.inv_var,
                            lambda v: v[self.expander],
                            lambda v: v.sum(axis=self.axis))
        dtypes = (x.dtype,) + (gamma.dtype,) * 4
        xp = backend.get_array_module(x)
        return tuple(xp.asarray(g).astype(d, copy=False) for g, d in zip(grads, dtypes))

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        def formula(x, gamma, mean, var, gy):
            inv_var = (var + self.eps) ** -1
            return self._grads(x, gamma, mean, var, gy, inv_var ** 0.5, inv_var,
                               lambda v: _expand(v, self.expander),
                               lambda v: sum_mod.sum(v, axis=self.axis))
        return _vjp.vjp(formula, self.get_retained_inputs(), grad_outputs, indexes)


def fixed_batch_normalization(x: VariableOrArray, gamma: VariableOrArray, beta: VariableOrArray,
                              mean: VariableOrArray, var: VariableOrArray, eps: float = 2e-5,
                              axis: int | Sequence[int] | None = None) -> Variable:
    """Batch normalization with the mean and variance given, as at test time.

    ``y = gamma * (x - mean) / sqrt(var + eps) + beta``, per channel; the axes are chosen as
    in :func:`~chainlite.functions.normalization.batch_normalization.batch_normalization`.
    Gradients flow to all five inputs.

    Args:
        x: A float Variable or array.
        gamma: The scale, of the channel shape; a float dtype (not necessarily ``x``'s).
        beta: The shift, of the same shape and dtype.
        mean: The mean to subtract, of the same shape and dtype.
        var: The variance to divide by (after adding ``eps`` and taking the square root).
        eps: Added to the variance for numerical stability.
        axis: The axes the statistics were taken over (an int or a tuple of ints), or None
            for the first axis and those after the channel axes.

    Returns:
        A Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np
        >>> x = np.array([[1.0, 10.0], [3.0, 30.0]])
        >>> y = fixed_batch_normalization(x, np.ones(2), np.zeros(2), np.array([2.0, 20.0]),
        ...                               np.array([1.0, 100.0]), eps=0.0)
        >>> y.array
        array([[-1., -1.],
               [ 1.,  1.]])
    """
    if axis is None:
        axes = (0,) + tuple(range(gamma.ndim + 1, x.ndim))
    else:
        axes = _axis.normalize_axes(axis, x.ndim, 'FixedBatchNormalization')
    return FixedBatchNormalization(eps, axes).apply((x, gamma, beta, mean, var))[0]
