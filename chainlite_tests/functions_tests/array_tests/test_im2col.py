"""F.im2col: patches against a per-position loop, with stride, pad, cover_all and dilate."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.im2col import im2col
from chainlite.utils import type_check

# (input shape, keyword arguments)
CASES = [
    ((2, 3, 4, 5), dict(ksize=2)),
    ((1, 2, 5, 6), dict(ksize=(2, 3), stride=(2, 1), pad=(1, 2))),
    ((2, 1, 5, 4), dict(ksize=3, stride=2, cover_all=True)),
    ((1, 2, 6, 7), dict(ksize=2, stride=3, pad=1, dilate=2, cover_all=True)),
    ((1, 1, 5, 5), dict(ksize=(3, 2), dilate=(1, 2))),
    ((2, 2, 3, 3), dict(ksize=1)),
    ((1, 2, 2, 3), dict(ksize=3, pad=1, stride=4)),
    ((1, 1, 3, 3), dict(ksize=[3, 3])),
]
IDS = ['k2', 'k23 s21 p12', 'cover_all', 'dilate cover_all', 'dilate pair', 'k1', 'big stride',
       'list ksize']
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _outsize(size, k, s, p, cover_all, d):
    # Chainer's documented output size.
    dk = k + (k - 1) * (d - 1)
    return (size + 2 * p - dk + (s - 1 if cover_all else 0)) // s + 1


def _reference(x, ksize, stride=1, pad=0, cover_all=False, dilate=1):
    (kh, kw), (sy, sx), (ph, pw), (dy, dx) = map(_pair, (ksize, stride, pad, dilate))
    n, c, h, w = x.shape
    out_h = _outsize(h, kh, sy, ph, cover_all, dy)
    out_w = _outsize(w, kw, sx, pw, cover_all, dx)
    y = numpy.zeros((n, c, kh, kw, out_h, out_w), x.dtype)
    for i in range(kh):
        for j in range(kw):
            for oy in range(out_h):
                for ox in range(out_w):
                    r, q = oy * sy + i * dy - ph, ox * sx + j * dx - pw
                    if 0 <= r < h and 0 <= q < w:
                        y[:, :, i, j, oy, ox] = x[:, :, r, q]
    return y.reshape(n, c * kh * kw, out_h, out_w)


def _uniform(shape, dtype=numpy.float64, seed=0):
    # im2col is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, kwargs', CASES, ids=IDS)
def test_forward(shape, kwargs, dtype):
    x = _uniform(shape, dtype)
    y = im2col(chainlite.Variable(x), **kwargs)
    expected = _reference(x, **kwargs)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)  # a copy of entries: exact


@pytest.mark.parametrize('shape, kwargs', CASES, ids=IDS)
def test_backward(shape, kwargs):
    x = _uniform(shape)
    gy = _uniform(_reference(x, **kwargs).shape, seed=1)
    gradient_check.check_backward(lambda x: im2col(x, **kwargs), (x,), (gy,))


@pytest.mark.parametrize('shape, kwargs', CASES, ids=IDS)
def test_double_backward(shape, kwargs):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(_reference(x, **kwargs).shape, seed=1)
    gradient_check.check_double_backward(lambda x: im2col(x, **kwargs), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: im2col(x * x, **kwargs), (x,), (gy,),
                                         (ggx,))


def test_gradient_counts_the_windows_covering_each_pixel():
    x = chainlite.Variable(numpy.zeros((1, 1, 3, 3)))
    y = im2col(x, 2)
    y.grad = numpy.ones(y.shape)
    y.backward()
    numpy.testing.assert_array_equal(x.grad[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_padding_and_uncovered_pixels_get_no_gradient():
    # 4 rows, window 2, stride 3: row 3 is read only by a cover_all window.
    x = chainlite.Variable(numpy.zeros((1, 1, 4, 1)))
    for cover_all, expected in ((False, [1, 1, 0, 0]), (True, [1, 1, 0, 1])):
        x.cleargrad()
        y = im2col(x, (2, 1), stride=(3, 1), cover_all=cover_all)
        y.grad = numpy.ones(y.shape)
        y.backward()
        numpy.testing.assert_array_equal(x.grad[0, 0, :, 0], expected)


def test_output_is_a_new_array():
    x = _uniform((1, 2, 3, 3))
    y = im2col(x, 1)
    assert not numpy.shares_memory(y.array, x)
    y.array[...] = 0  # writeable


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((1, 2, 4, 4), numpy.float32))
    y = im2col(x, 3, pad=1)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    x = _uniform((1, 1, 3, 3))
    y = im2col(x, 2)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, _reference(x, 2))


@pytest.mark.parametrize('x, kwargs', [
    (numpy.zeros((1, 3, 3)), dict(ksize=2)),
    (numpy.zeros((1, 1, 3, 3), numpy.int32), dict(ksize=2)),
    (numpy.zeros((1, 1, 2, 5)), dict(ksize=3)),
    (numpy.zeros((1, 1, 5, 4)), dict(ksize=3, dilate=2)),
], ids=['3-d', 'int', 'window taller than image', 'dilated window too wide'])
def test_invalid_input_is_invalid_type(x, kwargs):
    msg = re.escape('Invalid operation is performed in: Im2Col (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        im2col(x, **kwargs)


@pytest.mark.parametrize('kwargs', [dict(ksize=0), dict(ksize=2, stride=0),
                                    dict(ksize=2, pad=-1), dict(ksize=2, dilate=(1, 0)),
                                    dict(ksize=(1, 2, 3))])
def test_bad_parameters_are_value_errors(kwargs):
    with pytest.raises(ValueError, match='im2col'):
        im2col(numpy.zeros((1, 1, 4, 4)), **kwargs)
