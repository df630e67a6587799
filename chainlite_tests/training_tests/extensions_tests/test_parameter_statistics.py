import types

import numpy as np
import pytest

import chainlite
import chainlite.links as L
from chainlite import training
from chainlite.training import extensions


def _fake_trainer():
    return types.SimpleNamespace(updater=types.SimpleNamespace(iteration=0, epoch_detail=0.0))


def _call(ext, trainer):
    trainer.updater.iteration += 1
    observation = {}
    with chainlite.Reporter().scope(observation):
        ext(trainer)
    return observation


def _model():
    model = chainlite.Sequential(L.Linear(2, 3, initialW=np.arange(6).reshape(3, 2)))
    model.cleargrads()  # grads None
    model[0].W.grad = np.full((3, 2), 0.5, np.float32)
    return model


def test_default_statistics_of_data_and_grad():
    ext = extensions.ParameterStatistics(_model(), trigger=(1, 'iteration'))
    assert ext.default_name == 'parameter_statistics'
    assert ext.priority == training.PRIORITY_WRITER
    observation = _call(ext, _fake_trainer())
    w = np.arange(6, dtype=np.float32)
    assert observation['None/0/W/data/mean'] == pytest.approx(w.mean())
    assert observation['None/0/W/data/std'] == pytest.approx(w.std())
    assert observation['None/0/W/data/min'] == 0 and observation['None/0/W/data/max'] == 5
    assert observation['None/0/W/data/zeros'] == 1
    percentiles = np.percentile(w, (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87))
    for i, p in enumerate(percentiles):
        assert observation['None/0/W/data/percentile/%d' % i] == pytest.approx(p)
    assert observation['None/0/W/grad/mean'] == 0.5
    # b's gradient is None: skipped rather than failing.
    assert 'None/0/b/data/mean' in observation
    assert not any(key.startswith('None/0/b/grad') for key in observation)


def test_averages_over_the_interval_with_a_prefix_and_own_statistics():
    model = _model()
    ext = extensions.ParameterStatistics([model[0]], statistics={'max': np.max},
                                         report_grads=False, prefix='stats',
                                         trigger=(2, 'iteration'))
    ext.register_statistics('first', lambda x: x[0])
    trainer = _fake_trainer()
    assert _call(ext, trainer) == {}
    model[0].W.array += 2
    observation = _call(ext, trainer)
    assert observation == {'stats/0/W/data/max': 6.0, 'stats/0/W/data/first': 1.0,
                           'stats/0/b/data/max': 0.0, 'stats/0/b/data/first': 0.0}


def test_skip_nan_params_and_uninitialized_parameters():
    model = _model()
    model.append(L.Linear(None, 2))
    model[0].W.array[0, 0] = np.nan
    ext = extensions.ParameterStatistics(model, statistics={'mean': np.mean},
                                         report_grads=False, trigger=(1, 'iteration'),
                                         skip_nan_params=True)
    observation = _call(ext, _fake_trainer())
    assert np.isnan(observation['None/0/W/data/mean'])
    assert observation['None/0/b/data/mean'] == 0.0
    assert sorted(observation) == ['None/0/W/data/mean', 'None/0/b/data/mean',
                                   'None/1/b/data/mean']  # /1/W is not initialized yet


def test_no_statistics_and_bad_statistics():
    assert _call(extensions.ParameterStatistics(_model(), statistics=None,
                                                trigger=(1, 'iteration')),
                 _fake_trainer()) == {}
    with pytest.raises(ValueError, match='ParameterStatistics: statistics'):
        extensions.ParameterStatistics(_model(), statistics='mean')
