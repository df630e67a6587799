"""LSTMGrad (Chainer's name for lstm's gradient function) equals backprop through lstm."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.functions.rnn.lstm import LSTMGrad
from chainlite.testing import gradients


@pytest.mark.parametrize('batch', [3, 2, 0])
def test_matches_backprop_and_is_differentiable(batch):
    rs = numpy.random.RandomState(batch)
    c_prev = chainlite.Variable(rs.uniform(-1, 1, (3, 2, 4)))
    x = chainlite.Variable(rs.uniform(-1, 1, (batch, 8, 4)))
    c, h = F.lstm(c_prev, x)
    gc, gh = rs.uniform(-1, 1, c.shape), rs.uniform(-1, 1, h.shape)
    expect = chainlite.grad([c, h], [c_prev, x], grad_outputs=[gc, gh])
    got = LSTMGrad()(c_prev, x, c.array, gc, gh)
    for g, e in zip(got, expect):
        numpy.testing.assert_allclose(g.array, e.array, rtol=1e-12, atol=1e-14)
    if batch:
        gradients.check_grads(LSTMGrad(), (c_prev.array, x.array, c.array, gc, gh), order=2)
