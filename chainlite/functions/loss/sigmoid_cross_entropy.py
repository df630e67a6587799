"""Sigmoid followed by binary cross entropy, computed stably from the logits."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import configuration
from chainlite import function_node
from chainlite.functions import _accumulate
from chainlite.functions import _vjp
from chainlite.functions.activation import tanh
from chainlite.functions.array import broadcast
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class SigmoidCrossEntropy(function_node.FunctionNode):

    def __init__(self, normalize: bool = True, reduce: str = 'mean') -> None:
        self.normalize = normalize
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't'))
        x, t = in_types
        type_check.expect(x.dtype.kind == 'f', t.dtype.kind == 'i', x.shape == t.shape)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        # A GPU's labels are read on the host only in debug mode (as Chainer checks them).
        if (xp is numpy or configuration.config.debug) and t.size and \
                not ((t >= -1) & (t <= 1)).all():
            raise ValueError('sigmoid_cross_entropy: each label t must be 0, 1 or -1 (ignored)')
        valid = t != -1
        # log(1 + exp(x)) - x * t, without overflow for large |x|.
        loss = numpy.log1p(numpy.exp(-numpy.abs(x))) - x * (t - (x >= 0))
        loss *= valid
        if self.reduce == 'no':
            self.coeff = None
            return loss.astype(x.dtype, copy=False),
        if self.normalize and xp is not numpy:
            # The GPU's count stays there, in the dtype the loss is summed in.
            self.coeff = (1.0 / xp.maximum(valid.sum(), 1)).astype(
                numpy.float32 if x.dtype == numpy.float16 else x.dtype)
        else:
            count = valid.sum() if self.normalize else len(x)
            self.coeff = 1.0 / max(int(count), 1)
        return xp.asarray(_accumulate.wide_sum(loss) * self.coeff, x.dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, t = self.get_retained_inputs()
        gy, = grad_outputs
        t = t.array
        dtype = x.dtype
        valid = (t != -1).astype(dtype)
        target = (t * (t != -1)).astype(dtype)
        if self.coeff is not None:
            valid *= dtype.type(self.coeff) if self.coeff.__class__ is float else self.coeff
        # sigmoid(x) = (1 + tanh(x / 2)) / 2, differentiable to any order.
        sig = tanh.tanh(x * 0.5) * 0.5 + 0.5
        return gy * ((sig - target) * valid), None


class SigmoidCrossEntropyGrad(function_node.FunctionNode):
    """Sigmoid cross entropy's gradient as Chainer's node, applied to ``(x, gy)``.

    ``gx = gy * ignore_mask * (sigmoid(x) - t)``, divided by ``count`` when ``reduce`` is
    ``'mean'``.

    Args:
        reduce: ``'mean'`` (``gy`` is a scalar) or ``'no'`` (``gy`` has ``x``'s shape).
        count: The divisor of the mean.
        ignore_mask: A boolean array, False where the label is ignored.
        t: The integer labels.
    """

    def __init__(self, reduce: str, count: Any, ignore_mask: numpy.ndarray,
                 t: numpy.ndarray) -> None:
        self.reduce = reduce
        self.count = count
        self.ignore_mask = ignore_mask
        self.t = t

    def _gx(self, x, gy, sig):
        # The gradient formula, on arrays or on Variables.
        gx = gy * ((sig - self.t.astype(x.dtype)) * self.ignore_mask.astype(x.dtype))
        if self.reduce == 'mean':
            gx = gx * x.dtype.type(1.0 / self.count)
        return gx

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        sig = numpy.tanh(x * x.dtype.type(0.5)) * x.dtype.type(0.5) + x.dtype.type(0.5)
        xp = backend.get_array_module(x)
        return xp.asarray(self._gx(x, gy, sig)).astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        def formula(x, gy):
            if gy.shape != x.shape:
                gy = broadcast.broadcast_to(gy, x.shape)
            return self._gx(x, gy, tanh.tanh(x * 0.5) * 0.5 + 0.5),
        return _vjp.vjp(formula, self.get_retained_inputs(), grad_outputs, indexes)


def sigmoid_cross_entropy(x: VariableOrArray, t: VariableOrArray, normalize: bool = True,
                          reduce: str = 'mean') -> Variable:
    """Cross entropy of ``sigmoid(x)`` against binary labels ``t``.

    The loss of one element is ``-(t log sigmoid(x) + (1 - t) log(1 - sigmoid(x)))``,
    computed from ``x`` without overflow.

    Args:
        x: A float Variable or array of logits.
        t: An integer Variable or array of the shape of ``x`` with labels 0 or 1; elements
            with ``-1`` are ignored. It gets no gradient.
        normalize: With ``reduce='mean'``, divide the summed loss by the number of labels
            that are not ignored if True, else by ``len(x)``.
        reduce: ``'mean'`` for a scalar, ``'no'`` for the loss of each element (0 where
            ignored).

    Returns:
        A Variable of the dtype of ``x``.

    Raises:
        ValueError: For an invalid ``reduce`` or a label other than -1, 0 and 1.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[0.0, 2.0]])
        >>> F.sigmoid_cross_entropy(x, np.array([[1, -1]]), reduce='no').array
        array([[0.69314718, 0.        ]])
    """
    if reduce not in ('mean', 'no'):
        raise ValueError("sigmoid_cross_entropy: reduce must be 'mean' or 'no', got %r"
                         % (reduce,))
    return SigmoidCrossEntropy(normalize, reduce).apply((x, t))[0]
