"""F.space2depth: against a per-pixel loop, Chainer's documented example, and depth2space."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.depth2space import depth2space
from chainlite.functions.array.space2depth import space2depth
from chainlite.utils import type_check

# (input shape, r)
CASES = [((1, 1, 4, 6), 2), ((2, 3, 4, 4), 2), ((1, 2, 6, 3), 3), ((2, 2, 3, 5), 1),
         ((1, 1, 0, 4), 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, r):
    n, c, h, w = x.shape
    y = numpy.empty((n, c * r * r, h // r, w // r), x.dtype)
    for ry in range(r):
        for rx in range(r):
            for ci in range(c):
                y[:, (ry * r + rx) * c + ci] = x[:, ci, ry::r, rx::r]
    return y


def _uniform(shape, dtype=numpy.float64, seed=0):
    # A permutation of the entries: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, r', CASES)
def test_forward(shape, r, dtype):
    x = _uniform(shape, dtype)
    y = space2depth(chainlite.Variable(x), r)
    expected = _reference(x, r)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


def test_chainer_example():
    x = numpy.arange(24, dtype=numpy.float32).reshape(1, 1, 4, 6)
    expected = [[[0, 2, 4], [12, 14, 16]], [[1, 3, 5], [13, 15, 17]],
                [[6, 8, 10], [18, 20, 22]], [[7, 9, 11], [19, 21, 23]]]
    numpy.testing.assert_array_equal(space2depth(x, 2).array[0], expected)


@pytest.mark.parametrize('shape, r', CASES)
def test_depth2space_inverts_it(shape, r):
    x = _uniform(shape)
    numpy.testing.assert_array_equal(depth2space(space2depth(x, r), r).array, x)


@pytest.mark.parametrize('shape, r', CASES)
def test_backward(shape, r):
    x = _uniform(shape)
    gy = _uniform(_reference(x, r).shape, seed=1)
    gradient_check.check_backward(lambda x: space2depth(x, r), (x,), (gy,))


@pytest.mark.parametrize('shape, r', CASES)
def test_double_backward(shape, r):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(_reference(x, r).shape, seed=1)
    gradient_check.check_double_backward(lambda x: space2depth(x, r), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: space2depth(x * x, r), (x,), (gy,), (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((1, 2, 4, 4), numpy.float32))
    y = space2depth(x, 2)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input_and_numpy_int_factor():
    x = _uniform((1, 1, 4, 4))
    y = space2depth(x, numpy.int64(2))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, _reference(x, 2))


@pytest.mark.parametrize('x', [numpy.zeros((1, 4, 4)), numpy.zeros((1, 1, 4, 4), numpy.int32),
                               numpy.zeros((1, 1, 3, 4)), numpy.zeros((1, 1, 4, 5))],
                         ids=['3-d', 'int', 'odd height', 'odd width'])
def test_invalid_input_is_invalid_type(x):
    msg = re.escape('Invalid operation is performed in: Space2Depth (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        space2depth(x, 2)


@pytest.mark.parametrize('r', [0, -2, 1.5, True])
def test_bad_factor_is_a_value_error(r):
    with pytest.raises(ValueError, match='space2depth'):
        space2depth(numpy.zeros((1, 1, 4, 4)), r)
