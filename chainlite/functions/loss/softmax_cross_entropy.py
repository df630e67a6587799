"""Softmax followed by cross entropy, fused: log-sum-exp once, no one-hot matrix."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite import variable
from chainlite.functions.array import broadcast
from chainlite.functions.array import reshape
from chainlite.functions.math import exp
from chainlite.functions.math import logsumexp
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import NdArray, VariableOrArray

_EPS = 1e-7  # keeps log(t) finite in the KL divergence where a soft target is 0


def _compute_dtype(dtype):
    # float16 sums and logs lose too much: compute in float32 and cast the results back.
    return numpy.float32 if dtype == numpy.float16 else dtype


def _row_shape(x_shape):
    # The class axis (1) kept with length 1: the shape of one value per softmax.
    return (x_shape[0], 1) + tuple(x_shape[2:])


_constants: dict[tuple, Any] = {}


def _constant(kind: str, n: int, dtype: Any) -> Any:
    # Read-only arange(n) / ones((n, 1)), cached: the loss of every step needs the same ones.
    key = (kind, n, dtype)
    a = _constants.get(key)
    if a is None:
        if len(_constants) >= 256:
            _constants.clear()
        a = numpy.arange(n) if kind == 'arange' else numpy.ones((n, 1), dtype)
        a.flags.writeable = False
        _constants[key] = a
    return a


def _label_positions(t, n_class):
    # t[n] + n * n_class: where each label's score sits in a C-ordered (N, n_class) array
    # flattened (one integer index gathers and scatters faster than a pair of them).
    n = len(t)
    key = ('starts', n, n_class)
    starts = _constants.get(key)
    if starts is None:
        if len(_constants) >= 256:
            _constants.clear()
        starts = numpy.arange(0, n * n_class, n_class)
        starts.flags.writeable = False
        _constants[key] = starts
    return t + starts


def _take_labels(a, t):
    # a[n, t[n, ...], ...] with the shape of t.
    xp = backend.get_array_module(a)
    if a.ndim == 2:
        if xp is numpy:
            return a[_constant('arange', len(t), None), t]
        return a[xp.arange(len(t)), t]
    return xp.take_along_axis(a, xp.expand_dims(t, 1), axis=1).reshape(t.shape)


def _sub_at_labels(a, t, v):
    # a[n, t[n, ...], ...] -= v in place; one element per softmax, so no index repeats.
    xp = backend.get_array_module(a)
    if a.ndim == 2:
        a[_constant('arange', len(t), None) if xp is numpy else xp.arange(len(t)), t] -= v
        return
    idx = xp.expand_dims(t, 1)
    xp.put_along_axis(a, idx, xp.take_along_axis(a, idx, axis=1) - v.reshape(idx.shape),
                      axis=1)


_FIRST = (0,)
_UNSIGNED = {n: numpy.dtype('u%d' % n) for n in (1, 2, 4, 8)}


def _amax(a, axis, keepdims=False):
    # a.max: NumPy's without its Python wrapper; CuPy's maximum has no reduce.
    if a.__class__ is numpy.ndarray:
        return numpy.maximum.reduce(a, axis=axis, keepdims=keepdims)
    return a.max(axis=axis, keepdims=keepdims)


def _sum_all(a):
    # a.sum(): NumPy's add.reduce without the Python wrapper of sum.
    if a.__class__ is numpy.ndarray:
        return numpy.add.reduce(a, axis=None)
    return a.sum()


def _labels_in_range(t, n_class, ignore_label):
    # True when every label is a class (0 <= t < n_class) and ignore_label cannot be one.
    if 0 <= ignore_label < n_class:
        return False
    if t.dtype.kind == 'i':
        # Negative labels are huge as unsigned integers: one reduction checks both ends.
        t = t.view(_UNSIGNED[t.itemsize])
    return bool(_amax(t, None) < n_class)


def _exp_and_sum(x):
    # e = exp(x - max), s = sum(e) over the classes: the softmax is e / s.
    m = _amax(x, 1, keepdims=True)
    e = x - m
    numpy.exp(e, out=e)
    if e.ndim == 2 and e.shape[1]:
        # A matrix-vector product sums rows several times faster than a reduction does.
        xp = backend.get_array_module(e)
        ones = _constant('ones', e.shape[1], e.dtype) if xp is numpy else \
            xp.ones((e.shape[1], 1), e.dtype)
        return m, e, (e @ ones)
    return m, e, e.sum(axis=1, keepdims=True)


def _broadcast_to(array: Any, shape: tuple[int, ...]) -> Any:
    # A read-only broadcast view (Chainer's helper from before numpy.broadcast_to existed).
    return backend.get_array_module(array).broadcast_to(array, shape)


def _check_class_weight_option(class_weight: Any) -> None:
    # Chainer's checks of class_weight: None, or a 1-d float array (not a Variable).
    if class_weight is None:
        return
    if class_weight.ndim != 1:
        raise ValueError('softmax_cross_entropy: class_weight.ndim should be 1, got %d'
                         % class_weight.ndim)
    if class_weight.dtype.kind != 'f':
        raise ValueError("softmax_cross_entropy: the dtype of class_weight should be 'f', "
                         'got %s' % class_weight.dtype)
    if isinstance(class_weight, variable.Variable):
        raise ValueError('softmax_cross_entropy: class_weight should be an array, not a '
                         'Variable')


def _check_reduce_option(reduce: str) -> None:
    if reduce not in ('mean', 'no'):
        raise ValueError("softmax_cross_entropy: only 'mean' and 'no' are valid for "
                         "'reduce', but %r is given" % (reduce,))


def _check_input_values(x: Any, t: Any, ignore_label: int) -> None:
    # Every label a class of x (0 <= t < x.shape[1]) or ignore_label, as in Chainer's debug mode.
    if isinstance(x, variable.Variable):
        x = x.array
    if not (((0 <= t) & (t < x.shape[1])) | (t == ignore_label)).all():
        raise ValueError('softmax_cross_entropy: each label t needs to satisfy '
                         '0 <= t < x.shape[1] or t == %d' % ignore_label)


def _reduction_dtype(x_dtype: Any) -> Any:
    # The dtype the mean loss is summed in: float32 for float16 (no overflow), else x's.
    return numpy.float32 if x_dtype == numpy.float16 else x_dtype


class SoftmaxCrossEntropy(function_node.FunctionNode):

    def __init__(self, normalize: bool = True, cache_score: bool = True,
                 class_weight: NdArray | None = None, ignore_label: int = -1,
                 reduce: str = 'mean', soft_target_loss: str = 'cross-entropy') -> None:
        self.normalize = normalize
        self.cache_score = cache_score
        self.class_weight = class_weight
        self.ignore_label = ignore_label
        self.reduce = reduce
        self.soft_target_loss = soft_target_loss

    @property
    def y(self) -> numpy.ndarray | None:
        """The softmax that forward kept for backward (``cache_score=True``), else None."""
        cache = getattr(self, '_cache', None)
        if cache is None:
            return None
        e, s = cache
        return e / s

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't'))
        x, t = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim >= 2)
        kind = type_check.eval(t.dtype.kind)
        if kind == 'f' and type_check.eval(t.ndim) == type_check.eval(x.ndim):
            # Soft targets: one probability distribution per softmax.
            type_check.expect(x.shape == t.shape)
        elif kind in 'iu':
            type_check.expect(t.ndim == x.ndim - 1, x.shape[0] == t.shape[0],
                              x.shape[2:] == t.shape[1:])
        else:
            # Float labels are not class indices (and a shape unlike x's is no soft target).
            type_check.expect(t.dtype.kind == 'i')

    def _check_data_type_forward(self, in_data: tuple) -> None:
        # Integer labels for a batch of score rows, the usual case, are accepted with a few
        # comparisons; anything else gets check_type_forward and its message.
        x, t = in_data
        if x.ndim == 2 and t.ndim == 1 and x.dtype.kind == 'f' and t.dtype.kind in 'iu' and \
                x.shape[0] == t.shape[0]:
            return
        super()._check_data_type_forward(in_data)

    # True when forward took the common case's path, which _backward_arrays mirrors.
    _lean = False

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, t = inputs
        if t.dtype.kind == 'f':
            return self._forward_soft(x, t)
        if x.ndim == 2 and x.dtype.char in 'fd' and x.__class__ is numpy.ndarray and \
                x.flags.c_contiguous and self.class_weight is None and \
                self.reduce == 'mean' and self.cache_score and len(t) and \
                _labels_in_range(t, x.shape[1], self.ignore_label):
            return self._forward_lean(x, t)
        if x.dtype.char == 'e':
            cdtype = _compute_dtype(x.dtype)
            xc = x.astype(cdtype)
        else:
            cdtype, xc = x.dtype, x
        n_class = x.shape[1]
        xp = self._xp = backend.get_array_module(x)

        # S: the weight of each softmax's loss (ignored ones 0), None when all are 1.
        S = None
        count: Any = t.size
        if xp is not numpy and not configuration.config.debug:
            # On a GPU no label is read on the host, as in Chainer outside debug mode: every
            # label is masked and counted on the device (labels out of range go unchecked).
            valid = t != self.ignore_label
            count = valid.sum()
            t = xp.where(valid, t, 0)
            S = valid.astype(cdtype)
        # All in range and ignore_label out of it (the usual -1): nothing is ignored.
        elif t.size and not _labels_in_range(t, n_class, self.ignore_label):
            valid = t != self.ignore_label
            tv = t[valid]
            if tv.size and not (tv.min() >= 0 and tv.max() < n_class):
                raise ValueError(
                    'softmax_cross_entropy: each label t must satisfy 0 <= t < '
                    'x.shape[1] = %d or t == ignore_label = %d; got labels from %d to %d'
                    % (n_class, self.ignore_label, tv.min(), tv.max()))
            count = tv.size
            t = xp.where(valid, t, 0)
            S = valid.astype(cdtype)
        if self.class_weight is not None:
            w = self._class_weight(n_class, cdtype)[t]
            S = w if S is None else S * w
        self._labels = t
        self._S = S

        m, e, s = _exp_and_sum(xc)
        if self.cache_score:
            self._cache = e, s
        nll = (m + numpy.log(s)).reshape(t.shape)
        nll -= _take_labels(xc, t)
        if S is not None:
            nll *= S
        if self.reduce == 'mean':
            denominator = count if self.normalize else len(x)
            if isinstance(denominator, int):
                self._coeff: Any = 1.0 / max(denominator, 1)
            else:  # the GPU's count, kept there (in the dtype that a Python float takes)
                self._coeff = (1.0 / xp.maximum(denominator, 1)).astype(cdtype)
            # (add.reduce: nll.sum() without its Python wrapper)
            return xp.asarray(_sum_all(nll) * self._coeff, x.dtype),
        self._coeff = None
        return nll.astype(x.dtype, copy=False),

    def _forward_lean(self, x, t):
        # The general path's steps for a C-ordered batch of float32/64 score rows with every
        # label a class, the mean loss and the softmax kept, minus its dispatch (the same
        # values; the labels' scores gathered and scattered through flat positions).
        m = numpy.maximum.reduce(x, axis=1, keepdims=True)
        e = x - m
        numpy.exp(e, out=e)
        s = e @ _constant('ones', x.shape[1], x.dtype)
        self._cache = e, s
        self._labels = t
        self._S = None
        self._lean = True
        nll = (m + numpy.log(s)).reshape(t.shape)
        self._positions = positions = _label_positions(t, x.shape[1])
        nll -= x.reshape(-1)[positions]
        self._coeff = coeff = 1.0 / len(t)
        return numpy.asarray(numpy.add.reduce(nll, axis=None) * coeff, x.dtype),

    def _forward_soft(self, x, t):
        cdtype = _compute_dtype(x.dtype)
        xc = x.astype(cdtype, copy=False)
        t = t.astype(cdtype, copy=False)
        m, e, s = _exp_and_sum(xc)
        if self.cache_score:
            self._cache = e, s
        log_y = xc - m
        log_y -= numpy.log(s)
        if self.soft_target_loss == 'kl-divergence':
            loss = (t * (numpy.log(t + _EPS) - log_y)).sum(axis=1)
        else:
            loss = -(t * log_y).sum(axis=1)
        self._labels = t
        self._S = t.sum(axis=1, keepdims=True)  # the softmax's gradient scales with it
        if self.reduce == 'mean':
            self._coeff = 1.0 / max(x.size // max(x.shape[1], 1), 1)
            xp = backend.get_array_module(x)
            return xp.asarray(loss.sum() * self._coeff, x.dtype),
        self._coeff = None
        return loss.astype(x.dtype, copy=False),

    def _class_weight(self, n_class, dtype):
        w = self.class_weight
        assert w is not None
        if w.shape != (n_class,):
            raise ValueError('softmax_cross_entropy: class_weight must have the shape '
                             '(x.shape[1],) = (%d,), got %s' % (n_class, w.shape))
        # A host class_weight is sent to x's device (as Chainer's xp.asarray does).
        return self._xp.asarray(w).astype(dtype, copy=False)

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return self._grad_node().apply((x, gy))[0], None

    def _backward_arrays(self, indexes, grad_outputs, inputs, outputs):
        gy = grad_outputs[0]
        if self._lean and indexes == _FIRST and gy.dtype is inputs[0].dtype:
            # _SoftmaxCrossEntropyGrad.forward's steps for the lean forward's case.
            e, s = self._cache
            sc = gy * self._coeff
            gx = e * (sc / s)
            gx.reshape(-1)[self._positions] -= sc  # (a view: gx is a new C-ordered array)
            return gx,
        gx, = self._grad_node().forward((inputs[0], gy))
        return tuple([gx if i == 0 else None for i in indexes])

    def _grad_node(self) -> _SoftmaxCrossEntropyGrad:
        return _SoftmaxCrossEntropyGrad(self._labels, self._S, self._coeff,
                                        getattr(self, '_cache', None))


class _SoftmaxCrossEntropyGrad(function_node.FunctionNode):
    # gx = coeff * gy * (S * softmax(x) - Q): Q is the one-hot labels times S, or the soft
    # targets (whose sum is S). Differentiable in x and gy through the softmax's Jacobian.

    def __init__(self, labels, S, coeff, cache):
        self.labels = labels
        self.S = S
        self.coeff = coeff
        self.cache = cache

    def _scale(self, gy, x_shape, dtype):
        # coeff * gy, one value per softmax (or a scalar).
        gy = gy.astype(dtype, copy=False)
        if self.coeff is not None:
            return gy * self.coeff
        return gy.reshape(_row_shape(x_shape))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        cdtype = _compute_dtype(x.dtype) if x.dtype.char == 'e' else x.dtype
        if self.cache is not None:
            e, s = self.cache
        else:
            _, e, s = _exp_and_sum(x.astype(cdtype, copy=False))
        g = self._scale(gy, x.shape, cdtype)
        S = self.S
        sc = g if S is None else g * (S if S.ndim == x.ndim else S.reshape(_row_shape(x.shape)))
        gx = e * (sc / s)
        t = self.labels
        if t.dtype.kind == 'f':
            gx -= t * g
        else:
            if sc.ndim:
                sc = numpy.broadcast_to(sc, _row_shape(x.shape)).reshape(t.shape)
            _sub_at_labels(gx, t, sc)
        return (gx if gx.dtype is x.dtype else gx.astype(x.dtype)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        xp = backend.get_array_module(x.array)
        shape, dtype = x.shape, x.dtype
        rows = _row_shape(shape)
        S = xp.ones(rows, dtype) if self.S is None else self.S.astype(dtype, copy=False)
        if S.ndim != len(shape):
            S = S.reshape(rows)
        t = self.labels
        if t.dtype.kind == 'f':
            Q = t.astype(dtype, copy=False)
        else:
            Q = xp.zeros(shape, dtype)
            xp.put_along_axis(Q, xp.expand_dims(t, 1), S, axis=1)
        lse = reshape.reshape(logsumexp.logsumexp(x, axis=1), rows)
        p = exp.exp(x - broadcast.broadcast_to(lse, shape))
        g = gy * self.coeff if self.coeff is not None else reshape.reshape(gy, rows)
        ret: list[Any] = [None, None]
        if 0 in indexes:
            u = ggx * broadcast.broadcast_to(g * S, shape)
            pu = sum_mod.sum(p * u, axis=1, keepdims=True)
            ret[0] = p * (u - broadcast.broadcast_to(pu, shape))
        if 1 in indexes:
            h = ggx * (p * broadcast.broadcast_to(S, shape) - Q)
            if self.coeff is not None:
                ret[1] = sum_mod.sum(h) * self.coeff
            else:
                ret[1] = sum_mod.sum(h, axis=1)
        return tuple(ret)


class _SoftmaxCrossEntropyGrad_NoDoubleBackprop(function_node.FunctionNode):
    # Chainer's first-order gradient node, applied to (x, t, gloss): gx = (softmax(x) -
    # onehot(t)) * class_weight[t] * valid, times gloss * coeff (mean) or gloss per label.
    # As in Chainer, differentiating it again raises RuntimeError.

    def __init__(self, ignore_label, class_weight, y, coeff, soft_target):
        self.ignore_label = ignore_label
        self.class_weight = class_weight
        self.y = y
        self.coeff = coeff
        self.soft_target = soft_target

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, t, gloss = inputs
        xp = backend.get_array_module(x)
        if x.size == 0:
            return xp.zeros(x.shape, x.dtype),
        if self.y is not None:
            gx = xp.array(self.y, x.dtype)
        else:
            _, e, s = _exp_and_sum(x)
            gx = e / s
        if self.soft_target:
            gx -= t
        else:
            valid = t != self.ignore_label
            labels = xp.expand_dims(t * valid, 1)
            xp.put_along_axis(gx, labels, xp.take_along_axis(gx, labels, axis=1) - 1, axis=1)
            if self.class_weight is not None:
                gx *= xp.asarray(self.class_weight)[labels]
            gx *= numpy.expand_dims(valid, 1)
        if self.coeff is not None:
            gx *= gloss * self.coeff
        else:
            gx *= numpy.expand_dims(gloss, 1)
        return gx.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        raise RuntimeError(
            "F.softmax_cross_entropy was called with 'enable_double_backprop=False' argument, "
            'but double-backprop is actually being performed. Please specify '
            "'enable_double_backprop=True' explicitly.")


def _double_backward_softmax_cross_entropy(x, t, normalize, class_weight, ignore_label,
                                           reduce, is_chainerx):
    # Chainer's loss built from differentiable functions (enable_double_backprop=True):
    # chainlite's softmax_cross_entropy is differentiable twice already. is_chainerx only
    # chose a cast in Chainer; there is no ChainerX here.
    if isinstance(t, variable.Variable):
        t = t.array
    _check_class_weight_option(class_weight)
    _check_reduce_option(reduce)
    return softmax_cross_entropy(x, t, normalize=normalize, class_weight=class_weight,
                                 ignore_label=ignore_label, reduce=reduce,
                                 enable_double_backprop=True)


def softmax_cross_entropy(x: VariableOrArray, t: VariableOrArray, normalize: bool = True,
                          cache_score: bool = True, class_weight: NdArray | None = None,
                          ignore_label: int = -1, reduce: str = 'mean',
                          enable_double_backprop: bool = False,
                          soft_target_loss: str = 'cross-entropy') -> Variable:
    """Cross entropy of the softmax of ``x`` (over axis 1) against labels ``t``.

    The loss of one softmax is ``-log(softmax(x)[n, t[n]])``, computed from a single
    log-sum-exp. For ``x`` of shape ``(N, C, d1, ...)``, ``t`` has the shape
    ``(N, d1, ...)`` and there is one softmax per position. The result is always
    differentiable twice (``enable_double_backprop`` is accepted for compatibility).

    Args:
        x: A float Variable or array of unnormalized log probabilities, ``(N, C, ...)``.
        t: Integer labels of shape ``(N, ...)`` with ``0 <= t < C`` or
            ``t == ignore_label``; or, with a float dtype and the shape of ``x``, soft
            targets (a probability distribution over axis 1). ``t`` gets no gradient.
        normalize: With ``reduce='mean'``, divide the summed loss by the number of labels
            that are not ignored if True, else by ``N``.
        cache_score: Keep the softmax from forward for backward (faster, more memory).
        class_weight: A float array of shape ``(C,)``: the loss of a label ``c`` is
            multiplied by ``class_weight[c]`` (integer labels only).
        ignore_label: The label value whose losses are 0 and which is not counted.
        reduce: ``'mean'`` for a scalar loss, ``'no'`` for one loss per label (0 where
            ignored), of the shape of ``t`` (of ``(N, d1, ...)`` for soft targets).
        enable_double_backprop: Accepted for Chainer compatibility; if True, the softmax is
            not cached.
        soft_target_loss: ``'cross-entropy'`` (``-sum(t * log softmax(x))``) or
            ``'kl-divergence'`` (``sum(t * (log t - log softmax(x)))``) for soft targets.

    Returns:
        A Variable of the dtype of ``x``: a scalar, or an array with ``reduce='no'``.

    Raises:
        ValueError: For an invalid ``reduce`` or ``soft_target_loss``, a label out of range,
            or a ``class_weight`` of the wrong shape.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[0.0, 0.0], [2.0, 0.0]])
        >>> t = np.array([1, -1], np.int32)
        >>> F.softmax_cross_entropy(x, t).array
        array(0.69314718)
    """
    if reduce not in ('mean', 'no'):
        raise ValueError("softmax_cross_entropy: reduce must be 'mean' or 'no', got %r"
                         % (reduce,))
    if soft_target_loss not in ('cross-entropy', 'kl-divergence'):
        raise ValueError("softmax_cross_entropy: soft_target_loss must be 'cross-entropy' or "
                         "'kl-divergence', got %r" % (soft_target_loss,))
    if class_weight is not None:
        if not hasattr(class_weight, 'ndim') or hasattr(class_weight, 'creator'):
            raise ValueError('softmax_cross_entropy: class_weight must be an array, not %s'
                             % type(class_weight).__name__)
        if class_weight.ndim != 1 or class_weight.dtype.kind != 'f':
            raise ValueError('softmax_cross_entropy: class_weight must be a 1-d float array')
    if t.__class__ is numpy.ndarray:
        # A bare array input costs FunctionNode.apply an exception and its slow road.
        t = variable._new_variable(t, None, False)
    func = SoftmaxCrossEntropy(normalize, cache_score and not enable_double_backprop,
                               class_weight, ignore_label, reduce, soft_target_loss)
    return func.apply((x, t))[0]
