"""Every optimizer and optimizer hook on a GPU array module, against the CPU.

A small model (a few parameters, one above the packed updates' size limit, one 0-d) is
copied; the copy is moved to the GPU (the strict CuPy stand-in, or real CuPy under
``CHAINLITE_TEST_GPU=1``) and both are updated a few steps with the same gradients. The
parameters, the update rules' state and their step counts must match, and every array of
the GPU model and of its optimizer's state must be a GPU array. Every public optimizer of
``chainlite.optimizers`` and every hook of ``chainlite.optimizer_hooks`` is in ``CASES`` /
``HOOKS`` (or ``SKIPPED`` with a reason), so a new one cannot escape.
"""
import copy
import os
import warnings

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import optimizer
from chainlite import optimizer_hooks
from chainlite import optimizers
from chainlite.backends import cuda

REAL_GPU = os.environ.get('CHAINLITE_TEST_GPU') == '1'
# As in test_functions.py; real GPUs round some operations (sqrt, division) differently.
_TOL = {numpy.float64: (1e-7, 1e-9), numpy.float32: (1e-4, 1e-5), numpy.float16: (2e-2, 2e-3)}

# Every public optimizer, with arguments that make its options matter.
CASES = {
    'AdaBound': dict(alpha=0.01),
    'AdaDelta': dict(),
    'AdaGrad': dict(lr=0.01),
    'Adam': dict(alpha=0.01, weight_decay_rate=0.01),
    'AdamW': dict(alpha=0.01, weight_decay_rate=0.05),
    'AMSBound': dict(alpha=0.01),
    'AMSGrad': dict(alpha=0.01),
    'CorrectedMomentumSGD': dict(lr=0.05),
    'MomentumSGD': dict(lr=0.05),
    'MSVAG': dict(lr=0.05, weight_decay_rate=0.01),
    'NesterovAG': dict(lr=0.05),
    'RMSprop': dict(lr=0.01),
    'RMSpropGraves': dict(lr=0.01),
    'SGD': dict(lr=0.05),
    'SMORMS3': dict(lr=0.01),
}
# float16 (without use_fp32_update): an eps that float16 can hold (RMSprop refuses one that
# rounds to zero; AdaGrad and SMORMS3 would divide by zero).
FLOAT16 = {'AdaGrad': dict(eps=1e-3), 'RMSprop': dict(eps=1e-3), 'SMORMS3': dict(eps=1e-3)}
# (dtype, use_fp32_update)
PRECISIONS = [(numpy.float64, False), (numpy.float32, False), (numpy.float16, False),
              (numpy.float16, True)]
# Public optimizers left out, each with the reason.
SKIPPED: dict[str, str] = {}
# Every optimizer hook (with arguments under which it changes the gradients).
HOOKS = {
    'GradientClipping': lambda: optimizer_hooks.GradientClipping(1.0),
    'GradientHardClipping': lambda: optimizer_hooks.GradientHardClipping(-0.5, 0.5),
    'GradientLARS': lambda: optimizer_hooks.GradientLARS(threshold=1e-2, weight_decay=1e-3),
    'GradientNoise': lambda: optimizer_hooks.GradientNoise(0.3),
    'Lasso': lambda: optimizer_hooks.Lasso(1e-2),
    'WeightDecay': lambda: optimizer_hooks.WeightDecay(1e-2),
}
SKIPPED_HOOKS: dict[str, str] = {}


def _public_classes(module, base):
    return {name for name in dir(module) if not name.startswith('_')
            and isinstance(getattr(module, name), type) and issubclass(getattr(module, name), base)}


def test_every_optimizer_and_hook_is_covered():
    names = _public_classes(optimizers, optimizer.Optimizer)
    assert names == set(CASES) | set(SKIPPED), names ^ (set(CASES) | set(SKIPPED))
    hooks = {name for name in dir(optimizer_hooks) if not name.startswith('_')
             and isinstance(getattr(optimizer_hooks, name), type)}
    assert hooks == set(HOOKS) | set(SKIPPED_HOOKS), hooks ^ (set(HOOKS) | set(SKIPPED_HOOKS))


class _Model(chainlite.Chain):
    # A child link (nested names), small parameters (packed updates), one above the packed
    # updates' size limit and a 0-d one.

    def __init__(self, dtype):
        super().__init__()
        rng = numpy.random.default_rng(7)
        with self.init_scope():
            self.child = chainlite.Link()
            with self.child.init_scope():
                self.child.W = chainlite.Parameter(rng.uniform(-1, 1, (3, 4)).astype(dtype))
                self.child.b = chainlite.Parameter(rng.uniform(-1, 1, 4).astype(dtype))
            self.big = chainlite.Parameter(rng.uniform(-1, 1, (130, 130)).astype(dtype))
            self.s = chainlite.Parameter(numpy.asarray(0.5, dtype))


def _on_gpu(model):
    gpu = copy.deepcopy(model)
    gpu.to_device('@cupy:0')
    return gpu


def _grads(model, step):
    # The same gradients for every copy of the model, as host arrays.
    rng = numpy.random.default_rng(100 + step)
    return {name: rng.uniform(-1, 1, p.shape).astype(p.dtype)
            for name, p in sorted(model.namedparams())}


def _set_grads(model, grads, xp):
    for name, p in model.namedparams():
        p.grad = xp.asarray(grads[name])


def _steps(opt, model, xp, steps, first=0):
    for step in range(first, first + steps):
        numpy.random.seed(step)  # GradientNoise draws (NumPy's generator on the stand-in)
        _set_grads(model, _grads(model, step), xp)
        opt.update()


def _assert_matches(cpu_model, gpu_model, gpu_xp, dtype, compare_values=True):
    rtol, atol = _TOL[dtype]
    if REAL_GPU:
        rtol, atol = max(rtol, 1e-5), max(atol, 1e-6)
    cpu_params = dict(cpu_model.namedparams())
    for name, g in gpu_model.namedparams():
        c = cpu_params[name]
        assert isinstance(g.array, gpu_xp.ndarray), name
        assert g.array.dtype == c.array.dtype, name
        if compare_values:
            numpy.testing.assert_allclose(cuda.to_cpu(g.array), c.array, rtol=rtol, atol=atol,
                                          err_msg=name)
        g_rule, c_rule = g.update_rule, c.update_rule
        assert g_rule.t == c_rule.t, name
        assert (g_rule.state is None) == (c_rule.state is None), name
        if c_rule.state is None:
            continue
        assert sorted(g_rule.state) == sorted(c_rule.state), name
        for key, value in g_rule.state.items():
            assert isinstance(value, gpu_xp.ndarray), (name, key, type(value))
            assert value.dtype == c_rule.state[key].dtype, (name, key)
            if compare_values:
                numpy.testing.assert_allclose(cuda.to_cpu(value), c_rule.state[key], rtol=rtol,
                                              atol=atol, err_msg='%s/%s' % (name, key))
        fp32 = g_rule._fp32_param
        if fp32 is not None:
            assert isinstance(fp32.array, gpu_xp.ndarray), name


def _run_both(name, dtype, gpu_xp, fp32=False, hook=None, steps=3):
    cpu_model = _Model(dtype)
    gpu_model = _on_gpu(cpu_model)
    kwargs = dict(CASES[name])
    if dtype == numpy.float16 and not fp32:
        kwargs.update(FLOAT16.get(name, {}))
    result = []
    for model, xp in ((cpu_model, numpy), (gpu_model, gpu_xp)):
        opt = getattr(optimizers, name)(**kwargs).setup(model)
        if fp32:
            opt.use_fp32_update()
        if hook is not None:
            opt.add_hook(HOOKS[hook]())
        # float16 arithmetic overflows here and there, alike on both devices.
        with numpy.errstate(over='ignore', invalid='ignore', divide='ignore'):
            _steps(opt, model, xp, steps)
        result.append(opt)
    return cpu_model, gpu_model, result


def _precision_id(precision):
    dtype, fp32 = precision
    return numpy.dtype(dtype).name + ('-fp32_update' if fp32 else '')


@pytest.mark.parametrize('precision', PRECISIONS, ids=_precision_id)
@pytest.mark.parametrize('name', sorted(CASES))
def test_optimizer_on_gpu_matches_cpu(name, precision, gpu_xp):
    dtype, fp32 = precision
    cpu_model, gpu_model, (cpu_opt, gpu_opt) = _run_both(name, dtype, gpu_xp, fp32=fp32)
    assert cpu_opt.t == gpu_opt.t == 3
    _assert_matches(cpu_model, gpu_model, gpu_xp, dtype)
    if fp32:
        state = gpu_model.child.W.update_rule.state
        assert all(v.dtype == numpy.float32 for v in state.values()), state


@pytest.mark.parametrize('precision', PRECISIONS, ids=_precision_id)
@pytest.mark.parametrize('hook', sorted(HOOKS))
def test_hook_on_gpu_matches_cpu(hook, precision, gpu_xp):
    dtype, fp32 = precision
    exact = not (REAL_GPU and hook == 'GradientNoise')  # CuPy draws its own numbers
    for name in ('MomentumSGD', 'Adam'):
        cpu_model, gpu_model, _ = _run_both(name, dtype, gpu_xp, fp32=fp32, hook=hook)
        _assert_matches(cpu_model, gpu_model, gpu_xp, dtype, compare_values=exact)


@pytest.mark.parametrize('name', ['Lasso', 'WeightDecay', 'GradientHardClipping',
                                  'GradientLARS', 'GradientNoise'])
def test_hook_of_one_rule_on_gpu_matches_cpu(name, gpu_xp):
    # A hook on one parameter's rule (it leaves the packed update for that parameter).
    exact = not (REAL_GPU and name == 'GradientNoise')
    cpu_model = _Model(numpy.float32)
    gpu_model = _on_gpu(cpu_model)
    for model, xp in ((cpu_model, numpy), (gpu_model, gpu_xp)):
        opt = optimizers.MomentumSGD(lr=0.05).setup(model)
        model.child.W.update_rule.add_hook(HOOKS[name]())
        _steps(opt, model, xp, 3)
    _assert_matches(cpu_model, gpu_model, gpu_xp, numpy.float32, compare_values=exact)


def test_gradient_noise_draws_on_the_device(gpu_xp):
    hook = optimizer_hooks.GradientNoise(0.3)
    p = chainlite.Parameter(gpu_xp.zeros((50,), numpy.float32))
    p.grad = gpu_xp.zeros((50,), numpy.float32)
    rule = optimizers.SGD().create_update_rule()
    rule.t = 1
    hook(rule, p)
    assert isinstance(p.grad, gpu_xp.ndarray) and p.grad.dtype == numpy.float32
    assert float(gpu_xp.abs(p.grad).max()) > 0  # noise was added


@pytest.mark.parametrize('name', sorted(CASES))
def test_state_follows_the_model_to_the_gpu_and_back(name, gpu_xp):
    # As Chainer 7: the state created on the CPU moves with the parameter at its next update
    # (model.to_device after setup and after some updates), and back.
    dtype = numpy.float32
    cpu_model = _Model(dtype)
    moved = copy.deepcopy(cpu_model)
    cpu_opt = getattr(optimizers, name)(**CASES[name]).setup(cpu_model)
    opt = getattr(optimizers, name)(**CASES[name]).setup(moved)
    _steps(cpu_opt, cpu_model, numpy, 2)
    _steps(opt, moved, numpy, 2)
    moved.to_device('@cupy:0')
    _steps(cpu_opt, cpu_model, numpy, 2, first=2)
    _steps(opt, moved, gpu_xp, 2, first=2)
    _assert_matches(cpu_model, moved, gpu_xp, dtype)
    moved.to_device('@numpy')
    _steps(cpu_opt, cpu_model, numpy, 1, first=4)
    _steps(opt, moved, numpy, 1, first=4)
    for (key, p), (_, c) in zip(sorted(moved.namedparams()), sorted(cpu_model.namedparams())):
        assert isinstance(p.array, numpy.ndarray)
        numpy.testing.assert_allclose(p.array, c.array, rtol=1e-4, atol=1e-5, err_msg=key)
        for k, v in p.update_rule.state.items():
            assert isinstance(v, numpy.ndarray), (key, k)
            numpy.testing.assert_allclose(v, c.update_rule.state[k], rtol=1e-4, atol=1e-5)


def test_fp32_copy_follows_the_model_to_the_gpu(gpu_xp):
    cpu_model = _Model(numpy.float16)
    moved = copy.deepcopy(cpu_model)
    opts = []
    for model in (cpu_model, moved):
        opt = optimizers.Adam(alpha=0.01).setup(model)
        opt.use_fp32_update()
        _steps(opt, model, numpy, 2)
        opts.append(opt)
    moved.to_device('@cupy:0')
    _steps(opts[0], cpu_model, numpy, 2, first=2)
    _steps(opts[1], moved, gpu_xp, 2, first=2)
    _assert_matches(cpu_model, moved, gpu_xp, numpy.float16)


@pytest.mark.parametrize('name', ['Adam', 'MomentumSGD'])
def test_packed_update_on_gpu_packs_into_gpu_buffers(name, gpu_xp):
    model = _on_gpu(_Model(numpy.float32))
    reference = copy.deepcopy(model)  # (a deep copy of a GPU model stays on the GPU)
    opt = getattr(optimizers, name)(**CASES[name]).setup(model)
    ref_opt = getattr(optimizers, name)(**CASES[name]).setup(reference)
    ref_opt._packable = lambda params, hp: {}  # every parameter through its own rule
    _steps(opt, model, gpu_xp, 3)
    _steps(ref_opt, reference, gpu_xp, 3)
    packed = opt._packed
    assert packed is not None and len(packed.params) == 3  # W, b and s; big is too big
    buffers = [value for value in vars(packed).values() if hasattr(value, 'dtype')]
    assert buffers and all(isinstance(b, gpu_xp.ndarray) for b in buffers)
    assert ref_opt._packed is None
    for (key, p), (_, r) in zip(sorted(model.namedparams()), sorted(reference.namedparams())):
        # Elementwise arithmetic, the same on each element packed or not: the same bits.
        numpy.testing.assert_array_equal(cuda.to_cpu(p.array), cuda.to_cpu(r.array), key)
        for k, v in p.update_rule.state.items():
            numpy.testing.assert_array_equal(cuda.to_cpu(v),
                                             cuda.to_cpu(r.update_rule.state[k]), key)


@pytest.mark.parametrize('name', ['Adam', 'MomentumSGD'])
def test_parameters_on_two_devices(name, gpu_xp):
    # Part of the model on the GPU: the packed update does not mix host and device arrays.
    cpu_model = _Model(numpy.float32)
    mixed = copy.deepcopy(cpu_model)
    mixed.child.to_device('@cupy:0')
    for model in (cpu_model, mixed):
        opt = getattr(optimizers, name)(**CASES[name]).setup(model)
        for step in range(3):
            grads = _grads(model, step)
            for key, p in model.namedparams():
                on_gpu = model is mixed and key.startswith('/child')
                p.grad = gpu_xp.asarray(grads[key]) if on_gpu else grads[key]
            opt.update()
    for (key, p), (_, c) in zip(sorted(mixed.namedparams()), sorted(cpu_model.namedparams())):
        on_gpu = key.startswith('/child')
        assert isinstance(p.array, gpu_xp.ndarray if on_gpu else numpy.ndarray), key
        numpy.testing.assert_allclose(cuda.to_cpu(p.array), c.array, rtol=1e-4, atol=1e-5)
        for k, v in p.update_rule.state.items():
            assert isinstance(v, gpu_xp.ndarray if on_gpu else numpy.ndarray), (key, k)


def _loss(model):
    return F.sum(model.child.W * model.child.W) * 100 + F.sum(model.child.b * 3) + \
        F.sum(model.big * model.big) + model.s * model.s


@pytest.mark.parametrize('scale', [None, 128.0], ids=['dynamic', 'static'])
def test_loss_scaling_on_gpu_matches_cpu(scale, gpu_xp):
    # float16 with float32 updates: the dynamic scale grows until a gradient overflows,
    # which skips that update on both devices alike.
    cpu_model = _Model(numpy.float16)
    gpu_model = _on_gpu(cpu_model)
    opts, messages = [], []
    for model in (cpu_model, gpu_model):
        opt = optimizers.Adam(alpha=0.01).setup(model)
        opt.use_fp32_update()
        opt.loss_scaling(interval=2, scale=scale)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            with numpy.errstate(over='ignore', invalid='ignore'):
                for _ in range(12):
                    opt.update(_loss, model)
        opts.append(opt)
        messages.append([str(w.message) for w in caught])
    assert opts[0]._loss_scale == opts[1]._loss_scale
    assert opts[0].t == opts[1].t
    # The same non-finite gradients named, in the same order (the GPU's found together).
    assert messages[0] == messages[1]
    assert bool(messages[0]) == (scale is None), messages[0]
    _assert_matches(cpu_model, gpu_model, gpu_xp, numpy.float16)


def test_hyperparameters_stay_python_numbers(gpu_xp):
    # Coefficients cached as NumPy 0-d arrays for the CPU must not reach a GPU array.
    model = _on_gpu(_Model(numpy.float32))
    opt = optimizers.Adam(alpha=0.01, weight_decay_rate=0.01).setup(model)
    _steps(opt, model, gpu_xp, 2)
    for value in opt.hyperparam.get_dict().values():
        assert not isinstance(value, numpy.ndarray)
    rule = model.child.W.update_rule
    assert all(not isinstance(c, numpy.ndarray) for c in rule._coefficients)


@pytest.mark.parametrize('name', ['Adam', 'MomentumSGD', 'RMSprop'])
def test_model_on_a_second_gpu_keeps_its_state_there(name, gpu_xp):
    if REAL_GPU and gpu_xp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('one GPU')
    cpu_model = _Model(numpy.float32)
    model = copy.deepcopy(cpu_model)
    model.to_device('@cupy:1')
    cpu_opt = getattr(optimizers, name)(**CASES[name]).setup(cpu_model)
    opt = getattr(optimizers, name)(**CASES[name]).setup(model)
    for o in (cpu_opt, opt):  # hooks of both kinds, per parameter and for all at once
        o.add_hook(optimizer_hooks.WeightDecay(1e-2))
        o.add_hook(optimizer_hooks.GradientClipping(1.0))
        o.loss_scaling()  # (dynamic: the finiteness check)
    _steps(cpu_opt, cpu_model, numpy, 2)
    with gpu_xp.cuda.Device(1):
        grads = [_grads(model, step) for step in range(2)]
        grads = [{k: gpu_xp.asarray(v) for k, v in g.items()} for g in grads]
    for g in grads:
        for key, p in model.namedparams():
            p.grad = g[key]
        opt.update()  # (the current device is GPU 0)
    _assert_matches(cpu_model, model, gpu_xp, numpy.float32)
    for key, p in model.namedparams():
        assert p.array.device.id == 1, key
        for k, v in p.update_rule.state.items():
            assert v.device.id == 1, (key, k)
    # A parameter without a gradient gets zeros, on its GPU.
    model.s.cleargrad()
    opt.update()
    assert model.s.grad.device.id == 1
    packed = getattr(opt, '_packed', None)
    if packed is not None:
        assert packed.device_id == 1


class _ChainerStyleRule(optimizer.UpdateRule):
    # A rule written against Chainer's API: separate CPU and GPU updates.
    calls: list = []

    def init_state(self, param):
        xp = cuda.get_array_module(param.array)
        self.state['v'] = xp.zeros_like(param.array)

    def update_core_cpu(self, param):
        self.calls.append('cpu')
        self.state['v'] += param.grad
        param.array -= 0.1 * self.state['v']

    def update_core_gpu(self, param):
        self.calls.append('gpu')
        self.update_core_cpu(param)
        self.calls.pop()


def test_chainer_style_rule_runs_its_gpu_update_on_the_gpu(gpu_xp):
    p = chainlite.Parameter(gpu_xp.ones(3, numpy.float32))
    rule = _ChainerStyleRule()
    rule.calls = []
    for _ in range(2):
        p.grad = gpu_xp.full(3, 2.0, numpy.float32)
        rule.update(p)
    assert rule.calls == ['gpu', 'gpu']
    assert isinstance(rule.state['v'], gpu_xp.ndarray)
    numpy.testing.assert_allclose(cuda.to_cpu(p.array), [0.4] * 3, rtol=1e-6)
    p.to_device('@numpy')
    p.grad = numpy.zeros(3, numpy.float32)
    rule.update(p)
    assert rule.calls[-1] == 'cpu' and isinstance(rule.state['v'], numpy.ndarray)


def test_chainer_style_rule_without_a_gpu_update_runs_its_cpu_update(gpu_xp):
    class CpuOnly(optimizer.UpdateRule):
        def update_core_cpu(self, param):
            param.array -= 0.5 * param.grad

    p = chainlite.Parameter(gpu_xp.ones(2, numpy.float64))
    p.grad = gpu_xp.ones(2, numpy.float64)
    CpuOnly().update(p)
    assert isinstance(p.array, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(p.array), [0.5, 0.5])
