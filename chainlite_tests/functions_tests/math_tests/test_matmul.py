"""F.matmul and ``@``: 2-D, batched, broadcast batch dimensions, transposes, 1-D operands."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

# (a.shape, b.shape) of the product before any transpose, as numpy.matmul takes them.
CASES = [((2, 3), (3, 4)),           # 2-D
         ((2, 2, 3), (2, 3, 4)),     # batched 3-D
         ((2, 1, 2, 3), (3, 3, 4)),  # batch dimensions broadcast against each other
         ((2, 3), (2, 3, 4)),        # a 2-D matrix against a batch
         ((1, 1), (1, 1)),
         ((3,), (3, 4)),             # 1-D a: a row vector, its axis dropped
         ((2, 3), (3,)),             # 1-D b: a column vector, its axis dropped
         ((3,), (2, 3, 4)),
         ((3,), (3,))]               # inner product: a 0-d result
TRANS = [(False, False), (True, False), (False, True), (True, True)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _uniform(shape, dtype=numpy.float64, seed=0):
    # A bilinear op is smooth everywhere: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _stored(shape, trans):
    # The operand as passed when transposed: the last two axes swapped (1-D ignores it).
    return shape[:-2] + (shape[-1], shape[-2]) if trans and len(shape) >= 2 else shape


def _inputs(shapes, transa, transb, dtype=numpy.float64):
    a = _uniform(_stored(shapes[0], transa), dtype)
    b = _uniform(_stored(shapes[1], transb), dtype, seed=1)
    return a, b


def _reference(a, b, transa, transb):
    a, b = a.astype(numpy.float64), b.astype(numpy.float64)
    if transa and a.ndim >= 2:
        a = a.swapaxes(-1, -2)
    if transb and b.ndim >= 2:
        b = b.swapaxes(-1, -2)
    return numpy.matmul(a, b)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('transa, transb', TRANS)
@pytest.mark.parametrize('shapes', CASES)
def test_forward(shapes, transa, transb, dtype):
    a, b = _inputs(shapes, transa, transb, dtype)
    y = F.matmul(chainlite.Variable(a), chainlite.Variable(b), transa, transb)
    expected = _reference(a, b, transa, transb)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('transa, transb', TRANS)
@pytest.mark.parametrize('shapes', CASES)
def test_backward(shapes, transa, transb):
    a, b = _inputs(shapes, transa, transb)
    gy = _uniform(_reference(a, b, transa, transb).shape, seed=2)
    gradient_check.check_backward(lambda a, b: F.matmul(a, b, transa, transb), (a, b), (gy,))


@pytest.mark.parametrize('transa, transb', TRANS)
@pytest.mark.parametrize('shapes', CASES)
def test_double_backward(shapes, transa, transb):
    a, b = _inputs(shapes, transa, transb)
    gy = _uniform(_reference(a, b, transa, transb).shape, seed=2)
    gga, ggb = _uniform(a.shape, seed=3), _uniform(b.shape, seed=4)
    gradient_check.check_double_backward(
        lambda a, b: F.matmul(a, b, transa, transb), (a, b), (gy,), (gga, ggb))


@pytest.mark.parametrize('shapes', CASES)
def test_operator_matches_numpy(shapes):
    a, b = _inputs(shapes, False, False)
    expected = numpy.matmul(a, b)
    for y in (chainlite.Variable(a) @ chainlite.Variable(b), chainlite.Variable(a) @ b,
              a @ chainlite.Variable(b)):
        assert isinstance(y, chainlite.Variable)
        assert y.shape == expected.shape
        numpy.testing.assert_allclose(y.array, expected, rtol=1e-12)


def test_float32_in_float32_out():
    a = chainlite.Variable(_uniform((2, 2, 3), numpy.float32))
    b = chainlite.Variable(_uniform((3, 4), numpy.float32, seed=1))
    y = F.matmul(a, b)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert a.grad.dtype == numpy.float32
    assert b.grad.dtype == numpy.float32
    # b is shared by the batch: its gradient sums over it.
    numpy.testing.assert_allclose(b.grad, a.array.sum(axis=(0, 1))[:, None].repeat(4, 1),
                                  rtol=1e-5)


def test_arrays_accepted():
    a, b = _uniform((2, 3)), _uniform((3, 4), seed=1)
    y = F.matmul(a, b)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, a @ b, rtol=1e-12)


def _invalid(a, b, **kwargs):
    msg = re.escape('Invalid operation is performed in: MatMul (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.matmul(a, b, **kwargs)


def test_inner_dimensions_must_agree():
    _invalid(numpy.ones((2, 3)), numpy.ones((2, 3)))
    _invalid(numpy.ones((2, 3)), numpy.ones((3, 4)), transa=True)
    _invalid(numpy.ones((3,)), numpy.ones((4,)))


def test_batch_dimensions_must_broadcast():
    _invalid(numpy.ones((2, 2, 3)), numpy.ones((3, 3, 4)))


def test_dtypes_must_be_float():
    _invalid(numpy.ones((2, 3), numpy.float32), numpy.ones((3, 4), numpy.int32))
    _invalid(numpy.ones((2, 3), numpy.int64), numpy.ones((3, 4), numpy.int64))


def test_zero_dim_operand_is_invalid():
    _invalid(numpy.ones(()), numpy.ones((3, 4)))


def test_scalar_operand_of_the_operator_is_a_type_error():
    with pytest.raises(TypeError):
        chainlite.Variable(numpy.ones((2, 2))) @ 2.0
    with pytest.raises(TypeError):
        2.0 @ chainlite.Variable(numpy.ones((2, 2)))
