"""decov against NumPy's covariance; gradients to second order."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients
from chainlite.utils import type_check

TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _expected(h, reduce):
    h = h.astype(numpy.float64)
    c = numpy.cov(h, rowvar=False, bias=True)
    numpy.fill_diagonal(c, 0)
    return c if reduce == 'no' else 0.5 * (c ** 2).sum()


@pytest.mark.parametrize('reduce', ['half_squared_sum', 'no'])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_forward(dtype, reduce):
    h = numpy.random.RandomState(0).uniform(-1, 1, (5, 3)).astype(dtype)
    y = F.decov(chainlite.Variable(h), reduce)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(h, reduce), **TOL[dtype])


@pytest.mark.parametrize('reduce', ['half_squared_sum', 'no'])
def test_backward_and_double_backward(reduce):
    h = numpy.random.RandomState(1).uniform(-1, 1, (5, 3))
    gradients.check_grads(lambda h: F.decov(h, reduce), h, order=2)


def test_errors():
    with pytest.raises(ValueError, match="reduce must be 'half_squared_sum' or 'no'"):
        F.decov(numpy.zeros((2, 2)), 'mean')
    with pytest.raises(type_check.InvalidType, match='decov'):
        F.decov(numpy.zeros(3))
