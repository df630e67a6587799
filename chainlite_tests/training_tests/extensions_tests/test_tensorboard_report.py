import glob
import os
import types

import numpy as np
import pytest

import chainlite.links as L
from chainlite import optimizers
from chainlite import serializers
from chainlite import training
from chainlite.iterators.serial_iterator import SerialIterator
from chainlite.training import extensions
from chainlite.training.extensions import tensorboard_report


def _fake_trainer(tmp_path):
    updater = types.SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0)
    return types.SimpleNamespace(updater=updater, out=str(tmp_path), observation={})


def _run(report, trainer, observations):
    for i, observation in enumerate(observations, trainer.updater.iteration + 1):
        trainer.updater.iteration = i
        trainer.observation = observation
        report(trainer)


def _event_files(path):
    return sorted(glob.glob(os.path.join(str(path), 'events.out.tfevents.*')))


@pytest.fixture
def no_tensorboardx(monkeypatch):
    monkeypatch.setattr(tensorboard_report, '_summary_writer_class', lambda: None)
    monkeypatch.setattr(tensorboard_report, '_noted', set())


def test_without_tensorboardx_says_so_once_and_does_nothing(tmp_path, no_tensorboardx, capsys):
    trainer = _fake_trainer(tmp_path)
    report = extensions.TensorBoardReport(trigger=(1, 'iteration'))
    _run(report, trainer, [{'loss': 1.0}, {'loss': 2.0}])
    report.finalize()
    note = capsys.readouterr().err
    assert note.count('TensorBoardReport: tensorboardX is not installed') == 1
    assert 'pip install tensorboardX' in note
    assert 'pip install "chainlite-dl[tensorboard]"' in note
    assert os.listdir(tmp_path) == []


def test_writes_interval_means_with_iteration_steps(tmp_path):
    pytest.importorskip('tensorboardX')
    trainer = _fake_trainer(tmp_path)
    report = extensions.TensorBoardReport(trigger=(2, 'iteration'))
    _run(report, trainer, [{'loss': 1.0, 'acc': np.float32(0.5), 'note': 'text'},
                           {'loss': 3.0}, {'loss': 5.0}, {'loss': 7.0, 'acc': 0.25}])
    report.finalize()
    assert len(_event_files(tmp_path)) == 1
    scalars = tensorboard_report.read_scalars(str(tmp_path))
    assert scalars == {'loss': [(2, 2.0), (4, 6.0)], 'acc': [(2, 0.5), (4, 0.25)]}


def test_keys_and_relative_logdir(tmp_path):
    pytest.importorskip('tensorboardX')
    trainer = _fake_trainer(tmp_path)
    report = extensions.TensorBoardReport(keys=['loss'], trigger=(1, 'iteration'),
                                          logdir='tb')
    _run(report, trainer, [{'loss': 1.5, 'other': 1.0}])
    report.finalize()
    assert os.listdir(tmp_path) == ['tb']
    assert tensorboard_report.read_scalars(str(tmp_path / 'tb')) == {'loss': [(1, 1.5)]}


def _train(out, stop, extension, resume_from=None):
    data = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(4)]
    model = L.Classifier(L.Linear(2, 2))
    updater = training.updaters.StandardUpdater(SerialIterator(data, 2, shuffle=False),
                                                optimizers.SGD().setup(model))
    trainer = training.Trainer(updater, stop, out=str(out))
    trainer.extend(extension, name='TensorBoardReport')
    if resume_from is not None:
        serializers.load_npz(resume_from, trainer)
    trainer.run()
    return trainer


def test_in_a_trainer_with_parameter_histograms(tmp_path):
    pytest.importorskip('tensorboardX')
    from tensorboardX.proto import event_pb2

    report = extensions.TensorBoardReport(histograms=True)
    _train(tmp_path, (3, 'epoch'), report)
    scalars = tensorboard_report.read_scalars(str(tmp_path))
    assert [step for step, _ in scalars['main/loss']] == [2, 4, 6]
    assert 'main/accuracy' in scalars
    histograms = {}
    for path in _event_files(tmp_path):
        for data in tensorboard_report._records(path):
            event = event_pb2.Event.FromString(data)
            for value in event.summary.value:
                if value.HasField('histo'):
                    histograms.setdefault(value.tag, []).append((event.step, value.histo))
    assert set(histograms) == {'params/main/predictor/W', 'params/main/predictor/b'}
    steps = [s for s, _ in histograms['params/main/predictor/W']]
    assert steps == [2, 4, 6]
    assert histograms['params/main/predictor/W'][0][1].num == 4  # a 2 x 2 weight


def test_resume_from_a_snapshot_continues_in_the_same_directory(tmp_path):
    pytest.importorskip('tensorboardX')
    snapshot = str(tmp_path / 'snapshot_at_4')
    first = _train(tmp_path, (4, 'iteration'), extensions.TensorBoardReport(
        keys=['main/loss'], trigger=(1, 'iteration')))
    serializers.save_npz(snapshot, first)
    # The first run went on past the snapshot and died: its steps 5 and 6 are dropped.
    trainer = _fake_trainer(tmp_path)
    trainer.updater.iteration = 4
    abandoned = extensions.TensorBoardReport(trigger=(1, 'iteration'))
    _run(abandoned, trainer, [{'main/loss': 100.0}, {'main/loss': 100.0}])
    abandoned.finalize()

    resumed = extensions.TensorBoardReport(keys=['main/loss'], trigger=(1, 'iteration'))
    _train(tmp_path, (6, 'iteration'), resumed, resume_from=snapshot)
    assert len(_event_files(tmp_path)) == 3  # one per run, all in trainer.out
    losses = tensorboard_report.read_scalars(str(tmp_path))['main/loss']
    assert [s for s, _ in losses] == [1, 2, 3, 4, 5, 6]
    assert all(v < 100.0 for _, v in losses)


def test_serializes_the_trigger_and_summary_only(tmp_path, no_tensorboardx):
    trainer = _fake_trainer(tmp_path)
    report = extensions.TensorBoardReport(trigger=(2, 'iteration'), logdir='/secret/place')
    _run(report, trainer, [{'loss': 1.0}, {'loss': 3.0}, {'loss': 10.0}])
    state = serializers.DictionarySerializer()
    state.save(report)
    assert all(k.startswith(('_trigger/', '_summary/')) for k in state.target)
    assert not any('secret' in str(v) for v in state.target.values())
