"""Tests of chainlite.optimizers.AdaDelta against a NumPy step and Chainer 7.8.1."""
import inspect

import numpy
import pytest

from chainlite import optimizers

# Chainer 7.8.1, AdaDelta(rho=0.9, eps=1e-2), the conftest case (float32).
CHAINER_W = [[0.21892382, -0.41605431, -0.10756806],
             [0.82786435, -0.9050945, 0.19583853]]
CHAINER_B = [-0.02385062, -0.2, 0.37026125]


def _reference(rho, eps):
    def step(p, g, state, t):
        msg = state.setdefault('msg', numpy.zeros_like(p))
        msdx = state.setdefault('msdx', numpy.zeros_like(p))
        msg[...] = rho * msg + (1 - rho) * g * g
        dx = numpy.sqrt((msdx + eps) / (msg + eps)) * g
        msdx[...] = rho * msdx + (1 - rho) * dx * dx
        p -= dx
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.AdaDelta) == [('rho', 0.95), ('eps', 1e-06)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('rho, eps', [(0.95, 1e-6), (0.5, 1e-2)])
def test_matches_numpy_reference(case, check, dtype, rho, eps):
    got = case.run(optimizers.AdaDelta(rho=rho, eps=eps), dtype)
    check(got, case.reference(_reference(rho, eps), dtype))


def test_matches_chainer(case, check):
    check(case.run(optimizers.AdaDelta(rho=0.9, eps=1e-2)), (CHAINER_W, CHAINER_B))


def test_state_keys(case):
    opt = optimizers.AdaDelta()
    m = case.model()
    opt.setup(m)
    m.W.grad, m.b.grad = case.grads(0, numpy.float32)
    opt.update()
    assert sorted(m.W.update_rule.state) == ['msdx', 'msg']
