import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import iterators
from chainlite import links as L
from chainlite import optimizers
from chainlite import serializers
from chainlite import training
from chainlite.training import triggers


def _dataset(size):
    # Two separable classes: the sign of x0 + x1.
    x = np.random.RandomState(0).normal(size=(size, 2)).astype(np.float32)
    t = (x.sum(axis=1) > 0).astype(np.int32)
    return list(zip(x, t))


def _trainer(tmp_path, size=10, batch_size=3, stop=(3, 'epoch'), lr=0.1):
    model = L.Classifier(L.Linear(2, 2, initialW=np.eye(2, dtype=np.float32)))
    optimizer = optimizers.SGD(lr=lr).setup(model)
    iterator = iterators.SerialIterator(_dataset(size), batch_size, shuffle=False)
    updater = training.updaters.StandardUpdater(iterator, optimizer)
    return training.Trainer(updater, stop, out=str(tmp_path / 'result'))


def _recorder(trainer, trigger, name, store):
    def record(t):
        store.setdefault(name, []).append(t.updater.iteration)
    trainer.extend(record, name=name, trigger=trigger)


class _FailingUpdater(training.Updater):
    iteration = 0

    def __init__(self, fail_at=2):
        self.fail_at, self.finalized = fail_at, False

    def get_all_optimizers(self):
        return {}

    def update(self):
        self.iteration += 1
        if self.iteration == self.fail_at:
            raise ZeroDivisionError('update failed')

    def finalize(self):
        self.finalized = True


def test_trains_a_classifier_end_to_end(tmp_path):
    trainer = _trainer(tmp_path, size=40, batch_size=8, stop=(10, 'epoch'), lr=0.5)
    losses = []
    trainer.extend(lambda t: losses.append(float(t.observation['main/loss'].array)))
    trainer.run()
    assert trainer.updater.iteration == 50
    assert trainer.updater.epoch == 10
    assert trainer.updater.get_optimizer('main').epoch == 10  # auto_new_epoch
    assert sorted(trainer.observation) == ['main/accuracy', 'main/loss']
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])
    assert float(trainer.observation['main/accuracy'].array) >= 0.875
    assert (tmp_path / 'result').is_dir()


# Iterations each extension fired at, recorded with Chainer 7.8.1 (same data set sizes,
# batch sizes, unshuffled SerialIterator).
@pytest.mark.parametrize('size, batch_size, trigger, stop, expected, iterations', [
    (10, 3, (0.5, 'epoch'), (3, 'epoch'), [2, 4, 5, 7, 9, 10], 10),
    (10, 3, (1, 'epoch'), (3, 'epoch'), [4, 7, 10], 10),
    (10, 4, (0.3, 'epoch'), (2, 'epoch'), [1, 2, 3, 4, 5], 5),
    (7, 2, (3, 'iteration'), (10, 'iteration'), [3, 6, 9], 10),
    (10, 3, (1.5, 'epoch'), (4, 'epoch'), [5, 10], 14),
    (10, 3, triggers.ManualScheduleTrigger([0.5, 1.2, 2], 'epoch'), (3, 'epoch'), [2, 4, 7], 10),
])
def test_trigger_iterations_match_chainer(tmp_path, size, batch_size, trigger, stop, expected,
                                          iterations):
    trainer = _trainer(tmp_path, size, batch_size, stop)
    store = {}
    _recorder(trainer, trigger, 'x', store)
    trainer.run()
    assert store['x'] == expected
    assert trainer.updater.iteration == iterations


def test_value_triggers_in_a_trainer_match_chainer(tmp_path):
    values = [5., 4., 6., 3., 3.5, 3.6, 2., 7., 1., 8.]
    fired = {}
    for cls in (triggers.MinValueTrigger, triggers.MaxValueTrigger):
        trainer = _trainer(tmp_path, 10, 1, (10, 'iteration'))

        @training.make_extension(priority=training.PRIORITY_WRITER)
        def inject(t):
            chainlite.reporter.report({'v': values[t.updater.iteration - 1]})
        trainer.extend(inject)
        store = {}
        _recorder(trainer, cls('v', trigger=(2, 'iteration')), 'x', store)
        trainer.run()
        fired[cls.__name__] = store['x']
    assert fired == {'MinValueTrigger': [2, 6], 'MaxValueTrigger': [2]}


@pytest.mark.parametrize('check, patience, expected', [
    ((1, 'iteration'), 3, (5, 4.0, 3)), ((2, 'iteration'), 2, (16, 2.85, 2))])
def test_early_stopping_as_stop_trigger_matches_chainer(tmp_path, check, patience, expected):
    losses = [5., 4., 4.5, 4.2, 4.1, 3., 3.2, 3.3, 3.1, 3.05, 2.9, 2.8] + [9.] * 20
    trainer = _trainer(tmp_path, 10, 1, None)
    trainer.stop_trigger = triggers.EarlyStoppingTrigger(
        check_trigger=check, monitor='v', patience=patience, max_trigger=(30, 'iteration'))
    trainer.extend(lambda t: chainlite.reporter.report({'v': losses[t.updater.iteration - 1]}),
                   priority=training.PRIORITY_WRITER)
    trainer.run()
    stop = trainer.stop_trigger
    assert (trainer.updater.iteration, stop.count) == (expected[0], expected[2])
    assert stop.best == pytest.approx(expected[1])


def test_resume_continues_as_an_uninterrupted_run(tmp_path):
    def build(stop):
        trainer = _trainer(tmp_path, 10, 3, stop)
        store = {}
        _recorder(trainer, triggers.IntervalTrigger(0.5, 'epoch'), 'x', store)
        _recorder(trainer, triggers.ManualScheduleTrigger([0.5, 1.2, 2.5], 'epoch'), 'm', store)
        return trainer, store

    trainer, first = build((7, 'iteration'))
    trainer.run()
    path = tmp_path / 'snapshot.npz'
    serializers.save_npz(str(path), trainer)
    with np.load(str(path)) as npz:
        keys = sorted(npz.files)
    # The keys of the same trainer saved by Chainer 7.8.1, plus NumPy's random state, which
    # chainlite adds so that a resumed run shuffles as an uninterrupted one would.
    assert keys == [
        '_numpy_random_extra', '_numpy_random_keys', '_snapshot_elapsed_time',
        'extension_triggers/m/finished',
        'extension_triggers/m/previous_epoch_detail', 'extension_triggers/m/previous_iteration',
        'extension_triggers/x/previous_epoch_detail', 'extension_triggers/x/previous_iteration',
        'stop_trigger/previous_epoch_detail', 'stop_trigger/previous_iteration',
        'updater/iteration', 'updater/iterator:main/current_position',
        'updater/iterator:main/epoch', 'updater/iterator:main/is_new_epoch',
        'updater/iterator:main/previous_epoch_detail', 'updater/model:main/predictor/W',
        'updater/model:main/predictor/b', 'updater/optimizer:main/epoch',
        'updater/optimizer:main/predictor/W/t', 'updater/optimizer:main/predictor/b/t',
        'updater/optimizer:main/t']

    resumed, then = build((3, 'epoch'))
    serializers.load_npz(str(path), resumed)
    assert resumed._snapshot_elapsed_time > 0
    resumed.run()
    assert (first, then) == ({'x': [2, 4, 5, 7], 'm': [2, 4]}, {'x': [9, 10], 'm': [9]})

    straight, _ = build((3, 'epoch'))
    straight.run()
    for name in ('W', 'b'):
        np.testing.assert_array_equal(
            getattr(resumed.updater.get_optimizer('main').target.predictor, name).array,
            getattr(straight.updater.get_optimizer('main').target.predictor, name).array)
    assert resumed.elapsed_time > resumed._snapshot_elapsed_time


def test_reporter_observes_the_model_and_its_links(tmp_path):
    trainer = _trainer(tmp_path)
    model = trainer.updater.get_optimizer('main').target
    observation = {}
    with trainer.reporter.scope(observation):
        chainlite.reporter.report({'a': 1}, model)
        chainlite.reporter.report({'b': 2}, model.predictor)
    assert observation == {'main/a': 1, 'main/predictor/b': 2}


def test_extend_names(tmp_path):
    trainer = _trainer(tmp_path)

    class Named(training.Extension):
        def __call__(self, trainer):
            pass

    def func(trainer):
        pass

    first, second, third = Named(), Named(), Named()
    trainer.extend(first)
    trainer.extend(second)
    trainer.extend(third, name='Named')
    trainer.extend(func)
    trainer.extend(training.make_extension(default_name='made')(lambda t: None))
    trainer.extend(lambda t: None, name='given')
    assert (first.name, second.name, third.name) == ('Named', 'Named_1', 'Named_2')
    assert trainer.get_extension('Named_1') is second
    assert trainer.get_extension('func') is func and func.name == 'func'
    assert trainer.get_extension('made').default_name == 'made'
    assert trainer.get_extension('given').__name__ == '<lambda>'
    with pytest.raises(ValueError, match='extension nothing not found'):
        trainer.get_extension('nothing')


def test_extend_errors(tmp_path):
    trainer = _trainer(tmp_path)

    class Nameless:
        def __call__(self, trainer):
            pass

    with pytest.raises(TypeError, match='name'):
        trainer.extend(Nameless())
    with pytest.raises(ValueError, match='"training"'):
        trainer.extend(lambda t: None, name='training')
    with pytest.raises(ValueError, match='invoke_before_training'):
        trainer.extend(lambda t: None, invoke_before_training=True)
    with pytest.raises(TypeError, match="unexpected keyword argument.*'foo'"):
        trainer.extend(lambda t: None, foo=1)


def test_an_optimizer_without_target_is_named():
    # optimizer.setup() was forgotten: the updater's optimizer has no link to observe.
    iterator = iterators.SerialIterator(_dataset(4), 2)
    updater = training.updaters.StandardUpdater(iterator, optimizers.SGD())
    with pytest.raises(ValueError, match=r"Trainer: the optimizer 'main'.*optimizer\.setup"):
        training.Trainer(updater, (1, 'epoch'))


def test_extensions_run_by_priority_then_registration(tmp_path):
    trainer = _trainer(tmp_path, stop=(1, 'iteration'))
    order = []
    for name, priority in [('r1', training.PRIORITY_READER), ('w', training.PRIORITY_WRITER),
                           ('r2', None), ('e', training.PRIORITY_EDITOR)]:
        trainer.extend(lambda t, name=name: order.append(name), name=name, priority=priority)
    trainer.run()
    assert order == ['w', 'e', 'r1', 'r2']


def test_extensions_given_to_the_constructor(tmp_path):
    calls = []
    trainer = training.Trainer(_trainer(tmp_path).updater, (2, 'iteration'),
                               out=str(tmp_path), extensions=[lambda t: calls.append(1)])
    trainer.run()
    assert calls == [1, 1]


def test_initialize_call_before_training_and_finalize(tmp_path):
    events = []

    class Ext(training.Extension):
        trigger = 2, 'iteration'

        def initialize(self, trainer):
            events.append(('initialize', trainer.updater.iteration))

        def __call__(self, trainer):
            chainlite.reporter.report({'seen': trainer.updater.iteration})
            events.append(('call', trainer.updater.iteration, dict(trainer.observation)))

        def finalize(self):
            events.append(('finalize',))

    trainer = _trainer(tmp_path, stop=(4, 'iteration'))
    assert trainer.is_before_training
    trainer.extend(Ext(), call_before_training=True)
    trainer.run()
    assert [e[:2] for e in events] == [
        ('initialize', 0), ('call', 0), ('call', 2), ('call', 4), ('finalize',)]
    assert events[1][2] == {'seen': 0}   # reported inside the trainer's reporter
    assert 'main/loss' in events[2][2]
    assert not trainer.is_before_training
    with pytest.raises(RuntimeError, match='cannot run twice'):
        trainer.run()


def test_resumed_trainer_skips_call_before_training_and_finished_initializers(tmp_path):
    trainer = _trainer(tmp_path, stop=(3, 'iteration'))
    trainer.extend(lambda t: None, name='ext',
                   trigger=triggers.ManualScheduleTrigger(1, 'iteration'))
    trainer.run()
    snapshot = serializers.npz.serialize(trainer)

    calls = []

    @training.make_extension(initializer=lambda t: calls.append('initialize'))
    def ext(t):
        calls.append(t.updater.iteration)
    resumed = _trainer(tmp_path, stop=(5, 'iteration'))
    resumed.extend(ext, trigger=triggers.ManualScheduleTrigger(1, 'iteration'),
                   call_before_training=True)
    serializers.NpzDeserializer(snapshot).load(resumed)
    resumed.run()
    assert calls == []


def test_error_calls_on_error_then_finalize_and_reraises(tmp_path, capsys):
    events = []

    class Ext(training.Extension):
        def __call__(self, trainer):
            events.append('call')

        def on_error(self, trainer, exc, tb):
            events.append(('on_error', type(exc).__name__, tb is not None))

        def finalize(self):
            events.append('finalize')

    def bad_handler(trainer, exc, tb):
        raise ValueError('handler failed')

    updater = _FailingUpdater(fail_at=2)
    trainer = training.Trainer(updater, (5, 'iteration'), out=str(tmp_path))
    trainer.extend(training.make_extension(on_error=bad_handler)(lambda t: None), name='bad')
    trainer.extend(Ext())
    with pytest.raises(ZeroDivisionError, match='update failed'):
        trainer.run()
    assert events == ['call', ('on_error', 'ZeroDivisionError', True), 'finalize']
    assert updater.finalized
    err = capsys.readouterr().err
    assert 'Exception in main training loop: update failed' in err
    assert 'Exception in error handler: handler failed' in err


def test_error_message_can_be_silenced(tmp_path, capsys):
    trainer = training.Trainer(_FailingUpdater(fail_at=1), (5, 'iteration'), out=str(tmp_path))
    with pytest.raises(ZeroDivisionError):
        trainer.run(show_loop_exception_msg=False)
    assert capsys.readouterr().err == ''
    assert trainer.updater.finalized


def test_elapsed_time(tmp_path):
    trainer = _trainer(tmp_path, stop=(2, 'iteration'))
    with pytest.raises(RuntimeError, match='not been started'):
        trainer.elapsed_time
    # Saving before the run stores the time carried over (none) instead of failing.
    assert float(serializers.npz.serialize(trainer)['_snapshot_elapsed_time']) == 0.0
    times = []
    trainer.extend(lambda t: times.append(t.elapsed_time))
    trainer.run()
    assert 0 < times[0] < times[1] <= trainer.elapsed_time
    assert trainer.elapsed_time == trainer.elapsed_time  # frozen once done


def test_time_trigger_in_a_trainer(tmp_path):
    trainer = _trainer(tmp_path, stop=(3, 'iteration'))
    calls = []
    trainer.extend(lambda t: calls.append(1), trigger=triggers.TimeTrigger(0.0))
    trainer.extend(lambda t: calls.append(2), trigger=triggers.TimeTrigger(3600.0))
    trainer.run()
    assert calls == [1, 1, 1]


def test_loss_func_is_used(tmp_path):
    trainer = _trainer(tmp_path, stop=(1, 'iteration'))
    model = trainer.updater.get_optimizer('main').target
    seen = []

    def loss_func(x, t):
        seen.append((x.shape, t.shape))
        return F.sum(model.predictor(x))
    trainer.updater.loss_func = loss_func
    trainer.run()
    assert seen == [((3, 2), (3,))]
