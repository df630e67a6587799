"""The ROI poolings and aligns: loop references, gradients, empty bins, dtypes, errors."""
import math

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
IDX = numpy.array([1, 0, 1], numpy.int32)
# (y_min, x_min, y_max, x_max) in input coordinates; spatial_scale 0.6 below
ROIS = numpy.array([[1.0, 2.0, 8.0, 9.0], [0.0, 0.0, 11.0, 6.0], [3.0, 4.0, 5.5, 5.0]])


def _distinct(shape, seed=0):
    n = int(numpy.prod(shape))
    return (numpy.random.RandomState(seed).permutation(n) * 0.05 - 0.025 * n).reshape(shape)


def _uniform(shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _pixel_reference(x, rois, indices, outh, outw, scale, extra, reduce, empty):
    out = numpy.full((len(rois), x.shape[1], outh, outw), empty)
    h, w = x.shape[2:]
    for r, roi in enumerate(rois):
        y0, x0, y1, x1 = (int(numpy.rint(v * scale)) for v in roi)
        bh = max(y1 - y0 + extra, 1) / outh
        bw = max(x1 - x0 + extra, 1) / outw
        for ph in range(outh):
            ys = [y for y in range(math.floor(ph * bh) + y0, math.ceil((ph + 1) * bh) + y0)
                  if 0 <= y < h]
            for pw in range(outw):
                xs = [q for q in range(math.floor(pw * bw) + x0,
                                       math.ceil((pw + 1) * bw) + x0) if 0 <= q < w]
                if ys and xs:
                    patch = x[indices[r]][:, ys][:, :, xs].reshape(x.shape[1], -1)
                    out[r, :, ph, pw] = reduce(patch, axis=1)
    return out


def _bilinear(plane, y, x):
    # One sample as ROIAlign takes it: None more than a pixel outside, clamped at the border.
    h, w = plane.shape[1:]
    if y < -1 or y > h or x < -1 or x > w:
        return None
    y, x = min(max(y, 0.0), h - 1.0), min(max(x, 0.0), w - 1.0)
    y0, x0 = int(y), int(x)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[:, y0, x0] + (1 - ly) * lx * plane[:, y0, x1]
            + ly * (1 - lx) * plane[:, y1, x0] + ly * lx * plane[:, y1, x1])


def _align_reference(x, rois, indices, outh, outw, scale, ratio, mode):
    out = numpy.zeros((len(rois), x.shape[1], outh, outw))
    for r, roi in enumerate(rois):
        y0, x0, y1, x1 = roi * scale
        rh, rw = max(y1 - y0, 1.0), max(x1 - x0, 1.0)
        gh = ratio or math.ceil(rh / outh)
        gw = ratio or math.ceil(rw / outw)
        for ph in range(outh):
            for pw in range(outw):
                samples = [_bilinear(x[indices[r]],
                                     y0 + (ph + (iy + 0.5) / gh) * rh / outh,
                                     x0 + (pw + (ix + 0.5) / gw) * rw / outw)
                           for iy in range(gh) for ix in range(gw)]
                samples = [s for s in samples if s is not None]
                if mode == 'mean':
                    out[r, :, ph, pw] = sum(samples) / (gh * gw) if samples else 0
                else:
                    out[r, :, ph, pw] = numpy.max(samples, axis=0) if samples else -numpy.inf
    return out


def _call(name, x, rois, indices, outsize, scale, ratio):
    if name == 'roi_pooling_2d':
        rois5 = numpy.concatenate([indices[:, None], rois[:, [1, 0, 3, 2]]], axis=1)
        return F.roi_pooling_2d(x, rois5.astype(rois.dtype), outsize[0], outsize[1], scale)
    if name.endswith('align_2d'):
        return getattr(F, name)(x, rois, indices, outsize, scale, ratio)
    return getattr(F, name)(x, rois, indices, outsize, scale)


def _reference(name, x, rois, indices, outsize, scale, ratio):
    outh, outw = outsize
    if name == 'roi_pooling_2d':
        return _pixel_reference(x, rois, indices, outh, outw, scale, 1, numpy.max, 0.0)
    if name == 'roi_max_pooling_2d':
        return _pixel_reference(x, rois, indices, outh, outw, scale, 0, numpy.max, -numpy.inf)
    if name == 'roi_average_pooling_2d':
        return _pixel_reference(x, rois, indices, outh, outw, scale, 0, numpy.mean, 0.0)
    mode = 'mean' if name == 'roi_average_align_2d' else 'max'
    return _align_reference(x, rois, indices, outh, outw, scale, ratio, mode)


NAMES = ['roi_pooling_2d', 'roi_max_pooling_2d', 'roi_average_pooling_2d',
         'roi_average_align_2d', 'roi_max_align_2d']
SETTINGS = [((3, 2), 0.6, None), ((2, 3), 0.6, 2), ((4, 4), 1.0, None)]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('outsize, scale, ratio', SETTINGS)
@pytest.mark.parametrize('name', NAMES)
def test_forward(name, outsize, scale, ratio, dtype):
    x = _distinct((2, 3, 7, 8)).astype(dtype)
    rois = ROIS.astype(dtype)
    y = _call(name, x, rois, IDX, outsize, scale, ratio)
    assert y.dtype == dtype and y.shape == (3, 3) + outsize
    expected = _reference(name, x.astype(numpy.float64), rois.astype(numpy.float64), IDX,
                          outsize, scale, ratio)
    tol = 2e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


@pytest.mark.parametrize('outsize, scale, ratio', SETTINGS[:2])  # no empty bins (-inf)
@pytest.mark.parametrize('name', NAMES)
def test_gradients(name, outsize, scale, ratio):
    x = _distinct((2, 3, 7, 8))
    y = _call(name, x, ROIS, IDX, outsize, scale, ratio)
    gy, ggx = _uniform(y.shape, 1), _uniform(x.shape, 2)
    fn = lambda x: _call(name, x, ROIS, IDX, outsize, scale, ratio)  # noqa: E731
    gradient_check.check_backward(fn, (x,), (gy,), eps=1e-4)
    gradient_check.check_double_backward(fn, (x,), (gy,), (ggx,), eps=1e-4)


@pytest.mark.parametrize('name, fill', [
    ('roi_pooling_2d', 0), ('roi_max_pooling_2d', -numpy.inf),
    ('roi_average_pooling_2d', 0), ('roi_average_align_2d', 0),
    ('roi_max_align_2d', -numpy.inf)])
def test_region_outside_the_image(name, fill):
    x = chainlite.Variable(_uniform((1, 2, 4, 4)))
    rois = numpy.array([[10.0, 10.0, 14.0, 14.0]])
    y = _call(name, x, rois, numpy.array([0], numpy.int32), (2, 2), 1.0, None)
    numpy.testing.assert_array_equal(y.array, numpy.full((1, 2, 2, 2), fill))
    F.sum(F.where(numpy.isfinite(y.array), y, numpy.zeros(y.shape))).backward()
    numpy.testing.assert_array_equal(x.grad, 0)


def test_rois_get_no_gradient():
    x = chainlite.Variable(_uniform((1, 1, 4, 4)))
    rois = chainlite.Variable(numpy.array([[0.0, 0.0, 3.0, 3.0]]))
    y = F.roi_average_align_2d(x, rois, numpy.array([0], numpy.int32), 2, 1.0)
    F.sum(y).backward()
    assert rois.grad is None and x.grad is not None


@pytest.mark.parametrize('name', NAMES[1:])
@pytest.mark.parametrize('outsize', [0, (2, 0), 1.5, (1, 2, 3)])
def test_bad_outsize(name, outsize):
    with pytest.raises(TypeError, match=name + ': outsize'):
        _call(name, numpy.zeros((1, 1, 4, 4)), ROIS[:1], IDX[:1], outsize, 1.0, None)


@pytest.mark.parametrize('name', NAMES[1:])
@pytest.mark.parametrize('scale', [0, -1.0, 'big'])
def test_bad_spatial_scale(name, scale):
    with pytest.raises(TypeError, match=name + ': spatial_scale'):
        _call(name, numpy.zeros((1, 1, 4, 4)), ROIS[:1], IDX[:1], (2, 2), scale, None)


@pytest.mark.parametrize('name', ['roi_average_align_2d', 'roi_max_align_2d'])
@pytest.mark.parametrize('ratio', [0, 1.5, (2, 0)])
def test_bad_sampling_ratio(name, ratio):
    with pytest.raises(TypeError, match=name + ': sampling_ratio'):
        _call(name, numpy.zeros((1, 1, 4, 4)), ROIS[:1], IDX[:1], (2, 2), 1.0, ratio)


@pytest.mark.parametrize('name', NAMES[1:])
def test_bad_types(name):
    x = numpy.zeros((1, 1, 4, 4))
    with pytest.raises(type_check.InvalidType):     # rois of the wrong width
        _call(name, x, numpy.zeros((1, 5)), IDX[:1], 2, 1.0, None)
    with pytest.raises(type_check.InvalidType):     # float indices
        _call(name, x, ROIS[:1], numpy.zeros(1), 2, 1.0, None)
    with pytest.raises(type_check.InvalidType):     # indices and rois disagree in number
        _call(name, x, ROIS[:2], IDX[:1], 2, 1.0, None)
    with pytest.raises(IndexError, match=name + ': roi_indices'):
        _call(name, x, ROIS[:1], numpy.array([3], numpy.int32), 2, 1.0, None)


def test_roi_pooling_2d_checks():
    x = numpy.zeros((1, 1, 4, 4))
    with pytest.raises(type_check.InvalidType):     # rois of another dtype
        F.roi_pooling_2d(x, numpy.zeros((1, 5), numpy.float32), 2, 2, 1.0)
    with pytest.raises(type_check.InvalidType):
        F.roi_pooling_2d(x, numpy.zeros((1, 4)), 2, 2, 1.0)
    with pytest.raises(IndexError, match='roi_pooling_2d: roi_indices'):
        F.roi_pooling_2d(x, numpy.array([[1.0, 0, 0, 1, 1]]), 2, 2, 1.0)
