"""tensordot: int axes, paired axes in any order, negative axes, 0-d results and outer products."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.tensordot import tensordot
from chainlite.utils import type_check

# (a.shape, b.shape, axes)
CASES = [((5, 3, 2), (3, 2, 4), 2),
         ((3, 4), (4, 5), 1),
         ((2, 3), (4,), 0),                       # outer product
         ((), (3,), 0),                           # 0-d operand
         ((3, 2), (3, 2), 2),                     # full contraction: a 0-d result
         ((3, 4, 2), (2, 5, 3), ([0, 2], [2, 0])),
         ((3, 4, 2), (2, 5, 3), ([2, 0], [0, 2])),
         ((3, 4, 2), (4, 3), ((1, 0), (0, 1))),
         ((3, 4, 2), (2, 4), (-1, 0)),            # ints instead of sequences, negative
         ((2, 3, 4), (4, 3, 2), ([-1, -2, -3], [0, 1, 2]))]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 3e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _inputs(sa, sb, dtype=numpy.float64):
    # A bilinear op is smooth everywhere: any values will do.
    rs = numpy.random.RandomState(0)
    return rs.uniform(-1, 1, sa).astype(dtype), rs.uniform(-1, 1, sb).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('sa, sb, axes', CASES)
def test_forward(sa, sb, axes, dtype):
    a, b = _inputs(sa, sb, dtype)
    y = tensordot(chainlite.Variable(a), chainlite.Variable(b), axes)
    expected = numpy.tensordot(a.astype(numpy.float64), b.astype(numpy.float64), axes)
    assert y.shape == expected.shape and y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('sa, sb, axes', CASES)
def test_backward(sa, sb, axes):
    a, b = _inputs(sa, sb)
    gy = numpy.random.RandomState(1).uniform(-1, 1, numpy.tensordot(a, b, axes).shape)
    gradient_check.check_backward(lambda a, b: tensordot(a, b, axes), (a, b), (gy,))


@pytest.mark.parametrize('sa, sb, axes', CASES)
def test_double_backward(sa, sb, axes):
    a, b = _inputs(sa, sb)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, numpy.tensordot(a, b, axes).shape)
    gga, ggb = rs.uniform(-1, 1, sa), rs.uniform(-1, 1, sb)
    gradient_check.check_double_backward(
        lambda a, b: tensordot(a, b, axes), (a, b), (gy,), (gga, ggb))


def test_default_axes_is_two():
    a, b = _inputs((2, 3, 4), (3, 4, 5))
    numpy.testing.assert_allclose(tensordot(a, b).array, numpy.tensordot(a, b), rtol=1e-12)


def test_float32_in_float32_out():
    a, b = _inputs((3, 4, 2), (2, 5, 3), numpy.float32)
    a, b = chainlite.Variable(a), chainlite.Variable(b)
    y = tensordot(a, b, ([0, 2], [2, 0]))
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert a.grad.dtype == numpy.float32 and b.grad.dtype == numpy.float32


def test_arrays_and_variables_accepted():
    a, b = _inputs((3, 4), (4, 5))
    for y in (tensordot(a, b, 1), tensordot(chainlite.Variable(a), b, 1),
              tensordot(a, chainlite.Variable(b), 1)):
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, a @ b, rtol=1e-12)


_MSG = re.escape('Invalid operation is performed in: TensorDot (Forward)')


@pytest.mark.parametrize('a, b, axes', [
    (numpy.ones((3, 4)), numpy.ones((3, 4)), 1),                  # sizes differ
    (numpy.ones((3, 4)), numpy.ones((4, 3)), ([0], [0])),
    (numpy.ones((3, 4)), numpy.ones((3, 4), numpy.int32), 2),     # b not float
    (numpy.ones((3, 4), numpy.int32), numpy.ones((3, 4), numpy.int32), 2),
    (numpy.ones((3, 4)), numpy.ones((3, 4)), 3),                  # too many axes
    (numpy.ones((3, 4)), numpy.ones((3, 4)), -1),
    (numpy.ones((3, 4)), numpy.ones((3, 4)), ([2], [0])),         # axis out of range
])
def test_invalid(a, b, axes):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        tensordot(a, b, axes)


@pytest.mark.parametrize('axes, error', [
    (([0, 0], [0, 1]), ValueError),      # duplicate
    (([0, 1], [0]), ValueError),         # unequal numbers
    ('ab', TypeError),
    (([0], [0], [0]), TypeError),
    (1.0, TypeError)])
def test_bad_axes_argument(axes, error):
    with pytest.raises(error):
        tensordot(numpy.ones((3, 3)), numpy.ones((3, 3)), axes)
