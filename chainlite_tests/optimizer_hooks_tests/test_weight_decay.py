"""Tests of chainlite.optimizer_hooks.WeightDecay against NumPy and Chainer 7.8.1."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import optimizer_hooks
from chainlite import optimizers

# Chainer 7.8.1, MomentumSGD(lr=0.1, momentum=0.8) + WeightDecay(0.2), the conftest case.
CHAINER_W = [[0.38106695, -0.30722207, 0.13892883],
             [0.60787362, -0.5238077, 0.008814849]]
CHAINER_B = [0.096895896, -0.1682394, 0.2446934]


def _decay(rate):
    def transform(params, grads, t):
        for p, g in zip(params, grads):
            g += rate * p
    return transform


def test_attributes():
    hook = optimizer_hooks.WeightDecay(0.2)
    assert (hook.rate, hook.name, hook.timing, hook.call_for_each_param) == (
        0.2, 'WeightDecay', 'pre', True)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('per_rule', [False, True])
def test_matches_numpy_reference(case, check, dtype, per_rule):
    got = case.run([optimizer_hooks.WeightDecay(0.3)], dtype, per_rule=per_rule)
    check(got, case.reference(_decay(0.3), dtype))


def test_matches_chainer(case, check):
    check(case.run([optimizer_hooks.WeightDecay(0.2)]), (CHAINER_W, CHAINER_B))


def test_skips_missing_gradient_or_data():
    hook = optimizer_hooks.WeightDecay(0.1)
    hook(None, chainlite.Parameter(numpy.ones(2, numpy.float32)))
    hook(None, chainlite.Parameter())


@pytest.mark.parametrize('per_rule', [False, True])
def test_decay_is_not_scaled_by_loss_scaling(per_rule):
    # Optimizer hooks see the gradient still multiplied by the loss scale, rule hooks see it
    # divided: either way the step equals the unscaled one.
    results = []
    for scale in (None, 64.0):
        m = chainlite.Link()
        with m.init_scope():
            m.W = chainlite.Parameter(numpy.array([1.0, -2.0], numpy.float32))
        opt = optimizers.SGD(lr=0.5).setup(m)
        hook = optimizer_hooks.WeightDecay(0.1)
        if per_rule:
            m.W.update_rule.add_hook(hook)
        else:
            opt.add_hook(hook)
        if scale is not None:
            opt.loss_scaling(scale=scale)
        opt.update(lambda: F.sum(m.W * m.W))
        results.append(m.W.array.copy())
    numpy.testing.assert_allclose(results[1], results[0], rtol=1e-6)
    numpy.testing.assert_allclose(results[0], [1.0 - 0.5 * 2.1, -2.0 + 0.5 * 4.2], rtol=1e-6)
