"""average_pooling_2d: windows, strides, padding, pad_value, gradients, dtypes, errors."""
import itertools
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.pooling.average_pooling_2d import average_pooling_2d
from chainlite.utils import type_check

# (input shape, ksize, stride, pad)
CASES = [
    ((2, 3, 6, 8), 2, None, 0),                   # non-overlapping, divisible
    ((2, 3, 7, 5), 2, None, 0),                   # the partial last window is dropped
    ((1, 2, 7, 6), 3, 2, 1),                      # overlapping windows with padding
    ((1, 2, 5, 6), (2, 3), (1, 2), (1, 0)),       # rectangular everything
    ((2, 1, 4, 4), 3, 1, 1),                      # stride 1, "same" size
    ((2, 2, 6, 6), 6, None, 0),                   # global pooling: a large window
    ((1, 2, 8, 7), 6, 2, 1),                      # large overlapping windows
    ((1, 1, 12, 10), 6, None, 1),                 # large tiling windows with padding
]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Averaging is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _reference(x, ksize, stride, pad, pad_value):
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = (kh, kw) if stride is None else _pair(stride)
    n, c, h, w = x.shape
    oh, ow = (h + 2 * ph - kh) // sy + 1, (w + 2 * pw - kw) // sx + 1
    padded = numpy.zeros((n, c, h + 2 * ph, w + 2 * pw))
    padded[:, :, ph:ph + h, pw:pw + w] = x
    inside = numpy.zeros((h + 2 * ph, w + 2 * pw))
    inside[ph:ph + h, pw:pw + w] = 1
    y = numpy.empty((n, c, oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        rows, cols = slice(i * sy, i * sy + kh), slice(j * sx, j * sx + kw)
        count = kh * kw if pad_value == 0 else inside[rows, cols].sum()
        y[:, :, i, j] = padded[:, :, rows, cols].sum(axis=(2, 3)) / count
    return y


@pytest.mark.parametrize('pad_value', [0, None])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, ksize, stride, pad', CASES)
def test_forward(shape, ksize, stride, pad, dtype, pad_value):
    x = _uniform(shape, dtype)
    y = average_pooling_2d(chainlite.Variable(x), ksize, stride, pad, pad_value)
    expected = _reference(x.astype(numpy.float64), ksize, stride, pad, pad_value)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('pad_value', [0, None])
@pytest.mark.parametrize('shape, ksize, stride, pad', CASES)
def test_backward(shape, ksize, stride, pad, pad_value):
    x = _uniform(shape)
    gy = _uniform(_reference(x, ksize, stride, pad, 0).shape, seed=1)
    gradient_check.check_backward(
        lambda x: average_pooling_2d(x, ksize, stride, pad, pad_value), (x,), (gy,))


@pytest.mark.parametrize('pad_value', [0, None])
@pytest.mark.parametrize('shape, ksize, stride, pad', CASES)
def test_double_backward(shape, ksize, stride, pad, pad_value):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(_reference(x, ksize, stride, pad, 0).shape, seed=1)
    gradient_check.check_double_backward(
        lambda x: average_pooling_2d(x, ksize, stride, pad, pad_value), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(
        lambda x: average_pooling_2d(x * x, ksize, stride, pad, pad_value), (x,), (gy,),
        (ggx,))


def test_padding_counts_as_zeros_by_default():
    x = numpy.ones((1, 1, 2, 2))
    numpy.testing.assert_array_equal(average_pooling_2d(x, 2, 1, 1).array,
                                     [[[[0.25, 0.5, 0.25], [0.5, 1.0, 0.5],
                                        [0.25, 0.5, 0.25]]]])
    numpy.testing.assert_array_equal(average_pooling_2d(x, 2, 1, 1, pad_value=None).array,
                                     numpy.ones((1, 1, 3, 3)))


def test_gradient_is_spread_evenly():
    x = chainlite.Variable(numpy.zeros((1, 1, 2, 4)))
    y = average_pooling_2d(x, 2)
    y.grad = numpy.array([[[[4.0, 8.0]]]])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[[[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0]]]])


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept_in_forward_and_backward(dtype):
    x = chainlite.Variable(_uniform((2, 3, 6, 6), dtype))
    y = average_pooling_2d(x, 3, stride=2, pad=1, pad_value=None)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input_and_keywords():
    x = _uniform((2, 3, 4, 4))
    y = average_pooling_2d(x, ksize=2, stride=2, pad=0)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, x.reshape(2, 3, 2, 2, 2, 2).mean(axis=(3, 5)))


_MSG = re.escape('Invalid operation is performed in: AveragePooling2D (Forward)')


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        average_pooling_2d(numpy.ones((1, 1, 4, 4), dtype), 2)


@pytest.mark.parametrize('shape', [(4, 4), (1, 4, 4), (1, 1, 1, 4, 4)])
def test_wrong_ndim_is_invalid(shape):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        average_pooling_2d(numpy.ones(shape), 2)


def test_window_larger_than_input_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        average_pooling_2d(numpy.ones((1, 1, 3, 3)), 4)


@pytest.mark.parametrize('kwargs', [{'ksize': 0}, {'ksize': 2, 'stride': 0},
                                    {'ksize': (2, 2, 2)}, {'ksize': 2, 'pad_value': 'zero'}])
def test_bad_arguments_are_value_errors(kwargs):
    with pytest.raises(ValueError, match='AveragePooling2D'):
        average_pooling_2d(numpy.ones((1, 1, 4, 4)), **kwargs)
