"""ROI average pooling with ``(y_min, x_min, y_max, x_max)`` regions."""
from __future__ import annotations

import numpy

from typing import TYPE_CHECKING, Any

from chainlite.functions.pooling import _pooling
from chainlite.functions.pooling import _roi
from chainlite.functions.pooling import roi_max_pooling_2d

# Chainer's helper of this module: an int or a pair as a pair.
_pair = _pooling.pair

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


class ROIAveragePooling2D(_roi.ROINode):

    def __init__(self, outsize: ShapeSpec, spatial_scale: float) -> None:
        self.outh, self.outw = _roi.check_outsize('roi_average_pooling_2d', outsize)
        self.spatial_scale = _roi.check_spatial_scale('roi_average_pooling_2d', spatial_scale)

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_types_with_indices(in_types, same_dtype=True)

    def build(self, x: numpy.ndarray, rois: numpy.ndarray,
              roi_indices: numpy.ndarray) -> tuple[Any, numpy.ndarray, tuple[int, ...]]:
        return roi_max_pooling_2d.pixel_map(
            self, x, rois, roi_indices, 'roi_average_pooling_2d', 'mean')


def roi_average_pooling_2d(x: VariableOrArray, rois: VariableOrArray, roi_indices: VariableOrArray,
                           outsize: ShapeSpec, spatial_scale: float) -> Variable:
    """Region of interest (ROI) average pooling, with the batch indices given apart.

    The bins are those of :func:`roi_max_pooling_2d` (regions rounded to whole pixels,
    floor / ceil bin edges clipped to the image); each output is the mean of its bin,
    channel by channel, and 0 for a bin outside the image. The regions get no gradient.

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
        >>> F.roi_average_pooling_2d(x, rois, np.array([0], np.int32), (1, 2), 1.0).array
        array([[[[2.5, 4.5]]]])
    """
    return ROIAveragePooling2D(outsize, spatial_scale).apply((x, rois, roi_indices))[0]
