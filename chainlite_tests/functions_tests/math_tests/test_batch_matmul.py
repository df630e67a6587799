"""batch_matmul: 3-D batches and 2-D batches of column vectors, transposes, the deprecation."""
import re
import warnings

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.batch_matmul import batch_matmul
from chainlite.utils import type_check

# (a.shape, b.shape) as stored when transa and transb are both False; B = 2.
CASES = [((2, 3, 4), (2, 4, 5)),
         ((2, 1, 1), (2, 1, 1)),
         ((2, 3, 4), (2, 4)),      # b: a batch of column vectors
         ((2, 3), (2, 1, 4)),      # a: a batch of column vectors (3 x 1)
         ((2, 3), (2, 1))]
TRANS = [(False, False), (True, False), (False, True), (True, True)]
# A transposed 2-D operand is a batch of rows: test_transposed_column_vectors covers it.
PARAMS = [(s, ta, tb) for s in CASES for ta, tb in TRANS
          if (len(s[0]) == 3 or not ta) and (len(s[1]) == 3 or not tb)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _bmm(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return batch_matmul(*args, **kwargs)


def _mats(x):
    return x if x.ndim == 3 else x[:, :, None]


def _stored(shape, trans):
    # What the caller passes so that the transposed operand has the case's matrices.
    return (shape[0], shape[2], shape[1]) if trans else shape


def _inputs(shapes, transa, transb, dtype=numpy.float64):
    rs = numpy.random.RandomState(0)
    sa, sb = _stored(shapes[0], transa), _stored(shapes[1], transb)
    # A bilinear op is smooth everywhere: any values will do.
    return rs.uniform(-1, 1, sa).astype(dtype), rs.uniform(-1, 1, sb).astype(dtype)


def _reference(a, b, transa, transb):
    a, b = _mats(a.astype(numpy.float64)), _mats(b.astype(numpy.float64))
    if transa:
        a = a.swapaxes(1, 2)
    if transb:
        b = b.swapaxes(1, 2)
    return a @ b


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes, transa, transb', PARAMS)
def test_forward(shapes, transa, transb, dtype):
    a, b = _inputs(shapes, transa, transb, dtype)
    y = _bmm(chainlite.Variable(a), chainlite.Variable(b), transa, transb)
    expected = _reference(a, b, transa, transb)
    assert y.shape == expected.shape and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


def test_transposed_column_vectors():
    # (B, N) transposed is a batch of 1 x N rows: a batch of inner products here.
    a, b = numpy.arange(6.0).reshape(2, 3), numpy.ones((2, 3))
    y = _bmm(a, b, transa=True)
    numpy.testing.assert_array_equal(y.array, [[[3.0]], [[12.0]]])
    y = _bmm(a, b, transb=True)  # outer products, (2, 3, 3)
    numpy.testing.assert_array_equal(y.array, a[:, :, None] * b[:, None, :])


@pytest.mark.parametrize('shapes, transa, transb', PARAMS)
def test_backward(shapes, transa, transb):
    a, b = _inputs(shapes, transa, transb)
    gy = numpy.random.RandomState(1).uniform(-1, 1, _reference(a, b, transa, transb).shape)
    gradient_check.check_backward(lambda a, b: _bmm(a, b, transa, transb), (a, b), (gy,))


@pytest.mark.parametrize('shapes, transa, transb', PARAMS)
def test_double_backward(shapes, transa, transb):
    a, b = _inputs(shapes, transa, transb)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, _reference(a, b, transa, transb).shape)
    gga, ggb = rs.uniform(-1, 1, a.shape), rs.uniform(-1, 1, b.shape)
    gradient_check.check_double_backward(
        lambda a, b: _bmm(a, b, transa, transb), (a, b), (gy,), (gga, ggb))


def test_float32_in_float32_out():
    a = chainlite.Variable(numpy.ones((2, 3, 4), numpy.float32))
    b = chainlite.Variable(numpy.ones((2, 4, 5), numpy.float32))
    y = _bmm(a, b)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert a.grad.dtype == numpy.float32 and b.grad.dtype == numpy.float32


def test_arrays_and_variables_accepted():
    a, b = numpy.ones((2, 3, 4)), numpy.ones((2, 4, 5))
    for y in (_bmm(a, b), _bmm(chainlite.Variable(a), b), _bmm(a, chainlite.Variable(b))):
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_array_equal(y.array, numpy.full((2, 3, 5), 4.0))


def test_deprecation_warning():
    with pytest.deprecated_call(match='matmul'):
        batch_matmul(numpy.ones((2, 3, 4)), numpy.ones((2, 4, 5)))


@pytest.mark.parametrize('a, b, kwargs', [
    (numpy.ones((2, 3, 4)), numpy.ones((2, 3, 5)), {}),              # inner sizes differ
    (numpy.ones((2, 3, 4)), numpy.ones((2, 4, 5)), {'transa': True}),
    (numpy.ones((2, 3, 4)), numpy.ones((3, 4, 5)), {}),              # batch sizes differ
    (numpy.ones((2, 2, 3, 4)), numpy.ones((2, 2, 4, 5)), {}),        # 4-D
    (numpy.ones((3,)), numpy.ones((3,)), {}),                        # 1-D
    (numpy.ones((2, 3, 4), numpy.float32), numpy.ones((2, 4, 5), numpy.int32), {}),
    (numpy.ones((2, 3, 4), numpy.int32), numpy.ones((2, 4, 5), numpy.int32), {}),
])
def test_invalid(a, b, kwargs):
    msg = re.escape('Invalid operation is performed in: BatchMatMul (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        _bmm(a, b, **kwargs)
