"""Fast R-CNN's ROI pooling with ``(batch_index, x_min, y_min, x_max, y_max)`` regions."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.backends import cuda
from chainlite.functions.array import reshape
from chainlite.functions.pooling import _roi
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.types import VariableOrArray
    from chainlite.variable import Variable


def _roi_pooling_slice(size: int, stride: float, max_size: int,
                       roi_offset: int) -> tuple[slice, int]:
    # The pixels of output bin `size` along one axis of a region starting at roi_offset,
    # `stride` pixels a bin, clipped to [0, max_size): the slice and its length.
    start = int(numpy.floor(size * stride))
    end = int(numpy.ceil((size + 1) * stride))
    start = min(max(start + roi_offset, 0), max_size)
    end = min(max(end + roi_offset, 0), max_size)
    return slice(start, end), end - start


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


class ROIPooling2DGrad(function_node.FunctionNode):
    """The input gradient of ROI max pooling as Chainer's node, applied to ``(rois, gy)``.

    Each output's gradient goes to the pixel ``argmax_data`` names (a flat ``y * width +
    x`` index per region, channel and bin, as Chainer's forward records it); bins that
    cover no pixel send nothing. Linear in ``gy``, so differentiable again.

    Args:
        outh: The output height.
        outw: The output width.
        spatial_scale: The scale from the ROI coordinates to the input's.
        bottom_data_shape: The input's shape ``(n, c, h, w)``.
        argmax_data: The ``int32`` argmax of each output, ``(n_rois, c, outh, outw)``.
    """

    def __init__(self, outh: int, outw: int, spatial_scale: float,
                 bottom_data_shape: tuple[int, ...], argmax_data: numpy.ndarray) -> None:
        self.outh, self.outw = outh, outw
        self.spatial_scale = spatial_scale
        self._bottom_data_shape = bottom_data_shape
        self.argmax_data = argmax_data

    def _targets(self, rois):
        # For each output: its flat index into the input, and whether its bin is non-empty.
        n, c, h, w = self._bottom_data_shape
        xp = backend.get_array_module(self.argmax_data)
        rois = cuda.to_cpu(rois)  # the regions' geometry is walked on the host (small)
        valid = numpy.zeros((len(rois), 1, self.outh, self.outw), bool)
        for r, (_, xmin, ymin, xmax, ymax) in enumerate(rois):
            xmin, xmax, ymin, ymax = (int(round(float(v) * self.spatial_scale))
                                      for v in (xmin, xmax, ymin, ymax))
            sh = max(ymax - ymin + 1, 1) / self.outh
            sw = max(xmax - xmin + 1, 1) / self.outw
            rows = [_roi_pooling_slice(i, sh, h, ymin)[1] > 0 for i in range(self.outh)]
            cols = [_roi_pooling_slice(j, sw, w, xmin)[1] > 0 for j in range(self.outw)]
            valid[r, 0] = numpy.outer(rows, cols)
        batch = rois[:, 0].astype(numpy.intp)[:, None, None, None]
        channel = numpy.arange(c)[None, :, None, None]
        flat = xp.asarray((batch * c + channel) * (h * w)) + self.argmax_data
        valid = numpy.broadcast_to(valid, self.argmax_data.shape)
        return flat, valid if xp is numpy else xp.asarray(numpy.ascontiguousarray(valid))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        self.retain_inputs((0,))
        rois, gy = inputs
        flat, valid = self._targets(rois)
        xp = backend.get_array_module(gy)
        gx = xp.zeros(int(numpy.prod(self._bottom_data_shape)), rois.dtype)
        xp.add.at(gx, flat[valid], gy[valid])
        return gx.reshape(self._bottom_data_shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        rois, = self.get_retained_inputs()
        gg, = grad_outputs
        flat, valid = self._targets(rois.array)
        picked = reshape.reshape(gg, (-1,))[numpy.where(valid, flat, 0)]
        return None, picked * valid.astype(gg.dtype)


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
