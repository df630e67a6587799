"""triplet: max(|a - p|^2 - |a - n|^2 + margin, 0) against NumPy; gradients in all three."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.triplet import triplet
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
SHAPES = [(4, 3), (6, 2)]


def _inputs(shape, dtype=numpy.float64, seed=0):
    # Rows whose hinge argument is at least 0.1 away from 0 (the kink), of both signs.
    rs = numpy.random.RandomState(seed)
    while True:
        a, p, n = (rs.uniform(-1, 1, shape) for _ in range(3))
        d = ((a - p) ** 2).sum(1) - ((a - n) ** 2).sum(1) + 0.2
        if (numpy.abs(d) > 0.1).all() and (d > 0).any() and (d < 0).any():
            return a.astype(dtype), p.astype(dtype), n.astype(dtype)


def _expected(a, p, n, margin, reduce):
    a, p, n = (v.astype(numpy.float64) for v in (a, p, n))
    loss = numpy.maximum(((a - p) ** 2).sum(1) - ((a - n) ** 2).sum(1) + margin, 0)
    return loss.mean() if reduce == 'mean' else loss


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, reduce):
    a, p, n = _inputs(shape, dtype)
    loss = triplet(chainlite.Variable(a), p, n, reduce=reduce)
    assert loss.dtype == dtype
    numpy.testing.assert_allclose(loss.array, _expected(a, p, n, 0.2, reduce), **TOL[dtype])


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward_and_double_backward(shape, reduce):
    xs = _inputs(shape)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, () if reduce == 'mean' else shape[:1])

    def f(a, p, n):
        return triplet(a, p, n, reduce=reduce)
    gradient_check.check_backward(f, xs, gy)
    gradient_check.check_double_backward(f, xs, gy,
                                         tuple(rs.uniform(-1, 1, shape) for _ in range(3)))


def test_margin_option():
    a, p, n = _inputs((4, 3))
    numpy.testing.assert_allclose(triplet(a, p, n, margin=1.0).array,
                                  _expected(a, p, n, 1.0, 'mean'))


def test_float32_in_float32_out():
    xs = [chainlite.Variable(v) for v in _inputs((4, 3), numpy.float32)]
    loss = triplet(*xs)
    assert loss.dtype == numpy.float32
    loss.backward()
    assert all(x.grad.dtype == numpy.float32 for x in xs)


@pytest.mark.parametrize('xs', [
    (numpy.zeros((2, 3)), numpy.zeros((2, 3)), numpy.zeros((2, 2))),
    (numpy.zeros((2, 3)), numpy.zeros((2, 3), numpy.float32), numpy.zeros((2, 3))),
    (numpy.zeros(3), numpy.zeros(3), numpy.zeros(3))])
def test_invalid_types(xs):
    msg = re.escape('Invalid operation is performed in: Triplet (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        triplet(*xs)


def test_invalid_options():
    x = numpy.zeros((2, 3))
    with pytest.raises(ValueError, match='margin'):
        triplet(x, x, x, margin=-1)
    with pytest.raises(ValueError, match='reduce'):
        triplet(x, x, x, reduce='sum')
