"""Tests of chainlite.optimizer_hooks.GradientHardClipping against NumPy and Chainer 7.8.1."""
import numpy
import pytest

import chainlite
from chainlite import optimizer_hooks

# Chainer 7.8.1, MomentumSGD(lr=0.1, momentum=0.8) + GradientHardClipping(-0.25, 0.3).
CHAINER_W = [[0.45967999, -0.31836, 0.10824001],
             [0.82520002, -0.70256001, 0.14]]
CHAINER_B = [0.051199999, -0.2, 0.29268]


def _clip(lower, upper):
    def transform(params, grads, t):
        for i, g in enumerate(grads):
            grads[i] = numpy.clip(g, lower, upper)
    return transform


def test_attributes():
    hook = optimizer_hooks.GradientHardClipping(-0.25, 0.3)
    assert (hook.lower_bound, hook.upper_bound) == (-0.25, 0.3)
    assert (hook.name, hook.timing, hook.call_for_each_param) == (
        'GradientHardClipping', 'pre', True)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('per_rule', [False, True])
def test_matches_numpy_reference(case, check, dtype, per_rule):
    got = case.run([optimizer_hooks.GradientHardClipping(-0.25, 0.3)], dtype, per_rule=per_rule)
    check(got, case.reference(_clip(-0.25, 0.3), dtype))


def test_matches_chainer(case, check):
    check(case.run([optimizer_hooks.GradientHardClipping(-0.25, 0.3)]), (CHAINER_W, CHAINER_B))


def test_clips_in_place_and_skips_missing_gradient():
    p = chainlite.Parameter(numpy.zeros(3, numpy.float32))
    g = numpy.array([-2.0, 0.1, 2.0], numpy.float32)
    p.grad = g
    optimizer_hooks.GradientHardClipping(-1.0, 1.0)(None, p)
    assert p.grad is g
    numpy.testing.assert_array_equal(g, numpy.array([-1.0, 0.1, 1.0], numpy.float32))
    optimizer_hooks.GradientHardClipping(-1.0, 1.0)(None, chainlite.Parameter())
