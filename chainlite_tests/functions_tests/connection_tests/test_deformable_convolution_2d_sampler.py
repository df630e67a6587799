"""deformable_convolution_2d_sampler: zero offsets give convolution_2d, nonzero offsets a loop
of bilinear reads; gradients (offsets too) to 2nd order."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients


def _bilinear(img, y, x):
    # img (c, h, w) read at (y, x), zero outside.
    c, h, w = img.shape
    y0, x0 = int(numpy.floor(y)), int(numpy.floor(x))
    out = numpy.zeros(c)
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                out += img[:, yy, xx] * wy * wx
    return out


def _expected(x, offset, W, b, stride, pad):
    n, c, h, w = x.shape
    out_c, _, kh, kw = W.shape
    out_h, out_w = offset.shape[2:]
    xp = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    y = numpy.zeros((n, out_c, out_h, out_w))
    for bi in range(n):
        for i in range(out_h):
            for j in range(out_w):
                for p in range(kh):
                    for q in range(kw):
                        k = p * kw + q
                        yy = i * stride + p + offset[bi, kh * kw + k, i, j]
                        xx = j * stride + q + offset[bi, k, i, j]
                        y[bi, :, i, j] += W[:, :, p, q] @ _bilinear(xp[bi], yy, xx)
    return y if b is None else y + b[None, :, None, None]


def _inputs(stride=1, pad=0, scale=0.6, dtype=numpy.float64):
    rng = numpy.random.RandomState(0)
    x = rng.randn(2, 2, 5, 4)
    W = rng.randn(3, 2, 2, 2)
    b = rng.randn(3)
    out_h = (5 + 2 * pad - 2) // stride + 1
    out_w = (4 + 2 * pad - 2) // stride + 1
    # +0.11 keeps the taps off integer positions, where bilinear interpolation has kinks.
    offset = rng.uniform(-scale, scale, (2, 8, out_h, out_w)) + 0.11
    return tuple(a.astype(dtype) for a in (x, offset, W, b))


@pytest.mark.parametrize('stride, pad', [(1, 0), (2, 1), (1, 1)])
def test_forward_against_loop(stride, pad):
    x, offset, W, b = _inputs(stride, pad)
    y = F.deformable_convolution_2d_sampler(x, offset, W, b, stride, pad)
    numpy.testing.assert_allclose(y.array, _expected(x, offset, W, b, stride, pad),
                                  rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_zero_offsets_are_a_convolution(dtype):
    x, offset, W, b = _inputs(2, 1, dtype=dtype)
    y = F.deformable_convolution_2d_sampler(x, numpy.zeros_like(offset), W, b, 2, 1)
    assert y.dtype == dtype
    tol = 3e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(y.array, F.convolution_2d(x, W, b, 2, 1).array,
                                  rtol=tol, atol=tol)


def test_gradients():
    x, offset, W, b = _inputs(2, 1, scale=0.3)
    gradients.check_grads(
        lambda *a: F.deformable_convolution_2d_sampler(*a, stride=2, pad=1),
        (x, offset, W, b))


def test_gradients_without_bias():
    x, offset, W, _ = _inputs(scale=0.3)
    gradients.check_grads(F.deformable_convolution_2d_sampler, (x, offset, W), order=1)


def test_offset_channels_must_match_the_filter():
    x, offset, W, b = _inputs()
    with pytest.raises(ValueError, match='offset'):
        F.deformable_convolution_2d_sampler(x, offset[:, :6], W, b)
    with pytest.raises(chainlite.utils.type_check.InvalidType):
        F.deformable_convolution_2d_sampler(x, offset.astype(numpy.float32), W, b)
