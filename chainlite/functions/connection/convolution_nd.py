"""N-dimensional convolution, with convolution_1d and convolution_3d as its spellings.

Forward copies the input's patches once into a matrix and does one matrix product with the
filters. The patches are laid out batch-last, ``(c, k_1..k_N, l_1..l_N, n)``: the copy then
reads and the transposed convolution's col2im writes long contiguous stretches, which
NumPy's inner loops favour far more than the few elements of a kernel row. The output is a
batch-first view of the product (not a copy), as Chainer's CPU convolution returns.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

import math


from chainlite import _blas
from chainlite import function_node
from chainlite.functions.array import _im2col
from chainlite.functions.array import cast
from chainlite.functions.connection import deconvolution_nd
from chainlite.functions.math import matmul
from chainlite.functions.math import sum as sum_
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def batch_last(x: numpy.ndarray) -> numpy.ndarray:
    """The view of ``x`` (n, c, d_1..d_N) with its axes ordered (c, d_1..d_N, n)."""
    return x.transpose(tuple(range(1, x.ndim)) + (0,))


def batch_first(y: numpy.ndarray) -> numpy.ndarray:
    """The inverse of :func:`batch_last`: a view with axes (n, c, d_1..d_N)."""
    return y.transpose((y.ndim - 1,) + tuple(range(y.ndim - 1)))


def spatial_sum(gy: VariableOrArray) -> Variable:
    """The bias gradient: ``gy`` summed over every axis but the channels."""
    return sum_.sum(gy, axis=(0,) + tuple(range(2, gy.ndim)))


def _patch_matrix(x, ksize, f):
    # The patches of x as a (groups, c / groups * prod(ksize), prod(outsize) * n) array:
    # the one copy of them that the matrix product reads.
    col = _im2col.im2col_nd(batch_last(x), ksize, f.stride, f.pad, f.cover_all, f.dilate,
                            first_axis=1)
    nd = len(ksize)
    outsize = col.shape[1 + nd:1 + 2 * nd]
    rows = x.shape[1] // f.groups * math.prod(ksize)
    return col.reshape(f.groups, rows, math.prod(outsize) * x.shape[0]), outsize


class ConvolutionND(function_node.FunctionNode):

    def __init__(self, ndim: int, stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                 cover_all: bool = False, dilate: int | Sequence[int] = 1,
                 groups: int = 1) -> None:
        self.ndim = ndim
        self.stride = _im2col.as_tuple(stride, ndim)
        self.pad = _im2col.as_tuple(pad, ndim)
        self.dilate = _im2col.as_tuple(dilate, ndim)
        self.cover_all = bool(cover_all)
        self.groups = int(groups)
        self._col = None

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect(2 <= n_in, n_in <= 3)
        type_check._argname(in_types, ('x', 'W', 'b')[:len(in_types)])
        x, W = in_types[:2]
        nd, g = self.ndim, self.groups
        # W and b may have other float dtypes (as in Chainer): y has x's dtype.
        type_check.expect(x.dtype.kind == 'f', W.dtype.kind == 'f', x.ndim == nd + 2,
                          W.ndim == nd + 2, x.shape[1] == W.shape[1] * g,
                          W.shape[0] % g == 0)
        for i in range(nd):
            # At least one window position (cover_all may run into the far padding).
            extra = 2 * self.pad[i] + (self.stride[i] - 1 if self.cover_all else 0)
            type_check.expect(x.shape[2 + i] + extra >= (W.shape[2 + i] - 1) * self.dilate[i] + 1)
        if len(in_types) == 3:
            b = in_types[2]
            type_check.expect(b.dtype.kind == 'f', b.ndim == 1, b.shape[0] == W.shape[0])

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        dtype = matmul.compute_dtype(x, W)
        x_dtype, x, W = x.dtype, matmul.as_dtype(x, dtype), matmul.as_dtype(W, dtype)
        col, outsize = _patch_matrix(x, W.shape[2:], self)
        # Kept for the filter gradient, which would otherwise copy the same patches again:
        # the CPU trade of memory for time (backward drops it; so does an unlinked node).
        self._col = col
        g, out_c = self.groups, W.shape[0]
        y = _blas.matmul(W.reshape(g, out_c // g, col.shape[1]), col)
        y = y.reshape((out_c,) + outsize + (x.shape[0],))
        if len(inputs) == 3:
            y += inputs[2].reshape((out_c,) + (1,) * (self.ndim + 1))
        return batch_first(matmul.as_dtype(y, x_dtype)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret: list[Any] = []
        # The filter gradient first: it reads (and then drops) the patch matrix kept by
        # forward before the input gradient allocates a patch-sized array of its own, so
        # the two never coexist. A lower peak also spares the allocator from handing the
        # memory back to the system and faulting it in again at the next step.
        gW = None
        if 1 in indexes:
            gW = cast.cast_to(
                _ConvolutionNDGradW(self, W.shape[2:], self._col).apply((x, gy))[0], W.dtype)
        self._col = None
        if 0 in indexes:
            ret.append(deconvolution_nd.DeconvolutionND(
                self.ndim, self.stride, self.pad, x.shape[2:], self.dilate,
                self.groups).apply((gy, W))[0])
        if gW is not None:
            ret.append(gW)
        if 2 in indexes:
            ret.append(cast.cast_to(spatial_sum(gy), in_nodes[2].dtype))
        return tuple(ret)


class _ConvolutionNDGradW(function_node.FunctionNode):
    # The filter gradient of a convolution with the parameters of ``f``, from its input x
    # and output gradient gy: one matrix product of gy with the patches of x.

    def __init__(self, f, ksize, col=None):
        self.ndim = f.ndim
        self.stride = f.stride
        self.pad = f.pad
        self.dilate = f.dilate
        self.cover_all = f.cover_all
        self.groups = f.groups
        self.ksize = tuple(ksize)
        self._col = col

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        out_dtype = numpy.result_type(x, gy)
        dtype = matmul.compute_dtype(x, gy)
        col = self._col
        if col is None or col.dtype != dtype:
            col, _ = _patch_matrix(matmul.as_dtype(x, dtype), self.ksize, self)
        self._col = None
        g, out_c = self.groups, gy.shape[1]
        gy_mat = batch_last(matmul.as_dtype(gy, dtype)).reshape(
            g, out_c // g, math.prod(gy.shape[2:]) * gy.shape[0])
        gW = _blas.matmul(gy_mat, col.transpose(0, 2, 1))
        return matmul.as_dtype(gW.reshape((out_c, x.shape[1] // g) + self.ksize), out_dtype),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(deconvolution_nd.DeconvolutionND(
                self.ndim, self.stride, self.pad, x.shape[2:], self.dilate,
                self.groups).apply((gy, ggW))[0])
        if 1 in indexes:
            ret.append(ConvolutionND(self.ndim, self.stride, self.pad, self.cover_all,
                                     self.dilate, self.groups).apply((x, ggW))[0])
        return tuple(ret)


class ConvolutionNDGradW(_ConvolutionNDGradW):
    """convolution_nd's filter-gradient node (Chainer's): ``ConvolutionNDGradW(convnd).apply((x,
    gy))`` is the gradient of the filters of the applied convolution node ``convnd``, in
    their dtype; its own gradient is convolution and deconvolution again."""

    def __init__(self, convnd: ConvolutionND) -> None:
        if not convnd.inputs:
            raise ValueError('ConvolutionNDGradW: convnd must be an applied convolution node '
                             '(its filters give the shape)')
        W_node = convnd.inputs[1]
        self._init(convnd, W_node.shape, W_node.dtype)

    def _init(self, f: ConvolutionND, w_shape: Sequence[int], w_dtype: Any) -> None:
        _ConvolutionNDGradW.__init__(self, f, tuple(w_shape)[2:])
        self.W_dtype = numpy.dtype(w_dtype)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gW, = super().forward(inputs)
        return gW.astype(self.W_dtype, copy=False),


def check_parameters(name: str, ndim: int, stride: int | Sequence[int], pad: int | Sequence[int],
                     dilate: int | Sequence[int], groups: int
                     ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Normalizes the shared convolution arguments to tuples, or raises ValueError."""
    try:
        stride, pad, dilate = (_im2col.as_tuple(v, ndim) for v in (stride, pad, dilate))
    except (ValueError, TypeError) as e:
        raise ValueError('%s: %s' % (name, e)) from None
    if min(stride + dilate) < 1 or min(pad) < 0 or int(groups) < 1:
        raise ValueError('%s: stride, dilate and groups must be positive and pad '
                         'non-negative, got stride=%s pad=%s dilate=%s groups=%s'
                         % (name, stride, pad, dilate, groups))
    return stride, pad, dilate


def _check_ndim(name, x, ndim):
    if x.ndim != ndim + 2:
        raise ValueError('%s: x must have %d axes (batch, channel and %d spatial), got shape %s'
                         % (name, ndim + 2, ndim, x.shape))


def convolution_nd(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                   stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                   cover_all: bool = False, dilate: int | Sequence[int] = 1,
                   groups: int = 1) -> Variable:
    """N-dimensional convolution (cross-correlation) of a batch of images with filters.

    With ``N`` spatial axes, the output size along axis ``i`` is
    ``l_i = (d_i + 2 p_i - dk_i) // s_i + 1`` where ``dk_i = k_i + (k_i - 1) (dil_i - 1)``
    is the dilated filter size (``(d_i + 2 p_i - dk_i + s_i - 1) // s_i + 1`` with
    ``cover_all``). Output channel ``o`` of group ``g`` sees only the input channels of
    group ``g``.

    Args:
        x: A float Variable or array of shape ``(n, c_I, d_1, ..., d_N)``.
        W: The filters, of shape ``(c_O, c_I / groups, k_1, ..., k_N)``;
            any float dtype (the output has ``x``'s).
        b: The bias, of shape ``(c_O,)`` (optional).
        stride: An int or ``N`` ints: the step between window positions.
        pad: An int or ``N`` ints: zeros added on both sides of each spatial axis.
        cover_all: Add window positions (into extra zero padding at the far end) so that
            every input element is covered.
        dilate: An int or ``N`` ints: the spacing of the filter taps.
        groups: The number of channel groups; ``c_I`` and ``c_O`` must be multiples of it.

    Returns:
        A Variable of shape ``(n, c_O, l_1, ..., l_N)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.arange(5.0).reshape(1, 1, 5)
        >>> F.convolution_nd(x, np.array([[[1.0, -1.0]]])).array
        array([[[-1., -1., -1., -1.]]])
        >>> F.convolution_nd(np.ones((2, 3, 5, 5, 5)), np.ones((4, 3, 3, 3, 3)), pad=1).shape
        (2, 4, 5, 5, 5)
    """
    ndim = max(x.ndim - 2, 1)
    stride, pad, dilate = check_parameters('convolution_nd', ndim, stride, pad, dilate, groups)
    func = ConvolutionND(ndim, stride, pad, cover_all, dilate, groups)
    return func.apply((x, W) if b is None else (x, W, b))[0]


def convolution_1d(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                   stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                   cover_all: bool = False, dilate: int | Sequence[int] = 1,
                   groups: int = 1) -> Variable:
    """1-dimensional convolution: :func:`convolution_nd` for ``x`` of shape ``(n, c, d)``.

    Args:
        x: A float Variable or array of shape ``(n, c_I, d)``.
        W: The filters, of shape ``(c_O, c_I / groups, k)``.
        b: The bias, of shape ``(c_O,)`` (optional).
        stride, pad, cover_all, dilate, groups: As in :func:`convolution_nd`.

    Returns:
        A Variable of shape ``(n, c_O, l)``.

    Raises:
        ValueError: If ``x`` does not have one spatial axis.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.convolution_1d(np.ones((1, 2, 4)), np.ones((1, 2, 3)), pad=1).array
        array([[[4., 6., 6., 4.]]])
    """
    _check_ndim('convolution_1d', x, 1)
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)


def convolution_3d(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                   stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                   cover_all: bool = False, dilate: int | Sequence[int] = 1,
                   groups: int = 1) -> Variable:
    """3-dimensional convolution: :func:`convolution_nd` for ``x`` of shape ``(n, c, d, h, w)``.

    Args:
        x: A float Variable or array of shape ``(n, c_I, d_1, d_2, d_3)``.
        W: The filters, of shape ``(c_O, c_I / groups, k_1, k_2, k_3)``.
        b: The bias, of shape ``(c_O,)`` (optional).
        stride, pad, cover_all, dilate, groups: As in :func:`convolution_nd`.

    Returns:
        A Variable of shape ``(n, c_O, l_1, l_2, l_3)``.

    Raises:
        ValueError: If ``x`` does not have three spatial axes.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.convolution_3d(np.ones((1, 1, 3, 4, 5)), np.ones((2, 1, 2, 2, 2)), stride=2).shape
        (1, 2, 1, 2, 2)
    """
    _check_ndim('convolution_3d', x, 3)
    return convolution_nd(x, W, b, stride, pad, cover_all, dilate, groups)
