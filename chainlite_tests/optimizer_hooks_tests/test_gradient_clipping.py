"""Tests of chainlite.optimizer_hooks.GradientClipping against NumPy and Chainer 7.8.1."""
import numpy
import pytest

import chainlite
from chainlite import optimizer_hooks
from chainlite import optimizers

# Chainer 7.8.1, MomentumSGD(lr=0.1, momentum=0.8) + GradientClipping(0.5), the conftest case.
CHAINER_W = [[0.45795038, -0.30325162, 0.13208504],
             [0.82261372, -0.69378036, 0.14847909]]
CHAINER_B = [0.067668311, -0.2, 0.31939903]


def _clip(threshold):
    def transform(params, grads, t):
        norm = numpy.sqrt(sum(float((g * g).sum()) for g in grads))
        if norm > threshold:
            for g in grads:
                g *= threshold / norm
    return transform


def test_attributes():
    hook = optimizer_hooks.GradientClipping(0.5)
    assert (hook.threshold, hook.name, hook.timing) == (0.5, 'GradientClipping', 'pre')
    assert not getattr(hook, 'call_for_each_param', False)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('threshold', [0.5, 2.0, 100.0])
def test_matches_numpy_reference(case, check, dtype, threshold):
    got = case.run([optimizer_hooks.GradientClipping(threshold)], dtype)
    check(got, case.reference(_clip(threshold), dtype))


def test_matches_chainer(case, check):
    check(case.run([optimizer_hooks.GradientClipping(0.5)]), (CHAINER_W, CHAINER_B))


def test_zero_gradients_and_uninitialised_parameters_are_fine():
    m = chainlite.Link()
    with m.init_scope():
        m.W = chainlite.Parameter(numpy.ones(2, numpy.float32))
        m.lazy = chainlite.Parameter()
    opt = optimizers.SGD().setup(m)
    m.W.grad = numpy.zeros(2, numpy.float32)
    optimizer_hooks.GradientClipping(1.0)(opt)
    numpy.testing.assert_array_equal(m.W.grad, [0.0, 0.0])
