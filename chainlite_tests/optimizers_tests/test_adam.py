"""Tests of chainlite.optimizers.Adam (and AdamW, AMSGrad, AdaBound, AMSBound) against a NumPy
step and Chainer 7.8.1's numbers."""
import inspect
import math

import numpy
import pytest

import chainlite
from chainlite import optimizers
from chainlite.optimizers import adam

# Chainer 7.8.1 on the conftest case (float32), for each optimizer and its arguments.
CHAINER = [
    ('Adam', dict(alpha=0.1),
     [[0.34810489, -0.30382535, 0.11208387], [0.82233816, -0.67320514, 0.13160405]],
     [0.049478009, -0.2, 0.35052195]),
    ('AdamW', dict(alpha=0.1, weight_decay_rate=0.1, eta=0.5),
     [[0.33777556, -0.25049126, 0.12430159], [0.65825117, -0.52015477, 0.09262234]],
     [0.06104739, -0.16290124, 0.26475507]),
    ('AMSGrad', dict(alpha=0.1, beta2=0.5),
     [[0.35665974, -0.28515106, 0.11115206], [0.83429337, -0.67507058, 0.14124605]],
     [0.044066619, -0.2, 0.3559334]),
    ('AdaBound', dict(alpha=0.1, final_lr=0.3, gamma=0.05),
     [[0.38450736, -0.30382535, 0.11208387], [0.82233816, -0.67320514, 0.13160405]],
     [0.049478009, -0.2, 0.34502217]),
    ('AMSBound', dict(alpha=0.1, beta2=0.5, final_lr=0.3, gamma=0.05),
     [[0.39384794, -0.28515106, 0.11115206], [0.83429337, -0.67507058, 0.14124605]],
     [0.044066619, -0.2, 0.35043341]),
]


def _reference(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8, eta=1.0, weight_decay_rate=0,
               amsgrad=False, adabound=False, final_lr=0.1, gamma=1e-3):
    def step(p, g, state, t):
        m = state.setdefault('m', numpy.zeros_like(p))
        v = state.setdefault('v', numpy.zeros_like(p))
        vhat = state.setdefault('vhat', numpy.zeros_like(p))
        m[...] = beta1 * m + (1 - beta1) * g
        v[...] = beta2 * v + (1 - beta2) * g * g
        vhat[...] = numpy.maximum(vhat, v) if amsgrad else v
        alpha_t = alpha * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        step = alpha_t / (numpy.sqrt(vhat) + eps)
        if adabound:
            step = numpy.clip(step, final_lr * (1 - 1 / (gamma * t + 1)),
                              final_lr * (1 + 1 / (gamma * t)))
        p -= eta * (step * m + weight_decay_rate * p)
    return step


def _defaults(cls):
    return [(n, p.default) for n, p in inspect.signature(cls).parameters.items()]


def test_signatures_and_defaults():
    assert _defaults(optimizers.Adam) == [
        ('alpha', 0.001), ('beta1', 0.9), ('beta2', 0.999), ('eps', 1e-08), ('eta', 1.0),
        ('weight_decay_rate', 0), ('amsgrad', False), ('adabound', False), ('final_lr', 0.1),
        ('gamma', 0.001)]
    assert list(inspect.signature(optimizers.AdamW).parameters) == [
        'alpha', 'beta1', 'beta2', 'eps', 'eta', 'weight_decay_rate']
    assert list(inspect.signature(optimizers.AMSGrad).parameters) == [
        'alpha', 'beta1', 'beta2', 'eps', 'eta']
    for cls in (optimizers.AdaBound, optimizers.AMSBound):
        assert list(inspect.signature(cls).parameters) == [
            'alpha', 'beta1', 'beta2', 'final_lr', 'gamma', 'eps', 'eta']
    assert (optimizers.AMSGrad().amsgrad, optimizers.AMSGrad().adabound) == (True, False)
    assert (optimizers.AdaBound().amsgrad, optimizers.AdaBound().adabound) == (False, True)
    assert (optimizers.AMSBound().amsgrad, optimizers.AMSBound().adabound) == (True, True)


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('kwargs', [
    dict(),
    dict(alpha=0.1, beta1=0.5, beta2=0.7, eps=1e-3),
    dict(alpha=0.1, eta=0.5, weight_decay_rate=0.1),
    dict(alpha=0.1, beta2=0.5, amsgrad=True),
    dict(alpha=0.1, adabound=True, final_lr=0.3, gamma=0.05),
    dict(alpha=0.1, beta2=0.5, amsgrad=True, adabound=True, final_lr=0.3, gamma=0.05,
         weight_decay_rate=0.05),
])
def test_matches_numpy_reference(case, check, dtype, kwargs):
    got = case.run(optimizers.Adam(**kwargs), dtype)
    check(got, case.reference(_reference(**kwargs), dtype))


@pytest.mark.parametrize('name, kwargs, want_w, want_b', CHAINER)
def test_matches_chainer(case, check, name, kwargs, want_w, want_b):
    check(case.run(getattr(optimizers, name)(**kwargs)), (want_w, want_b))


def test_alpha_t_and_deprecated_lr(case):
    opt = optimizers.Adam(alpha=0.1)
    with pytest.raises(RuntimeError, match="Can't determine the learning rate"):
        opt.alpha_t
    m = case.model()
    opt.setup(m)
    m.W.grad, m.b.grad = case.grads(0, numpy.float32)
    opt.update()
    assert opt.alpha_t == pytest.approx(0.1 * math.sqrt(1 - 0.999) / (1 - 0.9))
    assert m.W.update_rule.alpha_t == opt.alpha_t
    with pytest.warns(DeprecationWarning, match='alpha_t'):
        assert opt.lr == opt.alpha_t
    with pytest.warns(DeprecationWarning, match='alpha_t'):
        assert m.W.update_rule.lr == opt.alpha_t


def test_bounds_before_the_first_step_raise():
    with pytest.raises(RuntimeError, match='bounds of AdaBound'):
        optimizers.AdaBound().create_update_rule().bounds


def test_bounds_follow_alpha_changes():
    opt = optimizers.AdaBound(alpha=0.1, final_lr=0.3, gamma=0.5)
    rule = opt.create_update_rule()
    rule.t = 1
    assert rule.bounds == pytest.approx((0.3 * (1 - 1 / 1.5), 0.3 * 3))
    opt.alpha = 0.05
    assert rule.bounds == pytest.approx((0.15 * (1 - 1 / 1.5), 0.15 * 3))


def test_state_keys(case):
    for opt, keys in ((optimizers.Adam(), ['m', 'v']), (optimizers.AMSGrad(), ['m', 'v', 'vhat'])):
        m = case.model()
        opt.setup(m)
        m.W.grad, m.b.grad = case.grads(0, numpy.float32)
        opt.update()
        assert sorted(m.W.update_rule.state) == keys


def test_scratch_array_is_reused_and_not_in_the_state(case):
    opt = optimizers.Adam()
    m = case.model()
    opt.setup(m)
    scratches = []
    for k in range(2):
        m.W.grad, m.b.grad = case.grads(k, numpy.float32)
        opt.update()
        scratches.append(m.W.update_rule.scratch(m.W.array))
    assert scratches[0] is scratches[1]
    assert all(a is not scratches[0] for a in m.W.update_rule.state.values())


def test_float16_parameters_update_in_float32_arithmetic():
    p16 = chainlite.Parameter(numpy.array([0.5, -0.25], numpy.float16))
    p32 = chainlite.Parameter(numpy.array([0.5, -0.25], numpy.float32))
    r16 = adam.AdamRule(alpha=0.01)
    r32 = adam.AdamRule(alpha=0.01)
    for k in range(3):
        p16.grad = numpy.array([0.1, -0.3], numpy.float16) * (k + 1)
        p32.grad = p16.grad.astype(numpy.float32)
        r16.update(p16)
        r32.update(p32)
    assert p16.dtype == numpy.float16
    numpy.testing.assert_allclose(p16.array, p32.array, atol=2e-3)


def test_eps_too_small_raises():
    p = chainlite.Parameter(numpy.ones(2, numpy.float32))
    p.grad = numpy.ones(2, numpy.float32)
    with pytest.raises(ValueError, match='eps of Adam optimizer is too small for float32'):
        adam.AdamRule(eps=1e-50).update(p)


def test_per_parameter_hyperparameter_override(case):
    opt = optimizers.Adam(alpha=0.1)
    m = case.model()
    opt.setup(m)
    m.b.update_rule.hyperparam.alpha = 0.0
    m.W.grad, m.b.grad = case.grads(0, numpy.float32)
    opt.update()
    numpy.testing.assert_array_equal(m.b.array, case.model().b.array)
    assert not numpy.allclose(m.W.array, case.model().W.array)
    assert opt.alpha == 0.1
