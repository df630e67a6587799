"""Hinge loss for one-of-many classification."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.backends import cuda
from chainlite.functions import _accumulate
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _hinge_fwd_kernel() -> Any:
    # Chainer's CUDA kernel that negates x at the labels; cuda.elementwise raises
    # RuntimeError here, as in Chainer without CuPy.
    return cuda.elementwise('S t', 'raw T bottom_diff',
                            'int ind[] = {i, t}; bottom_diff[ind] *= -1', 'hinge_fwd')


class Hinge(function_node.FunctionNode):

    def __init__(self, norm: str = 'L1', reduce: str = 'mean') -> None:
        self.norm = norm
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't'))
        x, t = in_types
        type_check.expect(x.dtype.kind == 'f', t.dtype.kind == 'i', x.ndim == 2, t.ndim == 1,
                          x.shape[0] == t.shape[0])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        x, t = inputs
        n, k = x.shape
        if t.size and not (t.min() >= 0 and t.max() < k):
            raise ValueError('hinge: each label t must satisfy 0 <= t < x.shape[1] = %d' % k)
        xp = backend.get_array_module(x)
        # sign is -1 at the labels, +1 elsewhere: the margin of an element is 1 + sign * x.
        sign = xp.ones_like(x)
        sign[xp.arange(n), t] = -1
        margin = x * sign
        margin += 1
        active = margin > 0
        self.active = active.astype(x.dtype)
        self.mask = sign * active
        loss = xp.maximum(margin, 0, out=margin)
        if self.norm == 'L2':
            loss *= loss
        if self.reduce == 'mean':
            return xp.asarray(_accumulate.wide_sum(loss) / max(n, 1), x.dtype),
        return loss,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        mask, scale = self.mask, 1.0
        if self.reduce == 'mean':
            scale = 1.0 / max(len(mask), 1)
        if self.norm == 'L1':
            return gy * (mask * scale), None
        # d/dx (1 + sign x)^2 = 2 (sign + x) where the margin is active (sign^2 = 1).
        return gy * ((x * self.active + mask) * (2.0 * scale)), None


def hinge(x: VariableOrArray, t: VariableOrArray, norm: str = 'L1',
          reduce: str = 'mean') -> Variable:
    """Hinge loss for one-of-many classification.

    The loss of element ``(n, k)`` is ``max(0, 1 - x[n, k])`` for the true class
    ``k == t[n]`` and ``max(0, 1 + x[n, k])`` for the others, raised to the power 1
    (``'L1'``) or 2 (``'L2'``).

    Args:
        x: A float Variable or array of scores, ``(N, K)``.
        t: An integer Variable or array of labels, ``(N,)``, with ``0 <= t < K``.
        norm: ``'L1'`` or ``'L2'``.
        reduce: ``'mean'`` for the sum of the losses divided by ``N``, ``'no'`` for the
            elementwise losses.

    Returns:
        A Variable of the dtype of ``x``: a scalar, or ``(N, K)`` with ``reduce='no'``.

    Raises:
        ValueError: For a ``norm`` other than ``'L1'`` and ``'L2'``; the error is also a
            ``NotImplementedError``, the type Chainer raises there.
        ValueError: For an invalid ``reduce`` or a label out of range.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.hinge(np.array([[0.5, -2.0]]), np.array([0]), reduce='no').array
        array([[0.5, 0. ]])
    """
    if norm not in ('L1', 'L2'):
        raise type_check._also(
            ValueError("hinge: norm must be 'L1' or 'L2', got %r" % (norm,)),
            NotImplementedError)
    if reduce not in ('mean', 'no'):
        raise ValueError("hinge: reduce must be 'mean' or 'no', got %r" % (reduce,))
    return Hinge(norm, reduce).apply((x, t))[0]
