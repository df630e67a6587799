"""Chainer's internal names in chainer.functions.{activation,loss,normalization,pooling,rnn}.

Each test reaches the name through ``import chainer`` under compat and checks what it does
on the CPU, as Chainer does it without a GPU: forward values against NumPy, and gradient
nodes against numerical gradients (double backprop included).
"""
import importlib

import numpy as np
import pytest

import chainlite
from chainlite import compat
from chainlite import gradient_check


@pytest.fixture
def chainer():
    compat.install()
    try:
        yield importlib.import_module('chainer')
    finally:
        compat.uninstall()


def _mod(name):
    return importlib.import_module('chainer.functions.' + name)


def _grad_of(f, x, gy):
    # The gradient of sum(f(x) * gy) with respect to x, through chainlite's own backward.
    xv = chainlite.Variable(x)
    y = f(xv)
    y.grad = gy
    y.backward()
    return xv.grad


def _uniform(*shape, low=-1, high=1, seed=0):
    return np.random.RandomState(seed).uniform(low, high, shape)


# -- activation --------------------------------------------------------------------------------

def test_clipped_relu_grad_nodes(chainer):
    m = _mod('activation.clipped_relu')
    # Away from the kinks at 0 and z = 2.
    x = np.array([-1.0, 0.5, 1.5, 3.0])
    gy = np.array([1.0, 2.0, 3.0, 4.0])
    y = np.clip(x, 0, 2)
    for node in (lambda: m.ClippedReLUGrad2(x, 2.0), lambda: m.ClippedReLUGrad3(x, y, 2.0)):
        gx, = node().apply((gy,))
        np.testing.assert_array_equal(gx.array, [0, 2, 3, 0])
        np.testing.assert_array_equal(gx.array, _grad_of(lambda v: m.clipped_relu(v, 2.0),
                                                         x, gy))
        gradient_check.check_backward(lambda g: node().apply((g,))[0], gy, gy)
        gradient_check.check_double_backward(lambda g: node().apply((g,))[0], gy, gy, gy)
    assert m.ClippedReLUGrad2(x.astype(np.float32), 2.0).apply(
        (gy.astype(np.float32),))[0].dtype == np.float32


def test_elu_grad_node(chainer):
    m = _mod('activation.elu')
    x = np.array([-1.5, -0.2, 0.3, 2.0])
    y = m.elu(x, 0.7).array
    d, = m.ELUGrad(0.7, x).apply((y,))
    np.testing.assert_allclose(d.array, np.where(x > 0, 1, 0.7 * np.exp(x)))
    gradient_check.check_backward(lambda v: m.ELUGrad(0.7, x).apply((v,))[0], y, y)
    gradient_check.check_double_backward(lambda v: m.ELUGrad(0.7, x).apply((v,))[0] ** 2,
                                         y, y, y)


def test_hard_sigmoid_grad_node(chainer):
    m = _mod('activation.hard_sigmoid')
    x = np.array([-3.0, -1.0, 0.5, 2.0, 3.0])
    gy = np.arange(1.0, 6.0)
    gx, = m.HardSigmoidGrad(x).apply((gy,))
    np.testing.assert_allclose(gx.array, [0, 0.4, 0.6, 0.8, 0])
    np.testing.assert_allclose(gx.array, _grad_of(m.hard_sigmoid, x, gy))
    gradient_check.check_double_backward(
        lambda g: m.HardSigmoidGrad(x).apply((g,))[0], gy, gy, gy)
    with pytest.raises(TypeError, match='HardSigmoidGrad.*dtype'):
        m.HardSigmoidGrad(x).apply((gy.astype(np.float32),))


def test_leaky_relu_grad_node_and_kernel(chainer):
    m = _mod('activation.leaky_relu')
    x = np.array([-2.0, -0.5, 0.5, 2.0])
    gy = np.array([1.0, 2.0, 3.0, 4.0])
    gx, = m._LeakyReLUGrad(x, 0.1).apply((gy,))
    np.testing.assert_allclose(gx.array, [0.1, 0.2, 3, 4])
    np.testing.assert_allclose(gx.array, _grad_of(lambda v: m.leaky_relu(v, 0.1), x, gy))
    gradient_check.check_double_backward(
        lambda g: m._LeakyReLUGrad(x, 0.1).apply((g,))[0], gy, gy, gy)
    with pytest.raises(RuntimeError, match='CUDA'):
        m._get_kern()


def test_log_softmax_helpers(chainer):
    m = _mod('activation.log_softmax')
    x = _uniform(3, 4)
    ref = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(m._log_softmax(x), ref)
    np.testing.assert_allclose(m._log_softmax(x, axis=0),
                               x - np.log(np.exp(x).sum(axis=0, keepdims=True)))
    gy = _uniform(3, 4, seed=1)
    node = lambda: m.LogSoftmaxGrad(np, x.shape, x.dtype, 1)  # noqa: E731
    gx, = node().apply((ref, gy))
    np.testing.assert_allclose(gx.array, _grad_of(m.log_softmax, x, gy))
    gradient_check.check_backward(lambda y, g: node().apply((y, g))[0], (ref, gy), gy)
    gradient_check.check_double_backward(lambda y, g: node().apply((y, g))[0], (ref, gy),
                                         gy, (gy, gy))


def test_prelu_helpers_and_grad_node(chainer):
    m = _mod('activation.prelu')
    x = _uniform(2, 3, 4)
    x[np.abs(x) < 0.1] = 0.5  # away from the kink at 0
    W = _uniform(3, seed=1)
    assert m._get_extended_shape(W, x) == (1, 3, 1)
    assert m._get_reduce_axes(W, x) == (0, 2)
    gy = _uniform(2, 3, 4, seed=2)
    node = lambda: m.PReLUFunctionGrad(x, (0, 2), (1, 3, 1))  # noqa: E731
    gx, gW = node().apply((x, W, gy))
    xv, Wv = chainlite.Variable(x), chainlite.Variable(W)
    y = m.prelu(xv, Wv)
    y.grad = gy
    y.backward()
    np.testing.assert_allclose(gx.array, xv.grad)
    np.testing.assert_allclose(gW.array, Wv.grad)
    gradient_check.check_backward(lambda a, b, c: node().apply((a, b, c)), (x, W, gy),
                                  (gy, W))
    gradient_check.check_double_backward(lambda a, b, c: node().apply((a, b, c)),
                                         (x, W, gy), (gy, W), (x, W, gy))
    with pytest.raises(RuntimeError, match='CUDA'):
        m._fwd_kern()


def test_relu_grad_nodes(chainer):
    m = _mod('activation.relu')
    y = np.array([0.0, 0.0, 0.5, 2.0])
    gy = np.array([1.0, 2.0, 3.0, 4.0])
    gx, = m.ReLUGrad2(y).apply((gy,))
    np.testing.assert_array_equal(gx.array, [0, 0, 3, 4])
    gradient_check.check_double_backward(lambda g: m.ReLUGrad2(y).apply((g,))[0], gy, gy, gy)
    # The cuDNN node needs CUDA, as in Chainer without a GPU; its backward is ReLUGrad2's.
    with pytest.raises(RuntimeError, match='CUDA'):
        m.ReLUGradCudnn(y).apply((gy,))
    gg, = m.ReLUGradCudnn(y).backward((0,), (chainlite.Variable(gy),))
    np.testing.assert_array_equal(gg.array, [0, 0, 3, 4])


def test_rrelu_kernel_needs_cuda(chainer):
    with pytest.raises(RuntimeError, match='CUDA'):
        _mod('activation.rrelu')._kern()


def test_sigmoid_and_tanh_grad_nodes(chainer):
    x = _uniform(5)
    gy = _uniform(5, seed=1)
    ms, mt = _mod('activation.sigmoid'), _mod('activation.tanh')
    for m, f, node in ((ms, ms.sigmoid, lambda: ms.SigmoidGrad((None,))),
                       (mt, mt.tanh, lambda: mt.TanhGrad(None))):
        y = f(x).array
        gx, = node().apply((y, gy))
        np.testing.assert_allclose(gx.array, _grad_of(f, x, gy))
        gradient_check.check_double_backward(lambda a, b: node().apply((a, b))[0], (y, gy),
                                             gy, (gy, gy))
    assert ms.SigmoidGrad((x,)).x is x and mt.TanhGrad(x).x is x


def test_softplus_grad_node(chainer):
    m = _mod('activation.softplus')
    x, gy = _uniform(5), _uniform(5, seed=1)
    gx, = m.SoftplusGrad((2.0,)).apply((x, gy))
    np.testing.assert_allclose(gx.array, _grad_of(lambda v: m.softplus(v, 2.0), x, gy))
    f = lambda a, b: m.SoftplusGrad((2.0,)).apply((a, b))[0]  # noqa: E731
    gradient_check.check_backward(f, (x, gy), gy)
    gradient_check.check_double_backward(f, (x, gy), gy, (gy, gy))


def test_swish_helpers_and_grad_node(chainer):
    m = _mod('activation.swish')
    x, beta, gy = _uniform(2, 3, 4), _uniform(3, seed=1), _uniform(2, 3, 4, seed=2)
    assert m._get_extended_shape(beta, x) == (1, 3, 1)
    assert m._get_reduction_axes(beta, x) == (0, 2)
    np.testing.assert_allclose(m._sigmoid(x), 1 / (1 + np.exp(-x)))
    assert m._sigmoid(x.astype(np.float32)).dtype == np.float32
    f = lambda a, b, c: m.SwishGrad((1, 3, 1), (0, 2)).apply((a, b, c))  # noqa: E731
    gx, gb = f(x, beta, gy)
    xv, bv = chainlite.Variable(x), chainlite.Variable(beta)
    y = m.swish(xv, bv)
    y.grad = gy
    y.backward()
    np.testing.assert_allclose(gx.array, xv.grad)
    np.testing.assert_allclose(gb.array, bv.grad)
    gradient_check.check_backward(f, (x, beta, gy), (gy, beta))
    gradient_check.check_double_backward(f, (x, beta, gy), (gy, beta), (x, beta, gy))
