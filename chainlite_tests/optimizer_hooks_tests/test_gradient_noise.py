"""Tests of chainlite.optimizer_hooks.GradientNoise against NumPy and Chainer 7.8.1."""
import numpy
import pytest

import chainlite
from chainlite import optimizer_hooks
from chainlite import optimizers
from chainlite.optimizer_hooks import gradient_noise

# Chainer 7.8.1, MomentumSGD(lr=0.1, momentum=0.8) + GradientNoise(0.01, noise_func=_ramp).
CHAINER_W = [[0.44244802, -0.37219203, 0.152208],
             [0.71804798, -0.63803196, 0.0082880259]]
CHAINER_B = [0.094968006, -0.217232, 0.27544802]


def _ramp(xp, shape, dtype, hook, rule):
    # Deterministic "noise" that depends on the rule's step count, as the default one does.
    return xp.full(shape, hook.eta * (rule.t + 1), dtype)


def _add_ramp(eta):
    def transform(params, grads, k):
        for g in grads:
            g += eta * (k + 1)   # the rule's t is k when the pre hooks run
    return transform


def test_attributes():
    hook = optimizer_hooks.GradientNoise(0.3)
    assert (hook.eta, hook.noise_func) == (0.3, gradient_noise.exponential_decay_noise)
    assert (hook.name, hook.timing, hook.call_for_each_param) == ('GradientNoise', 'pre', True)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('per_rule', [False, True])
def test_matches_numpy_reference(case, check, dtype, per_rule):
    got = case.run([optimizer_hooks.GradientNoise(0.02, noise_func=_ramp)], dtype,
                   per_rule=per_rule)
    # A per-rule hook runs after the rule counted the step: its t is one ahead.
    want = case.reference(_add_ramp(0.02) if not per_rule else
                          (lambda params, grads, k: _add_ramp(0.02)(params, grads, k + 1)), dtype)
    check(got, want)


def test_matches_chainer(case, check):
    hook = optimizer_hooks.GradientNoise(0.01, noise_func=_ramp)
    check(case.run([hook]), (CHAINER_W, CHAINER_B))


def test_default_noise_is_annealed_gaussian():
    rule = optimizers.SGD().create_update_rule()
    rule.t = 3
    hook = optimizer_hooks.GradientNoise(0.3)
    numpy.random.seed(0)
    noise = gradient_noise.exponential_decay_noise(numpy, (20000,), numpy.float32, hook, rule)
    assert noise.dtype == numpy.float32
    assert noise.std() == pytest.approx(numpy.sqrt(0.3 / 4 ** 0.55), rel=0.03)
    assert abs(noise.mean()) < 0.02
    p = chainlite.Parameter(numpy.zeros(4, numpy.float32))
    p.grad = numpy.zeros(4, numpy.float32)
    hook(rule, p)
    assert numpy.count_nonzero(p.grad) == 4
