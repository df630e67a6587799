"""Tests of chainlite.optimizers.NesterovAG against a NumPy step and Chainer 7.8.1."""
import inspect

import numpy
import pytest

from chainlite import optimizers

# Chainer 7.8.1, NesterovAG(lr=0.1, momentum=0.8), the conftest case (float32).
CHAINER_W = [[0.41659519, -0.3819744, 0.1156416],
             [0.71897924, -0.68531203, 0.019932814]]
CHAINER_B = [0.098808005, -0.2, 0.30071524]


def _reference(lr, momentum):
    def step(p, g, state, t):
        v = state.setdefault('v', numpy.zeros_like(p))
        v[...] = momentum * v - lr * g
        p += momentum * momentum * v - (1 + momentum) * lr * g
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.NesterovAG) == [('lr', 0.01), ('momentum', 0.9)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('lr, momentum', [(0.01, 0.9), (0.2, 0.5)])
def test_matches_numpy_reference(case, check, dtype, lr, momentum):
    got = case.run(optimizers.NesterovAG(lr=lr, momentum=momentum), dtype)
    check(got, case.reference(_reference(lr, momentum), dtype))


def test_matches_chainer(case, check):
    check(case.run(optimizers.NesterovAG(lr=0.1, momentum=0.8)), (CHAINER_W, CHAINER_B))
