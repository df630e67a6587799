"""Negative sampling loss: one positive and a few sampled negative classes per example."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Literal, overload

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite import variable
from chainlite.functions import _vjp
from chainlite.functions._accumulate import widen
from chainlite.functions.activation import sigmoid as sigmoid_mod
from chainlite.functions.activation import softplus as softplus_mod
from chainlite.functions.array import broadcast as broadcast_mod
from chainlite.functions.array import cast as cast_mod
from chainlite.functions.array import scatter_add as scatter_add_mod
from chainlite.functions.connection import embed_id as embed_id_mod
from chainlite.functions.loss import _composite_check
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _sigmoid_grad(x, y, gy):
    # gy * y * (1 - y) through sigmoid's gradient node (y = sigmoid(x)), as Chainer's helper.
    return sigmoid_mod.SigmoidGrad((x,)).apply((y, gy))[0]


def _scores(x, w, sign, mask):
    # (B, k + 1): sign * (w_k . x), and the loss terms softplus of it, 0 on ignored rows.
    f = (w * x[:, None, :]).sum(axis=2) * sign
    return f, numpy.logaddexp(f, 0) * mask[:, None]


class NegativeSamplingFunction(function_node.FunctionNode):
    """Negative sampling loss as Chainer's node, applied to ``(x, t, W)``.

    :func:`negative_sampling` computes the same loss as a composition; this node draws the
    samples with ``sampler`` and keeps them in ``samples`` as Chainer's does.

    Args:
        sampler: A callable taking a shape and returning integer class ids of that shape.
        sample_size: The number of negative samples per row.
        reduce: ``'sum'`` or ``'no'``.
    """

    ignore_label = -1
    samples: Any = None

    def __init__(self, sampler: Callable[[tuple[int, int]], Any], sample_size: int,
                 reduce: str = 'sum') -> None:
        if reduce not in ('sum', 'no'):
            raise ValueError("NegativeSamplingFunction: reduce must be 'sum' or 'no', got %r"
                             % (reduce,))
        self.sampler = sampler
        self.sample_size = sample_size
        self.reduce = reduce
        self.wx = None

    def _make_samples(self, t):
        xp = backend.get_array_module(t)
        # A host sampler's draws are sent to t's device; a device sampler's stay there.
        samples = xp.array(self.sampler((int(t.shape[0]), self.sample_size + 1)),
                           numpy.int32)
        samples[:, 0] = t
        return samples

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't', 'W'))
        x_type, t_type, w_type = in_types
        type_check.expect(x_type.dtype.kind == 'f', x_type.ndim == 2,
                          t_type.dtype == numpy.int32, t_type.ndim == 1,
                          x_type.shape[0] == t_type.shape[0],
                          w_type.dtype == x_type.dtype, w_type.ndim == 2)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1, 2))
        x, t, W = inputs
        self.ignore_mask = t != self.ignore_label
        self.samples = samples = self._make_samples(t)
        xp = backend.get_array_module(x)
        sign = xp.ones(self.sample_size + 1, numpy.float32 if x.dtype == numpy.float16
                       else x.dtype)
        sign[0] = -1
        ids = xp.where(self.ignore_mask[:, None], samples, 0)
        _, terms = _scores(widen(x), widen(W)[ids], sign, self.ignore_mask)
        loss = terms.sum(axis=1)
        if self.reduce == 'sum':
            loss = loss.sum()
        return xp.asarray(loss, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, t, W = self.get_retained_inputs()
        gy, = grad_outputs
        return NegativeSamplingFunctionGrad(self.reduce, self.ignore_mask, self.sample_size,
                                            self.samples, self.wx).apply((x, W, gy))


class NegativeSamplingFunctionGrad(function_node.FunctionNode):
    """The gradients of :class:`NegativeSamplingFunction` as Chainer's node.

    Applied to ``(x, W, gy)``, it returns ``(gx, None, gW)`` (the None stands for ``t``).

    Args:
        reduce: ``'sum'`` or ``'no'``, as in the forward.
        ignore_mask: A boolean array ``(B,)``, False for ignored rows.
        sample_size: The number of negative samples per row.
        samples: The ``(B, sample_size + 1)`` class ids, column 0 the labels.
        wx: Kept for Chainer's GPU path (None on the CPU).
    """

    def __init__(self, reduce: str, ignore_mask: numpy.ndarray, sample_size: int,
                 samples: numpy.ndarray, wx: Any) -> None:
        self.reduce = reduce
        self.ignore_mask = ignore_mask
        self.sample_size = sample_size
        self.samples = samples
        self.wx = wx

    def _parts(self, xp, dtype):
        sign = xp.ones(self.sample_size + 1, dtype)
        sign[0] = -1
        ids = xp.where(self.ignore_mask[:, None], self.samples, 0)
        return sign, ids, self.ignore_mask[:, None].astype(dtype)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2))
        x, W, gy = inputs
        xp = backend.get_array_module(x)
        xw, Ww = widen(x), widen(W)
        sign, ids, mask = self._parts(xp, xw.dtype)
        w = Ww[ids]
        f, _ = _scores(xw, w, sign, self.ignore_mask)
        gy = widen(gy)
        gyb = gy if self.reduce == 'sum' else gy[:, None]
        g = gyb * (numpy.tanh(f * 0.5) * 0.5 + 0.5) * sign * mask
        gx = xp.einsum('bk,bkd->bd', g, w)
        gW = xp.zeros_like(Ww)
        xp.add.at(gW, ids, g[:, :, None] * xw[:, None, :])
        return gx.astype(x.dtype, copy=False), None, gW.astype(W.dtype, copy=False)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, W, gy = self.get_retained_inputs()
        sign, ids, mask = self._parts(backend.get_array_module(x.array), x.dtype)

        def formula(x, W, gy):
            w = embed_id_mod.embed_id(ids, W)
            f = sum_mod.sum(w * x[:, None, :], axis=2) * sign
            gyb = gy if self.reduce == 'sum' else gy[:, None]
            g = broadcast_mod.broadcast_to(gyb, f.shape) * sigmoid_mod.sigmoid(f) * (sign * mask)
            gx = sum_mod.sum(g[:, :, None] * w, axis=1)
            rows = g[:, :, None] * x[:, None, :]
            gW = scatter_add_mod.scatter_add(W * 0, ids.ravel(),
                                             rows.reshape(-1, W.shape[1]))
            return gx, None, gW
        return _vjp.vjp(formula, (x, W, gy), grad_outputs, indexes)


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
    if xp is numpy:
        return _negative_sampling(x, t_array, W, sampler, sample_size, reduce,
                                  return_samples, xp)
    # The sampler is called and the loss built with the labels' GPU current (as a
    # function's forward runs in Chainer): the samples and constants are made there, not
    # on another current GPU.
    with backend.get_device_from_array(t_array):
        return _negative_sampling(x, t_array, W, sampler, sample_size, reduce,
                                  return_samples, xp)


def _negative_sampling(x: VariableOrArray, t_array: Any, W: VariableOrArray,
                       sampler: Callable[[tuple[int, int]], Any], sample_size: int,
                       reduce: str, return_samples: bool, xp: Any) -> Any:
    samples = xp.asarray(sampler((len(t_array), sample_size + 1))).astype(numpy.int32)
    samples[:, 0] = t_array
    x = variable.as_variable(x)
    W = variable.as_variable(W)
    dtype = x.dtype
    if dtype == numpy.float16:
        x = cast_mod.cast(x, numpy.float32)
        W = cast_mod.cast(W, numpy.float32)
    ignore = t_array == -1
    # The CPU skips the masks when no row is ignored; a GPU masks always rather than wait
    # for the labels to be read on the host.
    any_ignored = xp is not numpy or bool(ignore.any())
    if any_ignored:
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
    if any_ignored:
        loss = loss * (~ignore[:, None]).astype(x.dtype)
    loss = sum_mod.sum(loss, axis=1) if reduce == 'no' else sum_mod.sum(loss)
    if loss.dtype != dtype:
        loss = cast_mod.cast(loss, dtype)
    if return_samples:
        return loss, samples
    return loss
