"""inv: the inverse of one square matrix."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.inv import inv
from chainlite.utils import type_check

SIZES = [1, 2, 3, 5]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _matrix(n, dtype=numpy.float64, seed=0):
    # Diagonally dominant: far from singular, so the inverse and its gradients are tame.
    rs = numpy.random.RandomState(seed)
    return (rs.uniform(-1, 1, (n, n)) + n * numpy.eye(n)).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n', SIZES)
def test_forward(n, dtype):
    a = _matrix(n, dtype)
    y = inv(chainlite.Variable(a))
    assert y.shape == (n, n) and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.linalg.inv(a.astype(numpy.float64)),
                                  **TOL[dtype])


@pytest.mark.parametrize('n', SIZES)
def test_backward(n):
    gy = numpy.random.RandomState(1).uniform(-1, 1, (n, n))
    gradient_check.check_backward(inv, (_matrix(n),), (gy,))


@pytest.mark.parametrize('n', SIZES)
def test_double_backward(n):
    rs = numpy.random.RandomState(1)
    gy, gga = rs.uniform(-1, 1, (n, n)), rs.uniform(-1, 1, (n, n))
    gradient_check.check_double_backward(inv, (_matrix(n),), (gy,), (gga,))


def test_gradient_formula():
    # gA = -A^-T gy A^-T
    a, gy = _matrix(3), numpy.random.RandomState(1).uniform(-1, 1, (3, 3))
    x = chainlite.Variable(a)
    y = inv(x)
    y.grad = gy
    y.backward()
    ai = numpy.linalg.inv(a)
    numpy.testing.assert_allclose(x.grad, -ai.T @ gy @ ai.T, rtol=1e-12)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_backward(dtype):
    x = chainlite.Variable(_matrix(3, dtype))
    y = inv(x)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input():
    y = inv(_matrix(2))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array @ _matrix(2), numpy.eye(2), atol=1e-12)


def test_singular_matrix_is_a_value_error():
    with pytest.raises(ValueError, match='singular'):
        inv(numpy.ones((2, 2)))


@pytest.mark.parametrize('a', [numpy.ones((2, 3)), numpy.ones((2, 2, 2)), numpy.ones(2),
                               numpy.ones(()), numpy.eye(2, dtype=numpy.int32)])
def test_invalid(a):
    msg = re.escape('Invalid operation is performed in: Inv (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        inv(a)
