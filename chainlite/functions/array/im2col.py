"""Image patches as channels (im2col)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import function_node
from chainlite.functions.array import _im2col
from chainlite.utils import conv
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _pair(x: Any) -> Any:
    # Chainer's: an indexable value as is, anything else repeated for both axes.
    if hasattr(x, '__getitem__'):
        return x
    return x, x


def _col2im(x: Any, *args: Any, **kwargs: Any) -> Any:
    # utils.conv.col2im_cpu for a NumPy array (col2im_gpu otherwise, which needs CUDA).
    if isinstance(x, numpy.ndarray):
        return conv.col2im_cpu(x, *args, **kwargs)
    return conv.col2im_gpu(x, *args, **kwargs)


class Im2Col(function_node.FunctionNode):

    def __init__(self, ksize: int | Sequence[int], stride: int | Sequence[int],
                 pad: int | Sequence[int], cover_all: bool,
                 dilate: int | Sequence[int]) -> None:
        self.kh, self.kw = _im2col.pair(ksize)
        self.sy, self.sx = _im2col.pair(stride)
        self.ph, self.pw = _im2col.pair(pad)
        self.dy, self.dx = _im2col.pair(dilate)
        self.cover_all = cover_all

    @property
    def label(self) -> str:
        return 'Im2Col'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        x, = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 4)
        # At least one window position along each axis (cover_all may run into the padding).
        extra_h = 2 * self.ph + (self.sy - 1 if self.cover_all else 0)
        extra_w = 2 * self.pw + (self.sx - 1 if self.cover_all else 0)
        type_check.expect(x.shape[2] + extra_h >= (self.kh - 1) * self.dy + 1,
                          x.shape[3] + extra_w >= (self.kw - 1) * self.dx + 1)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        col = _im2col.im2col(x, self.kh, self.kw, self.sy, self.sx, self.ph, self.pw,
                             self.cover_all, self.dy, self.dx)
        n, c, kh, kw, out_h, out_w = col.shape
        # One copy into (n, c, kh, kw, out_h, out_w) order; merging the axes is then a view.
        return col.copy().reshape(n, c * kh * kw, out_h, out_w),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gy, = grad_outputs
        h, w = in_nodes[0].shape[2:]
        return _Col2ImGrad(self, h, w).apply((gy,))


class _Col2ImGrad(function_node.FunctionNode):
    # Sums the patch gradients back into the image; its own gradient is im2col again.

    def __init__(self, im2col_node, h, w):
        self.f = im2col_node
        self.h = h
        self.w = w

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        f = self.f
        n, _, out_h, out_w = gy.shape
        gcol = gy.reshape(n, -1, f.kh, f.kw, out_h, out_w)
        return _im2col.col2im(gcol, f.sy, f.sx, f.ph, f.pw, self.h, self.w, f.dy, f.dx),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        ggx, = grad_outputs
        f = self.f
        return Im2Col((f.kh, f.kw), (f.sy, f.sx), (f.ph, f.pw), f.cover_all,
                      (f.dy, f.dx)).apply((ggx,))


class Im2ColGrad(_Col2ImGrad):
    """im2col's gradient node (Chainer's): ``Im2ColGrad(ksize, stride, pad, cover_all, dilate,
    in_shape).apply((gy,))`` sums the patch gradients ``gy`` of shape ``(n, c * kh * kw,
    out_h, out_w)`` back into an image of ``in_shape``; its own gradient is im2col."""

    def __init__(self, ksize: int | Sequence[int], stride: int | Sequence[int],
                 pad: int | Sequence[int], cover_all: bool, dilate: int | Sequence[int],
                 in_shape: tuple[int, ...]) -> None:
        super().__init__(Im2Col(ksize, stride, pad, cover_all, dilate), in_shape[2],
                         in_shape[3])
        self.in_shape = in_shape


def im2col(x: VariableOrArray, ksize: int | Sequence[int], stride: int | Sequence[int] = 1,
           pad: int | Sequence[int] = 0,
           cover_all: bool = False, dilate: int | Sequence[int] = 1) -> Variable:
    """Extracts the patches a convolution filter sees and stacks them as channels.

    Patch positions start at ``-pad`` and move by ``stride``; entries in the padding are 0.
    The output size is ``out_h = (h + 2 * ph - dkh) // sy + 1`` with the dilated window size
    ``dkh = kh + (kh - 1) * (dy - 1)`` (``(h + 2 * ph - dkh + sy - 1) // sy + 1`` with
    ``cover_all``), and likewise for the width.

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``.
        ksize: Filter size: an int or a pair ``(kh, kw)``.
        stride: Stride: an int or a pair ``(sy, sx)``.
        pad: Zero padding on each side: an int or a pair ``(ph, pw)``.
        cover_all: Add window positions (running into extra zero padding at the bottom and
            right) so that every input pixel is covered.
        dilate: Dilation of the filter: an int or a pair ``(dy, dx)``.

    Returns:
        A Variable of shape ``(n, c * kh * kw, out_h, out_w)``: channel ``(ci * kh + i) * kw
        + j`` holds the filter tap ``(i, j)`` of input channel ``ci`` at each position.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> y = F.im2col(np.arange(16.0).reshape(1, 1, 4, 4), 2, stride=2)
        >>> y.shape
        (1, 4, 2, 2)
        >>> y.array[0, :, 0, 1]
        array([2., 3., 6., 7.])
    """
    try:
        ksize, stride, pad, dilate = (_im2col.pair(v) for v in (ksize, stride, pad, dilate))
    except ValueError as e:
        raise ValueError('im2col: %s' % e) from None
    if min(ksize + stride + dilate) < 1 or min(pad) < 0:
        raise ValueError('im2col: ksize, stride and dilate must be positive and pad '
                         'non-negative, got ksize=%s stride=%s pad=%s dilate=%s'
                         % (ksize, stride, pad, dilate))
    return Im2Col(ksize, stride, pad, cover_all, dilate).apply((x,))[0]
