"""gaussian: mean + exp(ln_var / 2) * eps, differentiable in mean and ln_var."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.noise.gaussian import gaussian
from chainlite.utils import type_check

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-3, 'rtol': 2e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _inputs(shape, dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    return rs.uniform(-1, 1, shape).astype(dtype), rs.uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    mean, ln_var = _inputs(shape, dtype)
    numpy.random.seed(5)
    y, eps = gaussian(chainlite.Variable(mean), ln_var, return_eps=True)
    # The same draw from NumPy's global random state as Chainer's.
    numpy.random.seed(5)
    expected_eps = numpy.random.standard_normal(shape).astype(dtype)
    assert y.dtype == dtype and y.shape == shape
    assert isinstance(eps, numpy.ndarray) and eps.dtype == dtype and eps.shape == shape
    numpy.testing.assert_array_equal(eps, expected_eps)
    expected = mean.astype(numpy.float64) + numpy.exp(ln_var.astype(numpy.float64) / 2) * eps
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


def test_given_eps_and_statistics():
    mean, ln_var = numpy.full(3, 2.0), numpy.full(3, numpy.log(9.0))
    y = gaussian(mean, ln_var, eps=numpy.array([1.0, 0.0, -1.0]))
    numpy.testing.assert_allclose(y.array, [5.0, 2.0, -1.0])
    numpy.random.seed(0)
    samples = gaussian(numpy.full(20000, 2.0), numpy.full(20000, numpy.log(9.0))).array
    assert abs(samples.mean() - 2.0) < 0.1 and abs(samples.std() - 3.0) < 0.1


def test_returned_eps_can_be_passed_again():
    mean, ln_var = _inputs((2, 3), numpy.float32)
    y1, eps = gaussian(mean, ln_var, return_eps=True)
    y2 = gaussian(mean, ln_var, eps=eps)
    numpy.testing.assert_array_equal(y1.array, y2.array)


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    inputs = _inputs(shape)
    eps = numpy.random.RandomState(1).standard_normal(shape)
    gy = numpy.random.RandomState(2).uniform(-1, 1, shape)
    gradient_check.check_backward(lambda m, v: gaussian(m, v, eps=eps), inputs, gy)


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    inputs = _inputs(shape)
    rs = numpy.random.RandomState(1)
    eps, gy = rs.standard_normal(shape), rs.uniform(-1, 1, shape)
    ggs = (rs.uniform(-1, 1, shape), rs.uniform(-1, 1, shape))
    gradient_check.check_double_backward(lambda m, v: gaussian(m, v, eps=eps), inputs, gy,
                                         ggs)


def test_backward_uses_the_forward_noise():
    mean, ln_var = (chainlite.Variable(a) for a in _inputs((4,)))
    y, eps = gaussian(mean, ln_var, return_eps=True)
    y.grad = numpy.ones(4)
    y.backward()
    numpy.testing.assert_array_equal(mean.grad, numpy.ones(4))
    numpy.testing.assert_allclose(ln_var.grad, numpy.exp(ln_var.array / 2) * eps / 2)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_forward_and_backward(dtype):
    mean, ln_var = (chainlite.Variable(a) for a in _inputs((2, 3), dtype))
    y = gaussian(mean, ln_var)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert mean.grad.dtype == dtype and ln_var.grad.dtype == dtype


MSG = re.escape('Invalid operation is performed in: Gaussian (Forward)')


@pytest.mark.parametrize('mean, ln_var', [
    (numpy.ones(3, numpy.int32), numpy.ones(3, numpy.int32)),
    (numpy.ones(3), numpy.ones(3, numpy.float32)),
    (numpy.ones(3), numpy.ones(2)),
])
def test_invalid_inputs(mean, ln_var):
    with pytest.raises(type_check.InvalidType, match=MSG):
        gaussian(mean, ln_var)


def test_eps_of_wrong_shape():
    with pytest.raises(type_check.InvalidType, match=MSG):
        gaussian(numpy.ones(3), numpy.ones(3), eps=numpy.ones(2))
