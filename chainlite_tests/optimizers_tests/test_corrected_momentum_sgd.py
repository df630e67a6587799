"""Tests of chainlite.optimizers.CorrectedMomentumSGD against a NumPy step and Chainer 7.8.1."""
import inspect

import numpy
import pytest

from chainlite import optimizers

# Chainer 7.8.1, CorrectedMomentumSGD(lr=0.1, momentum=0.8), the conftest case (float32).
CHAINER_W = [[0.45967999, -0.35496002, 0.16944002],
             [0.73528004, -0.62080002, 0.025519995]]
CHAINER_B = [0.11220001, -0.2, 0.29268]


def _reference(lr, momentum):
    def step(p, g, state, t):
        v = state.setdefault('v', numpy.zeros_like(p))
        v[...] = momentum * v - g
        p += lr * v
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.CorrectedMomentumSGD) == [('lr', 0.01), ('momentum', 0.9)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('lr, momentum', [(0.01, 0.9), (0.2, 0.5)])
def test_matches_numpy_reference(case, check, dtype, lr, momentum):
    got = case.run(optimizers.CorrectedMomentumSGD(lr=lr, momentum=momentum), dtype)
    check(got, case.reference(_reference(lr, momentum), dtype))


def test_matches_chainer(case, check):
    got = case.run(optimizers.CorrectedMomentumSGD(lr=0.1, momentum=0.8))
    check(got, (CHAINER_W, CHAINER_B))


def test_changing_lr_rescales_the_accumulated_velocity(case):
    # The velocity excludes lr: after lr doubles, the next step is twice MomentumSGD's
    # velocity-from-lr-0.1 plus the new gradient term.
    opt = optimizers.CorrectedMomentumSGD(lr=0.1, momentum=0.5)
    m = case.model(numpy.float64)
    opt.setup(m)
    g = numpy.ones((2, 3))
    m.W.grad, m.b.grad = g, numpy.zeros(3)
    opt.update()
    opt.lr = 0.2
    w = m.W.array.copy()
    m.W.grad, m.b.grad = g, numpy.zeros(3)
    opt.update()
    numpy.testing.assert_allclose(m.W.array, w + 0.2 * (0.5 * -1.0 - 1.0))
