"""F.depth2space: against a per-pixel loop, Chainer's documented example, and space2depth."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.depth2space import depth2space
from chainlite.functions.array.space2depth import space2depth
from chainlite.utils import type_check

# (input shape, r)
CASES = [((1, 4, 2, 3), 2), ((2, 12, 2, 2), 2), ((1, 18, 2, 1), 3), ((2, 2, 3, 5), 1),
         ((1, 4, 0, 2), 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, r):
    n, c, h, w = x.shape
    c //= r * r
    y = numpy.empty((n, c, h * r, w * r), x.dtype)
    for ry in range(r):
        for rx in range(r):
            for ci in range(c):
                y[:, ci, ry::r, rx::r] = x[:, (ry * r + rx) * c + ci]
    return y


def _uniform(shape, dtype=numpy.float64, seed=0):
    # A permutation of the entries: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, r', CASES)
def test_forward(shape, r, dtype):
    x = _uniform(shape, dtype)
    y = depth2space(chainlite.Variable(x), r)
    expected = _reference(x, r)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


def test_chainer_example():
    x = numpy.arange(24, dtype=numpy.float32).reshape(1, 4, 2, 3)
    expected = [[0, 6, 1, 7, 2, 8], [12, 18, 13, 19, 14, 20], [3, 9, 4, 10, 5, 11],
                [15, 21, 16, 22, 17, 23]]
    numpy.testing.assert_array_equal(depth2space(x, 2).array[0, 0], expected)


@pytest.mark.parametrize('shape, r', CASES)
def test_space2depth_inverts_it(shape, r):
    x = _uniform(shape)
    numpy.testing.assert_array_equal(space2depth(depth2space(x, r), r).array, x)


@pytest.mark.parametrize('shape, r', CASES)
def test_backward(shape, r):
    x = _uniform(shape)
    gy = _uniform(_reference(x, r).shape, seed=1)
    gradient_check.check_backward(lambda x: depth2space(x, r), (x,), (gy,))


@pytest.mark.parametrize('shape, r', CASES)
def test_double_backward(shape, r):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(_reference(x, r).shape, seed=1)
    gradient_check.check_double_backward(lambda x: depth2space(x, r), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: depth2space(x * x, r), (x,), (gy,), (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((1, 8, 2, 2), numpy.float32))
    y = depth2space(x, 2)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input_and_numpy_int_factor():
    x = _uniform((1, 4, 2, 2))
    y = depth2space(x, numpy.int32(2))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, _reference(x, 2))


@pytest.mark.parametrize('x', [numpy.zeros((4, 2, 2)), numpy.zeros((1, 4, 2, 2), numpy.int64),
                               numpy.zeros((1, 6, 2, 2))],
                         ids=['3-d', 'int', 'channels not a multiple of r * r'])
def test_invalid_input_is_invalid_type(x):
    msg = re.escape('Invalid operation is performed in: Depth2Space (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        depth2space(x, 2)


@pytest.mark.parametrize('r', [0, -1, 2.0, False])
def test_bad_factor_is_a_value_error(r):
    with pytest.raises(ValueError, match='depth2space'):
        depth2space(numpy.zeros((1, 4, 2, 2)), r)
