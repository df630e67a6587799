"""ROIAlign with averaging: bilinear samples of each bin, averaged."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy

from chainlite.functions.pooling import _pooling
from chainlite.functions.pooling import _roi

# Chainer's helper of this module: an int or a pair as a pair.
_pair = _pooling.pair

if TYPE_CHECKING:
    from chainlite.types import ShapeSpec, VariableOrArray
    from chainlite.variable import Variable


def _get_bounds(p: float, limit: int) -> tuple[Any, Any, Any]:
    # A sample coordinate clamped into the image and its two neighbouring pixels;
    # (None, None, None) when it lies outside [-1, limit].
    bounds = _roi._bounds(p, limit)
    return (None, None, None) if bounds is None else bounds


def _get_bilinear_interp_params(y: Any, x: Any, y_low: Any, x_low: Any, y_high: Any,
                                x_high: Any) -> tuple[Any, Any, Any, Any]:
    # The weights of the four neighbours (low/low, low/high, high/low, high/high in (y, x))
    # of the point (y, x) in bilinear interpolation.
    ly, lx = y - y_low, x - x_low
    hy, hx = y_high - y, x_high - x
    return hy * hx, hy * lx, ly * hx, ly * lx


class ROIAverageAlign2D(_roi.ROINode):

    def __init__(self, outsize: ShapeSpec, spatial_scale: float,
                 sampling_ratio: int | Sequence[int | None] | None = None) -> None:
        name = 'roi_average_align_2d'
        self.outh, self.outw = _roi.check_outsize(name, outsize)
        self.spatial_scale = _roi.check_spatial_scale(name, spatial_scale)
        self.sampling_ratio = _roi.check_sampling_ratio(name, sampling_ratio)

    def check_type_forward(self, in_types: Any) -> None:
        _roi.check_types_with_indices(in_types, same_dtype=False)

    def build(self, x: numpy.ndarray, rois: numpy.ndarray,
              roi_indices: numpy.ndarray) -> tuple[Any, numpy.ndarray, tuple[int, ...]]:
        return align_map(self, x, rois, roi_indices, 'roi_average_align_2d', 'mean')


def align_map(node: _roi.ROINode, x: numpy.ndarray, rois: numpy.ndarray, roi_indices: numpy.ndarray,
              name: str, mode: str) -> tuple[Any, numpy.ndarray, tuple[int, ...]]:
    """The map of :func:`roi_average_align_2d` or :func:`roi_max_align_2d`."""
    _roi.check_indices(name, roi_indices, x.shape[0])
    scaled = rois.astype(numpy.float64) * node.spatial_scale
    builder = _roi.MapBuilder(x, len(rois), node.outh, node.outw)
    h, w = x.shape[2:]
    for r, roi in enumerate(scaled):
        b = int(roi_indices[r])
        for ph, pw, cols, weights, count in _roi.align_bins(
                roi, node.outh, node.outw, h, w, node.sampling_ratio):
            if mode == 'max':
                builder.max(r, b, ph, pw, cols, weights)
            else:
                builder.mean(r, b, ph, pw, cols, weights, count)
    return builder.matrix(), builder.empty, builder.shape


def roi_average_align_2d(x: VariableOrArray, rois: VariableOrArray, roi_indices: VariableOrArray,
                         outsize: ShapeSpec, spatial_scale: float,
                         sampling_ratio: int | Sequence[int | None] | None = None) -> Variable:
    """ROIAlign (Mask R-CNN) with averaging: the mean of bilinear samples of every bin.

    Each region, scaled by ``spatial_scale`` (not rounded), is at least 1 pixel high and
    wide and is split into ``outh x outw`` equal bins. Every bin is sampled on a regular
    ``ratio_h x ratio_w`` grid at the cells' centres, each sample interpolated bilinearly
    (pixel centres at integer coordinates; a sample up to one pixel outside the image is
    clamped to the border, one further out counts as 0), and the samples are averaged over
    the whole grid. The regions get no gradient.

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
        >>> F.roi_average_align_2d(x, rois, np.array([0], np.int32), 1, 1.0, 2).array
        array([[[[7.5]]]])
    """
    node = ROIAverageAlign2D(outsize, spatial_scale, sampling_ratio)
    return node.apply((x, rois, roi_indices))[0]
