"""Tests of chainlite.optimizer_hooks.Lasso against NumPy and Chainer 7.8.1."""
import numpy
import pytest

import chainlite
from chainlite import optimizer_hooks

# Chainer 7.8.1, MomentumSGD(lr=0.1, momentum=0.8) + Lasso(0.05), the conftest case.
CHAINER_W = [[0.41872001, -0.31400001, 0.12847999],
             [0.69432002, -0.57984006, -0.015439987]]
CHAINER_B = [0.071239993, -0.15904, 0.25171998]


def _lasso(rate):
    def transform(params, grads, t):
        for p, g in zip(params, grads):
            g += rate * numpy.sign(p)
    return transform


def test_attributes():
    hook = optimizer_hooks.Lasso(0.05)
    assert (hook.rate, hook.name, hook.timing, hook.call_for_each_param) == (
        0.05, 'Lasso', 'pre', True)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('per_rule', [False, True])
def test_matches_numpy_reference(case, check, dtype, per_rule):
    got = case.run([optimizer_hooks.Lasso(0.05)], dtype, per_rule=per_rule)
    check(got, case.reference(_lasso(0.05), dtype))


def test_matches_chainer(case, check):
    check(case.run([optimizer_hooks.Lasso(0.05)]), (CHAINER_W, CHAINER_B))


def test_skips_missing_gradient_or_data():
    hook = optimizer_hooks.Lasso(0.1)
    hook(None, chainlite.Parameter(numpy.ones(2, numpy.float32)))
    hook(None, chainlite.Parameter())
