"""slstm against a NumPy reference; SLSTMGrad equals the gradients of slstm."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.functions.rnn.slstm import SLSTMGrad
from chainlite.testing import gradients
from chainlite.utils import type_check

TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-14, 'rtol': 1e-14}}


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _gates(x):
    r = x.reshape((x.shape[0], x.shape[1] // 4, 4) + x.shape[2:])
    return [r[:, :, k] for k in range(4)]


def _data(shape=(3, 2), dtype=numpy.float64, seed=0):
    rs = numpy.random.RandomState(seed)
    x_shape = (shape[0], 4 * shape[1]) + shape[2:]
    return [rs.uniform(-1, 1, s).astype(dtype) for s in (shape, shape, x_shape, x_shape)]


@pytest.mark.parametrize('shape', [(3, 2), (2, 3, 2), (1, 0, 5)])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_forward(dtype, shape):
    c1, c2, x1, x2 = _data(shape, dtype)
    c, h = F.slstm(chainlite.Variable(c1), c2, x1, x2)
    assert c.dtype == dtype and c.shape == shape and h.shape == shape
    a1, i1, f1, o1 = (g.astype(numpy.float64) for g in _gates(x1))
    a2, i2, f2, o2 = (g.astype(numpy.float64) for g in _gates(x2))
    ce = (numpy.tanh(a1) * _sigmoid(i1) + numpy.tanh(a2) * _sigmoid(i2)
          + _sigmoid(f1) * c1 + _sigmoid(f2) * c2)
    numpy.testing.assert_allclose(c.array, ce, **TOL[dtype])
    numpy.testing.assert_allclose(h.array, _sigmoid(o1 + o2) * numpy.tanh(ce), **TOL[dtype])


def test_backward_and_double_backward():
    gradients.check_grads(F.slstm, tuple(_data()), order=2)


def test_slstm_grad_matches_backprop():
    c1, c2, x1, x2 = (chainlite.Variable(v) for v in _data(seed=1))
    c, h = F.slstm(c1, c2, x1, x2)
    rs = numpy.random.RandomState(2)
    gc, gh = rs.uniform(-1, 1, c.shape), rs.uniform(-1, 1, h.shape)
    expect = chainlite.grad([c, h], [c1, c2, x1, x2], grad_outputs=[gc, gh])
    got = SLSTMGrad()(c1, c2, x1, x2, c.array, gc, gh)
    for g, e in zip(got, expect):
        numpy.testing.assert_allclose(g.array, e.array, rtol=1e-12, atol=1e-14)


def test_errors():
    c1, c2, x1, x2 = _data()
    with pytest.raises(type_check.InvalidType, match='SLSTM'):
        F.slstm(c1, c2, x1[:, :4], x2)
    with pytest.raises(type_check.InvalidType, match='c_prev2.dtype'):
        F.slstm(c1, c2.astype(numpy.float32), x1, x2)
