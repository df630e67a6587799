"""Weighted average of elements over given axes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Sequence, overload

from chainlite import backend
from chainlite import variable
from chainlite.functions import _axis
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.functions.math import mean as mean_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


# Chainer keeps its mean node here: code that builds ``Mean(axis, keepdims)`` finds it.
Mean = mean_mod.Mean


def _mean(x: VariableOrArray, axis: int | Sequence[int] | None,
          keepdims: bool = False) -> Variable:
    # Chainer's private unweighted mean (average without weights).
    return Mean(axis, keepdims).apply((x,))[0]


def _invalid(expect, actual, also=None):
    error = type_check.InvalidType(
        expect, actual, msg='Invalid operation is performed in: average (Forward)\n\n'
                            'Expect: %s\nActual: %s' % (expect, actual))
    raise error if also is None else type_check._also(error, also)


@overload
def average(x: VariableOrArray, axis: int | Sequence[int] | None = ...,
            weights: VariableOrArray | None = ..., keepdims: bool = ...,
            returned: Literal[False] = ...) -> Variable: ...


@overload
def average(x: VariableOrArray, axis: int | Sequence[int] | None = ...,
            weights: VariableOrArray | None = ..., keepdims: bool = ..., *,
            returned: Literal[True]) -> tuple[Variable, Variable]: ...


@overload
def average(x: VariableOrArray, axis: int | Sequence[int] | None = ...,
            weights: VariableOrArray | None = ..., keepdims: bool = ...,
            returned: bool = ...) -> Variable | tuple[Variable, Variable]: ...


def average(x: VariableOrArray, axis: int | Sequence[int] | None = None,
            weights: VariableOrArray | None = None, keepdims: bool = False,
            returned: bool = False) -> Variable | tuple[Variable, Variable]:
    """Weighted average of elements over the given axes, ``sum(x * w) / sum(w)``.

    Args:
        x: A float Variable or array.
        axis: None (all axes), an int, or a tuple of ints; negative values count from the end.
        weights: None (all weights one), or a Variable or array of weights: of the shape of
            ``x`` (normalized over ``axis`` as in NumPy), or, when ``axis`` names a single
            axis, 1-D of length ``x.shape[axis]`` (as in Chainer). An array is cast to
            ``x``'s dtype; gradients flow to a weights Variable too.
        keepdims: Keep the reduced axes with length 1.
        returned: Also return the sum of the weights, of the result's shape (as
            ``numpy.average``; an addition to Chainer's signature).

    Returns:
        A Variable of the same dtype, or the tuple ``(average, sum_of_weights)`` when
        ``returned`` is True.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[1.0, 2.0], [3.0, 6.0]])
        >>> F.average(x, axis=1, weights=np.array([3.0, 1.0])).array
        array([1.25, 3.75])
    """
    if weights is None:
        y = mean_mod.Mean(axis, keepdims, 'average').apply((x,))[0]
        if not returned:
            return y
        count = x.size // max(y.size, 1) if y.size else 0
        xp = backend.get_array_module(y.array)
        return y, variable.Variable(xp.full(y.shape, count, y.dtype), requires_grad=False)

    x = variable.as_variable(x)
    if x.dtype.kind != 'f':
        _invalid('x.dtype.kind == f', '%s != f' % x.dtype.kind)
    if not isinstance(weights, variable.Variable) and variable._is_array(weights):
        weights = weights.astype(x.dtype, copy=False)
    weights = variable.as_variable(weights)
    if weights.dtype != x.dtype:
        _invalid('weights.dtype == x.dtype', '%s != %s' % (weights.dtype, x.dtype))
    axes = _axis.normalize_axes(axis, x.ndim, 'average')
    if weights.shape == x.shape:
        den = sum_mod.sum(weights, axes, keepdims)
    elif axes is not None and len(axes) == 1 and weights.shape == (x.shape[axes[0]],):
        kept = tuple(s if i == axes[0] else 1 for i, s in enumerate(x.shape))
        den = sum_mod.sum(weights)
        weights = broadcast.broadcast_to(reshape.reshape(weights, kept), x.shape)
    else:
        # Chainer: a ValueError (weights of another shape need a single axis).
        _invalid('weights.shape == x.shape or weights.shape == (x.shape[axis],)',
                 'weights.shape = %s, x.shape = %s, axis = %s' % (weights.shape, x.shape, axis),
                 ValueError)
    num = sum_mod.sum(x * weights, axes, keepdims)
    den = broadcast.broadcast_to(den, num.shape)
    y = num / den
    return (y, den) if returned else y
