"""Resizing images by bilinear or nearest-neighbour interpolation."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.backends import cuda
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


# Chainer's array functions behind its resize nodes, kept under their names for code that
# calls them. v and u are the (out_H, out_W) row and column indices of the upper-left input
# pixel each output pixel reads; vw and uw the weights of the pixel below and to the right.

def _infer_lines(B: int, C: int, H: int, W: int, out_H: int, out_W: int, kH: int,
                 kW: int) -> int:
    # How many output rows Chainer's CPU kernel computes at once: a power of two whose
    # working set stays near 2 ** 17 elements, or all of them if they fit.
    target_lines = 2 ** 17 // (B * C * (H * W // out_H + kH * kW * out_W))
    if target_lines >= out_H:
        return out_H
    lines = 1
    while lines * 2 <= target_lines:
        lines *= 2
    return lines


def compute_indices_and_weights(out_size: Sequence[int], in_size: Sequence[int], mode: str,
                                align_corners: bool, xp: Any) -> tuple[Any, Any, Any, Any]:
    """The input pixels and weights of a resize (Chainer's helper), per axis.

    Args:
        out_size: ``(out_H, out_W)``.
        in_size: ``(H, W)``.
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: As in :func:`resize_images`.
        xp: The array module.

    Returns:
        ``(v, u, vw, uw)``: float arrays of length ``out_H`` (v, vw) and ``out_W`` (u, uw):
        the index of the first input row (column) each output row (column) reads, and the
        weight of the next one (0 for ``'nearest'``).

    Example:
        >>> import numpy as np
        >>> from chainlite.functions.array.resize_images import compute_indices_and_weights
        >>> v, u, vw, uw = compute_indices_and_weights((3, 2), (2, 2), 'bilinear', True, np)
        >>> v, vw
        (array([0., 0., 1.]), array([0. , 0.5, 0. ]))
    """
    if mode not in ('bilinear', 'nearest'):
        raise ValueError("compute_indices_and_weights: mode must be 'bilinear' or 'nearest', "
                         'got %r' % (mode,))
    axes = []
    for n_out, n_in in zip(out_size, in_size):
        i0, _, w1 = _source_positions(n_in, n_out, mode, align_corners, xp)
        axes.append((i0.astype(float), xp.zeros(n_out) if w1 is None else w1))
    (v, vw), (u, uw) = axes
    return v, u, vw, uw


def _corners(v, u, vw, uw, H, W):
    # The four pixels an output pixel reads and their weights.
    v1, u1 = numpy.minimum(v + 1, H - 1), numpy.minimum(u + 1, W - 1)  # (dispatches)
    return ((v, u, (1 - vw) * (1 - uw)), (v, u1, (1 - vw) * uw),
            (v1, u, vw * (1 - uw)), (v1, u1, vw * uw))


def interpolate_bilinear_cpu(x: numpy.ndarray, v: numpy.ndarray, u: numpy.ndarray,
                             vw: numpy.ndarray, uw: numpy.ndarray) -> numpy.ndarray:
    """Bilinear interpolation of images at given pixels (Chainer's CPU kernel; it runs on
    GPU arrays too).

    Args:
        x: Images ``(B, C, H, W)``, NumPy or GPU arrays (``v``, ``u``, ``vw``, ``uw`` on the
            same device).
        v: The upper input row of each output pixel, ints of shape ``(out_H, out_W)``.
        u: The left input column, likewise.
        vw: The weight of the lower row, of ``x``'s dtype, likewise.
        uw: The weight of the right column, likewise.

    Returns:
        The images ``(B, C, out_H, out_W)``.
    """
    H, W = x.shape[2:]
    y = backend.get_array_module(x).zeros(x.shape[:2] + v.shape, x.dtype)
    for vv, uu, w in _corners(v, u, vw, uw, H, W):
        y += x[:, :, vv, uu] * w
    return y


def interpolate_grad_bilinear_cpu(gy: numpy.ndarray, v: numpy.ndarray, u: numpy.ndarray,
                                  vw: numpy.ndarray, uw: numpy.ndarray, H: int,
                                  W: int) -> numpy.ndarray:
    """The transpose of :func:`interpolate_bilinear_cpu` (its gradient, Chainer's kernel; it
    runs on GPU arrays too).

    Args:
        gy: Gradients of the output images ``(B, C, out_H, out_W)``.
        v, u, vw, uw: As for :func:`interpolate_bilinear_cpu`.
        H: The input height.
        W: The input width.

    Returns:
        The gradients of the input images ``(B, C, H, W)``.
    """
    B, C = gy.shape[:2]
    xp = backend.get_array_module(gy)
    # Every image's pixels numbered apart: one bincount sums each corner's contributions.
    offsets = xp.arange(B * C)[:, None] * (H * W)
    g = gy.reshape(B * C, -1)
    gx = xp.zeros(B * C * H * W)
    for vv, uu, w in _corners(v, u, vw, uw, H, W):
        index = offsets + (vv * W + uu).ravel()
        gx += xp.bincount(index.ravel(), (g * w.ravel()).ravel(), B * C * H * W)
    return gx.astype(gy.dtype).reshape(B, C, H, W)


def interpolate_bilinear_gpu(x: Any, v: Any, u: Any, vw: Any, uw: Any) -> Any:
    """:func:`interpolate_bilinear_cpu` on GPU arrays (Chainer's CUDA kernel's name).

    Raises:
        RuntimeError: No GPU can be used (the message says why).
    """
    cuda.check_cuda_available()
    return interpolate_bilinear_cpu(x, v, u, vw, uw)


def interpolate_grad_bilinear_gpu(gy: Any, v: Any, u: Any, vw: Any, uw: Any, H: int,
                                  W: int) -> Any:
    """:func:`interpolate_grad_bilinear_cpu` on GPU arrays (Chainer's CUDA kernel's name).

    Raises:
        RuntimeError: No GPU can be used (the message says why).
    """
    cuda.check_cuda_available()
    return interpolate_grad_bilinear_cpu(gy, v, u, vw, uw, H, W)


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


class ResizeImagesGrad(_ResizeImagesGrad):
    """resize_images's gradient node (Chainer's): ``ResizeImagesGrad(input_shape,
    output_shape, mode, align_corners).apply((gy,))`` is the transposed interpolation, into
    images of ``input_shape``; its own gradient is the resize again."""

    def __init__(self, input_shape: Sequence[int], output_shape: Sequence[int], mode: str,
                 align_corners: bool) -> None:
        super().__init__(ResizeImages(output_shape, mode, align_corners), input_shape[2:])
        self.input_shape = tuple(input_shape)


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
