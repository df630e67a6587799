"""Tests of chainlite.optimizers.RMSprop against a NumPy step and Chainer 7.8.1."""
import inspect

import numpy
import pytest

import chainlite
from chainlite import optimizers

# Chainer 7.8.1, the conftest case (float32): RMSprop(lr=0.1, alpha=0.9) and
# RMSprop(lr=0.1, alpha=0.9, eps=1e-2, eps_inside_sqrt=True).
CHAINER = {
    False: ([[0.015741482, -0.28090426, -0.11694851],
             [0.91149908, -0.87402821, 0.24279535]],
            [-0.10433426, -0.2, 0.50433427]),
    True: ([[0.257173, -0.38059777, -0.022864372],
            [0.85358387, -0.82766414, 0.21041417]],
           [0.0015659109, -0.2, 0.35365382]),
}


def _reference(lr, alpha, eps, eps_inside_sqrt):
    def step(p, g, state, t):
        ms = state.setdefault('ms', numpy.zeros_like(p))
        ms[...] = alpha * ms + (1 - alpha) * g * g
        denom = numpy.sqrt(ms + eps) if eps_inside_sqrt else numpy.sqrt(ms) + eps
        p -= lr * g / denom
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signature_and_defaults():
    assert _defaults(optimizers.RMSprop) == [
        ('lr', 0.01), ('alpha', 0.99), ('eps', 1e-08), ('eps_inside_sqrt', False)]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('kwargs', [
    dict(lr=0.01, alpha=0.99, eps=1e-8, eps_inside_sqrt=False),
    dict(lr=0.1, alpha=0.5, eps=1e-2, eps_inside_sqrt=False),
    dict(lr=0.1, alpha=0.5, eps=1e-2, eps_inside_sqrt=True),
])
def test_matches_numpy_reference(case, check, dtype, kwargs):
    got = case.run(optimizers.RMSprop(**kwargs), dtype)
    check(got, case.reference(_reference(**kwargs), dtype))


@pytest.mark.parametrize('eps_inside_sqrt', [False, True])
def test_matches_chainer(case, check, eps_inside_sqrt):
    kwargs = dict(eps=1e-2, eps_inside_sqrt=True) if eps_inside_sqrt else {}
    got = case.run(optimizers.RMSprop(lr=0.1, alpha=0.9, **kwargs))
    check(got, CHAINER[eps_inside_sqrt])


def test_eps_too_small_for_the_dtype_raises():
    p = chainlite.Parameter(numpy.ones(2, numpy.float16))
    p.grad = numpy.ones(2, numpy.float16)
    rule = optimizers.RMSprop(eps=1e-10).create_update_rule()
    with pytest.raises(ValueError, match='eps of RMSprop optimizer is too small for float16'):
        rule.update(p)
