"""Tests of chainlite.optimizers.AdaGrad against a NumPy step and Chainer 7.8.1."""
import inspect

import numpy
import pytest

from chainlite import optimizers

# Chainer 7.8.1, AdaGrad(lr=0.1), the conftest case (float32).
CHAINER_W = [[0.35134512, -0.29341638, 0.1047703],
             [0.83345783, -0.68199784, 0.142643]]
CHAINER_B = [0.039093044, -0.2, 0.36090696]


def _reference(lr, eps):
    def step(p, g, state, t):
        h = state.setdefault('h', numpy.zeros_like(p))
        h += g * g
        p -= lr * g / (numpy.sqrt(h) + eps)
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.AdaGrad) == [('lr', 0.001), ('eps', 1e-08)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('lr, eps', [(0.001, 1e-8), (0.1, 1e-2)])
def test_matches_numpy_reference(case, check, dtype, lr, eps):
    got = case.run(optimizers.AdaGrad(lr=lr, eps=eps), dtype)
    check(got, case.reference(_reference(lr, eps), dtype))


def test_matches_chainer(case, check):
    check(case.run(optimizers.AdaGrad(lr=0.1)), (CHAINER_W, CHAINER_B))
