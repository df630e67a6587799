"""tile: reps shorter, longer and as long as x.ndim, zeros, gradients, dtypes and errors."""
import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.tile import tile

# (input shape, reps)
CASES = [((), ()), ((), 3), ((), (2, 3)), ((3,), 1), ((3,), 2), ((3,), (2, 2)),
         ((3,), (2, 1, 2)), ((2, 3), 2), ((2, 3), (3, 1)), ((2, 3), [1, 2]),
         ((2, 3, 4), (2, 1)), ((2, 3), (0, 2)), ((2, 1, 3), (2, 3, 1))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Tiling is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, reps', CASES)
def test_forward(shape, reps, dtype):
    x = _uniform(shape, dtype)
    y = tile(chainlite.Variable(x), reps)
    expected = numpy.tile(x, reps)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected)


@pytest.mark.parametrize('shape, reps', CASES)
def test_backward(shape, reps):
    x = _uniform(shape)
    gy = _uniform(numpy.tile(x, reps).shape, seed=1)
    gradient_check.check_backward(lambda x: tile(x, reps), (x,), (gy,))


@pytest.mark.parametrize('shape, reps', CASES)
def test_double_backward(shape, reps):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(numpy.tile(x, reps).shape, seed=1)
    gradient_check.check_double_backward(lambda x: tile(x, reps), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: tile(x * x, reps), (x,), (gy,), (ggx,))


def test_gradient_adds_up_the_copies():
    x = chainlite.Variable(numpy.zeros(2))
    y = tile(x, (2, 3))
    y.grad = numpy.arange(12.0).reshape(2, 6)
    y.backward()
    # x[0] appears at columns 0, 2, 4 of both rows, x[1] at columns 1, 3, 5.
    numpy.testing.assert_array_equal(x.grad, [0 + 2 + 4 + 6 + 8 + 10, 1 + 3 + 5 + 7 + 9 + 11])


def test_zero_reps_give_zero_gradient():
    x = chainlite.Variable(numpy.ones((2, 3)))
    y = tile(x, 0)
    assert y.shape == (2, 0)
    y.grad = numpy.zeros((2, 0))
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.zeros((2, 3)))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = tile(x, (2, 2))
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(x.grad, numpy.full((2, 3), 4.0))


def test_array_input_and_numpy_int_reps():
    x = _uniform((3,))
    y = tile(x, numpy.int64(2))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, numpy.tile(x, 2))


@pytest.mark.parametrize('reps', [1.5, (2, 1.0), None, (True, 2)])
def test_non_integer_reps_is_a_type_error(reps):
    with pytest.raises(TypeError, match='tile'):
        tile(numpy.zeros(3), reps)


@pytest.mark.parametrize('reps', [-1, (2, -1)])
def test_negative_reps_is_a_value_error(reps):
    with pytest.raises(ValueError, match='tile'):
        tile(numpy.zeros(3), reps)
