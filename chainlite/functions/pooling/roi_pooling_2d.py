"""Fast R-CNN's ROI pooling with ``(batch_index, x_min, y_min, x_max, y_max)`` regions."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite.functions.pooling import _roi
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


class ROIPooling2D(_roi.ROINode):

    def __init__(self, outh: int, outw: int, spatial_scale: float) -> None:
        self.outh, self.outw = _roi.check_outsize('roi_pooling_2d', (outh, outw))
        self.spatial_scale = _roi.check_spatial_scale('roi_pooling_2d', spatial_scale)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'rois'))
        x, rois = in_types
        type_check.expect(x.dtype.kind == 'f', x.ndim == 4, x.dtype == rois.dtype,
                          rois.ndim == 2, rois.shape[1] == 5)

    def build(self, x: numpy.ndarray,
              rois: numpy.ndarray) -> tuple[Any, numpy.ndarray, tuple[int, ...]]:
        indices = rois[:, 0].astype(numpy.intp)
        _roi.check_indices('roi_pooling_2d', indices, x.shape[0])
        corners = numpy.rint(rois[:, 1:] * self.spatial_scale).astype(numpy.intp)
        builder = _roi.MapBuilder(x, len(rois), self.outh, self.outw)
        h, w = x.shape[2:]
        for r, (xmin, ymin, xmax, ymax) in enumerate(corners):
            for ph, pw, cols, weights in _roi.pixel_bins(
                    ymin, xmin, ymax, xmax, self.outh, self.outw, h, w, 1):
                builder.max(r, indices[r], ph, pw, cols, weights)
        return builder.matrix(), builder.empty, builder.shape


def roi_pooling_2d(x: VariableOrArray, rois: VariableOrArray, outh: int, outw: int,
                   spatial_scale: float) -> Variable:
    """Region of interest (ROI) max pooling of Fast R-CNN, with the batch index in the rois.

    Each region is scaled by ``spatial_scale`` and rounded to whole pixels (half to even);
    it spans ``x_max - x_min + 1`` columns and ``y_max - y_min + 1`` rows (at least 1), split
    into ``outh x outw`` bins whose edges are floored / ceiled to pixels and clipped to the
    image. Each output is the maximum of its bin, channel by channel; a bin outside the
    image gives 0. The gradient goes to each bin's maximum (the first on ties); the regions
    get none.

    Args:
        x: A float Variable or array of shape ``(n, c, h, w)``.
        rois: An array or Variable of shape ``(r, 5)`` of the dtype of ``x``, each row
            ``(batch_index, x_min, y_min, x_max, y_max)`` in input coordinates.
        outh: The height of each pooled region.
        outw: The width of each pooled region.
        spatial_scale: The factor from ``rois``' coordinates to ``x``'s pixels.

    Returns:
        A Variable of shape ``(r, c, outh, outw)``.

    Example:
        >>> import numpy as np
        >>> import chainlite.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> rois = np.array([[0., 0., 0., 3., 1.]])
        >>> F.roi_pooling_2d(x, rois, 1, 2, 1.0).array
        array([[[[5., 7.]]]])
    """
    return ROIPooling2D(outh, outw, spatial_scale).apply((x, rois))[0]
