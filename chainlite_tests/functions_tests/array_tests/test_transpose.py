"""F.transpose: reversed axes, explicit and negative permutations, gradients, errors."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

# (input shape, axes)
CASES = [((), None), ((), ()), ((3,), None), ((3,), (0,)), ((2, 3), None), ((2, 3), (1, 0)),
         ((2, 3), (0, 1)), ((2, 3), (-1, 0)), ((2, 3, 4), None), ((2, 3, 4), (2, 0, 1)),
         ((2, 3, 4), (1, -1, -3)), ((2, 3, 4), [0, 2, 1])]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # A permutation of axes is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _np_transpose(x, axes):
    return numpy.transpose(x, None if axes is None else tuple(axes))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, axes', CASES)
def test_forward(shape, axes, dtype):
    x = _uniform(shape, dtype)
    y = F.transpose(chainlite.Variable(x), axes)
    assert y.dtype == dtype
    assert y.shape == _np_transpose(x, axes).shape
    numpy.testing.assert_array_equal(y.array, _np_transpose(x, axes))


@pytest.mark.parametrize('shape, axes', CASES)
def test_backward(shape, axes):
    x = _uniform(shape)
    gy = _uniform(_np_transpose(x, axes).shape, seed=1)
    gradient_check.check_backward(lambda x: F.transpose(x, axes), (x,), (gy,))


@pytest.mark.parametrize('shape, axes', CASES)
def test_double_backward(shape, axes):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(_np_transpose(x, axes).shape, seed=1)
    gradient_check.check_double_backward(lambda x: F.transpose(x, axes), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: F.transpose(x * x, axes), (x,), (gy,),
                                         (ggx,))


def test_gradient_is_transposed_back():
    x = chainlite.Variable(numpy.zeros((2, 3, 4)))
    y = F.transpose(x, (2, 0, 1))
    g = _uniform((4, 2, 3), seed=3)
    y.grad = g
    y.backward()
    numpy.testing.assert_array_equal(x.grad, g.transpose(1, 2, 0))


def test_variable_method_and_T():
    x = chainlite.Variable(_uniform((2, 3, 4)))
    assert x.transpose().shape == (4, 3, 2)
    assert x.transpose(1, 0, 2).shape == (3, 2, 4)
    assert x.T.shape == (4, 3, 2)


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = F.transpose(x)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    assert x.grad.shape == (2, 3)


def test_array_input():
    x = _uniform((2, 3))
    y = F.transpose(x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x.T)


@pytest.mark.parametrize('shape, axes', [((2, 3), (0,)), ((2, 3), (0, 1, 2)), ((), (0,))])
def test_wrong_number_of_axes_is_invalid(shape, axes):
    msg = re.escape('Invalid operation is performed in: Transpose (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.transpose(numpy.zeros(shape), axes)


@pytest.mark.parametrize('axes', [(0, 0), (1, -1), (0, 2), (-3, 1)])
def test_not_a_permutation_is_an_error(axes):
    with pytest.raises(ValueError, match='permutation'):
        F.transpose(numpy.zeros((2, 3)), axes)
