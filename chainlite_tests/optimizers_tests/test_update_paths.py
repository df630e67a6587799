"""The optimizers' fast update paths against a step written out with NumPy, bit for bit.

Adam updates small plain parameters together (packed state, one NumPy call for all of them),
and every rule applies its coefficients as cached 0-d arrays; neither may change a single bit
of the result. The references below are the plain per-parameter arithmetic with Python
numbers, in the order the update rules document.
"""
import math

import numpy
import pytest

import chainlite
from chainlite import optimizer_hooks
from chainlite import optimizers
from chainlite import serializers
from chainlite.optimizers import adam

# Small parameters (packed together by Adam) and one above the packing limit.
SHAPES = [(3, 4), (4,), (5,), (2, 2, 3), (adam._PACK_MAX_SIZE + 7,)]
STEPS = 5


def _model(dtype, shapes=SHAPES):
    rs = numpy.random.RandomState(0)
    m = chainlite.Chain()
    with m.init_scope():
        for i, shape in enumerate(shapes):
            setattr(m, 'p%d' % i, chainlite.Parameter(rs.uniform(-1, 1, shape).astype(dtype)))
    return m


def _grads(k, dtype, shapes=SHAPES):
    rs = numpy.random.RandomState(100 + k)
    # Mixed signs and magnitudes; some exact zeros.
    return [(rs.uniform(-1, 1, s) * 10.0 ** rs.randint(-3, 2, s) * (rs.rand(*s) > 0.1)
             ).astype(dtype) for s in shapes]


def _adam_ref(p, g, state, t, alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-8, eta=1.0,
              weight_decay_rate=0, amsgrad=False, adabound=False, final_lr=0.1, gamma=1e-3):
    m = state.setdefault('m', numpy.zeros_like(p))
    v = state.setdefault('v', numpy.zeros_like(p))
    s = numpy.subtract(g, m)
    s *= 1 - beta1
    m += s
    s = numpy.multiply(g, g)
    s -= v
    s *= 1 - beta2
    v += s
    vhat = v
    if amsgrad:
        vhat = state.setdefault('vhat', numpy.zeros_like(p))
        numpy.maximum(vhat, v, out=vhat)
    s = numpy.sqrt(vhat)
    s += eps
    alpha_t = alpha * math.sqrt(1. - math.pow(beta2, t)) / (1. - math.pow(beta1, t))
    if adabound:
        lower = final_lr * (1.0 - 1.0 / (gamma * t + 1))
        upper = final_lr * (1.0 + 1.0 / (gamma * t))
        s = numpy.divide(alpha_t, s).astype(s.dtype)
        numpy.clip(s, lower, upper, out=s)
        s *= m
        s *= eta
    else:
        s = numpy.divide(m, s)
        s *= eta * alpha_t
    if weight_decay_rate != 0:
        p *= 1 - eta * weight_decay_rate
    p -= s


def _momentum_ref(p, g, state, t, lr=0.01, momentum=0.9):
    v = state.setdefault('v', numpy.zeros_like(p))
    v *= momentum
    v -= numpy.multiply(g, lr, out=numpy.empty_like(g))  # the product in g's dtype
    p += v


def _sgd_ref(p, g, state, t, lr=0.01):
    p -= numpy.multiply(g, lr, out=numpy.empty_like(g))  # the product in g's dtype


def _run(opt, dtype, steps=STEPS, setup=None):
    m = _model(dtype)
    opt.setup(m)
    if setup is not None:
        setup(opt, m)
    params = list(m.params())
    for k in range(steps):
        for p, g in zip(params, _grads(k, dtype)):
            p.grad = g
        opt.update()
    return [p.array for p in params], opt


def _reference(step, dtype, steps=STEPS, **kwargs):
    params = [p.array.copy() for p in _model(dtype).params()]
    states = [{} for _ in params]
    for k in range(steps):
        for p, g, s in zip(params, _grads(k, dtype), states):
            step(p, g, s, k + 1, **kwargs)
    return params


def _assert_same(got, want):
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        numpy.testing.assert_array_equal(g, w)


ADAM_KWARGS = [
    dict(),
    dict(alpha=0.05, beta1=0.5, beta2=0.7, eps=1e-3),
    dict(alpha=0.05, eta=0.5, weight_decay_rate=0.1),
    dict(alpha=0.05, beta2=0.5, amsgrad=True),
    dict(alpha=0.05, adabound=True, final_lr=0.3, gamma=0.05),
]


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
@pytest.mark.parametrize('kwargs', ADAM_KWARGS)
def test_adam_is_bit_identical_to_the_plain_step(dtype, kwargs):
    got, _ = _run(optimizers.Adam(**kwargs), dtype)
    _assert_same(got, _reference(_adam_ref, dtype, **kwargs))


def test_adam_packs_small_plain_parameters_and_keeps_each_rules_state():
    got, opt = _run(optimizers.Adam(alpha=0.05), numpy.float32)
    packed = opt._packed
    params = list(opt.target.params())
    small, large = params[:-1], params[-1]
    assert [p is q for p, q in zip(packed.params, small)] == [True] * len(small)
    for p in small:
        state = p.update_rule.state
        assert state['m'].base is packed.m and state['v'].base is packed.v
        assert state['m'].shape == p.shape and p.update_rule.t == STEPS
    assert large.update_rule.state['m'].base is None
    # The state each rule holds is the reference's.
    ref_params = [p.array.copy() for p in _model(numpy.float32).params()]
    ref_states = [{} for _ in ref_params]
    for k in range(STEPS):
        for p, g, s in zip(ref_params, _grads(k, numpy.float32), ref_states):
            _adam_ref(p, g, s, k + 1, alpha=0.05)
    for p, s in zip(params, ref_states):
        numpy.testing.assert_array_equal(p.update_rule.state['m'], s['m'])
        numpy.testing.assert_array_equal(p.update_rule.state['v'], s['v'])


def _hook_rule(rule, param):
    # A per-parameter hook: that parameter leaves the packed update.
    param.grad *= 0.5


@pytest.mark.parametrize('setup', ['rule_hook', 'rule_override', 'disabled', 'weight_decay',
                                   'gradient_clipping'])
def test_adam_with_hooks_and_overrides_matches_the_per_parameter_update(setup):
    def prepare(opt, m):
        params = list(m.params())
        if setup == 'rule_hook':
            params[1].update_rule.add_hook(_hook_rule, name='half')
        elif setup == 'rule_override':
            params[2].update_rule.hyperparam.alpha = 0.2
        elif setup == 'disabled':
            params[0].update_rule.enabled = False
        elif setup == 'weight_decay':
            opt.add_hook(optimizer_hooks.WeightDecay(0.01))
        else:
            opt.add_hook(optimizer_hooks.GradientClipping(0.5))

    got, _ = _run(optimizers.Adam(alpha=0.05), numpy.float32, setup=prepare)

    # The same with every parameter updated on its own (a per-rule hook that does nothing
    # keeps each one out of the packed update).
    def unpacked(opt, m):
        prepare(opt, m)
        for i, p in enumerate(m.params()):
            p.update_rule.add_hook(lambda rule, param: None, name='noop%d' % i, timing='post')

    want, _ = _run(optimizers.Adam(alpha=0.05), numpy.float32, setup=unpacked)
    _assert_same(got, want)


SMALL = SHAPES[:-1]  # every parameter packed: the step that checks them in one pass


def _run_small(opt, change=None, change_at=2, noop_hooks=False):
    # STEPS updates of the small parameters; `change(opt, params)` before step `change_at`.
    # With noop_hooks every parameter is updated on its own (a per-rule hook that does
    # nothing keeps it out of the packed update).
    m = _model(numpy.float32, SMALL)
    opt.setup(m)
    params = list(m.params())
    if noop_hooks:
        for i, p in enumerate(params):
            p.update_rule.add_hook(lambda rule, param: None, name='noop%d' % i, timing='post')
    for k in range(STEPS):
        if change is not None and k == change_at:
            change(opt, params)
        for p, g in zip(params, _grads(k, numpy.float32, SMALL)):
            p.grad = g
        opt.update()
    return [p.array for p in params], opt


def _change_hook(opt, params):
    params[1].update_rule.add_hook(_hook_rule, name='half')


def _change_override(opt, params):
    params[2].update_rule.hyperparam.alpha = 0.2


def _change_disabled(opt, params):
    params[0].update_rule.enabled = False


def _change_state(opt, params):
    # A rule's state replaced (as a load does): its moments leave the shared buffers.
    rule = params[3].update_rule
    rule.state['m'] = rule.state['m'].copy()


def _change_optimizer(opt, params):
    # The optimizer's own hyperparameters: the parameters stay packed.
    opt.alpha = 0.01
    opt.eps = 1e-4


@pytest.mark.parametrize('change', [_change_hook, _change_override, _change_disabled,
                                    _change_state, _change_optimizer])
def test_adam_changes_after_packing_match_the_per_parameter_update(change):
    # Two steps (the second packed), then a change that takes a parameter out of the packed
    # update or changes them all: bit for bit the per-parameter update with the same change
    # at the same step.
    got, opt = _run_small(optimizers.Adam(alpha=0.05), change)
    want, ref_opt = _run_small(optimizers.Adam(alpha=0.05), change, noop_hooks=True)
    assert ref_opt._packed is None
    _assert_same(got, want)
    # The moments each rule holds too (a replaced state must be the one updated).
    for key in ('m', 'v'):
        _assert_same([p.update_rule.state[key] for p in opt.target.params()],
                     [p.update_rule.state[key] for p in ref_opt.target.params()])


def test_adam_reuses_its_buffers_with_one_check_when_nothing_changed(monkeypatch):
    packable = adam._packable
    calls = []

    def counted(*args):
        calls.append(1)
        return packable(*args)

    monkeypatch.setattr(optimizers.Adam, '_packable', staticmethod(counted))
    got, opt = _run_small(optimizers.Adam(alpha=0.05))
    # The first step creates each rule's state, the second packs it; the other three reuse
    # the buffers after the one-pass check.
    assert len(calls) == 2
    assert [p is q for p, q in zip(opt._packed.params, opt.target.params())] == [True] * 4
    want = [p.array.copy() for p in _model(numpy.float32, SMALL).params()]
    states = [{} for _ in want]
    for k in range(STEPS):
        for p, g, st in zip(want, _grads(k, numpy.float32, SMALL), states):
            _adam_ref(p, g, st, k + 1, alpha=0.05)
    _assert_same(got, want)


def test_adam_packed_update_survives_a_snapshot_load(tmp_path):
    # Saved after three steps and loaded into a fresh optimizer and model, two more steps
    # give exactly what five uninterrupted steps give.
    want, _ = _run(optimizers.Adam(alpha=0.05), numpy.float32)
    got1, opt1 = _run(optimizers.Adam(alpha=0.05), numpy.float32, steps=3)
    serializers.save_npz(str(tmp_path / 'opt.npz'), opt1)
    serializers.save_npz(str(tmp_path / 'model.npz'), opt1.target)
    m = _model(numpy.float32)
    opt = optimizers.Adam(alpha=0.05).setup(m)
    serializers.load_npz(str(tmp_path / 'model.npz'), m)
    serializers.load_npz(str(tmp_path / 'opt.npz'), opt)
    params = list(m.params())
    for k in range(3, STEPS):
        for p, g in zip(params, _grads(k, numpy.float32)):
            p.grad = g
        opt.update()
    _assert_same([p.array for p in params], want)
    # Loading into the packed optimizer itself replaces its state arrays: the next update
    # rebuilds the packed buffers from them rather than using stale ones.
    serializers.load_npz(str(tmp_path / 'opt.npz'), opt1)
    serializers.load_npz(str(tmp_path / 'model.npz'), opt1.target)
    params = list(opt1.target.params())
    for k in range(3, STEPS):
        for p, g in zip(params, _grads(k, numpy.float32)):
            p.grad = g
        opt1.update()
    _assert_same([p.array for p in params], want)


def test_adam_shared_parameter_is_updated_once_per_occurrence():
    # A parameter registered in two links appears twice in params(): each occurrence is an
    # update, as with every rule (Chainer's behaviour), packed or not.
    def build():
        shared = chainlite.Parameter(numpy.full((3,), 0.5, numpy.float32))
        a, b = chainlite.Link(), chainlite.Link()
        with a.init_scope():
            a.w = shared
            a.u = chainlite.Parameter(numpy.ones((2,), numpy.float32))
        with b.init_scope():
            b.w = shared
        m = chainlite.Chain()
        with m.init_scope():
            m.a, m.b = a, b
        return m, shared

    m, shared = build()
    opt = optimizers.Adam(alpha=0.1).setup(m)
    for _ in range(3):
        for p in m.params():
            p.grad = numpy.full(p.shape, 0.25, numpy.float32)
        opt.update()
    assert shared.update_rule.t == 6
    p = numpy.full((3,), 0.5, numpy.float32)
    state = {}
    for t in range(1, 7):
        _adam_ref(p, numpy.full((3,), 0.25, numpy.float32), state, t, alpha=0.1)
    numpy.testing.assert_array_equal(shared.array, p)


def test_adam_fp32_update_of_float16_parameters():
    def ref_step(p, g, state, t, **kwargs):
        master = state.setdefault('master', p.astype(numpy.float32))
        _adam_ref(master, g.astype(numpy.float32), state, t, **kwargs)
        p[...] = master.astype(numpy.float16)

    opt = optimizers.Adam(alpha=0.05)
    opt.use_fp32_update()
    got, _ = _run(opt, numpy.float16)
    _assert_same(got, _reference(ref_step, numpy.float16, alpha=0.05))


def test_adam_loss_scale_is_divided_out():
    # backward(loss_scale=...) leaves the scale on each parameter's node; such parameters
    # are updated on their own, after the division.
    m = _model(numpy.float32, SHAPES[:3])
    opt = optimizers.Adam(alpha=0.05).setup(m)
    ref = [p.array.copy() for p in m.params()]
    states = [{} for _ in ref]
    for k in range(3):
        x = [chainlite.Variable(g) for g in _grads(k, numpy.float32, SHAPES[:3])]
        m.cleargrads()
        loss = sum(chainlite.functions.sum(p * c) for p, c in zip(m.params(), x))
        loss.backward(loss_scale=8.0)
        opt.update()
        for p, g, s in zip(ref, _grads(k, numpy.float32, SHAPES[:3]), states):
            _adam_ref(p, (g * numpy.float32(8.0)) / 8.0, s, k + 1, alpha=0.05)
    _assert_same([p.array for p in m.params()], ref)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_momentum_sgd_is_bit_identical_to_the_plain_step(dtype):
    got, _ = _run(optimizers.MomentumSGD(lr=0.05, momentum=0.8), dtype)
    _assert_same(got, _reference(_momentum_ref, dtype, lr=0.05, momentum=0.8))


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_sgd_is_bit_identical_to_the_plain_step(dtype):
    got, _ = _run(optimizers.SGD(lr=0.05), dtype)
    _assert_same(got, _reference(_sgd_ref, dtype, lr=0.05))


def test_numpy_scalar_hyperparameters_keep_their_promotion():
    # A NumPy float64 learning rate promotes float32 arithmetic to float64 (NumPy 2): the
    # cached coefficients must not turn it into a float32 one.
    got, _ = _run(optimizers.SGD(lr=numpy.float64(0.1 / 3)), numpy.float32)
    _assert_same(got, _reference(_sgd_ref, numpy.float32, lr=numpy.float64(0.1 / 3)))


def test_adam_setup_on_a_new_target_drops_the_packed_state():
    _, opt = _run(optimizers.Adam(alpha=0.05), numpy.float32)
    assert opt._packed is not None
    m = _model(numpy.float32)
    opt.setup(m)
    assert opt._packed is None
    params = list(m.params())
    for k in range(STEPS):
        for p, g in zip(params, _grads(k, numpy.float32)):
            p.grad = g
        opt.update()
    assert opt._packed.params[0] is params[0]
    _assert_same([p.array for p in params], _reference(_adam_ref, numpy.float32, alpha=0.05))


@pytest.mark.parametrize('dtype', [numpy.float32, numpy.float64])
def test_momentum_sgd_packs_small_plain_parameters(dtype):
    got, opt = _run(optimizers.MomentumSGD(lr=0.05, momentum=0.8), dtype)
    packed = opt._packed
    params = list(opt.target.params())
    # The small parameters share one velocity buffer; the large one is updated on its own.
    assert packed is not None and [p is q for p, q in zip(packed.params, params)] == [True] * 4
    for p in params[:4]:
        assert p.update_rule.state['v'].base is packed.v
    assert params[4].update_rule.state['v'].base is None
    _assert_same(got, _reference(_momentum_ref, dtype, lr=0.05, momentum=0.8))


def _momentum_change_override(opt, params):
    params[2].update_rule.hyperparam.lr = 0.2


def _momentum_change_state(opt, params):
    rule = params[3].update_rule
    rule.state['v'] = rule.state['v'].copy()


def _momentum_change_optimizer(opt, params):
    opt.lr = 0.01
    opt.momentum = 0.5


@pytest.mark.parametrize('change', [_change_hook, _momentum_change_override, _change_disabled,
                                    _momentum_change_state, _momentum_change_optimizer])
def test_momentum_sgd_changes_after_packing_match_the_per_parameter_update(change):
    got, opt = _run_small(optimizers.MomentumSGD(lr=0.05, momentum=0.8), change)
    want, ref_opt = _run_small(optimizers.MomentumSGD(lr=0.05, momentum=0.8), change,
                               noop_hooks=True)
    assert ref_opt._packed is None and opt._packed is not None
    _assert_same(got, want)
    _assert_same([p.update_rule.state['v'] for p in opt.target.params()],
                 [p.update_rule.state['v'] for p in ref_opt.target.params()])


def test_momentum_sgd_loss_scale_and_shared_parameter_leave_the_packed_update():
    # A loss scale left on the nodes is divided out by each rule; a parameter that appears
    # twice is updated twice: neither is packed, and both match the reference.
    m = _model(numpy.float32, SMALL)
    opt = optimizers.MomentumSGD(lr=0.05, momentum=0.8).setup(m)
    ref = [p.array.copy() for p in m.params()]
    states = [{} for _ in ref]
    for k in range(3):
        x = [chainlite.Variable(g) for g in _grads(k, numpy.float32, SMALL)]
        m.cleargrads()
        loss = sum(chainlite.functions.sum(p * c) for p, c in zip(m.params(), x))
        loss.backward(loss_scale=8.0)
        opt.update()
        for p, g, s in zip(ref, _grads(k, numpy.float32, SMALL), states):
            _momentum_ref(p, (g * numpy.float32(8.0)) / 8.0, s, k + 1, lr=0.05, momentum=0.8)
    assert opt._packed is None
    _assert_same([p.array for p in m.params()], ref)

    shared = chainlite.Parameter(numpy.full((3,), 0.5, numpy.float32))
    a, b = chainlite.Link(), chainlite.Link()
    with a.init_scope():
        a.w = shared
        a.u = chainlite.Parameter(numpy.ones((2,), numpy.float32))
    with b.init_scope():
        b.w = shared
    top = chainlite.Chain()
    with top.init_scope():
        top.a, top.b = a, b
    opt = optimizers.MomentumSGD(lr=0.1, momentum=0.5).setup(top)
    for _ in range(3):
        for p in top.params():
            p.grad = numpy.full(p.shape, 0.25, numpy.float32)
        opt.update()
    assert opt._packed is None
    p, state = numpy.full((3,), 0.5, numpy.float32), {}
    for t in range(6):
        _momentum_ref(p, numpy.full((3,), 0.25, numpy.float32), state, t + 1, lr=0.1,
                      momentum=0.5)
    numpy.testing.assert_array_equal(shared.array, p)
