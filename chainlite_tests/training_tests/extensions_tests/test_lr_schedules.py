"""Tests of the schedules as loop objects (step) and as extensions: CosineShift, OneCycleShift,
ReduceOnPlateau against closed forms, and every shift's loop use against its extension use."""
import math
import os

import pytest

import chainlite
from chainlite import optimizers
from chainlite import serializers
from chainlite import training
from chainlite.training import extensions

# A scripted validation loss: falls, stalls, falls, stalls (drives ReduceOnPlateau).
METRICS = [5.0, 4.0, 4.0, 3.99999, 4.1, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.5, 2.5, 2.5, 2.5, 2.5]

MAKERS = {
    'cosine': lambda opt: extensions.CosineShift(5, 0.01, optimizer=opt),
    'cosine_restarts': lambda opt: extensions.CosineShift(3, 0.0, t_mult=2, warmup_iter=2,
                                                          optimizer=opt),
    'one_cycle': lambda opt: extensions.OneCycleShift(1.0, 12, optimizer=opt),
    'one_cycle_3': lambda opt: extensions.OneCycleShift(1.0, 12, anneal='linear',
                                                        three_phase=True, optimizer=opt),
    'plateau': lambda opt: extensions.ReduceOnPlateau('val', factor=0.5, patience=1,
                                                      cooldown=1, optimizer=opt),
    'exponential': lambda opt: extensions.ExponentialShift('lr', 0.8, optimizer=opt),
    'step': lambda opt: extensions.StepShift('lr', 0.5, 3, optimizer=opt),
    'multistep': lambda opt: extensions.MultistepShift('lr', 0.5, (2, 5), None, optimizer=opt),
    'linear': lambda opt: extensions.LinearShift('lr', (0.1, 0.5), (2, 6), optimizer=opt),
    'polynomial': lambda opt: extensions.PolynomialShift('lr', 2.0, 10, optimizer=opt),
    'inverse': lambda opt: extensions.InverseShift('lr', 0.1, 0.75, optimizer=opt),
    'warmup': lambda opt: extensions.WarmupShift('lr', 0.0, 4, optimizer=opt),
}


class _Recorder(training.Updater):
    """Records the lr each update runs with and reports the scripted metric as 'val'."""

    def __init__(self, optimizer):
        self.optimizer, self.iteration, self.seen, self.momenta = optimizer, 0, [], []

    epoch_detail = property(lambda self: float(self.iteration))

    def get_optimizer(self, name):
        return self.optimizer

    def get_all_optimizers(self):
        return {'main': self.optimizer}

    def update(self):
        self.seen.append(self.optimizer.lr)
        self.momenta.append(getattr(self.optimizer, 'momentum', None))
        chainlite.report({'val': METRICS[self.iteration]})
        self.iteration += 1

    def finalize(self):
        pass

    def serialize(self, serializer):
        self.iteration = int(serializer('iteration', self.iteration))


def _optimizer():
    return optimizers.MomentumSGD(lr=0.5).setup(chainlite.links.Linear(1, 1))


def _trainer(name, n):
    optimizer = _optimizer()
    trainer = training.Trainer(_Recorder(optimizer), (n, 'iteration'), out='.')
    trainer.extend(MAKERS[name](None), name='sched')
    return trainer


def _extension_run(name, n):
    trainer = _trainer(name, n)
    trainer.run()
    return trainer.updater.seen + [trainer.updater.optimizer.lr]


def _loop_run(name, n):
    optimizer = _optimizer()
    sched = MAKERS[name](optimizer)
    sched.initialize()
    seen = []
    for i in range(n):
        seen.append(optimizer.lr)  # the update of iteration i runs with this value
        sched.step(METRICS[i]) if name == 'plateau' else sched.step()
        assert sched.last_value == optimizer.lr
    return seen + [optimizer.lr]


@pytest.mark.parametrize('name', sorted(MAKERS))
def test_loop_use_equals_extension_use(name):
    assert _loop_run(name, 14) == _extension_run(name, 14)


@pytest.mark.parametrize('name', sorted(MAKERS))
def test_resume_from_a_snapshot_mid_schedule_equals_an_uninterrupted_run(name, tmp_path):
    first = _trainer(name, 6)
    first.run()
    path = os.path.join(str(tmp_path), 'snapshot.npz')
    serializers.save_npz(path, first)
    second = _trainer(name, 14)
    serializers.load_npz(path, second)
    second.run()
    resumed = first.updater.seen + second.updater.seen + [second.updater.optimizer.lr]
    assert resumed == _extension_run(name, 14)


def _cosine(t, t_max, eta_min, init):
    return eta_min + (init - eta_min) * (1 + math.cos(math.pi * t / t_max)) / 2


def test_cosine_against_the_closed_form():
    seq = _loop_run('cosine', 8)
    assert seq == pytest.approx([_cosine(min(t, 5), 5, 0.01, 0.5) for t in range(9)])
    assert seq[5:] == [0.01] * 4


def test_cosine_warmup_and_warm_restarts_against_the_closed_form():
    seq = _loop_run('cosine_restarts', 14)
    warmup = [0.0, 0.25]
    first = [_cosine(t, 3, 0.0, 0.5) for t in range(3)]    # periods 3, 6, 12
    second = [_cosine(t, 6, 0.0, 0.5) for t in range(6)]
    third = [_cosine(t, 12, 0.0, 0.5) for t in range(4)]
    assert seq == pytest.approx(warmup + first + second + third)


def _one_cycle(t, total, pct, max_value, div, final_div):
    # PyTorch's OneCycleLR (two phases, cos), written out.
    initial, rise = max_value / div, pct * total - 1
    last = initial / final_div
    if t <= rise:
        p, start, end = t / rise, initial, max_value
    else:
        p, start, end = (t - rise) / (total - 1 - rise), max_value, last
    return end + (start - end) / 2 * (math.cos(math.pi * p) + 1)


def test_one_cycle_against_the_closed_form():
    seq = _loop_run('one_cycle', 14)
    expected = [_one_cycle(min(t, 11), 12, 0.3, 1.0, 25, 1e4) for t in range(15)]
    assert seq == pytest.approx(expected)
    # The peak is at call 0.3 * 12 - 1 = 2.6, between two calls.
    assert seq[0] == pytest.approx(0.04) and 0.99 < max(seq) < 1.0
    assert seq[-1] == pytest.approx(0.04 / 1e4)


def test_one_cycle_three_phases_linear():
    seq = _loop_run('one_cycle_3', 12)
    # Rise over calls 0..2.6, back to the start at 5.2, then down to start / 1e4 at 11.
    assert seq[0] == pytest.approx(0.04)
    assert seq[2] == pytest.approx(0.04 + 2 / 2.6 * 0.96)
    assert seq[5] == pytest.approx(1.0 - 2.4 / 2.6 * 0.96)
    assert seq[11] == pytest.approx(0.04 / 1e4) and seq[12] == seq[11]


def test_reduce_on_plateau_with_a_scripted_metric():
    seq = _loop_run('plateau', 16)
    # seq[i] is the value before step i. Steps 0, 1 improve; 2, 3 are bad (3.99999 is not
    # better by the relative threshold 1e-4): 2 > patience 1, halve after step 3. Step 4 is
    # the cooldown. Step 5 improves; 6, 7 bad: halve. Step 8 cooldown; 9 bad; 10 improves;
    # 11, 12 bad: halve. Step 13 cooldown; 14, 15 bad: halve.
    assert seq == [0.5] * 4 + [0.25] * 4 + [0.125] * 5 + [0.0625] * 3 + [0.03125]


@pytest.mark.parametrize('mode,threshold_mode,metrics,expected', [
    ('max', 'rel', [1.0, 2.0, 2.0, 2.0, 3.0], [1.0, 1.0, 1.0, 0.1, 0.1]),
    ('min', 'abs', [1.0, 0.95, 0.5, 0.45, 0.44], [1.0, 1.0, 1.0, 1.0, 0.1]),
    ('max', 'abs', [1.0, 1.05, 1.5, 1.5, 1.5], [1.0, 1.0, 1.0, 1.0, 0.1]),
])
def test_reduce_on_plateau_modes(mode, threshold_mode, metrics, expected):
    opt = optimizers.SGD(lr=1.0)
    sched = extensions.ReduceOnPlateau(mode=mode, threshold_mode=threshold_mode,
                                       threshold=0.1, patience=1, optimizer=opt)
    sched.initialize()
    seen = []
    for m in metrics:
        sched.step(m)
        seen.append(opt.lr)
    assert seen == pytest.approx(expected)


def test_reduce_on_plateau_min_value_eps_and_metric_types():
    import numpy as np
    opt = optimizers.SGD(lr=1.0)
    sched = extensions.ReduceOnPlateau(factor=0.1, patience=0, min_value=0.05,
                                       optimizer=opt)
    sched.initialize()
    for m in [np.float32(1.0), np.array(1.0), chainlite.Variable(np.array(1.0)), 1.0]:
        sched.step(m)
    assert opt.lr == 0.05
    assert sched.best == 1.0
    with pytest.raises(TypeError, match='needs the measured value'):
        sched.step()


def test_reduce_on_plateau_missing_key_is_explained():
    trainer = _trainer('plateau', 2)
    trainer.extend(extensions.ReduceOnPlateau('nothing', optimizer=None), name='other')
    with pytest.raises(KeyError, match="'nothing' is not in the observation"):
        trainer.run()


def test_adam_gets_alpha_by_default():
    opt = optimizers.Adam(alpha=0.01).setup(chainlite.links.Linear(1, 1))
    sched = extensions.CosineShift(2, optimizer=opt)
    sched.initialize()
    sched.step()
    assert opt.alpha == pytest.approx(0.005)
    sgd = optimizers.RMSprop(lr=0.1)   # its alpha is a decay rate, not the step size
    extensions.OneCycleShift(1.0, 10, optimizer=sgd).initialize()
    assert sgd.lr == pytest.approx(0.04) and sgd.alpha == 0.99


def test_step_needs_initialize_and_an_optimizer():
    sched = extensions.ExponentialShift('lr', 0.5, optimizer=optimizers.SGD())
    with pytest.raises(RuntimeError, match='initialize'):
        sched.step()
    with pytest.raises(TypeError, match='takes no metric'):
        sched.initialize() or sched.step(1.0)
    with pytest.raises(ValueError, match='optimizer=...'):
        extensions.CosineShift(3).initialize()


def test_argument_errors():
    with pytest.raises(ValueError, match='t_max'):
        extensions.CosineShift(0)
    with pytest.raises(ValueError, match='t_mult'):
        extensions.CosineShift(3, t_mult=0)
    with pytest.raises(ValueError, match='pct_start'):
        extensions.OneCycleShift(1.0, 10, pct_start=1.0)
    with pytest.raises(ValueError, match='anneal'):
        extensions.OneCycleShift(1.0, 10, anneal='exp')
    with pytest.raises(ValueError, match='mode'):
        extensions.ReduceOnPlateau(mode='best')
    with pytest.raises(ValueError, match='factor'):
        extensions.ReduceOnPlateau(factor=1.0)


def _torch_sequence(make_torch, n):
    torch = pytest.importorskip('torch')
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.5)
    sched = make_torch(torch, opt)
    seq = []
    for i in range(n):
        seq.append(opt.param_groups[0]['lr'])
        opt.step()
        sched.step(METRICS[i]) if 'Plateau' in type(sched).__name__ else sched.step()
    return seq + [opt.param_groups[0]['lr']]


@pytest.mark.parametrize('name,make_torch,n', [
    ('cosine', lambda t, o: t.optim.lr_scheduler.CosineAnnealingLR(o, 5, 0.01), 5),
    ('one_cycle', lambda t, o: t.optim.lr_scheduler.OneCycleLR(
        o, 1.0, total_steps=12, cycle_momentum=False), 11),
    ('one_cycle_3', lambda t, o: t.optim.lr_scheduler.OneCycleLR(
        o, 1.0, total_steps=12, anneal_strategy='linear', three_phase=True,
        cycle_momentum=False), 11),
    ('plateau', lambda t, o: t.optim.lr_scheduler.ReduceLROnPlateau(
        o, factor=0.5, patience=1, cooldown=1), 16),
])
def test_against_torch(name, make_torch, n):
    expected = _torch_sequence(make_torch, n)
    assert _loop_run(name, n) == pytest.approx(expected)


def test_warm_restarts_against_torch():
    expected = _torch_sequence(
        lambda t, o: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 3, 2), 14)
    opt = optimizers.SGD(lr=0.5)
    sched = extensions.CosineShift(3, t_mult=2, optimizer=opt)
    sched.initialize()
    seq = []
    for _ in range(14):
        seq.append(opt.lr)
        sched.step()
    assert seq + [opt.lr] == pytest.approx(expected)


@pytest.mark.parametrize('name', sorted(MAKERS))
def test_loop_resume_with_save_npz_of_the_schedule(name, tmp_path):
    path = os.path.join(str(tmp_path), 'sched.npz')
    optimizer = _optimizer()
    sched = MAKERS[name](optimizer)
    sched.initialize()
    seen = []
    for i in range(14):
        if i == 6:  # save, then go on with a fresh optimizer and schedule
            serializers.save_npz(path, sched)
            optimizer = _optimizer()
            sched = MAKERS[name](optimizer)
            serializers.load_npz(path, sched)
            sched.initialize()  # puts the restored value back on the optimizer
        seen.append(optimizer.lr)
        sched.step(METRICS[i]) if name == 'plateau' else sched.step()
    assert seen + [optimizer.lr] == _loop_run(name, 14)


def test_reduce_on_plateau_runs_once_an_epoch_by_default():
    assert extensions.ReduceOnPlateau.trigger == (1, 'epoch')
    assert extensions.CosineShift.trigger == (1, 'iteration')


def _momenta(sched, optimizer, n, name='momentum'):
    sched.initialize()
    seq = [getattr(optimizer, name)]
    for _ in range(n):
        sched.step()
        seq.append(getattr(optimizer, name))
    return seq


def test_one_cycle_momentum_hand_computed():
    # total 5, pct_start 0.4: the lr peaks at call 0.4 * 5 - 1 = 1, where the momentum is
    # lowest; linear interpolation makes every value a simple fraction.
    opt = optimizers.MomentumSGD(lr=0.5, momentum=0.5)
    sched = extensions.OneCycleShift(1.0, 5, pct_start=0.4, anneal='linear', optimizer=opt)
    assert _momenta(sched, opt, 5) == pytest.approx(
        [0.95, 0.85, 0.85 + 0.1 / 3, 0.85 + 0.2 / 3, 0.95, 0.95])
    # Three phases over total 7 (ends 1.8, 3.6, 6): down, up, then held at max_momentum.
    opt = optimizers.NesterovAG()
    sched = extensions.OneCycleShift(1.0, 7, pct_start=0.4, anneal='linear',
                                     three_phase=True, base_momentum=0.8,
                                     max_momentum=0.9, optimizer=opt)
    assert _momenta(sched, opt, 7) == pytest.approx(
        [0.9, 0.9 - 0.1 / 1.8, 0.8 + 0.02 / 1.8, 0.8 + 0.12 / 1.8] + [0.9] * 4)


def test_one_cycle_momentum_cos_closed_form_and_adam_beta1():
    opt = optimizers.Adam(alpha=0.1, beta1=0.5).setup(chainlite.links.Linear(1, 1))
    sched = extensions.OneCycleShift(1.0, 12, optimizer=opt)
    got = _momenta(sched, opt, 13, name='beta1')
    # The momentum is the lr's schedule mirrored: 0.95 - (lr - lr_min_phase) scaled.
    expected = []
    for t in range(14):
        t = min(t, 11)
        rise = 0.3 * 12 - 1
        p, start, end = (t / rise, 0.95, 0.85) if t <= rise else (
            (t - rise) / (11 - rise), 0.85, 0.95)
        expected.append(end + (start - end) / 2 * (math.cos(math.pi * p) + 1))
    assert got == pytest.approx(expected)
    assert opt.alpha == pytest.approx(0.04 / 1e4)


def test_one_cycle_momentum_where_the_optimizer_has_none():
    rms = optimizers.RMSprop(lr=0.1)
    extensions.OneCycleShift(1.0, 10, optimizer=rms).initialize()  # skipped, as no momentum
    assert rms.alpha == 0.99 and not hasattr(rms.hyperparam, 'momentum')
    with pytest.raises(ValueError, match='cycle_momentum=True, but RMSprop has no momentum'):
        extensions.OneCycleShift(1.0, 10, cycle_momentum=True, optimizer=rms)
    sched = extensions.OneCycleShift(1.0, 10, cycle_momentum=True)
    sgd = optimizers.SGD().setup(chainlite.links.Linear(1, 1))
    trainer = training.Trainer(_Recorder(sgd), (1, 'iteration'), out='.')
    trainer.extend(sched)
    with pytest.raises(ValueError, match='SGD has no momentum'):
        trainer.run()
    # Off on request, and off when another attribute than the step size is scheduled.
    opt = optimizers.MomentumSGD(momentum=0.5)
    extensions.OneCycleShift(1.0, 10, cycle_momentum=False, optimizer=opt).initialize()
    assert opt.momentum == 0.5 and opt.lr == pytest.approx(0.04)
    extensions.OneCycleShift(1.0, 10, attr='momentum', optimizer=opt).initialize()
    assert opt.momentum == pytest.approx(0.04)


def test_one_cycle_momentum_resume_equals_an_uninterrupted_run(tmp_path):
    whole = _trainer('one_cycle_3', 14)
    whole.run()
    assert len(set(whole.updater.momenta)) > 5  # it does cycle
    first = _trainer('one_cycle_3', 6)
    first.run()
    path = os.path.join(str(tmp_path), 'snapshot.npz')
    serializers.save_npz(path, first)
    second = _trainer('one_cycle_3', 14)
    serializers.load_npz(path, second)
    second.run()
    resumed = first.updater.momenta + second.updater.momenta + [second.updater.optimizer.momentum]
    assert resumed == whole.updater.momenta + [whole.updater.optimizer.momentum]


@pytest.mark.parametrize('three_phase,anneal', [(False, 'cos'), (True, 'linear')])
@pytest.mark.parametrize('kind', ['sgd', 'adam'])
def test_one_cycle_momentum_against_torch(kind, three_phase, anneal):
    torch = pytest.importorskip('torch')
    p = torch.nn.Parameter(torch.zeros(1))
    if kind == 'sgd':
        topt = torch.optim.SGD([p], lr=0.5, momentum=0.9)
        opt, name = optimizers.MomentumSGD(lr=0.5, momentum=0.9), 'momentum'
    else:
        topt = torch.optim.Adam([p], lr=0.5)
        opt, name = optimizers.Adam(alpha=0.5), 'beta1'
    tsched = torch.optim.lr_scheduler.OneCycleLR(
        topt, 1.0, total_steps=12, anneal_strategy=anneal, three_phase=three_phase,
        base_momentum=0.8, max_momentum=0.9)
    expected = []
    for _ in range(11):
        group = topt.param_groups[0]
        expected.append((group['lr'], group['momentum'] if kind == 'sgd' else group['betas'][0]))
        topt.step()
        tsched.step()
    sched = extensions.OneCycleShift(1.0, 12, anneal=anneal, three_phase=three_phase,
                                     base_momentum=0.8, max_momentum=0.9, optimizer=opt)
    sched.initialize()
    got = []
    for _ in range(11):
        got.append((getattr(opt, 'lr' if kind == 'sgd' else 'alpha'), getattr(opt, name)))
        sched.step()
    assert got == [pytest.approx(e) for e in expected]
