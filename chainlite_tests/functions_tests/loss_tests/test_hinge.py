"""hinge: L1 and L2 norms, both reductions, against NumPy; gradients to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.hinge import hinge
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
SHAPES = [(3, 4), (1, 2), (5, 3)]


def _inputs(shape, dtype=numpy.float64, seed=0):
    # |x| in (0.1, 0.9) or (1.1, 2): margins 1 +- x stay away from the kink at 0.
    rs = numpy.random.RandomState(seed)
    mag = numpy.where(rs.rand(*shape) < 0.5, rs.uniform(0.1, 0.9, shape),
                      rs.uniform(1.1, 2, shape))
    x = mag * rs.choice([-1, 1], shape)
    t = rs.randint(0, shape[1], shape[0]).astype(numpy.int32)
    return x.astype(dtype), t


def _expected(x, t, norm, reduce):
    sign = numpy.ones(x.shape)
    sign[numpy.arange(len(t)), t] = -1
    loss = numpy.maximum(0, 1 + sign * x.astype(numpy.float64))
    if norm == 'L2':
        loss = loss ** 2
    return loss.sum() / len(x) if reduce == 'mean' else loss


@pytest.mark.parametrize('norm', ['L1', 'L2'])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, reduce, norm):
    x, t = _inputs(shape, dtype)
    y = hinge(chainlite.Variable(x), t, norm, reduce)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, t, norm, reduce), **TOL[dtype])


@pytest.mark.parametrize('norm', ['L1', 'L2'])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward_and_double_backward(shape, reduce, norm):
    x, t = _inputs(shape)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, () if reduce == 'mean' else shape)

    def f(x):
        return hinge(x, t, norm, reduce)
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, rs.uniform(-1, 1, shape))


def test_float32_in_float32_out():
    x, t = _inputs((3, 4), numpy.float32)
    x = chainlite.Variable(x)
    y = hinge(x, t, 'L2')
    assert y.dtype == numpy.float32
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_variables_and_arrays():
    x, t = _inputs((3, 4))
    assert hinge(x, t).array == hinge(chainlite.Variable(x), chainlite.Variable(t)).array


@pytest.mark.parametrize('x, t', [(numpy.zeros((2, 3)), numpy.zeros(3, numpy.int32)),
                                  (numpy.zeros((2, 3)), numpy.zeros(2)),
                                  (numpy.zeros(3), numpy.zeros(3, numpy.int32))])
def test_invalid_types(x, t):
    msg = re.escape('Invalid operation is performed in: Hinge (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        hinge(x, t)


def test_invalid_labels_and_options():
    with pytest.raises(ValueError, match='hinge: each label'):
        hinge(numpy.zeros((2, 3)), numpy.array([0, 3]))
    with pytest.raises(ValueError, match="norm must be 'L1' or 'L2', got 'L3'"):
        hinge(numpy.zeros((2, 3)), numpy.array([0, 1]), norm='L3')
    # Also the type Chainer raises for an unknown norm.
    with pytest.raises(NotImplementedError, match='norm'):
        hinge(numpy.zeros((2, 3)), numpy.array([0, 1]), norm='L3')
    with pytest.raises(ValueError, match='reduce'):
        hinge(numpy.zeros((2, 3)), numpy.array([0, 1]), reduce='sum')
