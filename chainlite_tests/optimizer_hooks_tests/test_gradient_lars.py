"""Tests of chainlite.optimizer_hooks.GradientLARS against NumPy and Chainer 7.8.1."""
import numpy
import pytest

import chainlite
from chainlite import optimizer_hooks

# Chainer 7.8.1, MomentumSGD(lr=0.1, momentum=0.8) + GradientLARS(threshold=0.5,
# weight_decay=0.1), the conftest case.
CHAINER_W = [[0.35325146, -0.28529453, 0.030328855],
             [0.75630337, -0.7417658, 0.18088204]]
CHAINER_B = [0.10443109, -0.18386911, 0.26830578]


def _lars(threshold, weight_decay, eps):
    def transform(params, grads, t):
        for p, g in zip(params, grads):
            p_norm, g_norm = numpy.linalg.norm(p), numpy.linalg.norm(g)
            rate = p_norm / (eps + g_norm + weight_decay * p_norm) if p_norm > threshold else 1
            g += weight_decay * p
            g *= rate
    return transform


def test_attributes_and_defaults():
    hook = optimizer_hooks.GradientLARS()
    assert (hook.threshold, hook.weight_decay, hook.eps) == (1e-2, 0.0, 1e-9)
    assert (hook.name, hook.timing, hook.call_for_each_param) == ('GradientLARS', 'pre', True)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('kwargs', [
    dict(threshold=1e-2, weight_decay=0.0, eps=1e-9),
    # b's norm (about 0.37) is under this threshold, W's is over it.
    dict(threshold=0.5, weight_decay=0.1, eps=1e-3),
])
def test_matches_numpy_reference(case, check, dtype, kwargs):
    got = case.run([optimizer_hooks.GradientLARS(**kwargs)], dtype)
    check(got, case.reference(_lars(**kwargs), dtype))


def test_matches_chainer(case, check):
    got = case.run([optimizer_hooks.GradientLARS(threshold=0.5, weight_decay=0.1)])
    check(got, (CHAINER_W, CHAINER_B))


def test_skips_missing_gradient_or_data():
    hook = optimizer_hooks.GradientLARS()
    hook(None, chainlite.Parameter(numpy.ones(2, numpy.float32)))
    hook(None, chainlite.Parameter())
