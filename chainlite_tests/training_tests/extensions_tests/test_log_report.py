import json
import os
import types

import numpy as np
import pytest

import chainlite
import chainlite.links as L
from chainlite import optimizers
from chainlite import serializers
from chainlite import training
from chainlite.iterators.serial_iterator import SerialIterator
from chainlite.training import extensions


def _fake_trainer(tmp_path):
    updater = types.SimpleNamespace(iteration=0, epoch=0, epoch_detail=0.0)
    return types.SimpleNamespace(updater=updater, out=str(tmp_path), elapsed_time=0.0,
                                 observation={})


def _run(log_report, trainer, observations):
    # Continues from the fake updater's current iteration.
    for i, observation in enumerate(observations, trainer.updater.iteration + 1):
        trainer.updater.iteration = i
        trainer.observation = observation
        trainer.elapsed_time = i / 10
        log_report(trainer)


def test_logs_means_per_interval_to_memory_and_to_a_json_file(tmp_path):
    trainer = _fake_trainer(tmp_path)
    log_report = extensions.LogReport(trigger=(2, 'iteration'))
    _run(log_report, trainer, [{'loss': 1.0, 'acc': np.float32(0.5)}, {'loss': 3.0},
                               {'loss': 5.0, 'note': 'not a number'}])
    assert log_report.log == [{'loss': 2.0, 'acc': 0.5, 'epoch': 0, 'iteration': 2,
                               'elapsed_time': 0.2}]
    assert all(type(v) in (float, int) for v in log_report.log[0].values())
    with open(tmp_path / 'log') as f:
        assert json.load(f) == log_report.log
    _run(log_report, trainer, [{'loss': 7.0}] * 3)
    assert [(e['iteration'], e['loss']) for e in log_report.log] == [(2, 2.0), (4, 6.0),
                                                                     (6, 7.0)]
    assert os.listdir(tmp_path) == ['log']  # no temporary file left


def test_keys_postprocess_and_filename_template(tmp_path):
    trainer = _fake_trainer(tmp_path)

    def postprocess(result):
        result['loss_x2'] = result['loss'] * 2

    log_report = extensions.LogReport(keys=['loss'], trigger=(1, 'iteration'),
                                      postprocess=postprocess, filename='log_{iteration}.json')
    _run(log_report, trainer, [{'loss': 1.5, 'other': 1.0}])
    assert log_report.log == [{'loss': 1.5, 'epoch': 0, 'iteration': 1, 'elapsed_time': 0.1,
                               'loss_x2': 3.0}]
    assert os.listdir(tmp_path) == ['log_1.json']


def test_log_name_alias_and_no_file(tmp_path):
    trainer = _fake_trainer(tmp_path)
    _run(extensions.LogReport(trigger=(1, 'iteration'), log_name='old_name'), trainer, [{}])
    assert os.listdir(tmp_path) == ['old_name']
    os.remove(tmp_path / 'old_name')
    log_report = extensions.LogReport(trigger=(1, 'iteration'), log_name=None)
    _run(log_report, trainer, [{'a': 1.0}])
    assert os.listdir(tmp_path) == [] and len(log_report.log) == 1


def test_a_failed_write_keeps_the_previous_log_file(tmp_path, monkeypatch):
    trainer = _fake_trainer(tmp_path)
    log_report = extensions.LogReport(trigger=(1, 'iteration'))
    _run(log_report, trainer, [{'loss': 1.0}])
    before = (tmp_path / 'log').read_text()

    def failing_dump(obj, f, **kwargs):
        f.write('[{"loss": ')
        raise OSError('disk full')

    monkeypatch.setattr(json, 'dump', failing_dump)
    with pytest.raises(OSError, match='disk full'):
        _run(log_report, trainer, [{'loss': 2.0}])
    assert (tmp_path / 'log').read_text() == before
    assert os.listdir(tmp_path) == ['log']


def test_in_a_trainer_logs_each_epoch_and_before_training(tmp_path):
    data = [(np.full(2, i, np.float32), np.int32(i % 2)) for i in range(4)]
    model = L.Classifier(L.Linear(2, 2))
    updater = training.updaters.StandardUpdater(SerialIterator(data, 2, shuffle=False),
                                                optimizers.SGD().setup(model))
    trainer = training.Trainer(updater, (3, 'epoch'), out=str(tmp_path / 'result'))
    trainer.extend(extensions.LogReport(), call_before_training=True)
    trainer.run()
    log = trainer.get_extension('LogReport').log
    assert [(e['epoch'], e['iteration']) for e in log] == [(0, 0), (1, 2), (2, 4), (3, 6)]
    assert 'main/loss' not in log[0] and 'main/loss' in log[1]
    assert log[1]['elapsed_time'] <= log[3]['elapsed_time']
    with open(tmp_path / 'result' / 'log') as f:
        assert json.load(f) == log


def test_serialize_round_trip_continues_the_summary_and_the_log(tmp_path):
    trainer = _fake_trainer(tmp_path)
    log_report = extensions.LogReport(trigger=(2, 'iteration'), log_name=None)
    _run(log_report, trainer, [{'loss': 1.0}, {'loss': 3.0}, {'loss': 10.0}])
    state = serializers.DictionarySerializer()
    state.save(log_report)
    assert {'_log', '_summary/_names', '_trigger/previous_iteration'} <= set(state.target)
    assert json.loads(str(state.target['_log'])) == log_report.log

    resumed = extensions.LogReport(trigger=(2, 'iteration'), log_name=None)
    serializers.NpzDeserializer(state.target).load(resumed)
    assert resumed.log == log_report.log
    trainer.updater.iteration = 4
    trainer.observation = {'loss': 20.0}
    resumed(trainer)
    assert resumed.log[-1]['loss'] == 15.0  # (10 + 20) / 2: the summary carried over


def test_reports_variables_as_floats(tmp_path):
    trainer = _fake_trainer(tmp_path)
    log_report = extensions.LogReport(trigger=(1, 'iteration'))
    _run(log_report, trainer, [{'v': chainlite.Variable(np.array(2.5, np.float32))}])
    assert log_report.log[0]['v'] == 2.5
