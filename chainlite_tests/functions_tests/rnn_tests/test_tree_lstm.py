"""tree_lstm against a NumPy reference, for 1, 2 and 3 children; gradients to second order."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-14, 'rtol': 1e-14}}


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _reference(cs, x):
    n = len(cs)
    cs = [c.astype(numpy.float64) for c in cs]
    x = x.astype(numpy.float64)
    g = numpy.split(x, 3 + n, axis=1)  # consecutive blocks a, i, o, f_1..f_n
    c = numpy.tanh(g[0]) * _sigmoid(g[1]) + sum(_sigmoid(f) * ci for f, ci in zip(g[3:], cs))
    return c, numpy.tanh(c) * _sigmoid(g[2])


def _data(n_ary, shape=(3, 2), dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    cs = [rs.uniform(-1, 1, shape).astype(dtype) for _ in range(n_ary)]
    x_shape = (shape[0], (3 + n_ary) * shape[1]) + shape[2:]
    return cs, rs.uniform(-1, 1, x_shape).astype(dtype)


@pytest.mark.parametrize('shape', [(3, 2), (2, 2, 3), (0, 4)])
@pytest.mark.parametrize('n_ary', [1, 2, 3])
@pytest.mark.parametrize('dtype', DTYPES)
def test_forward(dtype, n_ary, shape):
    cs, x = _data(n_ary, shape, dtype)
    c, h = F.tree_lstm(*[chainlite.Variable(v) for v in cs], x)
    assert c.dtype == dtype and h.dtype == dtype
    assert c.shape == shape and h.shape == shape
    ce, he = _reference(cs, x)
    numpy.testing.assert_allclose(c.array, ce, **TOL[dtype])
    numpy.testing.assert_allclose(h.array, he, **TOL[dtype])


@pytest.mark.parametrize('n_ary', [1, 2, 3])
def test_backward_and_double_backward(n_ary):
    cs, x = _data(n_ary)
    gradients.check_grads(F.tree_lstm, tuple(cs) + (x,), order=2)


def test_one_output_used():
    # Only h flows back: the gradient of c is None and is treated as zero.
    cs, x = _data(2)
    gradients.check_grads(lambda *a: F.tree_lstm(*a)[1], tuple(cs) + (x,), order=2)


def test_errors():
    cs, x = _data(2)
    msg = re.escape('Invalid operation is performed in: TreeLSTM (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        F.tree_lstm(x)
    with pytest.raises(type_check.InvalidType, match=r'x.shape\[1\]'):
        F.tree_lstm(cs[0], x)  # x sized for two children
    with pytest.raises(type_check.InvalidType, match='c2.dtype'):
        F.tree_lstm(cs[0], cs[1].astype(numpy.float32), x)
