"""sigmoid_cross_entropy: against the NumPy formula with log(sigmoid), ignored labels,
normalize and reduce; gradients to second order."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.loss.sigmoid_cross_entropy import sigmoid_cross_entropy
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
SHAPES = [(4,), (3, 4), (2, 3, 2)]
MSG = re.escape('Invalid operation is performed in: SigmoidCrossEntropy (Forward)')


def _inputs(shape, dtype=numpy.float64, seed=0):
    # The loss is smooth in x: any values will do; about a third of the labels are -1.
    rs = numpy.random.RandomState(seed)
    x = rs.uniform(-3, 3, shape).astype(dtype)
    t = rs.randint(-1, 2, shape).astype(numpy.int32)
    return x, t


def _expected(x, t, normalize=True, reduce='mean'):
    x = x.astype(numpy.float64)
    p = 1 / (1 + numpy.exp(-x))
    loss = -(t * numpy.log(p) + (1 - t) * numpy.log(1 - p)) * (t != -1)
    if reduce == 'no':
        return loss
    return loss.sum() / max((t != -1).sum() if normalize else len(x), 1)


@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype, reduce, normalize):
    x, t = _inputs(shape, dtype)
    y = sigmoid_cross_entropy(chainlite.Variable(x), t, normalize, reduce)
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, _expected(x, t, normalize, reduce), **TOL[dtype])


@pytest.mark.parametrize('normalize', [True, False])
@pytest.mark.parametrize('reduce', ['mean', 'no'])
@pytest.mark.parametrize('shape', SHAPES)
def test_backward_and_double_backward(shape, reduce, normalize):
    x, t = _inputs(shape)
    gy = numpy.random.RandomState(1).uniform(-1, 1, () if reduce == 'mean' else shape)
    ggx = numpy.random.RandomState(2).uniform(-1, 1, shape)

    def f(x):
        return sigmoid_cross_entropy(x, t, normalize, reduce)
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, ggx)


def test_large_logits_are_stable():
    y = sigmoid_cross_entropy(numpy.array([1000.0, -1000.0]), numpy.array([0, 1]), reduce='no')
    numpy.testing.assert_allclose(y.array, [1000.0, 1000.0])


def test_all_ignored_gives_zero():
    x = chainlite.Variable(numpy.ones((2, 2)))
    y = sigmoid_cross_entropy(x, -numpy.ones((2, 2), numpy.int32))
    assert y.array == 0
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.zeros((2, 2)))


def test_float32_in_float32_out():
    x, t = _inputs((3, 4), numpy.float32)
    x = chainlite.Variable(x)
    y = sigmoid_cross_entropy(x, t)
    assert y.dtype == numpy.float32
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_variables_and_arrays():
    x, t = _inputs((3, 4))
    y1 = sigmoid_cross_entropy(x, t)
    y2 = sigmoid_cross_entropy(chainlite.Variable(x), chainlite.Variable(t))
    assert isinstance(y1, chainlite.Variable)
    assert y1.array == y2.array


@pytest.mark.parametrize('x, t', [(numpy.zeros((2, 3)), numpy.zeros((2, 2), numpy.int32)),
                                  (numpy.zeros((2, 3)), numpy.zeros((2, 3))),
                                  (numpy.zeros((2, 3), numpy.int32),
                                   numpy.zeros((2, 3), numpy.int32))])
def test_invalid_types(x, t):
    with pytest.raises(type_check.InvalidType, match=MSG):
        sigmoid_cross_entropy(x, t)


def test_invalid_labels_and_options():
    with pytest.raises(ValueError, match='sigmoid_cross_entropy: each label'):
        sigmoid_cross_entropy(numpy.zeros(2), numpy.array([0, 2]))
    with pytest.raises(ValueError, match='reduce'):
        sigmoid_cross_entropy(numpy.zeros(2), numpy.array([0, 1]), reduce='sum')
