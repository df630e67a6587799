"""ROI max pooling with ``(y_min, x_min, y_max, x_max)`` regions and separate batch indices."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.pooling import _pooling
from chainlite.functions.pooling import _roi

# Chainer's helper of this module: an int or a pair as a pair.
_pair = _pooling.pair

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


class ROIMaxPooling2D(_roi.ROINode):

    fill = -numpy.inf

    def __init__(self, outsize: ShapeSpec, spatial_scale: float) -> None:
        self.outh, self.outw = _roi.check_outsize('roi_max_pooling_2d', outsize)
        self.spatial_scale = _roi.check_spatial_scale('roi_max_pooling_2d', spatial_scale)

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_types_with_indices(in_types, same_dtype=True)

    def build(self, x: numpy.ndarray, rois: numpy.ndarray,
              roi_indices: numpy.ndarray) -> tuple[Any, numpy.ndarray, tuple[int, ...]]:
        return pixel_map(self, x, rois, roi_indices, 'roi_max_pooling_2d', 'max')


def pixel_map(node: _roi.ROINode, x: numpy.ndarray, rois: numpy.ndarray, roi_indices: numpy.ndarray,
              name: str, mode: str) -> tuple[Any, numpy.ndarray, tuple[int, ...]]:
    """The map of :func:`roi_max_pooling_2d` or :func:`roi_average_pooling_2d`."""
    _roi.check_indices(name, roi_indices, x.shape[0])
    corners = numpy.rint(rois * node.spatial_scale).astype(numpy.intp)
    builder = _roi.MapBuilder(x, len(rois), node.outh, node.outw)
    h, w = x.shape[2:]
    for r, (ymin, xmin, ymax, xmax) in enumerate(corners):
        b = int(roi_indices[r])
        for ph, pw, cols, weights in _roi.pixel_bins(
                ymin, xmin, ymax, xmax, node.outh, node.outw, h, w, 0):
            if mode == 'max':
                builder.max(r, b, ph, pw, cols, weights)
            elif cols is not None:
                builder.mean(r, b, ph, pw, cols, weights, len(cols))
    return builder.matrix(), builder.empty, builder.shape


def roi_max_pooling_2d(x: VariableOrArray, rois: VariableOrArray, roi_indices: VariableOrArray,
                       outsize: ShapeSpec, spatial_scale: float) -> Variable:
    """Region of interest (ROI) max pooling, with the batch indices given apart.

    Each region is scaled by ``spatial_scale`` and rounded to whole pixels (half to even);
    it spans ``y_max - y_min`` rows and ``x_max - x_min`` columns (at least 1), split into
    ``outh x outw`` bins whose edges are floored / ceiled to pixels and clipped to the
    image. Each output is the maximum of its bin, channel by channel; a bin outside the
    image gives ``-inf``. The gradient goes to each bin's maximum (the first on ties); the
    regions get none.

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``.
        rois: An array or Variable of shape ``(r, 4)`` of the dtype of ``x``, each row
            ``(y_min, x_min, y_max, x_max)`` in input coordinates.
        roi_indices: An integer array of shape ``(r,)``: the image of ``x`` of each region.
        outsize: ``(outh, outw)``, or an int for both.
        spatial_scale: The factor from ``rois``' coordinates to ``x``'s pixels.

    Returns:
        A Variable of shape ``(r, c, outh, outw)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0., 0., 2., 4.]])
        >>> F.roi_max_pooling_2d(x, rois, np.array([0], np.int32), (1, 2), 1.0).array
        array([[[[5., 7.]]]])
    """
    return ROIMaxPooling2D(outsize, spatial_scale).apply((x, rois, roi_indices))[0]
