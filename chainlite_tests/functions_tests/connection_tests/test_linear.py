"""linear: y = x W^T + b, with flattened inputs and several batch axes."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.connection.linear import linear
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
# (x.shape, n_batch_axes, M)
CASES = [((4, 3), 1, 2),
         ((1, 1), 1, 1),
         ((2, 3, 2), 1, 4),        # the trailing axes are flattened: N = 6
         ((2, 3, 4), 2, 3),        # two batch axes
         ((2, 1, 3, 2), 2, 2),     # two batch axes and two flattened axes
         ((0, 3), 1, 2)]           # an empty batch


def _uniform(shape, dtype=numpy.float64, seed=0):
    # linear is bilinear in (x, W) and smooth everywhere: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _inputs(x_shape, n_batch_axes, m, dtype=numpy.float64):
    n = int(numpy.prod(x_shape[n_batch_axes:]))
    return _uniform(x_shape, dtype), _uniform((m, n), dtype, 1), _uniform((m,), dtype, 2)


def _reference(x, W, b, n_batch_axes):
    x, W = x.astype(numpy.float64), W.astype(numpy.float64)
    batch = x.shape[:n_batch_axes]
    y = x.reshape(int(numpy.prod(batch)), W.shape[1]) @ W.T
    if b is not None:
        y = y + b.astype(numpy.float64)
    return y.reshape(batch + (W.shape[0],))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('with_bias', [True, False])
@pytest.mark.parametrize('x_shape, n_batch_axes, m', CASES)
def test_forward(x_shape, n_batch_axes, m, with_bias, dtype):
    x, W, b = _inputs(x_shape, n_batch_axes, m, dtype)
    b = b if with_bias else None
    y = linear(chainlite.Variable(x), chainlite.Variable(W),
               None if b is None else chainlite.Variable(b), n_batch_axes=n_batch_axes)
    expected = _reference(x, W, b, n_batch_axes)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('with_bias', [True, False])
@pytest.mark.parametrize('x_shape, n_batch_axes, m', CASES[:-1])
def test_backward(x_shape, n_batch_axes, m, with_bias):
    x, W, b = _inputs(x_shape, n_batch_axes, m)
    inputs = (x, W, b) if with_bias else (x, W)
    gy = _uniform(_reference(x, W, None, n_batch_axes).shape, seed=3)
    gradient_check.check_backward(
        lambda *a: linear(*a, n_batch_axes=n_batch_axes), inputs, (gy,))


@pytest.mark.parametrize('with_bias', [True, False])
@pytest.mark.parametrize('x_shape, n_batch_axes, m', CASES[:-1])
def test_double_backward(x_shape, n_batch_axes, m, with_bias):
    x, W, b = _inputs(x_shape, n_batch_axes, m)
    inputs = (x, W, b) if with_bias else (x, W)
    gy = _uniform(_reference(x, W, None, n_batch_axes).shape, seed=3)
    ggs = tuple(_uniform(a.shape, seed=4 + i) for i, a in enumerate(inputs))
    gradient_check.check_double_backward(
        lambda *a: linear(*a, n_batch_axes=n_batch_axes), inputs, (gy,), ggs)


def test_gradients_match_the_formulas():
    x, W, b = _inputs((3, 4), 1, 2)
    xv, Wv, bv = chainlite.Variable(x), chainlite.Variable(W), chainlite.Variable(b)
    y = linear(xv, Wv, bv)
    gy = _uniform(y.shape, seed=5)
    y.grad = gy
    y.backward()
    numpy.testing.assert_allclose(xv.grad, gy @ W, rtol=1e-12)
    numpy.testing.assert_allclose(Wv.grad, gy.T @ x, rtol=1e-12)
    numpy.testing.assert_allclose(bv.grad, gy.sum(0), rtol=1e-12)


def test_float32_in_float32_out():
    x, W, b = (chainlite.Variable(a) for a in _inputs((3, 2, 2), 1, 5, numpy.float32))
    y = linear(x, W, b)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == W.grad.dtype == b.grad.dtype == numpy.float32
    assert x.grad.shape == (3, 2, 2)


def test_arrays_and_variables_mixed():
    x, W, b = _inputs((2, 3), 1, 4)
    expected = _reference(x, W, b, 1)
    for args in ((x, W, b), (chainlite.Variable(x), W, b), (x, chainlite.Variable(W), b)):
        y = linear(*args)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, expected, rtol=1e-12)


def test_n_batch_axes_must_be_positive():
    with pytest.raises(ValueError, match='linear'):
        linear(numpy.ones((2, 3)), numpy.ones((4, 3)), n_batch_axes=0)


@pytest.mark.parametrize('x, W, b', [
    (numpy.ones((2, 3)), numpy.ones((4, 2)), None),                      # N differs
    (numpy.ones((2, 3)), numpy.ones((4, 3)), numpy.ones(3)),             # M differs
    (numpy.ones((2, 3)), numpy.ones((4, 3)), numpy.ones((1, 4))),        # 2-d bias
    (numpy.ones(3), numpy.ones((4, 3)), None),                           # 1-d x
    (numpy.ones((2, 3)), numpy.ones((4, 3, 1)), None),                   # 3-d W
    (numpy.ones((2, 3), numpy.int32), numpy.ones((4, 3), numpy.int32), None),
    (numpy.ones((2, 3), numpy.float32), numpy.ones((4, 3), numpy.int32), None),  # W not float
    (numpy.ones((2, 3)), numpy.ones((4, 3)), numpy.ones(4, numpy.float32)),
], ids=['N', 'M', 'bias ndim', 'x 1-d', 'W 3-d', 'int', 'W dtype', 'b dtype'])
def test_invalid_inputs(x, W, b):
    msg = re.escape('Invalid operation is performed in: LinearFunction (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        linear(x, W, b)
