"""cholesky: the lower-triangular factor of a symmetric positive-definite matrix."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.cholesky import cholesky
from chainlite.utils import type_check

SIZES = [1, 2, 3, 5]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _spd(n, dtype=numpy.float64, seed=0):
    # B B^T + n I: well inside the positive-definite cone, so small steps stay there.
    b = numpy.random.RandomState(seed).uniform(-1, 1, (n, n))
    return (b @ b.T + n * numpy.eye(n)).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n', SIZES)
def test_forward(n, dtype):
    a = _spd(n, dtype)
    y = cholesky(chainlite.Variable(a))
    assert y.shape == (n, n) and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.linalg.cholesky(a.astype(numpy.float64)),
                                  **TOL[dtype])


@pytest.mark.parametrize('n', SIZES)
def test_backward(n):
    gy = numpy.random.RandomState(1).uniform(-1, 1, (n, n))
    gradient_check.check_backward(cholesky, (_spd(n),), (gy,))


@pytest.mark.parametrize('n', SIZES)
def test_double_backward(n):
    rs = numpy.random.RandomState(1)
    gy, gga = rs.uniform(-1, 1, (n, n)), rs.uniform(-1, 1, (n, n))
    gradient_check.check_double_backward(cholesky, (_spd(n),), (gy,), (gga,))


def test_upper_triangle_gets_no_gradient():
    x = chainlite.Variable(_spd(4))
    y = cholesky(x)
    y.grad = numpy.random.RandomState(1).uniform(-1, 1, (4, 4))
    y.backward()
    numpy.testing.assert_array_equal(numpy.triu(x.grad, 1), 0)


def test_symmetric_input_chain():
    # Through a = w w^T + I the whole of w gets a gradient, checked numerically.
    w = numpy.random.RandomState(2).uniform(-1, 1, (3, 3))
    gy = numpy.random.RandomState(3).uniform(-1, 1, (3, 3))
    gradient_check.check_backward(lambda w: cholesky(w @ w.T + numpy.eye(3)), (w,), (gy,))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_backward(dtype):
    x = chainlite.Variable(_spd(3, dtype))
    y = cholesky(x)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input():
    y = cholesky(_spd(3))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array @ y.array.T, _spd(3), rtol=1e-12)


def test_not_positive_definite_is_a_value_error():
    with pytest.raises(ValueError, match='positive definite'):
        cholesky(-numpy.eye(2))


@pytest.mark.parametrize('a', [numpy.ones((2, 3)), numpy.ones((2, 2, 2)), numpy.ones(2),
                               numpy.ones(()), numpy.eye(2, dtype=numpy.int32)])
def test_invalid(a):
    msg = re.escape('Invalid operation is performed in: Cholesky (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        cholesky(a)
