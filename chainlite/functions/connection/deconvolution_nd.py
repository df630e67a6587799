"""N-dimensional deconvolution (transposed convolution), with its 1-d and 3-d spellings.

The forward pass is a convolution's input gradient: one matrix product of the filters with
the input (laid out batch-last, as in :mod:`convolution_nd`), then col2im. Its gradients
are a convolution (for x) and a convolution's filter gradient with the roles of input and
output swapped (for W).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

import math

from chainlite import _blas
from chainlite import function_node
from chainlite.functions.array import _im2col
from chainlite.functions.array import cast
from chainlite.functions.connection import convolution_nd
from chainlite.functions.math import matmul
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


class DeconvolutionND(function_node.FunctionNode):

    def __init__(self, ndim: int, stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                 outsize: Sequence[int] | None = None, dilate: int | Sequence[int] = 1,
                 groups: int = 1) -> None:
        self.ndim = ndim
        self.stride = _im2col.as_tuple(stride, ndim)
        self.pad = _im2col.as_tuple(pad, ndim)
        self.outsize = None if outsize is None else _im2col.as_tuple(outsize, ndim)
        self.dilate = _im2col.as_tuple(dilate, ndim)
        self.groups = int(groups)
        # Set by forward: whether outsize needs cover_all windows.
        self.cover_all: bool | None = None

    def _outsize(self, insize, ksize):
        if self.outsize is not None:
            return self.outsize
        return tuple(_im2col.get_deconv_outsize(i, k, s, p, d=d) for i, k, s, p, d in zip(
            insize, ksize, self.stride, self.pad, self.dilate))

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect(2 <= n_in, n_in <= 3)
        type_check._argname(in_types, ('x', 'W', 'b')[:len(in_types)])
        x, W = in_types[:2]
        nd, g = self.ndim, self.groups
        # W and b may have other float dtypes (as in Chainer): y has x's dtype.
        type_check.expect(x.dtype.kind == 'f', W.dtype.kind == 'f', x.ndim == nd + 2,
                          W.ndim == nd + 2, x.shape[1] == W.shape[0], W.shape[0] % g == 0)
        for i in range(nd):
            k, s, p, d = W.shape[2 + i], self.stride[i], self.pad[i], self.dilate[i]
            if self.outsize is None:
                out = _im2col.get_deconv_outsize(x.shape[2 + i], k, s, p, d=d)
                try:
                    type_check.expect(out > 0)
                except type_check.InvalidType as e:
                    raise type_check._also(e, AssertionError) from None  # Chainer asserts
            else:
                # x must be what a convolution of an outsize-shaped input gives, with or
                # without cover_all.
                out = self.outsize[i]
                type_check.expect(
                    _im2col.get_conv_outsize(out, k, s, p, d=d) <= x.shape[2 + i],
                    x.shape[2 + i] <= _im2col.get_conv_outsize(out, k, s, p, True, d))
        if len(in_types) == 3:
            b = in_types[2]
            type_check.expect(b.dtype.kind == 'f', b.ndim == 1, b.shape[0] == W.shape[1] * g)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        dtype = matmul.compute_dtype(x, W)
        x_dtype = x.dtype
        x, W = matmul.as_dtype(x, dtype), matmul.as_dtype(W, dtype)
        g, nd = self.groups, self.ndim
        ksize, insize = W.shape[2:], x.shape[2:]
        outsize = self._outsize(insize, ksize)
        self.cover_all = any(
            i != _im2col.get_conv_outsize(o, k, s, p, d=d)
            for i, o, k, s, p, d in zip(insize, outsize, ksize, self.stride, self.pad,
                                        self.dilate))
        in_c, out_c = W.shape[0], W.shape[1] * g
        x_mat = convolution_nd.batch_last(x).reshape(g, in_c // g, math.prod(insize) * x.shape[0])
        W_mat = W.reshape(g, in_c // g, W.shape[1] * math.prod(ksize))
        gcol = _blas.matmul(W_mat.transpose(0, 2, 1), x_mat)
        gcol = gcol.reshape((out_c,) + ksize + insize + (x.shape[0],))
        y = _im2col.col2im_nd(gcol, self.stride, self.pad, outsize, self.dilate, first_axis=1)
        if len(inputs) == 3:
            y += inputs[2].reshape((out_c,) + (1,) * (nd + 1))
        return convolution_nd.batch_first(matmul.as_dtype(y, x_dtype)),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret: list[Any] = []
        if 0 in indexes:
            ret.append(convolution_nd.ConvolutionND(
                self.ndim, self.stride, self.pad, bool(self.cover_all), self.dilate,
                self.groups).apply((gy, W))[0])
        if 1 in indexes:
            # A deconvolution is a convolution's input gradient, with x as its output
            # gradient and y as its input.
            ret.append(cast.cast_to(
                convolution_nd._ConvolutionNDGradW(self, W.shape[2:]).apply((gy, x))[0], W.dtype))
        if 2 in indexes:
            ret.append(cast.cast_to(convolution_nd.spatial_sum(gy), in_nodes[2].dtype))
        return tuple(ret)


def deconvolution_nd(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                     stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                     outsize: Sequence[int] | None = None, dilate: int | Sequence[int] = 1,
                     groups: int = 1) -> Variable:
    """N-dimensional deconvolution (transposed convolution).

    The transpose of :func:`~chainlite.functions.connection.convolution_nd.convolution_nd`:
    each input element adds its filter-weighted copy of the filter into the output. Without
    ``outsize``, the output size along axis ``i`` is ``l_i = s_i (d_i - 1) + dk_i - 2 p_i``
    with the dilated filter size ``dk_i = k_i + (k_i - 1) (dil_i - 1)``.

    Args:
        x: A float Variable or array of shape ``(n, c_I, d_1, ..., d_N)``.
        W: The filters, of shape ``(c_I, c_O / groups, k_1, ..., k_N)``;
            any float dtype (the output has ``x``'s).
        b: The bias, of shape ``(c_O,)`` (optional).
        stride: An int or ``N`` ints.
        pad: An int or ``N`` ints: the padding of the convolution this one transposes
            (trimmed from the output).
        outsize: ``N`` ints, the output's spatial shape: one of the sizes a convolution
            (with or without ``cover_all``) maps to ``x``'s size. None computes it.
        dilate: An int or ``N`` ints: the spacing of the filter taps.
        groups: The number of channel groups; ``c_I`` must be a multiple of it.

    Returns:
        A Variable of shape ``(n, c_O, l_1, ..., l_N)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.array([[[1.0, 2.0]]])
        >>> F.deconvolution_nd(x, np.array([[[1.0, 10.0, 100.0]]]), stride=2).array
        array([[[  1.,  10., 102.,  20., 200.]]])
        >>> F.deconvolution_nd(x, np.ones((1, 1, 3)), stride=2, outsize=(6,)).shape
        (1, 1, 6)
    """
    ndim = max(x.ndim - 2, 1)
    stride, pad, dilate = convolution_nd.check_parameters(
        'deconvolution_nd', ndim, stride, pad, dilate, groups)
    if outsize is not None:
        outsize = convolution_nd.check_parameters(
            'deconvolution_nd', ndim, outsize, 0, 1, 1)[0]
    func = DeconvolutionND(ndim, stride, pad, outsize, dilate, groups)
    return func.apply((x, W) if b is None else (x, W, b))[0]


def deconvolution_1d(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                     stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                     outsize: Sequence[int] | None = None, dilate: int | Sequence[int] = 1,
                     groups: int = 1) -> Variable:
    """1-dimensional deconvolution: :func:`deconvolution_nd` for ``x`` of shape ``(n, c, d)``.

    Args:
        x: A float Variable or array of shape ``(n, c_I, d)``.
        W: The filters, of shape ``(c_I, c_O / groups, k)``.
        b: The bias, of shape ``(c_O,)`` (optional).
        stride, pad, outsize, dilate, groups: As in :func:`deconvolution_nd`.

    Returns:
        A Variable of shape ``(n, c_O, l)``.

    Raises:
        ValueError: If ``x`` does not have one spatial axis.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.deconvolution_1d(np.ones((1, 1, 3)), np.ones((1, 1, 2))).array
        array([[[1., 2., 2., 1.]]])
    """
    convolution_nd._check_ndim('deconvolution_1d', x, 1)
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)


def deconvolution_3d(x: VariableOrArray, W: VariableOrArray, b: VariableOrArray | None = None,
                     stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0,
                     outsize: Sequence[int] | None = None, dilate: int | Sequence[int] = 1,
                     groups: int = 1) -> Variable:
    """3-dimensional deconvolution: :func:`deconvolution_nd` for ``(n, c, d, h, w)`` inputs.

    Args:
        x: A float Variable or array of shape ``(n, c_I, d_1, d_2, d_3)``.
        W: The filters, of shape ``(c_I, c_O / groups, k_1, k_2, k_3)``.
        b: The bias, of shape ``(c_O,)`` (optional).
        stride, pad, outsize, dilate, groups: As in :func:`deconvolution_nd`.

    Returns:
        A Variable of shape ``(n, c_O, l_1, l_2, l_3)``.

    Raises:
        ValueError: If ``x`` does not have three spatial axes.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> F.deconvolution_3d(np.ones((1, 2, 2, 2, 2)), np.ones((2, 3, 2, 2, 2)), stride=2).shape
        (1, 3, 4, 4, 4)
    """
    convolution_nd._check_ndim('deconvolution_3d', x, 3)
    return deconvolution_nd(x, W, b, stride, pad, outsize, dilate, groups)
