"""Locally connected 2-D layer: a convolution whose filters differ at each output position."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import function_node
from chainlite.functions.array import _im2col
from chainlite.functions.array import cast
from chainlite.functions.array import get_item
from chainlite.functions.array import im2col as im2col_mod
from chainlite.functions.array import pad as pad_mod
from chainlite.functions.array import reshape
from chainlite.functions.math import einsum
from chainlite.functions.math import sum as sum_mod
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


# Chainer's helper of this module: an int as a pair (an indexable value as is).
_pair = im2col_mod._pair

class LocalConvolution2DFunction(function_node.FunctionNode):

    def __init__(self, stride: int | Sequence[int] = 1) -> None:
        self.sy, self.sx = _im2col.pair(stride)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'W', 'b')[:len(in_types)])
        x, W = in_types[:2]
        type_check.expect(x.dtype.kind == 'f', W.dtype.kind == 'f', x.ndim == 4, W.ndim == 6,
                          x.shape[1] == W.shape[3])
        if len(in_types) == 3:
            b = in_types[2]
            type_check.expect(b.dtype == x.dtype, b.ndim == 3, b.shape == W.shape[:3])

    def _patches(self, x, W):
        # (n, c, kh, kw, out_h, out_w) patches of x for the positions W has filters for.
        c_out, out_h, out_w, _, kh, kw = W.shape
        h, w = x.shape[2:]
        if h < kh or w < kw or ((h - kh) // self.sy + 1 < out_h
                                or (w - kw) // self.sx + 1 < out_w):
            raise ValueError(
                'local_convolution_2d: an input of size %dx%d has room for fewer than %dx%d '
                'positions of a %dx%d filter with stride %s (W.shape %s)'
                % (h, w, out_h, out_w, kh, kw, (self.sy, self.sx), W.shape))
        col = _im2col.im2col(x, kh, kw, self.sy, self.sx, 0, 0)
        return col[..., :out_h, :out_w]

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, W = inputs[:2]
        self.retain_inputs((0, 1))
        col = self._patches(x, W)
        y = numpy.einsum('ncpqij,oijcpq->noij', col, W.astype(x.dtype, copy=False),
                         optimize=True)
        if len(inputs) == 3:
            y += inputs[2][None]
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        c_out, out_h, out_w, c_in, kh, kw = W.shape
        Wx = W if W.dtype == gy.dtype else cast.cast(W, gy.dtype)
        Wf = reshape.reshape(Wx, (c_out, out_h, out_w, c_in * kh * kw))
        ret = []
        if 0 in indexes:
            gcol = einsum.einsum('noij,oijf->nfij', gy, Wf)
            full_h = (x.shape[2] - kh) // self.sy + 1
            full_w = (x.shape[3] - kw) // self.sx + 1
            if (full_h, full_w) != (out_h, out_w):
                # Positions without filters get no gradient.
                gcol = pad_mod.pad(gcol, ((0, 0), (0, 0), (0, full_h - out_h),
                                          (0, full_w - out_w)), 'constant')
            node = im2col_mod.Im2Col((kh, kw), (self.sy, self.sx), 0, False, 1)
            ret.append(im2col_mod._Col2ImGrad(node, x.shape[2], x.shape[3]).apply((gcol,))[0])
        if 1 in indexes:
            cols = im2col_mod.im2col(x, (kh, kw), (self.sy, self.sx))
            if cols.shape[2:] != (out_h, out_w):
                cols = get_item.get_item(cols, (Ellipsis, slice(out_h), slice(out_w)))
            gW = reshape.reshape(einsum.einsum('noij,nfij->oijf', gy, cols), W.shape)
            ret.append(gW if gW.dtype == W.dtype else cast.cast(gW, W.dtype))
        if 2 in indexes:
            ret.append(sum_mod.sum(gy, axis=0))
        return tuple(ret)


def local_convolution_2d(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                         stride: int | Sequence[int] = 1) -> Variable:
    """Two-dimensional locally connected layer: a convolution without weight sharing.

    As :func:`~chainlite.functions.convolution_2d` (no padding), but output position
    ``(i, j)`` has its own filters ``W[:, i, j]``:
    ``y[n, o, i, j] = sum_{c, p, q} W[o, i, j, c, p, q] * x[n, c, i * sy + p, j * sx + q]
    + b[o, i, j]``. ``(h_O, w_O)`` is taken from ``W``; when the input has room for more
    positions, those further down and right are not computed (as in Chainer).

    Args:
        x: A float Variable or array of shape ``(n, c_I, h, w)``.
        W: The filters, of shape ``(c_O, h_O, w_O, c_I, k_H, k_W)`` (a float dtype; the
            output takes ``x``'s, the gradient of ``W`` keeps ``W``'s).
        b: None, or the biases, of shape ``(c_O, h_O, w_O)`` and ``x``'s dtype.
        stride: An int or a pair ``(sy, sx)``.

    Returns:
        A Variable of shape ``(n, c_O, h_O, w_O)`` and ``x``'s dtype.

    Raises:
        chainlite.utils.type_check.InvalidType: For inputs of the wrong ndim, dtype or
            shape.
        ValueError: If ``x`` is too small for ``h_O x w_O`` positions.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> W = np.zeros((1, 2, 2, 1, 2, 2))
        >>> W[0, 0, 0, 0, 0, 0] = 1.0   # position (0, 0) reads its upper-left tap
        >>> W[0, 1, 1, 0, 1, 1] = 1.0   # position (1, 1) reads its lower-right tap
        >>> F.local_convolution_2d(x, W, stride=2).array
        array([[[[ 0.,  0.],
                 [ 0., 15.]]]])
    """
    args = (x, W) if b is None else (x, W, b)
    return LocalConvolution2DFunction(stride).apply(args)[0]
