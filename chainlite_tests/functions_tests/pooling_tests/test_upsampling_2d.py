"""upsampling_2d: placement by index, outsize, cover_all, gradients, dtypes, errors."""
import itertools
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlite.functions.pooling.upsampling_2d import upsampling_2d
from chainlite.utils import type_check

# (input shape, ksize, stride, pad, outsize, cover_all)
CASES = [
    ((2, 3, 3, 4), 2, None, 0, None, False),
    ((2, 3, 3, 4), 2, None, 0, None, True),
    ((2, 3, 3, 4), 2, None, 0, (5, 7), True),
    ((1, 2, 3, 3), 3, 2, 1, None, False),             # overlapping windows add up
    ((1, 2, 3, 3), 3, 2, 1, (5, 4), True),
    ((1, 2, 2, 3), (2, 3), (1, 2), (1, 0), None, True),
    ((1, 1, 2, 2), 6, None, 1, None, False),          # large tiling windows with padding
    ((1, 1, 3, 2), 6, 2, 0, None, True),              # large overlapping windows
]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Upsampling is linear in x: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _indexes(shape, ksize, seed=3):
    kh, kw = _pair(ksize)
    return numpy.random.RandomState(seed).randint(0, kh * kw, shape)


def _out_size(d, k, s, p, cover_all):
    return s * (d - 1) + k - 2 * p - (s - 1 if cover_all else 0)


def _reference(x, indexes, ksize, stride, pad, outsize, cover_all):
    # One input pixel at a time, added at its index inside its window of a padded canvas.
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = (kh, kw) if stride is None else _pair(stride)
    n, c, h, w = x.shape
    oh, ow = outsize or (_out_size(h, kh, sy, ph, cover_all), _out_size(w, kw, sx, pw, cover_all))
    canvas = numpy.zeros((n, c, (h - 1) * sy + kh + oh, (w - 1) * sx + kw + ow))
    for b, ch, i, j in itertools.product(range(n), range(c), range(h), range(w)):
        di, dj = divmod(int(indexes[b, ch, i, j]), kw)
        canvas[b, ch, i * sy + di, j * sx + dj] += x[b, ch, i, j]
    return canvas[:, :, ph:ph + oh, pw:pw + ow]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, ksize, stride, pad, outsize, cover_all', CASES)
def test_forward(shape, ksize, stride, pad, outsize, cover_all, dtype):
    x, indexes = _uniform(shape, dtype), _indexes(shape, ksize)
    y = upsampling_2d(chainlite.Variable(x), indexes, ksize, stride, pad, outsize, cover_all)
    expected = _reference(x.astype(numpy.float64), indexes, ksize, stride, pad, outsize,
                          cover_all)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    tol = 5e-3 if dtype == numpy.float16 else 1e-6
    numpy.testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)


@pytest.mark.parametrize('shape, ksize, stride, pad, outsize, cover_all', CASES)
def test_backward(shape, ksize, stride, pad, outsize, cover_all):
    x, indexes = _uniform(shape), _indexes(shape, ksize)
    gy = _uniform(_reference(x, indexes, ksize, stride, pad, outsize, cover_all).shape, seed=1)
    gradient_check.check_backward(
        lambda x: upsampling_2d(x, indexes, ksize, stride, pad, outsize, cover_all), (x,),
        (gy,))


@pytest.mark.parametrize('shape, ksize, stride, pad, outsize, cover_all', CASES)
def test_double_backward(shape, ksize, stride, pad, outsize, cover_all):
    x, indexes, ggx = _uniform(shape), _indexes(shape, ksize), _uniform(shape, seed=2)
    gy = _uniform(_reference(x, indexes, ksize, stride, pad, outsize, cover_all).shape, seed=1)
    gradient_check.check_double_backward(
        lambda x: upsampling_2d(x * x, indexes, ksize, stride, pad, outsize, cover_all), (x,),
        (gy,), (ggx,))


# Windows that do not overlap, so each maximum is put back exactly once.
@pytest.mark.parametrize('ksize, stride, pad', [(2, None, 0), (3, None, 1), ((2, 3), (2, 3), 0)])
def test_undoes_max_pooling(ksize, stride, pad):
    x = numpy.random.RandomState(0).permutation(6 * 7).reshape(1, 1, 6, 7).astype(numpy.float32)
    y, indexes = max_pooling_2d(x, ksize, stride, pad, return_indices=True)
    up = upsampling_2d(y, indexes, ksize, stride, pad, outsize=x.shape[2:])
    assert up.shape == x.shape
    # Each window maximum is back in its place.
    kept = up.array != 0
    numpy.testing.assert_array_equal(up.array[kept], x[kept])
    assert kept.sum() == len(numpy.unique(y.array))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept_in_forward_and_backward(dtype):
    x = chainlite.Variable(_uniform((2, 3, 3, 3), dtype))
    y = upsampling_2d(x, _indexes((2, 3, 3, 3), 3), 3, 2, 1)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input_and_keywords():
    x = _uniform((1, 1, 2, 2))
    y = upsampling_2d(x, numpy.array([[[[0, 1], [2, 3]]]]), ksize=2, stride=2, pad=0,
                      outsize=(4, 4), cover_all=False)
    assert isinstance(y, chainlite.Variable)
    expected = numpy.zeros((1, 1, 4, 4))
    expected[0, 0, [0, 0, 3, 3], [0, 3, 0, 3]] = x.ravel()
    numpy.testing.assert_array_equal(y.array, expected)


_MSG = re.escape('Invalid operation is performed in: Upsampling2D (Forward)')


def test_non_float_input_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        upsampling_2d(numpy.ones((1, 1, 2, 2), numpy.int32), numpy.zeros((1, 1, 2, 2), int), 2)


def test_float_indexes_are_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        upsampling_2d(numpy.ones((1, 1, 2, 2)), numpy.zeros((1, 1, 2, 2)), 2)


def test_indexes_of_another_shape_are_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        upsampling_2d(numpy.ones((1, 1, 2, 2)), numpy.zeros((1, 1, 2, 3), int), 2)


@pytest.mark.parametrize('shape', [(2, 2), (1, 1, 1, 2, 2)])
def test_wrong_ndim_is_invalid(shape):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        upsampling_2d(numpy.ones(shape), numpy.zeros(shape, int), 2)


def test_outsize_that_does_not_pool_back_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        upsampling_2d(numpy.ones((1, 1, 2, 2)), numpy.zeros((1, 1, 2, 2), int), 2,
                      outsize=(6, 4), cover_all=False)


@pytest.mark.parametrize('value', [-1, 4])
def test_indexes_out_of_the_window_are_value_errors(value):
    with pytest.raises(ValueError, match='Upsampling2D'):
        upsampling_2d(numpy.ones((1, 1, 1, 1)), numpy.full((1, 1, 1, 1), value), 2)
