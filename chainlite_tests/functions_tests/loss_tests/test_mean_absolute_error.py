"""mean_absolute_error: mean(|x0 - x1|) against NumPy; gradients in both inputs."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.mean_absolute_error import mean_absolute_error
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
SHAPES = [(), (3,), (2, 3), (2, 3, 4)]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Seed 1 (x1) draws from another range than the others: |x0 - x1| stays off its kink
    # at 0, and the differences have both signs.
    low, high = (-0.4, 0.4) if seed == 1 else (-2, 2)
    x = numpy.random.RandomState(seed).uniform(low, high, shape)
    if seed != 1:
        x = numpy.where(numpy.abs(x) < 0.5, x + numpy.copysign(1.0, x), x)
    return x.astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    x0, x1 = _uniform(shape, dtype), _uniform(shape, dtype, 1)
    y = mean_absolute_error(chainlite.Variable(x0), chainlite.Variable(x1))
    assert y.shape == () and y.dtype == dtype
    expected = numpy.abs(x0.astype(numpy.float64) - x1).mean()
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_backward_and_double_backward(shape):
    x0, x1 = _uniform(shape), _uniform(shape, seed=1)
    gy = _uniform((), seed=2)
    gradient_check.check_backward(mean_absolute_error, (x0, x1), gy)
    gradient_check.check_double_backward(mean_absolute_error, (x0, x1), gy,
                                         (_uniform(shape, seed=3), _uniform(shape, seed=4)))


def test_float32_in_float32_out():
    x0 = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = mean_absolute_error(x0, _uniform((2, 3), numpy.float32, 1))
    assert y.dtype == numpy.float32
    y.backward()
    assert x0.grad.dtype == numpy.float32


def test_array_inputs():
    y = mean_absolute_error(numpy.array([1.0, 2.0]), numpy.array([0.0, 4.0]))
    assert isinstance(y, chainlite.Variable)
    assert y.array == 1.5


@pytest.mark.parametrize('x0, x1', [(numpy.zeros(3), numpy.zeros(2)),
                                    (numpy.zeros(3), numpy.zeros(3, numpy.float32)),
                                    (numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.int32))])
def test_invalid_types(x0, x1):
    msg = re.escape('Invalid operation is performed in: MeanAbsoluteError (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        mean_absolute_error(x0, x1)
