"""Shared machinery of the ROI poolings and aligns.

Every ROI op is, for fixed regions (and, for the max ops, fixed winners), a linear map from
``x`` to the output: each output element is a weighted sum of input elements. The forward
pass builds that map as a sparse matrix (bins of pixels or of bilinear samples, reduced by
a mean or by the maximum), applies it, and the gradients are the transposed map and the map
again, so double backprop comes for free. The regions get no gradient, as in Chainer.
"""
from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import numpy

from chainlite import backend
from chainlite import function_node
from chainlite.backends import cuda
from chainlite.utils import type_check

if TYPE_CHECKING:
    from chainlite.variable import Variable


def check_outsize(name, outsize):
    """``(outh, outw)`` from an int or a pair of positive ints, or a TypeError."""
    pair = tuple(outsize) if isinstance(outsize, (tuple, list)) else (outsize, outsize)
    if len(pair) != 2 or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) and int(v) > 0
            for v in pair):
        raise TypeError('{}: outsize must be a positive int or a pair of positive ints; got '
                        '{!r}'.format(name, outsize))
    return int(pair[0]), int(pair[1])


def check_spatial_scale(name, spatial_scale):
    """``spatial_scale`` as a positive float, or a TypeError."""
    if (isinstance(spatial_scale, bool) or not isinstance(spatial_scale, numbers.Real)
            or not float(spatial_scale) > 0):
        raise TypeError('{}: spatial_scale must be a positive number; got {!r}'.format(
            name, spatial_scale))
    return float(spatial_scale)


def check_sampling_ratio(name, sampling_ratio):
    """``(ratio_h, ratio_w)``, each a positive int or None, or a TypeError."""
    pair = (tuple(sampling_ratio) if isinstance(sampling_ratio, (tuple, list))
            else (sampling_ratio, sampling_ratio))
    if len(pair) != 2 or not all(
            v is None or (isinstance(v, numbers.Integral) and not isinstance(v, bool)
                          and int(v) >= 1) for v in pair):
        raise TypeError('{}: sampling_ratio must be None, an int >= 1 or a pair of them; got '
                        '{!r}'.format(name, sampling_ratio))
    return pair


def check_types_with_indices(in_types, same_dtype):
    """The type checks of ``(x, rois, roi_indices)`` with rois as ``(y_min, x_min, y_max,
    x_max)`` rows."""
    type_check._argname(in_types, ('x', 'rois', 'roi_indices'))
    x, rois, indices = in_types
    type_check.expect(x.dtype.kind == 'f', x.ndim == 4, rois.dtype.kind == 'f',
                      rois.ndim == 2, rois.shape[1] == 4, indices.dtype.kind == 'i',
                      indices.ndim == 1, rois.shape[0] == indices.shape[0])
    if same_dtype:
        type_check.expect(x.dtype == rois.dtype)


def check_indices(name, roi_indices, batch):
    if roi_indices.size and (roi_indices.min() < 0 or roi_indices.max() >= batch):
        raise IndexError('{}: roi_indices must lie in [0, {}) (the batch of x); got values '
                         'from {} to {}'.format(name, batch, int(roi_indices.min()),
                                                int(roi_indices.max())))


def pixel_bins(ymin, xmin, ymax, xmax, outh, outw, height, width, extra):
    """The pixels of every bin of an integer region, as in Fast R-CNN's ROI pooling.

    The region spans ``max(ymax - ymin + extra, 1)`` rows (and likewise columns), split into
    ``outh x outw`` bins with floor / ceil edges, clipped to the image. Yields
    ``(ph, pw, cols, weights)``: the flat indices ``y * width + x`` of the bin's pixels in
    row-major order, as ``(K, 1)`` samples of weight 1.
    """
    stride_h = max(ymax - ymin + extra, 1) / outh
    stride_w = max(xmax - xmin + extra, 1) / outw

    def edges(i, stride, offset, limit):
        start = min(max(math.floor(i * stride) + offset, 0), limit)
        end = min(max(math.ceil((i + 1) * stride) + offset, 0), limit)
        return start, end

    cols_w = [edges(pw, stride_w, xmin, width) for pw in range(outw)]
    for ph in range(outh):
        y0, y1 = edges(ph, stride_h, ymin, height)
        for pw in range(outw):
            x0, x1 = cols_w[pw]
            if y1 <= y0 or x1 <= x0:
                yield ph, pw, None, None
                continue
            cols = (numpy.arange(y0, y1)[:, None] * width + numpy.arange(x0, x1)).reshape(-1, 1)
            yield ph, pw, cols, numpy.ones(cols.shape)


def _bounds(p, limit):
    # A sample coordinate, its two neighbours, clamped as in ROIAlign; None outside.
    if p < -1 or p > limit:
        return None
    low = math.floor(p)
    if low == limit:
        low -= 1
    high = low + 1
    if low <= -1:
        p = 0.0
    elif high >= limit:
        p = float(limit - 1)
    return p, low, high


def align_bins(roi, outh, outw, height, width, sampling_ratio):
    """The bilinear samples of every bin of a real-valued region, as in ROIAlign.

    ``roi`` is ``(y_min, x_min, y_max, x_max)`` already scaled. Each bin holds a regular
    grid of ``ratio_h x ratio_w`` samples (by default ``ceil(bin size)`` along each axis) at
    the centres of its cells; a sample more than one pixel outside the image is dropped.
    Yields ``(ph, pw, cols, weights, count)`` with ``(K, 4)`` arrays of the four neighbours'
    flat indices and bilinear weights (0 for a neighbour outside the image), and the grid
    size ``count``.
    """
    y0, x0, y1, x1 = roi
    roi_h = max(y1 - y0, 1.0)
    roi_w = max(x1 - x0, 1.0)
    bin_h, bin_w = roi_h / outh, roi_w / outw
    grid_h = sampling_ratio[0] or int(math.ceil(roi_h / outh))
    grid_w = sampling_ratio[1] or int(math.ceil(roi_w / outw))
    for ph in range(outh):
        ys = [_bounds(y0 + ph * bin_h + (iy + 0.5) * bin_h / grid_h, height)
              for iy in range(grid_h)]
        for pw in range(outw):
            xs = [_bounds(x0 + pw * bin_w + (ix + 0.5) * bin_w / grid_w, width)
                  for ix in range(grid_w)]
            cols, weights = [], []
            for yb in ys:
                if yb is None:
                    continue
                y, ylo, yhi = yb
                for xb in xs:
                    if xb is None:
                        continue
                    x, xlo, xhi = xb
                    ly, lx, hy, hx = y - ylo, x - xlo, yhi - y, xhi - x
                    c, w = [], []
                    for yy, xx, ww in ((ylo, xlo, hy * hx), (ylo, xhi, hy * lx),
                                       (yhi, xlo, ly * hx), (yhi, xhi, ly * lx)):
                        ok = ww > 0 and 0 <= yy < height and 0 <= xx < width
                        c.append(yy * width + xx if ok else 0)
                        w.append(ww if ok else 0.0)
                    cols.append(c)
                    weights.append(w)
            if not cols:
                yield ph, pw, None, None, grid_h * grid_w
            else:
                yield (ph, pw, numpy.array(cols), numpy.array(weights, numpy.float64),
                       grid_h * grid_w)


class MapBuilder:
    """Collects the sparse map of one ROI op, bin by bin."""

    def __init__(self, x, n_rois, outh, outw):
        self.x = x
        self.n, self.c, self.h, self.w = x.shape
        self.shape = (n_rois, self.c, outh, outw)
        self.rows, self.cols, self.vals = [], [], []
        self.empty = numpy.zeros((n_rois, 1, outh, outw), bool)
        self._chan = numpy.arange(self.c)
        self._host_x = None

    def _row(self, r, ph, pw):
        _, c, oh, ow = self.shape
        return ((r * c + self._chan) * oh + ph) * ow + pw  # one row per channel

    def mean(self, r, b, ph, pw, cols, weights, divisor):
        """Output = the weighted sum of the samples' values over ``divisor``, per channel."""
        if cols is None:
            return
        cols, weights = cols.ravel(), weights.ravel() / divisor
        keep = weights != 0
        cols, weights = cols[keep], weights[keep]
        hw = self.h * self.w
        self.rows.append(numpy.repeat(self._row(r, ph, pw), cols.size))
        self.cols.append(((b * self.c + self._chan)[:, None] * hw + cols).ravel())
        self.vals.append(numpy.tile(weights, self.c))

    def max(self, r, b, ph, pw, cols, weights):
        """Output = the value of the largest sample (the first on ties), per channel."""
        if cols is None:
            self.empty[r, 0, ph, pw] = True
            return
        if self._host_x is None:
            # The winners are picked bin by bin on the host, from x's values: a GPU x is
            # copied to the host once per forward (the map itself is host data).
            self._host_x = cuda.to_cpu(self.x)
        plane = self._host_x[b].reshape(self.c, -1)
        values = (plane[:, cols] * weights).sum(axis=-1)  # (c, K)
        win = values.argmax(axis=1)
        cols, weights = cols[win], weights[win]           # (c, J)
        keep = weights != 0
        hw = self.h * self.w
        rows = numpy.broadcast_to(self._row(r, ph, pw)[:, None], cols.shape)
        flat = (b * self.c + self._chan)[:, None] * hw + cols
        self.rows.append(rows[keep])
        self.cols.append(flat[keep])
        self.vals.append(weights[keep])

    def matrix(self):
        from scipy import sparse  # imported on first use: `import chainlite` stays light
        size = int(numpy.prod(self.shape))
        if self.rows:
            rows, cols = numpy.concatenate(self.rows), numpy.concatenate(self.cols)
            vals = numpy.concatenate(self.vals)
        else:
            rows = cols = numpy.zeros(0, numpy.intp)
            vals = numpy.zeros(0)
        return LinearMap(sparse.csr_matrix((vals, (rows, cols)), shape=(size, self.x.size)))


class LinearMap:
    """The sparse map of a ROI op (a host CSR matrix), applied to NumPy or GPU arrays."""

    def __init__(self, csr):
        self.csr = csr
        self._device = None  # the map's (rows, cols, values) on the GPU, sent once

    @property
    def T(self):
        return LinearMap(self.csr.T.tocsr())

    def apply(self, array, shape):
        """``map @ array.ravel()`` in float64, reshaped to ``shape``, in array's dtype."""
        if array.__class__ is numpy.ndarray:
            out = self.csr @ array.reshape(-1).astype(numpy.float64, copy=False)
            return numpy.asarray(out).reshape(shape).astype(array.dtype, copy=False)
        xp = backend.get_array_module(array)
        if self._device is None:
            coo = self.csr.tocoo()
            self._device = (xp.asarray(coo.row.astype(numpy.intp)),
                            xp.asarray(coo.col.astype(numpy.intp)), xp.asarray(coo.data))
        rows, cols, vals = self._device
        out = xp.zeros(self.csr.shape[0], numpy.float64)
        xp.add.at(out, rows, vals * array.reshape(-1)[cols].astype(numpy.float64))
        return out.reshape(shape).astype(array.dtype, copy=False)


def apply_map(matrix, array, shape):
    return matrix.apply(array, shape)


class ROINode(function_node.FunctionNode):
    """Base of the ROI ops: ``build`` returns the map and the empty bins; the rest is here."""

    fill = 0.0  # the output of an empty bin in the max ops
    outh: int
    outw: int
    spatial_scale: float
    sampling_ratio: tuple[int | None, int | None]  # the ROIAlign ops only

    def build(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError('{}: ROINode subclasses define build'.format(self.label))

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x = inputs[0]
        self._x_shape = x.shape
        # The map is built on the host from the regions' geometry: GPU regions (small)
        # come to the host.
        regions = inputs[1:] if x.__class__ is numpy.ndarray else [
            cuda.to_cpu(a) for a in inputs[1:]]
        self._matrix, empty, shape = self.build(x, *regions)
        y = apply_map(self._matrix, x, shape)
        if self.fill != 0 and empty.any():
            mask = numpy.broadcast_to(empty, y.shape)
            y[mask if x.__class__ is numpy.ndarray else backend.get_array_module(x).asarray(
                numpy.ascontiguousarray(mask))] = self.fill
        return y,

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        gx, = _Transposed(self._matrix, self._x_shape).apply(grad_outputs)
        return (gx,) + (None,) * (len(in_nodes) - 1)


class _Linear(function_node.FunctionNode):
    # y = M x (the ROI op with its regions and winners fixed).

    def __init__(self, matrix, out_shape):
        self.matrix, self.out_shape = matrix, out_shape

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        x, = inputs
        return apply_map(self.matrix, x, self.out_shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        in_nodes = self.inputs
        assert in_nodes is not None
        x_shape = in_nodes[0].shape
        return _Transposed(self.matrix, x_shape).apply(grad_outputs)


class _Transposed(function_node.FunctionNode):
    # gx = M^T gy; its own gradient is M again.

    def __init__(self, matrix, x_shape):
        self.matrix, self.x_shape = matrix, x_shape

    def forward(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[numpy.ndarray, ...]:
        gy, = inputs
        self._gy_shape = gy.shape
        return apply_map(self.matrix.T, gy, self.x_shape),

    def backward(self, indexes: tuple[int, ...],
                 grad_outputs: tuple[Any, ...]) -> tuple[Variable | None, ...]:
        return _Linear(self.matrix, self._gy_shape).apply(grad_outputs)
