"""det: the determinant of one square matrix."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.det import det
from chainlite.utils import type_check

SIZES = [1, 2, 3, 4]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _matrix(n, dtype=numpy.float64, seed=0):
    # Diagonally dominant: far from singular, where the gradient (through A^-1) exists.
    rs = numpy.random.RandomState(seed)
    return (rs.uniform(-1, 1, (n, n)) + n * numpy.eye(n)).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('n', SIZES)
def test_forward(n, dtype):
    a = _matrix(n, dtype) / n  # determinants near 1, within float16's range
    y = det(chainlite.Variable(a))
    assert y.shape == () and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.linalg.det(a.astype(numpy.float64)),
                                  **TOL[dtype])


@pytest.mark.parametrize('n', SIZES)
def test_backward(n):
    gradient_check.check_backward(det, (_matrix(n),), (numpy.array(0.7),))


@pytest.mark.parametrize('n', SIZES)
def test_double_backward(n):
    gga = numpy.random.RandomState(1).uniform(-1, 1, (n, n))
    gradient_check.check_double_backward(det, (_matrix(n),), (numpy.array(0.7),), (gga,))


def test_gradient_formula():
    # d det(A) / dA = det(A) A^-T
    a = _matrix(3)
    x = chainlite.Variable(a)
    det(x).backward()
    numpy.testing.assert_allclose(x.grad, numpy.linalg.det(a) * numpy.linalg.inv(a).T,
                                  rtol=1e-12)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_backward(dtype):
    x = chainlite.Variable(_matrix(3, dtype) / 3)
    y = det(x)
    assert y.dtype == dtype
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input():
    y = det(numpy.array([[1.0, 2.0], [3.0, 4.0]]))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, -2.0, rtol=1e-12)


@pytest.mark.parametrize('a', [numpy.ones((2, 3)), numpy.ones((2, 2, 2)), numpy.ones(2),
                               numpy.ones(()), numpy.eye(2, dtype=numpy.int32)])
def test_invalid(a):
    msg = re.escape('Invalid operation is performed in: Det (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        det(a)
