"""gaussian_kl_divergence: the closed form against NumPy, three reductions, to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.gaussian_kl_divergence import gaussian_kl_divergence
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


def _expected(mean, ln_var, reduce):
    mean, ln_var = mean.astype(numpy.float64), ln_var.astype(numpy.float64)
    y = (mean ** 2 + numpy.exp(ln_var) - ln_var - 1) / 2
    return {'sum': y.sum(), 'mean': y.mean(), 'no': y}[reduce]


@pytest.mark.parametrize('reduce', REDUCES)
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, reduce):
    mean, ln_var = _uniform(shape, dtype), _uniform(shape, dtype, 1)
    y = gaussian_kl_divergence(chainlite.Variable(mean), ln_var, reduce)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(mean, ln_var, reduce), **TOL[dtype])


@pytest.mark.parametrize('reduce', REDUCES)
@pytest.mark.parametrize('shape', SHAPES)
def test_backward_and_double_backward(shape, reduce):
    mean, ln_var = _uniform(shape), _uniform(shape, seed=1)
    gy = _uniform(() if reduce != 'no' else shape, seed=2)

    def f(mean, ln_var):
        return gaussian_kl_divergence(mean, ln_var, reduce)
    gradient_check.check_backward(f, (mean, ln_var), gy)
    gradient_check.check_double_backward(f, (mean, ln_var), gy,
                                         (_uniform(shape, seed=3), _uniform(shape, seed=4)))


def test_float32_in_float32_out():
    mean = chainlite.Variable(_uniform((2, 3), numpy.float32))
    ln_var = chainlite.Variable(_uniform((2, 3), numpy.float32, 1))
    y = gaussian_kl_divergence(mean, ln_var)
    assert y.dtype == numpy.float32
    y.backward()
    assert mean.grad.dtype == numpy.float32 and ln_var.grad.dtype == numpy.float32


@pytest.mark.parametrize('mean, ln_var', [
    (numpy.zeros(3), numpy.zeros(2)), (numpy.zeros(3), numpy.zeros(3, numpy.float32)),
    (numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.int32))])
def test_invalid_types(mean, ln_var):
    msg = re.escape('Invalid operation is performed in: GaussianKLDivergence (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        gaussian_kl_divergence(mean, ln_var)


def test_invalid_reduce():
    with pytest.raises(ValueError, match='reduce'):
        gaussian_kl_divergence(numpy.zeros(2), numpy.zeros(2), reduce='max')
