import types

import numpy as np
import pytest

import chainlite
from chainlite import serializers
from chainlite import training
from chainlite.training import extensions


def _fake_trainer():
    return types.SimpleNamespace(updater=types.SimpleNamespace(iteration=0, epoch_detail=0.0),
                                 observation={})


def _step(ext, trainer, observation):
    trainer.updater.iteration += 1
    trainer.observation = observation
    reported = {}
    with chainlite.Reporter().scope(reported):
        ext(trainer)
    return reported


def test_reports_the_ratio_of_sums_per_interval():
    ext = extensions.MicroAverage('c', 't', 'acc', trigger=(2, 'iteration'))
    assert ext.priority == training.PRIORITY_EDITOR
    trainer = _fake_trainer()
    assert _step(ext, trainer, {'c': 9, 't': 10}) == {}
    assert _step(ext, trainer, {'c': np.int64(1), 't': np.array(2)}) == {'acc': 10 / 12}
    assert _step(ext, trainer, {'c': 1, 't': 4}) == {}
    assert _step(ext, trainer, {'c': 3, 't': 4}) == {'acc': 0.5}  # the sums restarted


def test_iterations_without_both_keys_are_skipped():
    ext = extensions.MicroAverage('c', 't', 'acc', trigger=(1, 'iteration'))
    trainer = _fake_trainer()
    assert _step(ext, trainer, {'c': 5}) == {}
    assert _step(ext, trainer, {'c': 1, 't': 4}) == {'acc': 0.25}


def test_serialize_keeps_the_running_sums():
    ext = extensions.MicroAverage('c', 't', 'acc', trigger=(2, 'iteration'))
    trainer = _fake_trainer()
    _step(ext, trainer, {'c': 3, 't': 4})
    state = serializers.DictionarySerializer()
    state.save(ext)
    assert sorted(state.target) == ['_denominator', '_numerator']
    resumed = extensions.MicroAverage('c', 't', 'acc', trigger=(2, 'iteration'))
    serializers.NpzDeserializer(state.target).load(resumed)
    assert _step(resumed, trainer, {'c': 1, 't': 4}) == {'acc': pytest.approx(0.5)}
