"""Tests of chainlite.optimizers.SMORMS3 against a NumPy step and Chainer 7.8.1."""
import inspect

import numpy
import pytest

from chainlite import optimizers

# Chainer 7.8.1, SMORMS3(lr=0.1), the conftest case (float32).
CHAINER_W = [[0.28039843, -0.3105171, 0.1493867],
             [0.80788445, -0.62523991, 0.10834152]]
CHAINER_B = [0.090763353, -0.2, 0.30923668]


def _reference(lr, eps):
    def step(p, grad, state, t):
        mem = state.setdefault('mem', numpy.ones_like(p))
        g = state.setdefault('g', numpy.zeros_like(p))
        g2 = state.setdefault('g2', numpy.zeros_like(p))
        r = 1 / (mem + 1)
        g[...] = (1 - r) * g + r * grad
        g2[...] = (1 - r) * g2 + r * grad * grad
        x = g * g / (g2 + eps)
        p -= grad * numpy.minimum(x, lr) / (numpy.sqrt(g2) + eps)
        mem[...] = 1 + mem * (1 - x)
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.SMORMS3) == [('lr', 0.001), ('eps', 1e-16)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('lr, eps', [(0.001, 1e-16), (0.1, 1e-3)])
def test_matches_numpy_reference(case, check, dtype, lr, eps):
    got = case.run(optimizers.SMORMS3(lr=lr, eps=eps), dtype)
    check(got, case.reference(_reference(lr, eps), dtype))


def test_matches_chainer(case, check):
    check(case.run(optimizers.SMORMS3(lr=0.1)), (CHAINER_W, CHAINER_B))


def test_state_starts_with_mem_one(case):
    opt = optimizers.SMORMS3()
    m = case.model()
    opt.setup(m)
    m.W.grad, m.b.grad = numpy.zeros((2, 3), numpy.float32), numpy.zeros(3, numpy.float32)
    opt.update()
    # Zero gradients: r = 1/2, g = g2 = 0, x = 0, so mem = 1 + 1 * 1 = 2 and nothing moves.
    numpy.testing.assert_array_equal(m.W.update_rule.state['mem'], numpy.full((2, 3), 2.0))
    numpy.testing.assert_array_equal(m.W.array, case.model().W.array)
