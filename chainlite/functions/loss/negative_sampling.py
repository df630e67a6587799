"""Negative sampling loss: one positive and a few sampled negative classes per example."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Literal, overload

import numpy

from chainlite import backend
from chainlite import variable
from chainlite.functions.activation import softplus as softplus_mod
from chainlite.functions.array import cast as cast_mod
from chainlite.functions.connection import embed_id as embed_id_mod
from chainlite.functions.loss import _composite_check
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _check(x, t, W):
    def condition(in_types):
        x_type, t_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 2,
            t_type.dtype == numpy.int32,
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
            w_type.dtype == x_type.dtype,
            w_type.ndim == 2,
            w_type.shape[1] == x_type.shape[1],
        )
    _composite_check.check('negative_sampling', ('x', 't', 'W'), (x, t, W), condition)


@overload
def negative_sampling(x: VariableOrArray, t: VariableOrArray, W: VariableOrArray,
                      sampler: Callable[[tuple[int, int]], Any], sample_size: int,
                      reduce: str = ..., *, return_samples: Literal[False] = ...) -> Variable: ...


@overload
def negative_sampling(x: VariableOrArray, t: VariableOrArray, W: VariableOrArray,
                      sampler: Callable[[tuple[int, int]], Any], sample_size: int,
                      reduce: str = ..., *,
                      return_samples: Literal[True]) -> tuple[Variable, numpy.ndarray]: ...


@overload
def negative_sampling(x: VariableOrArray, t: VariableOrArray, W: VariableOrArray,
                      sampler: Callable[[tuple[int, int]], Any], sample_size: int,
                      reduce: str = ..., *, return_samples: bool = ...
                      ) -> Variable | tuple[Variable, numpy.ndarray]: ...


def negative_sampling(x: VariableOrArray, t: VariableOrArray, W: VariableOrArray,
                      sampler: Callable[[tuple[int, int]], Any], sample_size: int,
                      reduce: str = 'sum', *, return_samples: bool = False
                      ) -> Variable | tuple[Variable, numpy.ndarray]:
    """Negative sampling loss (word2vec's skip-gram objective).

    For each row ``x_i`` with label ``t_i``, ``sample_size`` negative classes ``n`` are drawn
    with ``sampler`` and the loss is

        ``softplus(-x_i . W[t_i]) + sum_n softplus(x_i . W[n])``,

    i.e. ``-log sigmoid(x_i . W[t_i]) - sum_n log sigmoid(-x_i . W[n])``. A row whose label
    is ``-1`` is ignored (its loss is 0 and it sends no gradient). The result is a
    composition of differentiable functions: ``x`` and ``W`` are differentiable to any
    order. float16 inputs are computed in float32 and the loss is returned in float16.

    Args:
        x: The inputs, a float Variable or array ``(B, D)``.
        t: The ``int32`` labels ``(B,)``, ``-1`` for rows to ignore.
        W: The class vectors ``(V, D)``, of ``x``'s dtype.
        sampler: A callable that takes a shape and returns an integer array of that shape
            of class ids, e.g. :meth:`chainlite.utils.WalkerAlias.sample`.
        sample_size (int): The number of negative samples per row.
        reduce (str): ``'sum'`` for the total loss, ``'no'`` for one loss per row.
        return_samples (bool): Also return the ``(B, sample_size + 1)`` ``int32`` array of
            classes used: column 0 holds ``t``, the others the negative samples.

    Returns:
        The loss Variable (a scalar, or ``(B,)`` with ``reduce='no'``), or ``(loss,
        samples)`` with ``return_samples``.

    Raises:
        ValueError: For an invalid ``reduce``.
        InvalidType: For inputs of the wrong dtype or shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x, W = np.zeros((2, 3), np.float32), np.ones((5, 3), np.float32)
        >>> t = np.array([0, 4], np.int32)
        >>> sampler = lambda shape: np.zeros(shape, np.int32)
        >>> loss = F.negative_sampling(x, t, W, sampler, 2)
        >>> round(float(loss.array), 4)  # 2 rows * 3 terms * log(2)
        4.1589
    """
    if reduce not in ('sum', 'no'):
        raise ValueError("negative_sampling: reduce must be 'sum' or 'no', got %r" % (reduce,))
    _check(x, t, W)
    t_array = variable.as_array(t)
    xp = backend.get_array_module(t_array)
    samples = xp.asarray(sampler((len(t_array), sample_size + 1))).astype(numpy.int32)
    samples[:, 0] = t_array
    x = variable.as_variable(x)
    W = variable.as_variable(W)
    dtype = x.dtype
    if dtype == numpy.float16:
        x = cast_mod.cast(x, numpy.float32)
        W = cast_mod.cast(W, numpy.float32)
    ignore = t_array == -1
    if ignore.any():
        # An ignored row's samples point at row 0 (any valid row); its loss is masked below.
        ids = samples.copy()
        ids[ignore] = 0
    else:
        ids = samples
    w = embed_id_mod.embed_id(ids, W)  # (B, k + 1, D)
    wx = sum_mod.sum(w * x[:, None, :], axis=2)
    sign = xp.ones(sample_size + 1, x.dtype)
    sign[0] = -1
    loss = softplus_mod.softplus(wx * sign)
    if ignore.any():
        loss = loss * (~ignore[:, None]).astype(x.dtype)
    loss = sum_mod.sum(loss, axis=1) if reduce == 'no' else sum_mod.sum(loss)
    if loss.dtype != dtype:
        loss = cast_mod.cast(loss, dtype)
    if return_samples:
        return loss, samples
    return loss
