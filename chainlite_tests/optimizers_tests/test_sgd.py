"""Tests of chainlite.optimizers.SGD against a NumPy step and Chainer 7.8.1's numbers."""
import inspect

import numpy
import pytest

import chainlite
from chainlite import optimizers
from chainlite.optimizers import sgd

# Chainer 7.8.1, SGD(lr=0.1), the conftest case (float32).
CHAINER_W = [[0.46799999, -0.32600001, 0.164],
             [0.778, -0.64000005, 0.082000002]]
CHAINER_B = [0.094999999, -0.2, 0.303]


def _reference(lr):
    def step(p, g, state, t):
        p -= lr * g
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.SGD) == [('lr', 0.01)]
    opt = optimizers.SGD()
    assert opt.lr == 0.01
    assert opt.hyperparam.get_dict() == {'lr': 0.01}


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('lr', [0.01, 0.3])
def test_matches_numpy_reference(case, check, dtype, lr):
    got = case.run(optimizers.SGD(lr=lr), dtype)
    assert got[0].dtype == dtype
    check(got, case.reference(_reference(lr), dtype))


def test_matches_chainer(case, check):
    check(case.run(optimizers.SGD(lr=0.1)), (CHAINER_W, CHAINER_B))


def test_update_is_in_place_and_keeps_no_state():
    p = chainlite.Parameter(numpy.ones(3, numpy.float32))
    data = p.array
    p.grad = numpy.full(3, 2.0, numpy.float32)
    rule = sgd.SGDRule(lr=0.5)
    rule.update(p)
    assert p.array is data
    numpy.testing.assert_array_equal(p.array, numpy.zeros(3, numpy.float32))
    assert rule.state == {}


def test_rule_defaults_without_parent():
    rule = sgd.SGDRule()
    assert rule.hyperparam.lr == 0.01


def test_lr_set_on_optimizer_reaches_the_rules(case):
    opt = optimizers.SGD(lr=0.1)
    m = case.model()
    opt.setup(m)
    opt.lr = 1.0
    assert m.W.update_rule.hyperparam.lr == 1.0
    m.W.grad = numpy.ones((2, 3), numpy.float32)
    m.b.grad = numpy.zeros(3, numpy.float32)
    w0 = m.W.array.copy()
    opt.update()
    numpy.testing.assert_allclose(m.W.array, w0 - 1.0)
