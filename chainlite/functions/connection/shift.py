"""Shift: each channel group moved by one offset of a ``kh x kw`` grid (zero FLOPs)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _pair(value, name):
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError('shift: {} must be an int or a pair; got {!r}'.format(name, value))
        return int(value[0]), int(value[1])
    return int(value), int(value)


def _offsets(kh, kw):
    # The (ky, kx) displacement of every channel group, in the order of the groups: the
    # grid in C order, with the centre (no displacement) swapped to the last group, so the
    # channels left over after an even split stay in place.
    n = kh * kw
    order = list(range(n))
    centre = (n - 1) // 2
    order[centre], order[n - 1] = order[n - 1], order[centre]
    return [(g // kw - kh // 2, g % kw - kw // 2) for g in order]


class Shift(function_node.FunctionNode):

    def __init__(self, ksize: int | Sequence[int] = 3, dilate: int | Sequence[int] = 1) -> None:
        self.kh, self.kw = _pair(ksize, 'ksize')
        if self.kh < 1 or self.kh % 2 != 1 or self.kw < 1 or self.kw % 2 != 1:
            raise ValueError('shift: ksize must be positive odd sizes (kh, kw); got {!r}'.format(
                ksize))
        self.dy, self.dx = _pair(dilate, 'dilate')
        if self.dy == 0 or self.dx == 0:
            raise ValueError('shift: dilate must be nonzero; got {!r}'.format(dilate))

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 4,
                          x.shape[1] >= self.kh * self.kw)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        c, h, w = x.shape[1:]
        offsets = _offsets(self.kh, self.kw)
        size = c // len(offsets)
        y = xp.zeros_like(x)
        for i, (ky, kx) in enumerate(offsets):
            c0 = i * size
            c1 = c if i == len(offsets) - 1 else c0 + size
            sy, sx = ky * self.dy, kx * self.dx  # y[r, q] = x[r - sy, q - sx]
            if abs(sy) >= h or abs(sx) >= w:
                continue
            y[:, c0:c1, max(sy, 0):h + min(sy, 0), max(sx, 0):w + min(sx, 0)] = \
                x[:, c0:c1, max(-sy, 0):h + min(-sy, 0), max(-sx, 0):w + min(-sx, 0)]
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        # The transpose of a shift is the shift the other way.
        return Shift((self.kh, self.kw), (-self.dy, -self.dx)).apply(grad_outputs)


def shift(x: VariableOrArray, ksize: int | Sequence[int] = 3,
          dilate: int | Sequence[int] = 1) -> Variable:
    """Shift (Wu et al., 2017): moves each group of channels by one offset of a small grid.

    The channels are split into ``kh * kw`` equal groups (the last group takes the
    remainder). Group ``i`` is moved by the ``i``-th offset ``(ky * dy, kx * dx)`` with
    ``ky`` in ``-(kh // 2) .. kh // 2`` and ``kx`` likewise, in C order, except that the
    centre offset ``(0, 0)`` is given to the last group (and the last offset to the centre's
    group). Elements moved in from outside the image are zero. It needs no parameters and
    no multiplications: a zero-FLOP stand-in for a spatial convolution.

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)`` with ``c >= kh * kw``.
        ksize: The grid size: an odd int or a pair of odd ints ``(kh, kw)``.
        dilate: The step between offsets: an int or a pair ``(dy, dx)``.

    Returns:
        A Variable of the shape and dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.arange(12.0).reshape(1, 3, 2, 2)
        >>> F.shift(x, ksize=(1, 3)).array[0, 0]
        array([[1., 0.],
               [3., 0.]])
    """
    return Shift(ksize, dilate).apply((x,))[0]
