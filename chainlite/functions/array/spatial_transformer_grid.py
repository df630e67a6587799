"""Sampling grids of affine spatial transformers."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.functions.array import reshape
from chainlite.functions.math import matmul
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable
    from chainlite.types import VariableOrArray


def _target_points(H, W, dtype, xp):
    # Homogeneous coordinates (x_t, y_t, 1) of the output pixels, x varying fastest; both
    # axes span [-1, 1] corner to corner.
    ys, xs = xp.meshgrid(xp.linspace(-1, 1, H), xp.linspace(-1, 1, W), indexing='ij')
    return xp.stack([xs.ravel(), ys.ravel(), xp.ones(H * W)]).astype(dtype)


class SpatialTransformerGrid(function_node.FunctionNode):

    def __init__(self, output_shape: Sequence[int]) -> None:
        self.output_shape = output_shape

    @property
    def label(self) -> str:
        return 'SpatialTransformerGrid'

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('theta',))
        theta, = in_types
        type_check.expect(theta.dtype.kind == 'f', theta.ndim == 3)
        type_check.expect(theta.shape[1] == 2, theta.shape[2] == 3)

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        theta, = inputs
        H, W = self.output_shape
        points = _target_points(H, W, theta.dtype, backend.get_array_module(theta))
        return numpy.matmul(theta, points).reshape(len(theta), 2, H, W),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        gy, = grad_outputs
        H, W = self.output_shape
        n = gy.shape[0]
        points = _target_points(H, W, gy.dtype, backend.get_array_module(gy.array))
        # grid = theta @ points, so gtheta = gy @ points^T (points are constants).
        return matmul.matmul(reshape.reshape(gy, (n, 2, H * W)), points.T),


def spatial_transformer_grid(theta: VariableOrArray, output_shape: Sequence[int]) -> Variable:
    """The points an affine spatial transformer samples (Spatial Transformer Networks).

    Output pixel ``(i, j)`` has target coordinates ``x_t = -1 + 2 * j / (w_O - 1)`` and
    ``y_t = -1 + 2 * i / (h_O - 1)`` (``-1`` along an axis of length 1), and gets the source
    coordinates ``(x_s, y_s) = theta @ (x_t, y_t, 1)``. In source coordinates ``(-1, -1)`` is
    the upper-left corner of the input and ``(1, 1)`` the lower-right one, as
    ``spatial_transformer_sampler`` reads them.

    Args:
        theta: A float Variable or array of shape ``(n, 2, 3)``: one affine matrix per sample.
        output_shape: ``(h_O, w_O)``, positive ints.

    Returns:
        A Variable of shape ``(n, 2, h_O, w_O)``: ``[:, 0]`` holds ``x_s`` and ``[:, 1]``
        holds ``y_s``.

    Example:
        >>> import numpy as np, chainlite.functions as F
        >>> identity = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> grid = F.spatial_transformer_grid(identity, (2, 3))
        >>> grid.shape
        (1, 2, 2, 3)
        >>> grid.array[0, 0]
        array([[-1.,  0.,  1.],
               [-1.,  0.,  1.]])
    """
    output_shape = tuple(output_shape)
    if len(output_shape) != 2 or not all(
            isinstance(s, (int, numpy.integer)) and not isinstance(s, bool) and s > 0
            for s in output_shape):
        raise ValueError('spatial_transformer_grid: output_shape must be two positive ints, '
                         'got %r' % (output_shape,))
    return SpatialTransformerGrid(tuple(int(s) for s in output_shape)).apply((theta,))[0]
