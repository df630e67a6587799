"""Tests of chainlite.optimizers.RMSpropGraves against a NumPy step and Chainer 7.8.1."""
import inspect

import numpy
import pytest

from chainlite import optimizers

# Chainer 7.8.1, RMSpropGraves(lr=0.1, alpha=0.9, momentum=0.8, eps=1e-2), the conftest case.
CHAINER_W = [[0.16764799, -0.42046779, -0.1694738],
             [0.96492517, -1.0413414, 0.39352208]]
CHAINER_B = [-0.060851987, -0.2, 0.34626323]


def _reference(lr, alpha, momentum, eps):
    def step(p, g, state, t):
        n = state.setdefault('n', numpy.zeros_like(p))
        gm = state.setdefault('g', numpy.zeros_like(p))
        delta = state.setdefault('delta', numpy.zeros_like(p))
        n[...] = alpha * n + (1 - alpha) * g * g
        gm[...] = alpha * gm + (1 - alpha) * g
        delta[...] = momentum * delta - lr * g / numpy.sqrt(n - gm * gm + eps)
        p += delta
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.RMSpropGraves) == [
        ('lr', 0.0001), ('alpha', 0.95), ('momentum', 0.9), ('eps', 0.0001)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('kwargs', [
    dict(lr=1e-4, alpha=0.95, momentum=0.9, eps=1e-4),
    dict(lr=0.1, alpha=0.5, momentum=0.5, eps=1e-2),
])
def test_matches_numpy_reference(case, check, dtype, kwargs):
    got = case.run(optimizers.RMSpropGraves(**kwargs), dtype)
    check(got, case.reference(_reference(**kwargs), dtype))


def test_matches_chainer(case, check):
    got = case.run(optimizers.RMSpropGraves(lr=0.1, alpha=0.9, momentum=0.8, eps=1e-2))
    check(got, (CHAINER_W, CHAINER_B))


def test_state_keys(case):
    opt = optimizers.RMSpropGraves()
    m = case.model()
    opt.setup(m)
    m.W.grad, m.b.grad = case.grads(0, numpy.float32)
    opt.update()
    assert sorted(m.W.update_rule.state) == ['delta', 'g', 'n']
