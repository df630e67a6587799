"""batch_det: the determinants of a batch of square matrices."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.batch_det import batch_det
from chainlite.utils import type_check

SHAPES = [(1, 1, 1), (3, 1, 1), (2, 3, 3), (4, 2, 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _matrices(shape, dtype=numpy.float64, seed=0):
    # Diagonally dominant: far from singular, where the gradient (through A^-1) exists.
    rs = numpy.random.RandomState(seed)
    n = shape[-1]
    return (rs.uniform(-1, 1, shape) + n * numpy.eye(n)).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    a = _matrices(shape, dtype) / shape[-1]  # determinants near 1
    y = batch_det(chainlite.Variable(a))
    assert y.shape == shape[:1] and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, numpy.linalg.det(a.astype(numpy.float64)),
                                  **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gy = numpy.random.RandomState(1).uniform(-1, 1, shape[:1])
    gradient_check.check_backward(batch_det, (_matrices(shape),), (gy,))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    rs = numpy.random.RandomState(1)
    gy, gga = rs.uniform(-1, 1, shape[:1]), rs.uniform(-1, 1, shape)
    gradient_check.check_double_backward(batch_det, (_matrices(shape),), (gy,), (gga,))


def test_gradient_formula():
    # d det(A) / dA = det(A) A^-T, matrix by matrix.
    a, gy = _matrices((2, 3, 3)), numpy.array([0.5, -2.0])
    x = chainlite.Variable(a)
    y = batch_det(x)
    y.grad = gy
    y.backward()
    expected = (gy * numpy.linalg.det(a))[:, None, None] * numpy.linalg.inv(a).swapaxes(1, 2)
    numpy.testing.assert_allclose(x.grad, expected, rtol=1e-12)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_kept_in_backward(dtype):
    x = chainlite.Variable(_matrices((2, 3, 3), dtype) / 3)
    y = batch_det(x)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input():
    y = batch_det(numpy.array([[[1.0, 2.0], [3.0, 4.0]]]))
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, [-2.0], rtol=1e-12)


@pytest.mark.parametrize('a', [numpy.ones((2, 2, 3)), numpy.eye(2), numpy.ones((1, 2, 2, 2)),
                               numpy.ones(()), numpy.ones((1, 2, 2), numpy.int32)])
def test_invalid(a):
    msg = re.escape('Invalid operation is performed in: BatchDet (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        batch_det(a)
