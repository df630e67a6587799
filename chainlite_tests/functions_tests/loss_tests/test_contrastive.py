"""contrastive: similar and dissimilar pairs against NumPy; gradients in x0 and x1."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.contrastive import contrastive
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
SHAPES = [(4, 3), (6, 2)]
MARGIN = 1.5


def _inputs(shape, dtype=numpy.float64, seed=0):
    # Distances in (0.3, 1.2) or (1.8, 3): away from 0 (sqrt) and from the margin (kink).
    rs = numpy.random.RandomState(seed)
    x0 = rs.uniform(-1, 1, shape)
    direction = rs.normal(size=shape)
    direction /= numpy.linalg.norm(direction, axis=1, keepdims=True)
    dist = numpy.where(numpy.arange(shape[0]) % 2 == 0, rs.uniform(0.3, 1.2, shape[0]),
                       rs.uniform(1.8, 3, shape[0]))
    x1 = x0 + direction * dist[:, None]
    y = rs.randint(0, 2, shape[0]).astype(numpy.int32)
    return x0.astype(dtype), x1.astype(dtype), y


def _expected(x0, x1, y, reduce):
    d = numpy.linalg.norm(x0.astype(numpy.float64) - x1, axis=1)
    loss = (y * d ** 2 + (1 - y) * numpy.maximum(MARGIN - d, 0) ** 2) / 2
    return loss.mean() if reduce == 'mean' else loss


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, reduce):
    x0, x1, y = _inputs(shape, dtype)
    loss = contrastive(chainlite.Variable(x0), x1, y, MARGIN, reduce)
    assert loss.dtype == dtype
    numpy.testing.assert_allclose(loss.array, _expected(x0, x1, y, reduce), **TOL[dtype])


@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward_and_double_backward(shape, reduce):
    x0, x1, y = _inputs(shape)
    rs = numpy.random.RandomState(1)
    gy = rs.uniform(-1, 1, () if reduce == 'mean' else shape[:1])

    def f(x0, x1):
        return contrastive(x0, x1, y, MARGIN, reduce)
    gradient_check.check_backward(f, (x0, x1), gy)
    gradient_check.check_double_backward(f, (x0, x1), gy, (rs.uniform(-1, 1, shape),
                                                           rs.uniform(-1, 1, shape)))


def test_identical_similar_pair_has_zero_gradient():
    # d = 0 for a similar pair: no division by the distance.
    x0 = chainlite.Variable(numpy.ones((2, 2)))
    contrastive(x0, numpy.ones((2, 2)), numpy.array([1, 1])).backward()
    numpy.testing.assert_array_equal(x0.grad, numpy.zeros((2, 2)))


def test_float32_in_float32_out():
    x0, x1, y = _inputs((4, 3), numpy.float32)
    x0 = chainlite.Variable(x0)
    loss = contrastive(x0, x1, y)
    assert loss.dtype == numpy.float32
    loss.backward()
    assert x0.grad.dtype == numpy.float32


@pytest.mark.parametrize('x0, x1, y', [
    (numpy.zeros((2, 3)), numpy.zeros((2, 2)), numpy.zeros(2, numpy.int32)),
    (numpy.zeros((2, 3)), numpy.zeros((2, 3)), numpy.zeros(3, numpy.int32)),
    (numpy.zeros((2, 3)), numpy.zeros((2, 3)), numpy.zeros(2)),
    (numpy.zeros(3), numpy.zeros(3), numpy.zeros(3, numpy.int32))])
def test_invalid_types(x0, x1, y):
    msg = re.escape('Invalid operation is performed in: Contrastive (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        contrastive(x0, x1, y)


def test_invalid_values():
    x = numpy.zeros((2, 3))
    with pytest.raises(ValueError, match='contrastive: each label'):
        contrastive(x, x, numpy.array([0, 2]))
    with pytest.raises(ValueError, match='margin'):
        contrastive(x, x, numpy.array([0, 1]), margin=0)
    with pytest.raises(ValueError, match='reduce'):
        contrastive(x, x, numpy.array([0, 1]), reduce='sum')
