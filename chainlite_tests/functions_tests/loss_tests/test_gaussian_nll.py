"""gaussian_nll: the log-density formula against NumPy, three reductions, to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.gaussian_nll import gaussian_nll
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
SHAPES = [(), (3,), (2, 3)]
REDUCES = ['sum', 'mean', 'no']


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Smooth everywhere: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _expected(x, mean, ln_var, reduce):
    x, mean, ln_var = (a.astype(numpy.float64) for a in (x, mean, ln_var))
    y = (numpy.log(2 * numpy.pi) + ln_var + (x - mean) ** 2 / numpy.exp(ln_var)) / 2
    return {'sum': y.sum(), 'mean': y.mean(), 'no': y}[reduce]


@pytest.mark.parametrize('reduce', REDUCES)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, reduce):
    x, mean, ln_var = (_uniform(shape, dtype, s) for s in range(3))
    y = gaussian_nll(chainlite.Variable(x), mean, ln_var, reduce)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, mean, ln_var, reduce), **TOL[dtype])


@pytest.mark.parametrize('reduce', REDUCES)
@pytest.mark.parametrize('shape', SHAPES)
def test_backward_and_double_backward(shape, reduce):
    xs = tuple(_uniform(shape, seed=s) for s in range(3))
    gy = _uniform(() if reduce != 'no' else shape, seed=5)

    def f(x, mean, ln_var):
        return gaussian_nll(x, mean, ln_var, reduce)
    gradient_check.check_backward(f, xs, gy)
    gradient_check.check_double_backward(f, xs, gy,
                                         tuple(_uniform(shape, seed=s) for s in (6, 7, 8)))


def test_float32_in_float32_out():
    xs = [chainlite.Variable(_uniform((2, 3), numpy.float32, s)) for s in range(3)]
    y = gaussian_nll(*xs)
    assert y.dtype == numpy.float32
    y.backward()
    assert all(x.grad.dtype == numpy.float32 for x in xs)


@pytest.mark.parametrize('xs', [
    (numpy.zeros(3), numpy.zeros(3), numpy.zeros(2)),
    (numpy.zeros(3), numpy.zeros(3, numpy.float32), numpy.zeros(3)),
    (numpy.zeros(3, numpy.int32),) * 3])
def test_invalid_types(xs):
    msg = re.escape('Invalid operation is performed in: GaussianNLL (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        gaussian_nll(*xs)


def test_invalid_reduce():
    with pytest.raises(ValueError, match='reduce'):
        gaussian_nll(numpy.zeros(2), numpy.zeros(2), numpy.zeros(2), reduce='no_reduce')
