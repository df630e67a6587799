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


@pytest.mark.parametrize('wrt', [(1, 2), (0,), (1,), (0, 2)])
def test_gradients_of_some_inputs_are_differentiable(wrt):
    # The gradient node computes only the gradients asked for (the first layer's x is data,
    # a frozen layer's W): the inputs left out are constants here, and the gradients of
    # the rest are checked to the second order through the node's own backward.
    x, W, b = _inputs((4, 3), 1, 2)
    gy = _uniform((4, 2), seed=3)
    full = (x, W, b)

    def grads(*args):
        *variables, g = args
        it = iter(variables)
        ins = [next(it) if i in wrt else full[i] for i in range(3)]
        y = linear(*ins)
        return chainlite.grad([y], [ins[i] for i in wrt], grad_outputs=[g],
                              enable_double_backprop=True)

    inputs = tuple(full[i] for i in wrt) + (gy,)
    ggs = tuple(_uniform(full[i].shape, seed=4 + i) for i in wrt)
    gradient_check.check_backward(grads, inputs, ggs)


def test_gradient_node_forward_mode_rule():
    # jvp of the gradients (gx, gW, gb) as functions of (x, W, gy): pushed through the
    # gradient node's own tangent rule, against the bilinear formulas.
    x, W, b = _inputs((4, 3), 1, 2)
    gy = _uniform((4, 2), seed=3)
    tx, tW, tgy = _uniform(x.shape, seed=6), _uniform(W.shape, seed=7), _uniform(gy.shape, seed=8)

    def grads(x, W, b, gy):
        y = linear(x, W, b)
        return chainlite.grad([y], [x, W, b], grad_outputs=[gy], enable_double_backprop=True)

    (gx, gW, gb), (dgx, dgW, dgb) = chainlite.forward_mode.jvp(
        grads, (x, W, b, gy), (tx, tW, None, tgy))
    numpy.testing.assert_allclose(gx, gy @ W, rtol=1e-12)
    numpy.testing.assert_allclose(dgx, tgy @ W + gy @ tW, rtol=1e-12)
    numpy.testing.assert_allclose(dgW, tgy.T @ x + gy.T @ tx, rtol=1e-12)
    numpy.testing.assert_allclose(dgb, tgy.sum(0), rtol=1e-12)


def test_gradient_node_mixed_precision():
    # float16 data with a float32 weight: each gradient has its input's dtype and the bias
    # gradient is summed in float32 before the cast, as F.sum does.
    x = chainlite.Variable(_uniform((64, 3), numpy.float16))
    W = chainlite.Variable(_uniform((2, 3), numpy.float32, 1))
    b = chainlite.Variable(_uniform((2,), numpy.float16, 2))
    y = linear(x, W, b)
    gy = numpy.full(y.shape, 1000.0, numpy.float16)  # the float16 sum would overflow midway
    y.grad = gy
    y.backward()
    assert (x.grad.dtype, W.grad.dtype, b.grad.dtype) == (numpy.float16, numpy.float32,
                                                          numpy.float16)
    numpy.testing.assert_array_equal(b.grad, numpy.full((2,), 64000.0, numpy.float16))
    numpy.testing.assert_allclose(W.grad, gy.astype(numpy.float32).T @ x.array.astype(
        numpy.float32), rtol=1e-3)
