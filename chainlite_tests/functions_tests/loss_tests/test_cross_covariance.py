"""cross_covariance: forward against NumPy for both reductions, gradients to 2nd order."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients

TOL = {numpy.float16: 5e-3, numpy.float32: 1e-5, numpy.float64: 1e-12}


def _inputs(n=5, m=3, k=2, dtype=numpy.float64):
    rng = numpy.random.RandomState(0)
    return rng.randn(n, m).astype(dtype), rng.randn(n, k).astype(dtype)


def _cov(y, z):
    y, z = y.astype(numpy.float64), z.astype(numpy.float64)
    return (y - y.mean(0)).T @ (z - z.mean(0)) / len(y)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_forward(dtype):
    y, z = _inputs(dtype=dtype)
    c = F.cross_covariance(y, z, reduce='no')
    assert c.dtype == dtype and c.shape == (3, 2)
    numpy.testing.assert_allclose(c.array, _cov(y, z), rtol=TOL[dtype], atol=TOL[dtype])
    loss = F.cross_covariance(y, z)
    assert loss.dtype == dtype and loss.shape == ()
    numpy.testing.assert_allclose(loss.array, 0.5 * (_cov(y, z) ** 2).sum(), rtol=TOL[dtype])


@pytest.mark.parametrize('reduce', ['half_squared_sum', 'no'])
def test_gradients(reduce):
    gradients.check_grads(lambda y, z: F.cross_covariance(y, z, reduce), _inputs())


def test_uncorrelated_is_zero():
    y = numpy.array([[1.0], [-1.0], [1.0], [-1.0]])
    z = numpy.array([[1.0], [1.0], [-1.0], [-1.0]])
    assert F.cross_covariance(y, z).array == 0


def test_errors():
    y, z = _inputs()
    with pytest.raises(ValueError, match='reduce'):
        F.cross_covariance(y, z, reduce='mean')
    with pytest.raises(chainlite.utils.type_check.InvalidType):
        F.cross_covariance(y, z[:4])
    with pytest.raises(chainlite.utils.type_check.InvalidType):
        F.cross_covariance(y, z.astype(numpy.float32))
    with pytest.raises(chainlite.utils.type_check.InvalidType):
        F.cross_covariance(y[None], z[None])
