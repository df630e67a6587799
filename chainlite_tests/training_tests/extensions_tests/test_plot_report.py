import json
import os
import types
import warnings

import pytest

from chainlite import serializers
from chainlite.training import extensions
from chainlite.training.extensions import plot_report


def _fake_trainer(tmp_path):
    updater = types.SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0)
    return types.SimpleNamespace(updater=updater, out=str(tmp_path), observation={})


def _run(ext, trainer, losses):
    for loss in losses:
        trainer.updater.iteration += 1
        trainer.updater.epoch = trainer.updater.iteration // 2
        trainer.observation = {'main/loss': loss, 'other': 1.0}
        ext(trainer)


@pytest.fixture
def no_matplotlib(monkeypatch):
    monkeypatch.setattr(plot_report, '_matplotlib_available', lambda: False)
    monkeypatch.setattr(plot_report, '_noted', set())


def test_without_matplotlib_says_so_once_and_does_nothing(tmp_path, no_matplotlib, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter('error')          # a note, not a warning: -W error still runs
        ext = extensions.PlotReport('main/loss', trigger=(1, 'iteration'))
        note = capsys.readouterr().err
        again = extensions.PlotReport(['main/loss'])  # no second note
        assert not again.available()
    assert 'install matplotlib (pip install matplotlib, or the extra: ' in note
    assert 'pip install "chainlite-dl[plot]"' in note
    assert note.count('\n') == 1 and capsys.readouterr().err == ''
    trainer = _fake_trainer(tmp_path)
    _run(ext, trainer, [1.0, 2.0])
    assert os.listdir(tmp_path) == []
    assert ext._data == {'main/loss': []}
    # Its (empty) state still serializes, so snapshots load either way.
    state = serializers.DictionarySerializer()
    state.save(ext)
    assert json.loads(str(state.target['_plot_plot.png'])) == {'main/loss': []}


def test_arguments(no_matplotlib):
    ext = extensions.PlotReport(['a', 'b'], 'epoch', filename=None, file_name='old.png')
    assert ext._file_name == 'old.png' and ext._y_keys == ('a', 'b')
    with pytest.raises(ValueError, match='PlotReport: x_key'):
        extensions.PlotReport(['a'], x_key='time')


def test_draws_a_png_with_matplotlib(tmp_path):
    pytest.importorskip('matplotlib')
    calls = []

    def postprocess(figure, axes, summary):
        calls.append((type(figure).__name__, axes.get_xlabel()))

    ext = extensions.PlotReport(['main/loss', 'missing'], 'epoch', trigger=(2, 'iteration'),
                                postprocess=postprocess, filename='loss.png')
    ext.time_share = 1.0  # redraw at every firing of the trigger
    trainer = _fake_trainer(tmp_path)
    _run(ext, trainer, [4.0, 2.0, 1.0, 0.5])
    assert ext._data == {'main/loss': [(1, 3.0), (2, 0.75)], 'missing': []}
    assert calls == [('Figure', 'epoch')] * 2
    assert os.listdir(tmp_path) == ['loss.png']
    with open(tmp_path / 'loss.png', 'rb') as f:
        assert f.read(8) == b'\x89PNG\r\n\x1a\n'

    state = serializers.DictionarySerializer()
    state.save(ext)
    resumed = extensions.PlotReport(['main/loss', 'missing'], 'epoch', filename='loss.png')
    serializers.NpzDeserializer(state.target).load(resumed)
    assert resumed._data == ext._data


def test_nothing_to_plot_writes_no_file(tmp_path):
    pytest.importorskip('matplotlib')
    ext = extensions.PlotReport(['absent'], trigger=(1, 'iteration'))
    _run(ext, _fake_trainer(tmp_path), [1.0])
    assert os.listdir(tmp_path) == []


def test_redraws_are_throttled_and_finalize_draws_what_is_pending(tmp_path, monkeypatch):
    pytest.importorskip('matplotlib')
    clock = [100.0]
    monkeypatch.setattr(plot_report.time, 'perf_counter', lambda: clock[0])
    drawn = []
    ext = extensions.PlotReport(['main/loss'], 'iteration', trigger=(1, 'iteration'))

    def draw(out):
        drawn.append(list(ext._data['main/loss']))
        clock[0] += 0.5                     # each redraw takes half a second
    monkeypatch.setattr(ext, '_draw', draw)
    trainer = _fake_trainer(tmp_path)
    _run(ext, trainer, [4.0])               # the first point is drawn at once
    assert drawn == [[(1, 4.0)]]
    clock[0] += 9.0                         # 9.5 s after a 0.5 s redraw: less than 19 x 0.5
    _run(ext, trainer, [3.0])
    assert len(drawn) == 1 and len(ext._data['main/loss']) == 2   # kept, not drawn
    clock[0] += 0.5                         # 10 s after it: the share is back under 5%
    _run(ext, trainer, [2.0])
    assert drawn[-1] == [(1, 4.0), (2, 3.0), (3, 2.0)]
    _run(ext, trainer, [1.0])
    assert len(drawn) == 2
    ext.finalize()                          # the end of training draws what is pending
    assert drawn[-1] == [(1, 4.0), (2, 3.0), (3, 2.0), (4, 1.0)]
    ext.finalize()                          # nothing pending: no redraw
    assert len(drawn) == 3


def test_finalize_writes_the_last_points_to_the_file(tmp_path):
    pytest.importorskip('matplotlib')
    ext = extensions.PlotReport(['main/loss'], 'iteration', trigger=(1, 'iteration'),
                                filename='loss.png')
    ext.time_share = 1e-6                   # only the first point is drawn during training
    trainer = _fake_trainer(tmp_path)
    _run(ext, trainer, [4.0, 3.0, 2.0])
    first = (tmp_path / 'loss.png').read_bytes()
    ext.finalize()
    assert (tmp_path / 'loss.png').read_bytes() != first
