"""Resizing images by bilinear or nearest-neighbour interpolation."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _source_positions(in_size, out_size, mode, align_corners, xp):
    # Per output pixel along one axis: the two input pixels it reads (i0 <= i1, both
    # non-decreasing along the axis) and the weight of i1; nearest reads i0 alone.
    if mode == 'nearest':
        i0 = xp.floor(xp.arange(out_size) * (in_size / out_size))
        return xp.minimum(i0, in_size - 1).astype(numpy.intp), None, None
    if align_corners:
        pos = xp.linspace(0, in_size - 1, num=out_size)
    else:
        pos = xp.maximum((xp.arange(out_size) + 0.5) * (in_size / out_size) - 0.5, 0)
    i0 = xp.floor(pos)
    w1 = pos - i0
    i0 = i0.astype(numpy.intp)
    return i0, xp.minimum(i0 + 1, in_size - 1), w1


def _weights(w1, dtype, axis):
    shape = (-1,) + (1,) * (3 - axis)  # broadcast along `axis` of an (n, c, h, w) array
    return (1 - w1).astype(dtype).reshape(shape), w1.astype(dtype).reshape(shape)


def _interpolate(x, axis, table):
    i0, i1, w1 = table
    if i1 is None:
        return x.take(i0, axis)
    w0, w1 = _weights(w1, x.dtype, axis)
    return x.take(i0, axis) * w0 + x.take(i1, axis) * w1


def _scatter_add_sorted(out, axis, index, values):
    # out[..., index, ...] += values along `axis`, repeats summed: the index never decreases,
    # so each run of one index is a segment that add.reduceat sums (no numpy.add.at needed).
    xp = backend.get_array_module(out)
    starts = xp.flatnonzero(xp.concatenate([xp.ones(1, bool), index[1:] != index[:-1]]))
    where = (slice(None),) * axis + (index[starts],)
    out[where] += xp.add.reduceat(values, starts, axis=axis)


def _interpolate_transposed(g, axis, in_size, table):
    # The transpose of _interpolate: every input pixel gets the weighted gradients of the
    # output pixels that read it.
    i0, i1, w1 = table
    xp = backend.get_array_module(g)
    shape = list(g.shape)
    shape[axis] = in_size
    gx = xp.zeros(shape, g.dtype)
    if i1 is None:
        _scatter_add_sorted(gx, axis, i0, g)
    else:
        w0, w1 = _weights(w1, g.dtype, axis)
        _scatter_add_sorted(gx, axis, i0, g * w0)
        _scatter_add_sorted(gx, axis, i1, g * w1)
    return gx


class ResizeImages(function_node.FunctionNode):

    def __init__(self, output_shape: Sequence[int], mode: str,
                 align_corners: bool) -> None:
        self.out_H, self.out_W = output_shape
        self.mode = mode
        self.align_corners = align_corners

    @property
    def label(self) -> str:
        return 'ResizeImages'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 4)
        type_check.expect(x.shape[2] > 0, x.shape[3] > 0)

    def _tables(self, H, W, xp):
        return (_source_positions(H, self.out_H, self.mode, self.align_corners, xp),
                _source_positions(W, self.out_W, self.mode, self.align_corners, xp))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        rows, cols = self._tables(x.shape[2], x.shape[3], backend.get_array_module(x))
        # Separable: along the height, then along the width.
        return _interpolate(_interpolate(x, 2, rows), 3, cols),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        return _ResizeImagesGrad(self, in_nodes[0].shape[2:]).apply((gy,))


class _ResizeImagesGrad(function_node.FunctionNode):
    # The transposed interpolation; its own gradient is the resize again.

    def __init__(self, resize, in_hw):
        self.resize = resize
        self.H, self.W = in_hw

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        rows, cols = self.resize._tables(self.H, self.W, backend.get_array_module(gy))
        g = _interpolate_transposed(gy, 3, self.W, cols)
        return _interpolate_transposed(g, 2, self.H, rows),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx, = grad_outputs
        f = self.resize
        return ResizeImages((f.out_H, f.out_W), f.mode, f.align_corners).apply((ggx,))


def resize_images(x: VariableOrArray, output_shape: Sequence[int], mode: str = 'bilinear',
                  align_corners: bool = True) -> Variable:
    """Resizes images to ``output_shape`` by interpolation.

    Output pixel ``i`` of an axis of input length ``h`` and output length ``h_O`` reads the
    input at position ``i * (h - 1) / (h_O - 1)`` with ``align_corners`` (corners map onto
    corners), else at ``max((i + 0.5) * h / h_O - 0.5, 0)`` (as OpenCV does), interpolating
    linearly between the two neighbouring pixels (the last pixel repeats past the edge).
    ``'nearest'`` reads pixel ``min(floor(i * h / h_O), h - 1)`` and ignores ``align_corners``.

    Args:
        x: A float Variable or array of shape ``(n, c_I, h, w)``.
        output_shape: ``(h_O, w_O)``, positive ints (height first, unlike OpenCV).
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: For ``'bilinear'``: map the corner pixels of the input onto those of
            the output.

    Returns:
        A Variable of shape ``(n, c_I, h_O, w_O)`` and the dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[[[0.0, 2.0], [4.0, 6.0]]]])
        >>> F.resize_images(x, (3, 3)).array[0, 0]
        array([[0., 1., 2.],
               [2., 3., 4.],
               [4., 5., 6.]])
    """
    if mode not in ('bilinear', 'nearest'):
        raise ValueError("resize_images: mode must be 'bilinear' or 'nearest', got %r"
                         % (mode,))
    output_shape = tuple(output_shape)
    if len(output_shape) != 2 or not all(
            isinstance(s, (int, numpy.integer)) and not isinstance(s, bool) and s > 0
            for s in output_shape):
        raise ValueError('resize_images: output_shape must be two positive ints, got %r'
                         % (output_shape,))
    return ResizeImages(tuple(int(s) for s in output_shape), mode,
                        bool(align_corners)).apply((x,))[0]
