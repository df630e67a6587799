"""Pad an array, as numpy.pad, in the modes whose padding copies input elements."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import get_item

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray

# In these modes every output element is a copy of one input element (or a constant), so
# the gradient adds each padded element's gradient back onto the element it copies.
_MODES = ('constant', 'edge', 'reflect', 'symmetric', 'wrap')


def _pairs(pad_width, ndim):
    # numpy.pad's shorthands (n, (n,), (before, after), ((before, after),) ...) as one
    # (before, after) pair per axis.
    widths = numpy.asarray(pad_width)
    if widths.dtype.kind not in 'iu':
        raise TypeError('pad: pad_width must be of integral type, got %r' % (pad_width,))
    try:
        pairs = numpy.broadcast_to(widths, (ndim, 2)).tolist()
    except ValueError:
        raise ValueError('pad: pad_width %r does not fit an input of %d dimensions'
                         % (pad_width, ndim)) from None
    if any(w < 0 for pair in pairs for w in pair):
        raise ValueError('pad: pad_width must not be negative, got %r' % (pad_width,))
    return tuple(tuple(pair) for pair in pairs)


class Pad(function_node.FunctionNode):

    _float_inputs = True
    _arg_names = ('x',)

    def __init__(self, pad_width: int | Sequence[Any], mode: str,
                 keywords: dict[str, Any]) -> None:
        self.pad_width = pad_width
        self.mode = mode
        self.keywords = keywords

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        self._pairs = _pairs(self.pad_width, x.ndim)
        if not self._pairs:
            return x.copy(),  # 0-d: nothing to pad (numpy.pad takes no empty pad_width)
        return xp.pad(x, self._pairs, mode=self.mode, **self.keywords),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        shape = in_nodes[0].shape
        if not any(b or a for b, a in self._pairs):
            return gy,
        if self.mode == 'constant':
            return get_item.get_item(
                gy, tuple([slice(b, b + n) for (b, _), n in zip(self._pairs, shape)])),
        return _PadGrad(self._pairs, self.mode, shape).apply((gy,))


class _PadGrad(function_node.FunctionNode):
    # Folds the gradient of the padding back onto the elements it copies, one axis at a time
    # (the padding of these modes is a gather along each axis in turn); its own gradient is
    # padding again.

    def __init__(self, pairs, mode, shape):
        self.pairs = pairs
        self.mode = mode
        self.shape = shape

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        g, = inputs
        xp = backend.get_array_module(g)
        for axis, ((before, after), n) in enumerate(zip(self.pairs, self.shape)):
            if before == after == 0:
                continue
            # Which input element each position along this axis copies.
            source = xp.pad(xp.arange(n), (before, after), mode=self.mode)
            g = xp.moveaxis(g, axis, 0)
            gx = g[before:before + n].copy()
            # An element may be copied several times: the gradients must add up.
            xp.add.at(gx, source[:before], g[:before])
            xp.add.at(gx, source[before + n:], g[before + n:])
            g = xp.moveaxis(gx, 0, axis)
        return g,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx, = grad_outputs
        return Pad(self.pairs, self.mode, {}).apply((ggx,))


def pad(x: VariableOrArray, pad_width: int | Sequence[Any], mode: str, **keywords: Any) -> Variable:
    """Pads a Variable or array, as :func:`numpy.pad`.

    Args:
        x: A float Variable or array.
        pad_width: The number of elements added before and after each axis, in any of
            :func:`numpy.pad`'s forms: ``n``, ``(before, after)`` or one pair per axis.
        mode: ``'constant'`` (padding with ``constant_values``), ``'edge'``, ``'reflect'``,
            ``'symmetric'`` or ``'wrap'``, as in :func:`numpy.pad`.
        **keywords: Passed to :func:`numpy.pad`: ``constant_values`` (a scalar, a pair or
            one pair per axis, 0 by default) for ``'constant'``; ``reflect_type='even'`` for
            ``'reflect'`` and ``'symmetric'``.

    Returns:
        A Variable of the same dtype. The gradient of an input element sums the gradients
        of all the output elements that copy it; constants get none.

    Raises:
        ValueError: For another mode (those computing the padding from statistics or ramps,
            or ``reflect_type='odd'``), whose padding is not a copy of input elements.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.pad(np.array([1.0, 2.0]), 1, 'constant', constant_values=9).array
        array([9., 1., 2., 9.])
        >>> F.pad(np.array([1.0, 2.0]), (0, 3), 'wrap').array
        array([1., 2., 1., 2., 1.])
    """
    if mode not in _MODES:
        raise ValueError('pad: mode must be one of %s, got %r' % (', '.join(_MODES), mode))
    if keywords.get('reflect_type', 'even') != 'even':
        raise ValueError("pad: only reflect_type='even' is supported, got %r"
                         % (keywords['reflect_type'],))
    return Pad(pad_width, mode, keywords).apply((x,))[0]
