"""Connectionist temporal classification (CTC) loss."""
from __future__ import annotations

import collections.abc
from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import backprop
from chainlite import configuration
from chainlite import function
from chainlite import variable
from chainlite.functions.activation import log_softmax as log_softmax_mod
from chainlite.functions.array import cast as cast_mod
from chainlite.functions.array import concat as concat_mod
from chainlite.functions.array import separate as separate_mod
from chainlite.functions.array import stack as stack_mod
from chainlite.functions.array import where as where_mod
from chainlite.functions.loss import _composite_check
from chainlite.functions.math import logsumexp as logsumexp_mod
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray

# log(0) in the recursion: finite, so that log-sum-exp of impossible states stays finite and
# its gradient (a softmax weight of 0) is exact.
_LOG_ZERO = -1e10


def _logsumexp(a, xp, axis=None):
    # log(sum(exp(a))) over axis, shifted by the maximum, in a's dtype; axis is removed.
    vmax = xp.amax(a, axis=axis, keepdims=True)
    vmax = vmax + xp.log(xp.sum(xp.exp(a - vmax), axis=axis, keepdims=True, dtype=a.dtype))
    return xp.squeeze(vmax, axis=axis)


def _softmax(x, xp):
    # The softmax of a (T, B, V) array over the vocabulary axis.
    e = xp.exp(x - xp.amax(x, axis=2, keepdims=True))
    return e / xp.sum(e, axis=2, keepdims=True)


def _label_to_path(labels, blank_symbol, xp):
    # (B, M) labels -> (B, 2M + 1) paths: a blank before, between and after the labels.
    path = xp.full((len(labels), labels.shape[1] * 2 + 1), blank_symbol, numpy.int32)
    path[:, 1::2] = labels
    return path


def _flip_path(path, path_length, xp):
    # Each row's first path_length entries reversed, the padding after them (reversed too):
    # a rotation by path_length, then a flip.
    n_batch, n_label = path.shape
    rotate = (xp.arange(n_label) + path_length[:, None]) % n_label
    return path[xp.arange(n_batch)[:, None], rotate][:, ::-1]


def _flip_label_probability(y, input_length, xp):
    # (T, B, V) probabilities with each sequence's first input_length steps reversed.
    seq, n_batch, n_vocab = y.shape
    rotate = (xp.arange(seq)[:, None] + input_length) % seq
    return y[rotate[:, :, None], xp.arange(n_batch)[None, :, None],
             xp.arange(n_vocab)[None, None, :]][::-1]


def _flip_path_probability(prob, input_length, path_length, xp):
    # (T, B, S) path probabilities flipped along both time (input_length) and path
    # (path_length), each within its valid length.
    seq, n_batch, n_label = prob.shape
    rotate_input = (xp.arange(seq)[:, None] + input_length) % seq
    rotate_label = (xp.arange(n_label) + path_length[:, None]) % n_label
    return prob[rotate_input[:, :, None], xp.arange(n_batch)[None, :, None],
                rotate_label][::-1, :, ::-1]


def _check(xs, t, input_length, label_length):
    def condition(in_types):
        x_type, t_type, il_type, ll_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 3,
            t_type.dtype.kind == 'i',
            t_type.ndim == 2,
            t_type.shape[0] == x_type.shape[1],
            il_type.dtype.kind == 'i',
            il_type.ndim == 1,
            il_type.shape[0] == x_type.shape[1],
            ll_type.dtype.kind == 'i',
            ll_type.ndim == 1,
            ll_type.shape[0] == x_type.shape[1],
        )
    _composite_check.check('connectionist_temporal_classification',
                           ('x', 't', 'input_length', 'label_length'),
                           (xs, t, input_length, label_length), condition)


def _check_values(t, input_length, label_length, n_time, n_vocab):
    n_label = t.shape[1]
    if (input_length < 0).any() or (input_length > n_time).any():
        raise ValueError('connectionist_temporal_classification: input_length must be in '
                         '[0, %d], got %s' % (n_time, input_length))
    if (label_length < 0).any() or (label_length > n_label).any():
        raise ValueError('connectionist_temporal_classification: label_length must be in '
                         '[0, %d], got %s' % (n_label, label_length))
    if ((t < 0) | (t >= n_vocab)).any():
        raise ValueError('connectionist_temporal_classification: labels must be in [0, %d), '
                         'got %s' % (n_vocab, t))


class ConnectionistTemporalClassification(function.Function):
    """CTC loss as Chainer's old-style function, applied to ``(input_length, label_length,
    t, x)`` with ``x`` the steps stacked into ``(T, B, V)``.

    It computes what :func:`connectionist_temporal_classification` does (Chainer's is an
    old-style function, so its gradient is differentiable once). After a call it keeps, as
    Chainer's does, ``yseq`` (the softmax of ``x``), ``path`` (the labels with blanks),
    ``path_length`` and ``input_length``.

    Args:
        blank_symbol: The index of the blank label.
        reduce: ``'mean'`` or ``'no'``.
    """

    def __init__(self, blank_symbol: int, reduce: str = 'mean') -> None:
        if reduce not in ('mean', 'no'):
            raise ValueError("ConnectionistTemporalClassification: reduce must be 'mean' or "
                             "'no', got %r" % (reduce,))
        self.blank_symbol = blank_symbol
        self.zero_padding: float | None = None
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('input_length', 'label_length', 't', 'x'))
        il, ll, t, x = in_types
        type_check.expect(il.dtype == numpy.int32, il.ndim == 1, ll.dtype == numpy.int32,
                          ll.ndim == 1, t.ndim == 2, t.dtype == numpy.int32, x.ndim == 3,
                          x.dtype.kind == 'f')
        n_batch = x.shape[1]
        type_check.expect(t.shape[0] == n_batch, il.shape[0] == n_batch,
                          ll.shape[0] == n_batch)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        input_length, label_length, t, xs = inputs
        if self.zero_padding is None:
            self.zero_padding = -10000.0 if xs.dtype == numpy.float16 else _LOG_ZERO
        self.input_length = input_length
        self.path_length = 2 * label_length + 1
        xp = backend.get_array_module(xs)
        self.yseq = _softmax(xs, xp)
        self.path = _label_to_path(t, self.blank_symbol, xp)
        with configuration.using_config('enable_backprop', True):
            self._x = variable.Variable(xs)
            self._loss = connectionist_temporal_classification(
                [self._x[i] for i in range(len(xs))], t, self.blank_symbol, input_length,
                label_length, self.reduce)
        return self._loss.array,

    def backward(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gx, = backprop.grad([self._loss], [self._x], grad_outputs=[grad_outputs[0]])
        return None, None, None, None if gx is None else gx.array


def connectionist_temporal_classification(
        x: Sequence[VariableOrArray], t: VariableOrArray, blank_symbol: int,
        input_length: VariableOrArray | None = None,
        label_length: VariableOrArray | None = None, reduce: str = 'mean') -> Variable:
    """Connectionist temporal classification loss (Graves et al., 2006).

    The negative log-probability of the label sequence ``t[b]`` summed over every alignment
    of it to the inputs: at each step the softmax of ``x[i][b]`` gives the probability of
    each label or of ``blank_symbol``; an alignment repeats labels and inserts blanks
    (between two equal labels a blank is required). Computed with the forward algorithm in
    log space, as a composition of differentiable functions, so ``x`` is differentiable to
    any order (the lengths and labels are not differentiable). Pass the unnormalised
    scores: the softmax is applied here. float16 is computed in float32 and returned in
    float16.

    Args:
        x: A list (or tuple) of ``T`` float Variables or arrays ``(B, V)``, one per step.
        t: The ``int`` labels ``(B, M)``, each below ``V``; a Variable or array.
        blank_symbol (int): The index of the blank label, ``0 <= blank_symbol < V``.
        input_length: The number of valid steps of each sequence ``(B,)`` (int), or None
            for ``T`` each. Steps past it neither count nor get gradients.
        label_length: The number of valid labels of each row of ``t`` ``(B,)``, or None for
            ``M`` each.
        reduce (str): ``'mean'`` over the batch, or ``'no'`` for one loss per sequence.

    Returns:
        A Variable: a scalar, or ``(B,)`` with ``reduce='no'``.

    Raises:
        TypeError: If ``x`` is not a sequence or ``blank_symbol`` not an int.
        ValueError: For a bad ``blank_symbol``, lengths out of range or an invalid
            ``reduce``.
        InvalidType: For inputs of the wrong dtype or shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = [np.zeros((1, 2)), np.zeros((1, 2))]  # 2 steps, labels {0, blank=1}
        >>> loss = F.connectionist_temporal_classification(x, np.array([[0]]), 1)
        >>> round(float(loss.array), 4)  # alignments 0-, -0, 00: -log(3/4)
        0.2877
    """
    if not isinstance(x, collections.abc.Sequence) or isinstance(x, str) or len(x) == 0:
        raise TypeError('connectionist_temporal_classification: x must be a non-empty list '
                        'of (B, V) Variables, got %s' % type(x).__name__)
    if not isinstance(blank_symbol, (int, numpy.integer)) or isinstance(blank_symbol, bool):
        raise TypeError('connectionist_temporal_classification: blank_symbol must be a '
                        'non-negative int, got %r' % (blank_symbol,))
    if reduce not in ('mean', 'no'):
        raise ValueError("connectionist_temporal_classification: reduce must be 'mean' or "
                         "'no', got %r" % (reduce,))
    if x[0].ndim != 2:
        raise type_check.InvalidType(
            'x[0].ndim == 2', 'x[0].ndim = %d' % x[0].ndim,
            'connectionist_temporal_classification: each step of x must be (B, V), got '
            'shape %s' % (x[0].shape,))
    n_time = len(x)
    n_batch, n_vocab = x[0].shape
    if not 0 <= blank_symbol < n_vocab:
        raise ValueError('connectionist_temporal_classification: blank_symbol must be in '
                         '[0, %d), got %d' % (n_vocab, blank_symbol))
    xs = stack_mod.stack(list(x))
    xp = backend.get_array_module(xs.array)
    t = variable.as_array(t)
    if input_length is None:
        input_length = xp.full(n_batch, n_time, numpy.int32)
    if label_length is None:
        label_length = xp.full(len(t), t.shape[1] if t.ndim == 2 else 0, numpy.int32)
    input_length = variable.as_array(input_length)
    label_length = variable.as_array(label_length)
    _check(xs, t, input_length, label_length)
    n_label = t.shape[1]
    # A GPU's lengths and labels are read on the host only in debug mode (Chainer checks
    # none of them there).
    if xp is numpy or configuration.config.debug:
        _check_values(t, input_length, label_length, n_time, n_vocab)

    dtype = xs.dtype
    if dtype == numpy.float16:
        xs = cast_mod.cast(xs, numpy.float32)
    wtype = xs.dtype.type
    n_state = 2 * n_label + 1
    path = xp.full((n_batch, n_state), blank_symbol, numpy.int32)
    path[:, 1::2] = t
    batch_index = xp.arange(n_batch)[:, None]
    log_y = log_softmax_mod.log_softmax(xs, axis=2)
    # (T, B, S): the log-probability of each state's label, one Variable per step.
    lp = separate_mod.separate(log_y[:, batch_index, path], axis=0)

    state = xp.arange(n_state)
    zero = wtype(_LOG_ZERO)
    init_bias = xp.where(state < 2, wtype(0), zero)[None, :].repeat(n_batch, 0)
    skip = xp.zeros((n_batch, n_state), bool)
    skip[:, 2:] = path[:, 2:] != path[:, :-2]
    skip_bias = xp.where(skip, wtype(0), zero)
    pad = xp.full((n_batch, 2), zero)
    # Steps before the shortest input need no masking: one read of the lengths on the CPU;
    # a GPU masks every step rather than wait for that read (the same values).
    if not n_batch:
        n_full = n_time
    else:
        n_full = int(input_length.min()) if xp is numpy else 0

    alpha = lp[0] + init_bias
    for i in range(1, n_time):
        padded = concat_mod.concat([pad, alpha], axis=1)
        moved = stack_mod.stack([alpha, padded[:, 1:-1], padded[:, :-2] + skip_bias])
        new = logsumexp_mod.logsumexp(moved, axis=0) + lp[i]
        if i < n_full:
            alpha = new
        else:
            active = i < input_length
            cond = xp.broadcast_to(active[:, None], (n_batch, n_state))
            alpha = where_mod.where(cond, new, alpha)

    rows = xp.arange(n_batch)
    last = alpha[rows, 2 * label_length]
    before = alpha[rows, xp.maximum(2 * label_length - 1, 0)]
    before = before + xp.where(label_length > 0, wtype(0), zero)
    loss = -logsumexp_mod.logsumexp(stack_mod.stack([last, before], axis=1), axis=1)
    if reduce == 'mean':
        loss = sum_mod.sum(loss) / wtype(n_batch)
    if loss.dtype != dtype:
        loss = cast_mod.cast(loss, dtype)
    return loss
