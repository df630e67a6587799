"""spatial_pyramid_pooling_2d: bins per level, output layout, gradients, dtypes, errors."""
import math
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.pooling.spatial_pyramid_pooling_2d import spatial_pyramid_pooling_2d
from chainlite.utils import type_check

# (input shape, pyramid_height); bins never fall entirely into the padding.
CASES = [((2, 3, 9, 8), 3), ((1, 2, 4, 4), 1), ((2, 2, 5, 7), 2), ((1, 1, 12, 12), 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _distinct(shape, dtype=numpy.float64, seed=0):
    # Distinct values 1/8 apart, exact in float16: no ties, so no bin's argmax (a kink of
    # max) moves under the finite differences of the gradient checks.
    size = int(numpy.prod(shape))
    values = numpy.random.RandomState(seed).permutation(size) - size // 2
    return (values / 8.0).reshape(shape).astype(dtype)


def _reference(x, pyramid_height):
    # Each bin's maximum over the input pixels its window covers, level by level.
    n, c, h, w = x.shape
    out = []
    for level in range(pyramid_height):
        bins = 2 ** level
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        ph, pw = (kh * bins - h) // 2, (kw * bins - w) // 2
        y = numpy.empty((n, c, bins, bins))
        for i in range(bins):
            for j in range(bins):
                rows = slice(max(i * kh - ph, 0), i * kh - ph + kh)
                cols = slice(max(j * kw - pw, 0), j * kw - pw + kw)
                y[:, :, i, j] = x[:, :, rows, cols].max(axis=(2, 3))
        out.append(y.reshape(n, -1))
    return numpy.concatenate(out, axis=1)[:, :, None, None]


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, pyramid_height', CASES)
def test_forward(shape, pyramid_height, dtype):
    x = _distinct(shape, dtype)
    y = spatial_pyramid_pooling_2d(chainlite.Variable(x), pyramid_height, 'max')
    expected = _reference(x.astype(numpy.float64), pyramid_height)
    n, c = shape[:2]
    assert y.shape == (n, c * sum(4 ** i for i in range(pyramid_height)), 1, 1)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected.astype(dtype))


@pytest.mark.parametrize('shape, pyramid_height', CASES)
def test_backward(shape, pyramid_height):
    x = _distinct(shape)
    gy = numpy.random.RandomState(1).uniform(-1, 1, _reference(x, pyramid_height).shape)
    gradient_check.check_backward(lambda x: spatial_pyramid_pooling_2d(x, pyramid_height, 'max'),
                                  (x,), (gy,))


@pytest.mark.parametrize('shape, pyramid_height', CASES)
def test_double_backward(shape, pyramid_height):
    x = _distinct(shape)
    gy = numpy.random.RandomState(1).uniform(-1, 1, _reference(x, pyramid_height).shape)
    ggx = numpy.random.RandomState(2).uniform(-1, 1, shape)
    # Positive inputs, where squaring creates no ties.
    gradient_check.check_double_backward(
        lambda x: spatial_pyramid_pooling_2d(x * x, pyramid_height, 'max'), (x - x.min() + 1,),
        (gy,), (ggx,))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept_in_forward_and_backward(dtype):
    x = chainlite.Variable(_distinct((2, 3, 9, 8), dtype))
    y = spatial_pyramid_pooling_2d(x, 3, pooling='max')
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input():
    x = _distinct((2, 3, 4, 4))
    y = spatial_pyramid_pooling_2d(x, 1, 'max')
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array[:, :, 0, 0], x.max(axis=(2, 3)))


_MSG = re.escape('Invalid operation is performed in: spatial_pyramid_pooling_2d')


@pytest.mark.parametrize('shape', [(4, 4), (1, 4, 4), (1, 1, 1, 4, 4)])
def test_wrong_ndim_is_invalid(shape):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        spatial_pyramid_pooling_2d(numpy.ones(shape), 2, 'max')


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        spatial_pyramid_pooling_2d(numpy.ones((1, 1, 4, 4), dtype), 2, 'max')


@pytest.mark.parametrize('kwargs, what', [
    ({'pyramid_height': 0, 'pooling': 'max'}, 'pyramid_height'),
    ({'pyramid_height': 1.5, 'pooling': 'max'}, 'pyramid_height'),
    ({'pyramid_height': 2, 'pooling': 'average'}, 'pooling'),
    ({'pyramid_height': 2}, 'pooling'),  # as in Chainer, the pooling must be named
])
def test_bad_arguments_are_value_errors(kwargs, what):
    with pytest.raises(ValueError, match='spatial_pyramid_pooling_2d: ' + what):
        spatial_pyramid_pooling_2d(numpy.ones((1, 1, 4, 4)), **kwargs)
