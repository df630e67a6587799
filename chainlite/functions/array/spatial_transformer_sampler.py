"""Bilinear sampling of images at arbitrary points (the spatial transformer's sampler)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import backprop
from chainlite import configuration
from chainlite import function
from chainlite import variable
from chainlite.functions.array import get_item
from chainlite.functions.array import pad
from chainlite.functions.array import reshape
from chainlite.functions.array import transpose
from chainlite.functions.math import clip
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _check_types(x, grid):
    in_types = type_check.get_types((x, grid), 'in_types', False)
    type_check.argname(in_types, ('x', 'grid'))
    x_type, grid_type = in_types
    try:
        type_check.expect(
            x_type.dtype.kind == 'f', grid_type.dtype == x_type.dtype, x_type.ndim == 4,
            grid_type.ndim == 4, grid_type.shape[1] == 2,
            x_type.shape[0] == grid_type.shape[0])
    except type_check.InvalidType as e:
        raise type_check.InvalidType(
            e.expect, e.actual, 'Invalid operation is performed in: '
            'spatial_transformer_sampler (Forward)\n\n' + e.msg) from None


class SpatialTransformerSampler(function.Function):
    """spatial_transformer_sampler as Chainer's old-style function:
    ``SpatialTransformerSampler()(x, grid)``. Forward and backward run the differentiable
    composition :func:`spatial_transformer_sampler` is made of (as an old-style function,
    it has no double backprop, as in Chainer)."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'grid'))
        x_type, grid_type = in_types
        type_check.expect(x_type.dtype.kind == 'f', grid_type.dtype == x_type.dtype,
                          x_type.ndim == 4, grid_type.ndim == 4, grid_type.shape[1] == 2,
                          x_type.shape[0] == grid_type.shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, grid = inputs
        with configuration.using_config('enable_backprop', False):
            return spatial_transformer_sampler(x, grid).array,

    def backward(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> Sequence[Any]:
        x, grid = (variable.Variable(a) for a in inputs)
        gy, = grad_outputs
        with configuration.using_config('enable_backprop', True):
            y = spatial_transformer_sampler(x, grid)
            gx, ggrid = backprop.grad([y], [x, grid], [variable.Variable(gy)])
        return tuple([None if g is None else g.array for g in (gx, ggrid)])


def spatial_transformer_sampler(x: VariableOrArray, grid: VariableOrArray) -> Variable:
    """Samples ``x`` bilinearly at the points of ``grid`` (Spatial Transformer Networks).

    ``grid[b, :, i, j] = (x_s, y_s)`` gives the point that output pixel ``(i, j)`` of sample
    ``b`` reads, in coordinates where ``(-1, -1)`` is the centre of the upper-left pixel of
    ``x`` and ``(1, 1)`` that of the lower-right one (what
    :func:`~chainlite.functions.spatial_transformer_grid` makes). The value is the bilinear
    interpolation of the four pixels around the point; outside the image, ``x`` is taken to
    be surrounded by one ring of zeros, and points further out read zero.

    Gradients flow to ``x`` and to ``grid`` (the interpolation weights depend on the
    point); the function is built from differentiable ops, so it supports double backprop.

    Args:
        x: A float Variable or array of shape ``(n, c_I, h, w)``.
        grid: A Variable or array of ``x``'s dtype and shape ``(n, 2, h_O, w_O)``:
            ``grid[:, 0]`` holds the horizontal and ``grid[:, 1]`` the vertical coordinates.

    Returns:
        A Variable of shape ``(n, c_I, h_O, w_O)`` and ``x``'s dtype.

    Raises:
        chainlite.utils.type_check.InvalidType: For inputs of the wrong ndim, dtype or shape.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> x = np.arange(4.0).reshape(1, 1, 2, 2)
        >>> identity = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> grid = F.spatial_transformer_grid(identity, (2, 3))
        >>> F.spatial_transformer_sampler(x, grid).array
        array([[[[0. , 0.5, 1. ],
                 [2. , 2.5, 3. ]]]])
    """
    _check_types(variable.as_array(x), variable.as_array(grid))
    B, C, H, W = x.shape
    _, _, out_h, out_w = grid.shape
    dtype = x.dtype
    P = out_h * out_w
    grid = reshape.reshape(grid, (B, 2, P))
    # Pixel coordinates in the zero-padded image (pixel k of x sits at k + 1).
    u = get_item.get_item(grid, (slice(None), 0)) * ((W - 1) / 2.) + ((W - 1) / 2. + 1)
    v = get_item.get_item(grid, (slice(None), 1)) * ((H - 1) / 2.) + ((H - 1) / 2. + 1)
    # Beyond the ring of zeros the point is clipped, and reads zero with no gradient.
    u = clip.clip(u, 0., float(W + 1))
    v = clip.clip(v, 0., float(H + 1))
    u0 = numpy.floor(u.array).astype(numpy.intp).clip(0, W)
    v0 = numpy.floor(v.array).astype(numpy.intp).clip(0, H)
    wu1 = u - u0.astype(dtype)  # the weight of column u0 + 1
    wv1 = v - v0.astype(dtype)
    wu0 = 1 - wu1
    wv0 = 1 - wv1
    x_pad = pad.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), 'constant')
    rows = reshape.reshape(transpose.transpose(x_pad, (0, 2, 3, 1)), (-1, C))
    xp = backend.get_array_module(u0)
    base = (xp.arange(B)[:, None] * (H + 2) + v0) * (W + 2) + u0

    def corner(offset, weight):
        picked = get_item.get_item(rows, (base + offset).ravel())
        return reshape.reshape(picked, (B, P, C)) * reshape.reshape(weight, (B, P, 1))

    y = (corner(0, wu0 * wv0) + corner(1, wu1 * wv0)
         + corner(W + 2, wu0 * wv1) + corner(W + 3, wu1 * wv1))
    return transpose.transpose(reshape.reshape(y, (B, out_h, out_w, C)), (0, 3, 1, 2))
