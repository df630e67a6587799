"""unpooling_2d: windows, strides, padding, outsize, cover_all, gradients, dtypes, errors."""
import itertools
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlite.functions.pooling.unpooling_2d import unpooling_2d
from chainlite.utils import type_check

# (input shape, ksize, stride, pad, outsize, cover_all)
CASES = [
    ((2, 3, 3, 4), 2, None, 0, None, False),          # plain 2x upsampling
    ((2, 3, 3, 4), 2, None, 0, None, True),           # cover_all: the last row/column cut
    ((1, 2, 3, 3), 3, 2, 1, None, False),             # overlapping windows add up
    ((1, 2, 3, 3), 3, 2, 1, (5, 4), True),
    ((1, 2, 3, 4), 2, None, 0, (7, 8), False),        # an outsize with a zero margin
    ((1, 2, 2, 3), (2, 3), (1, 2), (1, 0), None, True),
    ((1, 1, 2, 2), 6, None, 1, None, False),          # large tiling windows with padding
    ((1, 1, 3, 2), 6, 2, 0, None, True),              # large overlapping windows
]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Unpooling is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _out_size(d, k, s, p, cover_all):
    return s * (d - 1) + k - 2 * p - (s - 1 if cover_all else 0)


def _reference(x, ksize, stride, pad, outsize, cover_all):
    # One input pixel at a time, added over its window of a padded canvas.
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = (kh, kw) if stride is None else _pair(stride)
    n, c, h, w = x.shape
    oh, ow = outsize or (_out_size(h, kh, sy, ph, cover_all), _out_size(w, kw, sx, pw, cover_all))
    canvas = numpy.zeros((n, c, (h - 1) * sy + kh + oh, (w - 1) * sx + kw + ow))
    for i, j in itertools.product(range(h), range(w)):
        canvas[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw] += x[:, :, i:i + 1, j:j + 1]
    return canvas[:, :, ph:ph + oh, pw:pw + ow]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, ksize, stride, pad, outsize, cover_all', CASES)
def test_forward(shape, ksize, stride, pad, outsize, cover_all, dtype):
    x = _uniform(shape, dtype)
    y = unpooling_2d(chainlite.Variable(x), ksize, stride, pad, outsize, cover_all)
    expected = _reference(x.astype(numpy.float64), ksize, stride, pad, outsize, cover_all)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    # At most a few float16 values add up per output pixel.
    tol = 5e-3 if dtype == numpy.float16 else 1e-6
    numpy.testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


@pytest.mark.parametrize('shape, ksize, stride, pad, outsize, cover_all', CASES)
def test_backward(shape, ksize, stride, pad, outsize, cover_all):
    x = _uniform(shape)
    gy = _uniform(_reference(x, ksize, stride, pad, outsize, cover_all).shape, seed=1)
    gradient_check.check_backward(
        lambda x: unpooling_2d(x, ksize, stride, pad, outsize, cover_all), (x,), (gy,))


@pytest.mark.parametrize('shape, ksize, stride, pad, outsize, cover_all', CASES)
def test_double_backward(shape, ksize, stride, pad, outsize, cover_all):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(_reference(x, ksize, stride, pad, outsize, cover_all).shape, seed=1)
    gradient_check.check_double_backward(
        lambda x: unpooling_2d(x * x, ksize, stride, pad, outsize, cover_all), (x,), (gy,),
        (ggx,))


@pytest.mark.parametrize('cover_all', [False, True])
def test_pooling_the_output_gives_back_the_input_shape(cover_all):
    x = _uniform((1, 2, 5, 3))
    y = unpooling_2d(x, 3, 2, 1, cover_all=cover_all)
    assert max_pooling_2d(y, 3, 2, 1, cover_all=cover_all).shape == x.shape


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept_in_forward_and_backward(dtype):
    x = chainlite.Variable(_uniform((2, 3, 3, 3), dtype))
    y = unpooling_2d(x, 3, 2, 1)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input_and_keywords():
    x = _uniform((2, 3, 2, 2))
    y = unpooling_2d(x, ksize=2, stride=2, pad=0, outsize=(4, 4), cover_all=False)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x.repeat(2, axis=2).repeat(2, axis=3))


_MSG = re.escape('Invalid operation is performed in: Unpooling2D (Forward)')


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        unpooling_2d(numpy.ones((1, 1, 2, 2), dtype), 2)


@pytest.mark.parametrize('shape', [(2, 2), (1, 2, 2), (1, 1, 1, 2, 2)])
def test_wrong_ndim_is_invalid(shape):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        unpooling_2d(numpy.ones(shape), 2)


@pytest.mark.parametrize('outsize', [(6, 4), (4, 9)])
def test_outsize_that_does_not_pool_back_is_invalid(outsize):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        unpooling_2d(numpy.ones((1, 1, 2, 2)), 2, outsize=outsize, cover_all=False)


def test_empty_output_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        unpooling_2d(numpy.ones((1, 1, 1, 1)), 1, pad=1)


@pytest.mark.parametrize('kwargs', [{'ksize': 0}, {'ksize': 2, 'pad': -1},
                                    {'ksize': 2, 'outsize': (4, 4, 4)}])
def test_bad_arguments_are_value_errors(kwargs):
    with pytest.raises(ValueError, match='Unpooling2D'):
        unpooling_2d(numpy.ones((1, 1, 2, 2)), **kwargs)
