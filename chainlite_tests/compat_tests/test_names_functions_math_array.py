"""Chainer 7.8.1 names of chainer.functions.{math,array,connection,noise,evaluation} internals.

The FunctionNode classes, ``*Grad`` nodes and helpers that code outside Chainer may import
(test_chainer_names.py checks that they resolve): each test checks what the name does, as
Chainer does it without a GPU, reached under compat through Chainer's module path.
"""
import importlib
import math

import numpy as np
import pytest

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


_rng = np.random.RandomState(0)


def _r(*shape, low=None, high=None):
    if low is None:
        return _rng.randn(*shape)
    return _rng.uniform(low, high, shape)


def _check(f, inputs, n_out=1):
    """Forward once, then first and second order gradients (float64) of ``f``."""
    outs = f(*inputs)
    gys = tuple(_r(*y.shape) for y in outs)
    ggs = tuple(_r(*np.shape(x)) for x in inputs)
    gradient_check.check_backward(f, inputs, gys)
    gradient_check.check_double_backward(f, inputs, gys, ggs)
    return outs


# -- math: trigonometric gradient nodes ----------------------------------------------------------

@pytest.mark.parametrize('name,derivative', [
    ('SinGrad', np.cos),
    ('CosGrad', lambda x: -np.sin(x)),
    ('ArcsinGrad', lambda x: 1 / np.sqrt(1 - x * x)),
    ('ArccosGrad', lambda x: -1 / np.sqrt(1 - x * x)),
    ('ArctanGrad', lambda x: 1 / (1 + x * x)),
])
def test_trigonometric_grad_nodes(chainer, name, derivative):
    node = getattr(_mod('math.trigonometric'), name)
    x, gy = _r(3, 2, low=-0.8, high=0.8), _r(3, 2)  # inside (-1, 1): arcsin's domain
    gx, = _check(lambda x, gy: node().apply((x, gy)), (x, gy))
    np.testing.assert_allclose(gx.array, derivative(x) * gy)
    assert node().apply((x.astype(np.float32), gy.astype(np.float32)))[0].dtype == np.float32


def test_arctan2_grad_node(chainer):
    node = _mod('math.trigonometric').Arctan2Grad
    x1, x2, gy = _r(3, 2, low=0.5, high=1), _r(3, 2, low=0.5, high=1), _r(3, 2)
    gx1, gx2 = _check(lambda *xs: node().apply(xs), (x1, x2, gy))
    r2 = x1 ** 2 + x2 ** 2
    np.testing.assert_allclose(gx1.array, gy * x2 / r2)
    np.testing.assert_allclose(gx2.array, -gy * x1 / r2)


# -- math: basic_math --------------------------------------------------------------------------

def test_basic_math_div_grads(chainer):
    bm = _mod('math.basic_math')
    x0, gy = _r(3, 2, low=0.5, high=2), _r(3, 2)
    for x1 in (_r(3, 2, low=0.5, high=2), _r(2, low=0.5, high=2)):  # also broadcast
        gx0, gx1 = _check(lambda *xs: bm.DivGrad(x1.shape == x0.shape).apply(xs), (x0, x1, gy))
        np.testing.assert_allclose(gx0.array, gy / x1)
        np.testing.assert_allclose(gx1.array, (-gy * x0 / x1 ** 2).sum(0) if x1.ndim == 1
                                   else -gy * x0 / x1 ** 2)
    gx, = _check(lambda x, gy: bm.DivFromConstantGrad(3.0).apply((x, gy)), (x0, gy))
    np.testing.assert_allclose(gx.array, -3.0 * gy / x0 ** 2)


def test_basic_math_pow_grads(chainer):
    bm = _mod('math.basic_math')
    x0, x1, gy = _r(3, 2, low=0.5, high=2), _r(3, 2, low=0.5, high=2), _r(3, 2)
    gx0, gx1 = bm.PowVarVarGrad(True, x0 ** x1).apply((x0, x1, gy))
    np.testing.assert_allclose(gx0.array, x1 * x0 ** (x1 - 1) * gy)
    np.testing.assert_allclose(gx1.array, np.log(x0) * x0 ** x1 * gy)
    # y is the forward output x0 ** x1: the numerical check recomputes it from the inputs.
    f = lambda a, b, g: bm.PowVarVarGrad(True, a.array ** b.array).apply((a, b, g))  # noqa
    gradient_check.check_backward(f, (x0, x1, gy), (_r(3, 2), _r(3, 2)))
    gx, = _check(lambda x, gy: bm.PowVarConstGrad(2.5).apply((x, gy)), (x0, gy))
    np.testing.assert_allclose(gx.array, 2.5 * x0 ** 1.5 * gy)
    y = 2.5 ** x0
    gx, = _check(lambda y, gy: bm.PowConstVarGrad(2.5).apply((y, gy)), (y, gy))
    np.testing.assert_allclose(gx.array, math.log(2.5) * y * gy)


def test_basic_math_absolute_grad_and_multi_add(chainer):
    bm = _mod('math.basic_math')
    x = np.array([-2.0, 0.0, 3.0])
    gx, = _check(lambda gy: bm.AbsoluteGrad(x).apply((gy,)), (_r(3),))
    np.testing.assert_array_equal(bm.AbsoluteGrad(x).apply((np.ones(3),))[0].array,
                                  [-1.0, 0.0, 1.0])
    a, b, c = _r(3, 2), _r(2), _r(3, 2)
    y, = _check(lambda *xs: bm.MultiAdd().apply(xs), (a, b, c))
    np.testing.assert_allclose(y.array, a + b + c)
    assert bm.MultiAdd().apply((a,))[0].array is not None


def test_basic_math_operand_helpers(chainer):
    bm = _mod('math.basic_math')
    x = np.zeros(2, np.float32)
    c = bm._preprocess_const(x, 2)
    assert c == 2 and c.dtype == np.float32
    assert bm._preprocess_rhs(chainer.Variable(x), np.ones(2)).dtype == np.float32
    v = chainer.Variable(np.ones(2))
    assert bm._preprocess_rhs(chainer.Variable(x), v) is v
    with pytest.raises(TypeError, match='Value must be'):
        bm._preprocess_rhs(chainer.Variable(x), [1, 2])
    assert bm._chainerx_preprocess_const(x, np.float64(1.5), 'add') == 1.5
    assert type(bm._chainerx_preprocess_const(x, np.float64(1.5), 'add')) is float
    with pytest.raises(RuntimeError, match='ChainerX is not available'):
        bm._chainerx_preprocess_const(x, np.ones(2), 'add')


# -- math: small names -------------------------------------------------------------------------

def test_average_mean_node(chainer):
    average = _mod('math.average')
    x = _r(2, 3)
    y, = _check(lambda x: average.Mean((1,), False).apply((x,)), (x,))
    np.testing.assert_allclose(y.array, x.mean(axis=1))
    np.testing.assert_allclose(average._mean(x, 0, keepdims=True).array,
                               x.mean(axis=0, keepdims=True))


def test_special_function_flags_and_constants(chainer):
    for name in ('erfcinv', 'erfcx', 'erfinv', 'ndtri'):
        assert _mod('math.' + name).available_cpu is True  # SciPy is a test dependency
    assert _mod('math.erfinv').BACKWORDC == pytest.approx(math.sqrt(math.pi) / 2)
    assert _mod('math.erfcinv').BACKWORDC == pytest.approx(math.sqrt(math.pi) / 2)
    ndtr = _mod('math.ndtr')
    assert ndtr._slow_ndtr_cpu(0.0) == 0.5
    assert ndtr._slow_ndtr_cpu(1.0) == pytest.approx(0.8413447460685429)


def test_rsqrt_gpu_node_and_sum_to_node(chainer):
    sqrt, sum_ = _mod('math.sqrt'), _mod('math.sum')
    x = _r(3, low=0.5, high=2)
    y, = _check(lambda x: sqrt.RsqrtGPU().apply((x,)), (x,))
    np.testing.assert_allclose(y.array, 1 / np.sqrt(x))
    y, = _check(lambda x: sum_.SumTo((1, 2)).apply((x,)), (_r(3, 2),))
    assert y.shape == (1, 2)
