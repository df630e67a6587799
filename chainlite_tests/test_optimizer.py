"""Tests of chainlite.optimizer: Hyperparameter, UpdateRule, Optimizer, GradientMethod."""
import copy
import io
import pickle

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import optimizer
from chainlite import optimizer_hooks
from chainlite import optimizers
from chainlite import serializers


def _f32(*values):
    return numpy.array(values, numpy.float32)


def _param(values, grad=None):
    p = chainlite.Parameter(_f32(*values))
    if grad is not None:
        p.grad = _f32(*grad)
    return p


class _Affine(chainlite.Link):
    def __init__(self, w, b):
        super().__init__()
        with self.init_scope():
            self.W = chainlite.Parameter(numpy.array(w, numpy.float32))
            self.b = chainlite.Parameter(numpy.array(b, numpy.float32))

    def forward(self, x):
        return F.matmul(x, self.W) + F.broadcast_to(self.b, (x.shape[0], self.b.shape[0]))


class _Classifier(chainlite.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = _Affine([[0.5, -0.2], [0.1, 0.3], [-0.4, 0.6]], [0.1, -0.1])

    def forward(self, x, t):
        return F.sum(F.square(self.l1(x) - t))


def _model():
    m = chainlite.Chain()
    with m.init_scope():
        m.predictor = _Classifier()
    return m


def _data():
    rng = numpy.random.default_rng(0)
    return (rng.standard_normal((4, 3)).astype(numpy.float32),
            rng.standard_normal((4, 2)).astype(numpy.float32))


def _lossfun(m):
    return lambda x, t: m.predictor(x, t)


# --- Hyperparameter ---------------------------------------------------------------------------


def test_hyperparameter_falls_back_to_parent_and_overrides_locally():
    parent = optimizer.Hyperparameter()
    parent.lr, parent.momentum = 0.1, 0.9
    child = optimizer.Hyperparameter(parent)
    assert child.parent is parent
    assert child.lr == 0.1
    child.lr = 0.5
    assert (child.lr, parent.lr) == (0.5, 0.1)
    parent.momentum = 0.8
    assert child.momentum == 0.8
    assert child.get_dict() == {'lr': 0.5, 'momentum': 0.8}
    assert repr(child) == 'Hyperparameter(lr=0.5, momentum=0.8)'


def test_hyperparameter_missing_entry_raises_attribute_error():
    hp = optimizer.Hyperparameter(optimizer.Hyperparameter())
    with pytest.raises(AttributeError, match="no entry 'lr'"):
        hp.lr
    assert not hasattr(hp, 'lr')


def test_hyperparameter_copies_and_pickles():
    parent = optimizer.Hyperparameter()
    parent.lr = 0.1
    child = optimizer.Hyperparameter(parent)
    child.eps = 1e-3
    for clone in (copy.deepcopy(child), pickle.loads(pickle.dumps(child))):
        assert clone.get_dict() == {'lr': 0.1, 'eps': 1e-3}
    assert copy.copy(child).parent is parent


def test_hyperparameter_proxy_reads_and_writes_the_entry():
    opt = optimizers.MomentumSGD(lr=0.1)
    assert isinstance(optimizers.MomentumSGD.lr, optimizer.HyperparameterProxy)
    opt.lr = 0.3
    assert opt.hyperparam.lr == 0.3
    assert 'lr' not in vars(opt)


# --- UpdateRule -------------------------------------------------------------------------------


class _CountingRule(optimizer.UpdateRule):
    # The update adds the gradient to a state 'acc' and subtracts it from the parameter.
    def init_state(self, param):
        self.state['acc'] = numpy.zeros_like(param.array)

    def update_core(self, param):
        self.state['acc'] += param.grad
        param.array -= param.grad


def test_update_rule_counts_steps_and_creates_state_lazily():
    rule = _CountingRule()
    p = _param([1, 2], grad=[0.5, 0.5])
    assert (rule.t, rule.state, rule.enabled) == (0, None, True)
    rule.update(p)
    rule.update(p)
    assert rule.t == 2
    numpy.testing.assert_array_equal(rule.state['acc'], _f32(1, 1))
    numpy.testing.assert_array_equal(p.array, _f32(0, 1))


def test_update_rule_disabled_does_nothing():
    rule = _CountingRule()
    rule.enabled = False
    p = _param([1, 2], grad=[0.5, 0.5])
    rule.update(p)
    assert (rule.t, rule.state) == (0, None)
    numpy.testing.assert_array_equal(p.array, _f32(1, 2))


def test_update_rule_without_grad_or_data_counts_the_step_only():
    # As in Chainer, t advances although there is nothing to update.
    rule = _CountingRule()
    rule.update(_param([1, 2]))
    rule.update(chainlite.Parameter())
    assert (rule.t, rule.state) == (2, None)


def test_update_rule_hooks_run_in_order_around_the_update():
    rule = _CountingRule()
    calls = []

    def pre(r, p):
        calls.append(('pre', r, p.array.copy()))

    class Post:
        name = 'post_hook'
        timing = 'post'

        def __call__(self, r, p):
            calls.append(('post', r, p.array.copy()))

    rule.add_hook(pre)
    rule.add_hook(Post())
    rule.add_hook(lambda r, p: calls.append(('last', r, None)), name='last', timing='pre')
    p = _param([1.0], grad=[1.0])
    rule.update(p)
    assert [c[0] for c in calls] == ['pre', 'last', 'post']
    assert all(c[1] is rule for c in calls)
    assert calls[0][2][0] == 1.0 and calls[2][2][0] == 0.0
    rule.remove_hook('pre')
    rule.remove_hook('post_hook')
    with pytest.raises(KeyError):
        rule.remove_hook('pre')


def test_update_rule_add_hook_errors():
    rule = _CountingRule()
    with pytest.raises(TypeError, match='callable'):
        rule.add_hook(3, name='x')
    with pytest.raises(ValueError, match='timing'):
        rule.add_hook(lambda r, p: None, name='x', timing='later')
    rule.add_hook(lambda r, p: None, name='x')
    with pytest.raises(KeyError, match='already exists'):
        rule.add_hook(lambda r, p: None, name='x', timing='post')


def test_update_rule_hook_with_invalid_timing_attribute_warns_and_runs_pre():
    rule = _CountingRule()

    class Hook:
        name = 'h'
        timing = 'sometime'

        def __call__(self, r, p):
            pass

    with pytest.warns(UserWarning, match="neither 'pre' nor 'post'"):
        rule.add_hook(Hook())
    assert 'h' in rule._hooks.pre


def test_update_rule_divides_a_scaled_gradient_once():
    x = chainlite.Parameter(_f32(1.0, 2.0))
    F.sum(x * x).backward(loss_scale=8.0)
    assert x.node._loss_scale == 8.0
    seen = []
    rule = optimizers.SGD(lr=0.5).create_update_rule()
    rule.add_hook(lambda r, p: seen.append(p.grad.copy()), name='seen')
    rule.update(x)
    numpy.testing.assert_array_equal(seen[0], _f32(2.0, 4.0))
    numpy.testing.assert_array_equal(x.array, _f32(0.0, 0.0))
    assert x.node._loss_scale is None


def test_update_rule_explains_a_gradient_that_was_never_cleared():
    p = chainlite.Parameter(0.5, (2,))   # its grad starts as NaN
    F.sum(p * p).backward()
    rule = optimizers.SGD().create_update_rule()
    with pytest.raises(RuntimeError, match='never cleared.*cleargrads'):
        rule.update(p)


def test_update_core_cpu_is_the_fallback_for_chainer_style_rules():
    class Rule(optimizer.UpdateRule):
        def update_core_cpu(self, param):
            param.array *= 2

    p = _param([1.0], grad=[0.0])
    Rule().update(p)
    assert p.array[0] == 2.0
    with pytest.raises(NotImplementedError, match='UpdateRule implements neither'):
        optimizer.UpdateRule().update(p)


def test_scratch_is_kept_per_index_and_renewed_on_shape_change():
    rule = optimizer.UpdateRule()
    a = numpy.zeros((2, 3), numpy.float32)
    s0, s1 = rule.scratch(a), rule.scratch(a, 1)
    assert s0 is not s1 and s0.shape == (2, 3) and s0.dtype == numpy.float32
    assert rule.scratch(a) is s0
    assert rule.scratch(a, dtype=numpy.float64).dtype == numpy.float64
    assert rule.scratch(numpy.zeros(4, numpy.float32)).shape == (4,)


def test_update_rule_serialize_saves_t_and_state_and_loads_lazily():
    rule = optimizers.Adam().create_update_rule()
    p = _param([1.0, 2.0], grad=[0.1, -0.2])
    rule.update(p)
    saved = serializers.DictionarySerializer()
    rule.serialize(saved)
    assert list(saved.target) == ['t', 'm', 'v']

    fresh = optimizers.Adam().create_update_rule()
    fresh.serialize(serializers.NpzDeserializer(saved.target))
    assert fresh.t == 1
    assert sorted(fresh.state) == ['m', 'v']
    numpy.testing.assert_array_equal(fresh.state['m'], rule.state['m'])


def test_update_rule_serialize_without_state():
    rule = optimizers.Adam().create_update_rule()
    saved = serializers.DictionarySerializer()
    rule.serialize(saved)
    assert sorted(saved.target) == ['t']
    loaded = optimizers.Adam().create_update_rule()
    loaded.serialize(serializers.NpzDeserializer(saved.target, strict=False))
    assert loaded.state is None
    with pytest.raises(KeyError):
        loaded.serialize(serializers.NpzDeserializer(saved.target))
    loaded.enabled = False   # a disabled rule tolerates the missing entries
    loaded.serialize(serializers.NpzDeserializer(saved.target))
    assert loaded.state is None


def test_use_fp32_update_keeps_a_float32_master_copy():
    # 1e-4 steps vanish in float16 at 1.0 (its spacing there is ~1e-3) but add up in float32.
    p = chainlite.Parameter(numpy.ones(2, numpy.float16))
    plain = chainlite.Parameter(numpy.ones(2, numpy.float16))
    rule = optimizers.SGD(lr=1e-4).create_update_rule()
    rule.use_fp32_update()
    plain_rule = optimizers.SGD(lr=1e-4).create_update_rule()
    for _ in range(20):
        p.grad = numpy.ones(2, numpy.float16)
        plain.grad = numpy.ones(2, numpy.float16)
        rule.update(p)
        plain_rule.update(plain)
    assert p.dtype == numpy.float16
    numpy.testing.assert_array_equal(plain.array, numpy.ones(2, numpy.float16))
    numpy.testing.assert_allclose(p.array, 0.998, atol=1e-3)
    assert rule._fp32_param.dtype == numpy.float32


# --- Optimizer / GradientMethod ---------------------------------------------------------------


def test_setup_returns_self_creates_rules_and_resets_counters():
    m = _model()
    opt = optimizers.SGD()
    opt.t, opt.epoch = 5, 2
    assert opt.setup(m) is opt
    assert (opt.target, opt.t, opt.epoch) == (m, 0, 0)
    for p in m.params():
        assert isinstance(p.update_rule, optimizers.sgd.SGDRule)
        assert p.update_rule.hyperparam.parent is opt.hyperparam


def test_setup_rejects_a_non_link():
    with pytest.raises(TypeError, match='optimization target must be a link'):
        optimizers.SGD().setup(chainlite.Parameter(_f32(1)))


def test_using_an_optimizer_before_setup_raises():
    opt = optimizers.SGD()
    for call in (opt.update, lambda: opt.add_hook(lambda o: None, name='h'),
                 lambda: opt.call_hooks('pre'), lambda: opt.remove_hook('h')):
        with pytest.raises(RuntimeError, match='not set up'):
            call()


def test_update_with_lossfun_matches_a_manual_sgd_step():
    x, t = _data()
    m, ref = _model(), _model()
    opt = optimizers.SGD(lr=0.1).setup(m)
    opt.update(_lossfun(m), x, t=t)
    ref.cleargrads()
    ref.predictor(x, t).backward()
    for (_, p), (_, q) in zip(m.namedparams(), ref.namedparams()):
        numpy.testing.assert_allclose(p.array, q.array - 0.1 * q.grad, rtol=1e-6)
    assert opt.t == 1 and m.predictor.l1.W.update_rule.t == 1


def test_update_order_lossfun_cleargrads_backward_hooks_update():
    x, t = _data()
    m = _model()
    opt = optimizers.SGD(lr=0.1).setup(m)
    W = m.predictor.l1.W
    W.grad = numpy.full_like(W.array, 100.0)   # stale: must be cleared, not accumulated
    events = []

    def lossfun():
        events.append(('loss', W.grad is not None))
        return m.predictor(x, t)

    def pre(o):
        events.append(('pre', W.array.copy(), W.grad.copy()))

    def post(o):
        events.append(('post', W.array.copy()))

    opt.add_hook(pre, name='pre')
    opt.add_hook(post, name='post', timing='post')
    w0 = W.array.copy()
    opt.update(lossfun)
    assert [e[0] for e in events] == ['loss', 'pre', 'post']
    assert events[0][1] is True
    numpy.testing.assert_array_equal(events[1][1], w0)   # pre hooks see the old parameters
    assert numpy.abs(events[1][2]).max() < 50            # and the fresh gradient
    numpy.testing.assert_allclose(events[2][1], w0 - 0.1 * events[1][2], rtol=1e-6)


def test_per_parameter_and_optimizer_hooks():
    m = _model()
    opt = optimizers.SGD(lr=0.0).setup(m)
    seen = []

    class PerParam:
        name = 'per_param'
        call_for_each_param = True

        def __call__(self, rule, param):
            seen.append((rule, param))

    opt.add_hook(PerParam())
    opt.add_hook(lambda o: seen.append(o), name='once')
    for p in m.params():
        p.grad = numpy.zeros_like(p.array)
    opt.update()
    assert seen[-1] is opt
    assert [(r, p) for r, p in seen[:-1]] == [(p.update_rule, p) for p in m.params()]
    opt.remove_hook('once')
    opt.remove_hook('per_param')
    with pytest.raises(KeyError):
        opt.remove_hook('once')


def test_optimizer_hook_with_invalid_timing_attribute_falls_back_to_pre():
    opt = optimizers.SGD().setup(_model())
    hook = lambda o: None  # noqa: E731
    hook.timing = 'never'
    with pytest.warns(UserWarning, match="using 'pre'"):
        opt.add_hook(hook, name='h')
    assert 'h' in opt._hooks.pre
    with pytest.raises(ValueError, match="timing must be either 'pre' or 'post'"):
        opt.call_hooks('middle')


def test_cleared_gradients_are_reallocated_as_zeros():
    m = _model()
    opt = optimizers.MomentumSGD(lr=0.1).setup(m)
    m.cleargrads()
    w0 = m.predictor.l1.W.array.copy()
    opt.update()
    for p in m.params():
        numpy.testing.assert_array_equal(p.grad, numpy.zeros_like(p.array))
    numpy.testing.assert_array_equal(m.predictor.l1.W.array, w0)
    m.predictor.l1.W.cleargrad()
    opt.reallocate_cleared_grads()
    assert m.predictor.l1.W.grad is not None


def test_parameters_added_after_setup_and_lazy_ones_get_rules():
    m = _model()
    opt = optimizers.SGD(lr=0.5).setup(m)
    with m.init_scope():
        m.extra = chainlite.Parameter(_f32(1.0, 1.0))
        m.lazy = chainlite.Parameter()
    assert m.extra.update_rule is None
    m.cleargrads()
    m.extra.grad = _f32(1.0, 2.0)
    opt.update()
    numpy.testing.assert_array_equal(m.extra.array, _f32(0.5, 0.0))
    rule = m.lazy.update_rule
    assert isinstance(rule, optimizers.sgd.SGDRule) and rule.state is None
    m.lazy.initialize((2,))
    m.lazy.grad = _f32(2.0, 2.0)
    before = m.lazy.array.copy()
    opt.update()
    assert m.lazy.update_rule is rule
    numpy.testing.assert_allclose(m.lazy.array, before - 1.0)


def test_disabled_rules_leave_their_parameters():
    m = _model()
    opt = optimizers.SGD(lr=0.5).setup(m)
    m.predictor.l1.W.update_rule.enabled = False
    for p in m.params():
        p.grad = numpy.ones_like(p.array)
    w0, b0 = m.predictor.l1.W.array.copy(), m.predictor.l1.b.array.copy()
    opt.update()
    numpy.testing.assert_array_equal(m.predictor.l1.W.array, w0)
    numpy.testing.assert_array_equal(m.predictor.l1.b.array, b0 - 0.5)


def test_update_explains_a_forgotten_cleargrads_with_the_parameter_path():
    x, t = _data()
    m = chainlite.Chain()
    with m.init_scope():
        m.l1 = chainlite.Link()
        with m.l1.init_scope():
            m.l1.W = chainlite.Parameter(0.1, (3, 2))   # NaN grad until cleared
    opt = optimizers.SGD().setup(m)
    F.sum(F.matmul(x, m.l1.W)).backward()
    with pytest.raises(RuntimeError, match='/l1/W is NaN because it was never cleared'):
        opt.update()
    numpy.testing.assert_array_equal(m.l1.W.array, numpy.full((3, 2), 0.1, numpy.float32))


def test_new_epoch():
    opt = optimizers.SGD().setup(_model())
    opt.new_epoch()
    assert opt.epoch == 1
    with pytest.raises(RuntimeError, match='auto=True'):
        opt.new_epoch(auto=True)
    opt.use_auto_new_epoch = True
    opt.new_epoch(auto=True)
    assert opt.epoch == 2
    with pytest.raises(RuntimeError, match='duplicated new_epoch'):
        opt.new_epoch()


def test_serialize_layout_and_resume_gives_the_same_training():
    x, t = _data()
    m = _model()
    opt = optimizers.Adam(alpha=0.05).setup(m)
    opt.update(_lossfun(m), x, t)
    opt.new_epoch()
    saved = serializers.DictionarySerializer()
    saved.save(opt)
    assert sorted(saved.target) == [
        'epoch', 'predictor/l1/W/m', 'predictor/l1/W/t', 'predictor/l1/W/v',
        'predictor/l1/b/m', 'predictor/l1/b/t', 'predictor/l1/b/v', 't']

    buf = io.BytesIO()
    serializers.save_npz(buf, opt)
    m2 = m.copy('copy')
    opt2 = optimizers.Adam(alpha=0.05).setup(m2)
    serializers.load_npz(io.BytesIO(buf.getvalue()), opt2)
    assert (opt2.t, opt2.epoch, m2.predictor.l1.W.update_rule.t) == (1, 1, 1)
    for _ in range(2):
        opt.update(_lossfun(m), x, t)
        opt2.update(_lossfun(m2), x, t)
    for p, q in zip(m.params(), m2.params()):
        numpy.testing.assert_array_equal(p.array, q.array)


def test_static_loss_scaling_gives_the_unscaled_step():
    x, t = _data()
    m, ref = _model(), _model()
    opt = optimizers.SGD(lr=0.1).setup(m)
    opt.loss_scaling(scale=128.0)
    seen = []
    opt.add_hook(lambda o: seen.append(o.target.predictor.l1.b.grad.copy()), name='seen')
    opt.update(_lossfun(m), x, t)
    optimizers.SGD(lr=0.1).setup(ref).update(_lossfun(ref), x, t)
    for p, q in zip(m.params(), ref.params()):
        numpy.testing.assert_allclose(p.array, q.array, rtol=1e-5)
    numpy.testing.assert_allclose(seen[0], 128.0 * ref.predictor.l1.b.grad, rtol=1e-5)


def test_dynamic_loss_scaling_grows_halves_and_skips_non_finite_updates():
    x, t = _data()
    m = _model()
    opt = optimizers.SGD(lr=0.01).setup(m)
    opt.loss_scaling(interval=2)
    assert opt._loss_scale == 1.0
    opt.update(_lossfun(m), x, t)
    opt.update(_lossfun(m), x, t)
    assert opt._loss_scale == 4.0 and opt.is_safe_to_update()
    w = m.predictor.l1.W.array.copy()
    with pytest.warns(UserWarning, match='Non finite number found in param.grad'):
        opt.update(lambda: F.sum(m.predictor.l1.W) * numpy.float32(numpy.inf))
    assert not opt.is_safe_to_update()
    assert opt._loss_scale == 2.0
    numpy.testing.assert_array_equal(m.predictor.l1.W.array, w)
    opt.update(_lossfun(m), x, t)
    assert opt._loss_scale == pytest.approx(2.0 * 2 ** 0.5)


def test_loss_scaling_argument_errors():
    opt = optimizers.SGD()
    with pytest.raises(ValueError, match='interval'):
        opt.loss_scaling(interval=0)
    with pytest.raises(ValueError, match='positive'):
        opt.set_loss_scale(-1.0)


def test_use_cleargrads_false_uses_zerograds():
    x, t = _data()
    m = _model()
    opt = optimizers.SGD(lr=0.1).setup(m)
    with pytest.warns(DeprecationWarning, match='use_cleargrads'):
        opt.use_cleargrads(False)
    with pytest.warns(DeprecationWarning, match='zerograds'):
        opt.update(_lossfun(m), x, t)
    assert opt.t == 1


def test_use_fp32_update_reaches_present_and_future_rules():
    m = _model()
    opt = optimizers.SGD().setup(m)
    opt.use_fp32_update()
    assert all(p.update_rule._use_fp32_update for p in m.params())
    with m.init_scope():
        m.extra = chainlite.Parameter(_f32(1.0))
    m.extra.grad = _f32(0.0)
    for p in m.params():
        if p.grad is None or numpy.isnan(p.grad).any():
            p.grad = numpy.zeros_like(p.array)
    opt.update()
    assert m.extra.update_rule._use_fp32_update


def test_deprecated_hook_names_in_the_optimizer_module():
    with pytest.warns(DeprecationWarning, match='chainer.optimizer_hooks.WeightDecay'):
        cls = optimizer.WeightDecay
    assert cls is optimizer_hooks.WeightDecay
    with pytest.raises(AttributeError):
        optimizer.NoSuchHook


def test_base_optimizer_update_is_abstract():
    with pytest.raises(NotImplementedError):
        optimizer.Optimizer().update()
    with pytest.raises(NotImplementedError):
        optimizer.GradientMethod().create_update_rule()


# --- a parameter's loss scale, as Chainer keeps it --------------------------------------------


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_param_loss_scale_set_on_the_variable_is_divided_out(dtype):
    # Chainer's TestGradientMethodLossScale: the scale lives on the Parameter, and SGD with
    # lr = scale, grad = data gives zeros.
    link = chainlite.Link()
    with link.init_scope():
        link.p = chainlite.Parameter(numpy.linspace(-1, 1, 6).astype(dtype))
    link.p.grad = link.p.array.copy()
    link.p._loss_scale = 10.0
    assert link.p.node._loss_scale == 10.0
    opt = optimizers.SGD(lr=10.0).setup(link)
    opt.update()
    numpy.testing.assert_allclose(link.p.array, numpy.zeros(6), atol=1e-2)
    assert link.p._loss_scale is None   # consumed (see docs/migrating_from_chainer.md)


def test_backward_without_loss_scale_clears_a_stale_one():
    # As Chainer: every backward records its own scale on the leaves it reaches, so a later
    # unscaled backward is not divided by an old scale.
    x = chainlite.Parameter(_f32(1.0, 2.0))
    F.sum(x * x).backward(loss_scale=8.0)
    assert x._loss_scale == 8.0
    x.cleargrad()
    F.sum(x * x).backward()
    assert x._loss_scale is None
    rule = optimizers.SGD(lr=0.25).create_update_rule()
    rule.update(x)
    numpy.testing.assert_array_equal(x.array, _f32(0.5, 1.0))


def test_backward_loss_scale_multiplies_only_the_default_seed():
    # Chainer multiplies the initial gradient 1 of a scalar loss, not a gradient the user set.
    x = chainlite.Variable(_f32(1.0, 2.0))
    y = F.sum(x * 3)
    y.backward(loss_scale=4.0)
    numpy.testing.assert_array_equal(x.grad, _f32(12.0, 12.0))
    x.cleargrad()
    y = x * 3
    y.grad = _f32(1.0, 1.0)
    y.backward(loss_scale=4.0)
    numpy.testing.assert_array_equal(x.grad, _f32(3.0, 3.0))
    assert x._loss_scale == 4.0
    # A leaf loss: the scaled seed is its gradient.
    s = chainlite.Variable(numpy.array(2.0, numpy.float32))
    s.backward(loss_scale=4.0)
    assert s.grad == 4.0 and s._loss_scale == 4.0


def test_update_core_chainerx_runs_the_cpu_update():
    class Rule(optimizer.UpdateRule):
        def update_core_cpu(self, param):
            param.array -= param.grad

    p = chainlite.Parameter(_f32(1.0, 2.0))
    p.grad = _f32(0.5, 0.5)
    Rule().update_core_chainerx(p)
    numpy.testing.assert_array_equal(p.array, _f32(0.5, 1.5))
def test_resolved_hyperparameter_reads_the_same_entries():
    from chainlite.optimizer import Hyperparameter, _resolved
    base = Hyperparameter()
    base.lr, base.eps = 0.1, 1e-8
    middle = Hyperparameter(base)
    rule = Hyperparameter(middle)
    assert _resolved(rule) is base               # empty sets are skipped
    middle.lr = 0.5
    assert _resolved(rule) is middle             # the first set with entries of its own
    assert (_resolved(rule).lr, _resolved(rule).eps) == (0.5, 1e-8)
    rule.eps = 1e-3
    assert _resolved(rule) is rule and rule.lr == 0.5


def test_adam_follows_rule_overrides_and_later_optimizer_changes():
    import chainlite.links as L
    from chainlite import optimizers
    model = L.Linear(2, 2)
    opt = optimizers.Adam(alpha=0.1).setup(model)
    for p in model.params():
        p.grad = numpy.ones_like(p.array)
    opt.update()
    model.b.update_rule.hyperparam.alpha = 0.0   # this parameter stops moving
    opt.alpha = 0.2                              # the others use the new rate
    W, b = model.W.array.copy(), model.b.array.copy()
    for p in model.params():
        p.grad = numpy.ones_like(p.array)
    opt.update()
    assert numpy.array_equal(model.b.array, b)
    # With a constant gradient, Adam's bias-corrected step is the learning rate itself.
    numpy.testing.assert_allclose(W - model.W.array, 0.2, rtol=1e-4)
