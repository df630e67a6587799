import io
import re
import types

import numpy as np
import pytest

import chainlite.links as L
from chainlite import optimizers
from chainlite import training
from chainlite.iterators.serial_iterator import SerialIterator
from chainlite.training import extensions
from chainlite.training.extensions import _progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def _fake_trainer(stop_trigger=None):
    updater = types.SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0)
    return types.SimpleNamespace(updater=updater, stop_trigger=stop_trigger)


def _step(bar, trainer, iteration, iterations_per_epoch=10):
    trainer.updater.iteration = iteration
    trainer.updater.epoch = iteration // iterations_per_epoch
    trainer.updater.epoch_detail = iteration / iterations_per_epoch
    bar(trainer)


def test_in_a_log_file_one_plain_line_per_update(monkeypatch):
    clock = iter(range(100, 200))
    monkeypatch.setattr(_progress.time, 'time', lambda: float(next(clock)))
    out = io.StringIO()
    bar = extensions.ProgressBar((4, 'epoch'), update_interval=5, out=out)
    trainer = _fake_trainer()
    bar.initialize(trainer)
    for i in range(1, 16):
        _step(bar, trainer, i)
    bar.finalize()
    lines = out.getvalue().splitlines()
    assert '\x1b' not in out.getvalue() and '\r' not in out.getvalue()
    assert len(lines) == 3
    # One iteration per (fake) second: 1 iters/sec; 0.1 epoch/s, 2.5 epochs left at 15.
    assert lines[2] == ('        15 iter, 1 epoch / 4 epochs | total  37.50% | this epoch '
                        ' 50.00% | 1 iters/sec | ETA 0:00:25')


def test_on_a_terminal_redraws_four_lines_in_place(monkeypatch):
    clock = iter(range(100, 200))
    monkeypatch.setattr(_progress.time, 'time', lambda: float(next(clock)))
    out = _Terminal()
    bar = extensions.ProgressBar((20, 'iteration'), update_interval=5, bar_length=10, out=out)
    trainer = _fake_trainer()
    bar.initialize(trainer)
    for i in range(1, 6):
        _step(bar, trainer, i)
    assert out.getvalue() == (
        '\x1b[J'
        '     total [##........]  25.00%\n'
        'this epoch [#####.....]  50.00%\n'
        '         5 iter, 0 epoch / 20 iterations\n'
        '         1 iters/sec. Estimated time to finish: 0:00:15.\n'
        '\x1b[4A')
    bar.finalize()
    assert out.getvalue().endswith('\x1b[4A\x1b[J')


def test_training_length_comes_from_the_stop_trigger(tmp_path, capsys):
    data = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(4)]
    model = L.Classifier(L.Linear(2, 2))
    updater = training.updaters.StandardUpdater(SerialIterator(data, 2, shuffle=False),
                                                optimizers.SGD().setup(model))
    trainer = training.Trainer(updater, (3, 'epoch'), out=str(tmp_path))
    trainer.extend(extensions.ProgressBar(update_interval=2))
    trainer.run()
    lines = capsys.readouterr().out.splitlines()
    assert [line.split('|')[0].strip() for line in lines] == [
        '2 iter, 1 epoch / 3 epochs', '4 iter, 2 epoch / 3 epochs', '6 iter, 3 epoch / 3 epochs']
    assert re.search(r'total 100.00% \| this epoch   0.00% \| \S+ iters/sec \| ETA 0:00:00$',
                     lines[-1])


def test_unknown_speed_and_missing_training_length():
    out = io.StringIO()
    bar = extensions.ProgressBar(update_interval=1, out=out)
    trainer = _fake_trainer(stop_trigger=lambda t: False)
    with pytest.raises(ValueError, match='ProgressBar: .*training_length'):
        _step(bar, trainer, 1)
    bar = extensions.ProgressBar((10, 'iteration'), update_interval=1, out=out)
    _step(bar, trainer, 1)  # no initialize: a single sample gives no speed yet
    assert out.getvalue().endswith('| unknown iters/sec | ETA unknown\n')


@pytest.mark.parametrize('kwargs', [{'training_length': (10, 'epochs')},
                                    {'training_length': (0, 'epoch')},
                                    {'training_length': 10},
                                    {'update_interval': 0}])
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError, match='ProgressBar'):
        extensions.ProgressBar(**kwargs)


def test_default_out_is_the_current_stdout(capsys):
    bar = extensions.ProgressBar((2, 'iteration'), update_interval=1)
    _step(bar, _fake_trainer(), 1)
    assert 'iter, 0 epoch / 2 iterations' in capsys.readouterr().out


def test_speed_after_resuming_from_a_snapshot(monkeypatch):
    clock = iter(range(100, 200))
    monkeypatch.setattr(_progress.time, 'time', lambda: float(next(clock)))
    out = io.StringIO()
    bar = extensions.ProgressBar((2000, 'iteration'), update_interval=1, out=out)
    trainer = _fake_trainer()
    bar.initialize(trainer)  # at iteration 0; a snapshot then moves the trainer to 1000
    _step(bar, trainer, 1001)
    _step(bar, trainer, 1002)
    assert out.getvalue().splitlines()[-1].endswith('| 1 iters/sec | ETA 0:16:38')
