"""ROIAlign with the maximum: the largest bilinear sample of each bin."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite.functions.pooling import _pooling
from chainlite.functions.pooling import _roi
from chainlite.functions.pooling import roi_average_align_2d

# Chainer's helper of this module: an int or a pair as a pair.
_pair = _pooling.pair

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


class ROIMaxAlign2D(_roi.ROINode):

    fill = -numpy.inf

    def __init__(self, outsize: ShapeSpec, spatial_scale: float,
                 sampling_ratio: int | Sequence[int | None] | None = None) -> None:
        name = 'roi_max_align_2d'
        self.outh, self.outw = _roi.check_outsize(name, outsize)
        self.spatial_scale = _roi.check_spatial_scale(name, spatial_scale)
        self.sampling_ratio = _roi.check_sampling_ratio(name, sampling_ratio)

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_types_with_indices(in_types, same_dtype=False)

    def build(self, x: numpy.ndarray, rois: numpy.ndarray,
              roi_indices: numpy.ndarray) -> tuple[Any, numpy.ndarray, tuple[int, ...]]:
        return roi_average_align_2d.align_map(
            self, x, rois, roi_indices, 'roi_max_align_2d', 'max')


def roi_max_align_2d(x: VariableOrArray, rois: VariableOrArray, roi_indices: VariableOrArray,
                     outsize: ShapeSpec, spatial_scale: float,
                     sampling_ratio: int | Sequence[int | None] | None = None) -> Variable:
    """ROIAlign (Mask R-CNN) with the maximum: the largest bilinear sample of every bin.

    The bins and samples are those of :func:`roi_average_align_2d`; each output is the
    largest sample of its bin, channel by channel (``-inf`` if every sample of the bin lies
    outside the image). The gradient goes through the winning sample's bilinear weights;
    the regions get none.

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``.
        rois: A float array or Variable of shape ``(r, 4)``, each row
            ``(y_min, x_min, y_max, x_max)`` in input coordinates.
        roi_indices: An integer array of shape ``(r,)``: the image of ``x`` of each region.
        outsize: ``(outh, outw)``, or an int for both.
        spatial_scale: The factor from ``rois``' coordinates to ``x``'s pixels.
        sampling_ratio: The sampling grid of a bin: an int, a pair ``(ratio_h, ratio_w)``,
            or None (or a None in the pair) for ``ceil`` of the bin's size along that axis.

    Returns:
        A Variable of shape ``(r, c, outh, outw)`` of the dtype of ``x``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0.5, 0.5, 2.5, 2.5]])
        >>> F.roi_max_align_2d(x, rois, np.array([0], np.int32), 1, 1.0, 2).array
        array([[[[10.]]]])
    """
    node = ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]
