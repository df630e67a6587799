"""Tests of chainlite.optimizers.MomentumSGD against a NumPy step and Chainer 7.8.1."""
import inspect

import numpy
import pytest

from chainlite import optimizers

# Chainer 7.8.1, MomentumSGD(lr=0.1, momentum=0.8), the conftest case (float32).
CHAINER_W = [[0.45967999, -0.35496002, 0.16944002],
             [0.73528004, -0.62080002, 0.025520016]]
CHAINER_B = [0.1122, -0.2, 0.29268]


def _reference(lr, momentum):
    def step(p, g, state, t):
        v = state.setdefault('v', numpy.zeros_like(p))
        v[...] = momentum * v - lr * g
        p += v
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.MomentumSGD) == [('lr', 0.01), ('momentum', 0.9)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('lr, momentum', [(0.01, 0.9), (0.2, 0.5)])
def test_matches_numpy_reference(case, check, dtype, lr, momentum):
    got = case.run(optimizers.MomentumSGD(lr=lr, momentum=momentum), dtype)
    check(got, case.reference(_reference(lr, momentum), dtype))


def test_matches_chainer(case, check):
    check(case.run(optimizers.MomentumSGD(lr=0.1, momentum=0.8)), (CHAINER_W, CHAINER_B))


def test_state_is_the_velocity(case):
    opt = optimizers.MomentumSGD(lr=0.1, momentum=0.8)
    m = case.model()
    opt.setup(m)
    assert m.W.update_rule.state is None
    m.W.grad, m.b.grad = case.grads(0, numpy.float32)
    opt.update()
    assert sorted(m.W.update_rule.state) == ['v']
    numpy.testing.assert_allclose(m.W.update_rule.state['v'], -0.1 * m.W.grad, rtol=1e-6)
