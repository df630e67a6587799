import copy
import io

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import optimizers
from chainlite import training
from chainlite.iterators.serial_iterator import SerialIterator
from chainlite.training import extensions


def _data(n=6):
    rng = np.random.RandomState(0)
    return [(rng.randn(3).astype(np.float32), np.int32(i % 2)) for i in range(n)]


def _model():
    return L.Classifier(L.Linear(3, 2, initialW=np.arange(6, dtype=np.float32).reshape(2, 3)))


def _expected_means(model, data, batch_size):
    losses, accuracies = [], []
    for i in range(0, len(data), batch_size):
        x = np.stack([d[0] for d in data[i:i + batch_size]])
        t = np.array([d[1] for d in data[i:i + batch_size]])
        y = model.predictor(x)
        losses.append(float(F.softmax_cross_entropy(y, t).array))
        accuracies.append(float(F.accuracy(y, t).array))
    return np.mean(losses), np.mean(accuracies)


class _Recorder(chainlite.Chain):
    """A target recording how it is called and reporting the sum of its input."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def forward(self, x, t=None):
        self.calls.append((chainlite.config.train, chainlite.config.enable_backprop, len(x)))
        chainlite.report({'sum': float(np.sum(x))}, self)


def test_reports_mean_loss_and_accuracy_under_validation_in_a_trainer(tmp_path):
    data = _data()
    model = _model()
    optimizer = optimizers.SGD(lr=0.0).setup(model)
    updater = training.updaters.StandardUpdater(SerialIterator(data, 3, shuffle=False),
                                                optimizer)
    trainer = training.Trainer(updater, (1, 'epoch'), out=str(tmp_path))
    trainer.extend(extensions.Evaluator(SerialIterator(data, 4, repeat=False, shuffle=False),
                                        model))
    seen = {}
    trainer.extend(lambda t: seen.update(t.observation), trigger=(1, 'epoch'), priority=0)
    trainer.run()
    loss, accuracy = _expected_means(model, data, 4)
    assert trainer.get_extension('validation').name == 'validation'
    np.testing.assert_allclose(float(seen['validation/main/loss']), loss, rtol=1e-6)
    np.testing.assert_allclose(float(seen['validation/main/accuracy']), accuracy)
    assert 'main/loss' in seen  # the training loss is still there


def test_runs_in_test_mode_without_backprop_and_restores_config():
    target = _Recorder()
    it = SerialIterator([np.ones(2, np.float32)] * 5, 2, repeat=False)
    evaluator = extensions.Evaluator(it, target)
    with chainlite.using_config('train', True):
        result = evaluator()
        assert chainlite.config.train is True
    assert [c[:2] for c in target.calls] == [(False, False)] * 3
    assert [c[2] for c in target.calls] == [2, 2, 1]
    # The mean over batches of 2, 2 and 1 examples of two ones each.
    assert result == {'main/sum': pytest.approx((4 + 4 + 2) / 3)}


def test_each_call_resets_the_iterator():
    target = _Recorder()
    evaluator = extensions.Evaluator(SerialIterator([np.ones(1, np.float32)] * 3, 2,
                                                    repeat=False), target)
    first, second = evaluator(), evaluator()
    assert first == second
    assert len(target.calls) == 4


def test_a_repeating_iterator_warns_and_stops_after_one_epoch():
    target = _Recorder()
    it = SerialIterator([np.ones(1, np.float32)] * 5, 2, repeat=True, shuffle=False)
    with pytest.warns(UserWarning, match=r"iterator 'main' repeats.*repeat=False"):
        evaluator = extensions.Evaluator(it, target)
    evaluator()
    assert len(target.calls) == 3  # 2 + 2 + 2 (filled from the next epoch), then stops
    evaluator()
    assert len(target.calls) == 6


def test_an_iterator_without_reset_is_copied_with_a_deprecation_warning():
    class OneSweep:
        def __init__(self, batches):
            self.batches, self.position = batches, 0

        def __iter__(self):
            return self

        def __next__(self):
            if self.position == len(self.batches):
                raise StopIteration
            self.position += 1
            return self.batches[self.position - 1]

    it = OneSweep([[np.ones(1, np.float32)], [np.full(1, 3, np.float32)]])
    evaluator = extensions.Evaluator(it, _Recorder())
    for _ in range(2):
        with pytest.warns(DeprecationWarning, match='reset'):
            assert evaluator() == {'main/sum': 2.0}
    assert it.position == 0  # the original was never advanced


def test_result_is_reported_with_the_extension_name_as_prefix():
    target = _Recorder()
    evaluator = extensions.Evaluator(SerialIterator([np.ones(1, np.float32)], 1, repeat=False),
                                     {'main': target})
    evaluator.name = 'val'
    observation = {}
    with chainlite.Reporter().scope(observation):
        result = evaluator()
    assert observation == result == {'val/main/sum': 1.0}


def test_sublinks_report_under_their_path():
    class Inner(chainlite.Link):
        def forward(self, x):
            chainlite.report({'inner': 2.0}, self)
            return x

    class Outer(chainlite.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.inner = Inner()

        def forward(self, x):
            return self.inner(x)

    evaluator = extensions.Evaluator(SerialIterator([np.ones(1, np.float32)], 1, repeat=False),
                                     Outer())
    assert evaluator() == {'main/inner/inner': 2.0}


def test_eval_hook_eval_func_converter_and_device():
    hooks, inputs = [], []
    target = _Recorder()

    def converter(batch, device):
        assert device is None or isinstance(device, chainlite.backend.Device)
        return {'x': np.stack(batch), 'scale': 10}

    def eval_func(x, scale):
        inputs.append((x.shape, scale))
        chainlite.report({'value': float(x.sum()) * scale}, target)

    evaluator = extensions.Evaluator(
        SerialIterator([np.ones(2, np.float32)] * 3, 3, repeat=False), target,
        converter=chainlite.dataset.converter()(converter), device='@numpy',
        eval_hook=hooks.append, eval_func=eval_func)
    assert evaluator.device == chainlite.get_device('@numpy')
    assert evaluator() == {'main/value': 60.0}
    assert hooks == [evaluator]
    assert inputs == [((3, 2), 10)]
    assert target.calls == []  # eval_func replaced the target


def test_plain_function_converter_gets_cpu_device_as_minus_one():
    devices = []

    def converter(batch, device):
        devices.append(device)
        return np.stack(batch)

    extensions.Evaluator(SerialIterator([np.ones(1, np.float32)], 1, repeat=False), _Recorder(),
                         converter=converter, device='@numpy')()
    assert devices == [-1]


def test_accessors_and_argument_errors():
    it, target = SerialIterator([1], 1, repeat=False), _Recorder()
    evaluator = extensions.Evaluator({'main': it}, {'main': target})
    assert evaluator.get_iterator('main') is it and evaluator.get_target('main') is target
    assert evaluator.get_all_iterators() == {'main': it}
    assert evaluator.get_all_targets() == {'main': target}
    assert evaluator.default_name == 'validation'
    assert evaluator.trigger == (1, 'epoch')
    assert evaluator.priority == training.PRIORITY_WRITER
    with pytest.raises(TypeError, match='Evaluator: target'):
        extensions.Evaluator(it, object())
    with pytest.raises(ValueError, match="'main'"):
        extensions.Evaluator({'val': it}, target)


def test_finalize_finalizes_the_iterators():
    finalized = []

    class It(SerialIterator):
        def finalize(self):
            finalized.append(self)

    it = It([1], 1, repeat=False)
    extensions.Evaluator({'main': it, 'other': copy.copy(it)}, _Recorder()).finalize()
    assert len(finalized) == 2


def test_progress_bar_in_a_log_writes_plain_lines(capsys):
    evaluator = extensions.Evaluator(
        SerialIterator([np.ones(1, np.float32)] * 20, 1, repeat=False), _Recorder(),
        progress_bar=True)
    evaluator()
    out = capsys.readouterr().out
    assert '\x1b' not in out and '\r' not in out
    lines = out.splitlines()
    assert len(lines) == 10  # one per tenth of the sweep
    assert lines[0].startswith('validation  10.00% | 2 / 20 iterations')
    assert lines[-1].startswith('validation 100.00% | 20 / 20 iterations')


def test_progress_bar_on_a_terminal_redraws_in_place(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr('sys.stdout', terminal)
    extensions.Evaluator(SerialIterator([np.ones(1, np.float32)] * 4, 2, repeat=False),
                         _Recorder(), progress_bar=True)()
    out = terminal.getvalue()
    assert out.count('\x1b[3A') == 2  # two updates of three lines
    assert 'validation [#########################.........................]  50.00%' in out
    assert '         2 / 2 iterations' in out
    assert out.endswith('\x1b[J')  # erased at the end
