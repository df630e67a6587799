"""Tests of chainlite.optimizers.MSVAG against a NumPy step and Chainer 7.8.1."""
import inspect

import numpy
import pytest

from chainlite import optimizers

# Chainer 7.8.1, MSVAG(lr=0.1, beta=0.8, weight_decay_rate=0.1), the conftest case (float32).
CHAINER_W = [[0.31486642, -0.18868425, 0.10817856],
             [0.54711288, -0.42852169, 0.10052225]]
CHAINER_B = [0.049993575, -0.13122, 0.20619987]


def _reference(lr, beta, eta, weight_decay_rate):
    def step(p, g, state, t):
        m = state.setdefault('m', numpy.zeros_like(p))
        v = state.setdefault('v', numpy.zeros_like(p))
        bp = beta ** t
        rho = min((1 - beta) ** 2 * (1 - bp ** 2) / ((1 - bp) ** 2 * (1 - beta ** 2)), 0.9999)
        m[...] = beta * m + (1 - beta) * g
        v[...] = beta * v + (1 - beta) * g * g
        mt, vt = m / (1 - bp), v / (1 - bp)
        s = (vt - mt ** 2) / (1 - rho)
        with numpy.errstate(invalid='ignore'):
            factor = numpy.clip(mt ** 2 / (mt ** 2 + rho * s), 0, 1)
        factor[numpy.isnan(factor)] = 0
        p -= eta * (lr * mt * factor + weight_decay_rate * p)
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.MSVAG) == [
        ('lr', 0.1), ('beta', 0.9), ('eta', 1.0), ('weight_decay_rate', 0)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('kwargs', [
    dict(lr=0.1, beta=0.9, eta=1.0, weight_decay_rate=0),
    dict(lr=0.05, beta=0.5, eta=0.5, weight_decay_rate=0.2),
])
def test_matches_numpy_reference(case, check, dtype, kwargs):
    got = case.run(optimizers.MSVAG(**kwargs), dtype)
    check(got, case.reference(_reference(**kwargs), dtype))


def test_matches_chainer(case, check):
    got = case.run(optimizers.MSVAG(lr=0.1, beta=0.8, weight_decay_rate=0.1))
    check(got, (CHAINER_W, CHAINER_B))


def test_zero_gradient_gives_zero_factor_without_warning(case):
    # b's middle gradient is always 0: 0 / 0 there must count as factor 0, silently.
    _, b = case.run(optimizers.MSVAG(lr=0.1))
    assert b[1] == numpy.float32(-0.2)


def test_beta_power_follows_t():
    rule = optimizers.MSVAG(beta=0.5).create_update_rule()
    assert rule.beta_power == 0.5
    rule.t = 2
    assert rule.beta_power == 0.125
