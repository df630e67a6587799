"""VariableStatisticsPlot, its Reservoir and Statistician; the image when matplotlib is there,
a clear warning and no work when it is not."""
import os

import numpy as np
import pytest

import chainlite
from chainlite import links as L
from chainlite import testing
from chainlite.training import extensions
from chainlite.training.extensions import plot_report
from chainlite.training.extensions import variable_statistics_plot as vsp


def test_reservoir_keeps_a_sorted_uniform_sample():
    r = vsp.Reservoir(size=3, data_shape=(2, 7, 3))
    xs = [np.random.uniform(-1, 1, (2, 7, 3)) for _ in range(5)]
    for x in xs:
        r.add(x)
    idxs, data = r.get_data()
    assert len(idxs) == 3 and data.shape == (3, 2, 7, 3)
    assert np.all(np.diff(idxs) > 0)
    for i, d in zip(idxs, data):
        np.testing.assert_allclose(d, xs[i], rtol=1e-6)
    # Each of many items ends up in the sample with probability size / n.
    np.random.seed(0)
    counts = np.zeros(50)
    for _ in range(400):
        r = vsp.Reservoir(5, ())
        for i in range(50):
            r.add(i, idx=i)
        counts[r.get_data()[0]] += 1
    np.testing.assert_allclose(counts / 400, 0.1, atol=0.06)
    r = vsp.Reservoir(4, ())
    r.add(1.0)
    assert r.get_data()[0].tolist() == [0]


def test_statistician():
    x = np.random.uniform(-1, 1, (2, 7, 3))
    stat = vsp.Statistician(True, True, (0.0, 50.0, 100.0))(x, axis=None, dtype=x.dtype)
    assert all(s.dtype == x.dtype for s in stat.values())
    np.testing.assert_allclose(stat['mean'], x.mean())
    np.testing.assert_allclose(stat['std'], x.std())
    np.testing.assert_allclose(stat['percentile'], [x.min(), np.median(x), x.max()])
    per_axis = vsp.Statistician(True, False, ())(x, axis=0)
    assert sorted(per_axis) == ['mean'] and per_axis['mean'].shape == (7, 3)


def test_arguments():
    with pytest.raises(ValueError, match='at least one Variable'):
        extensions.VariableStatisticsPlot([])
    with pytest.raises(ValueError, match='nothing to plot'):
        extensions.VariableStatisticsPlot(chainlite.Variable(np.ones(2)), plot_mean=False,
                                          plot_std=False, percentile_sigmas=())
    link = L.Linear(3, 2)
    ext = extensions.VariableStatisticsPlot([link, chainlite.Variable(np.ones(2))],
                                            report_grad=False, file_name='old.png')
    assert len(ext._vars) == 3 and ext._keys == ['data'] and ext._filename == 'old.png'
    assert ext._data_shape == (1, 2 + 9)


def _trainer(tmp_path, ext):
    trainer = testing.get_trainer_with_mock_updater(stop_trigger=(3, 'iteration'))
    trainer.out = str(tmp_path)
    trainer.extend(ext, trigger=(1, 'iteration'))
    return trainer


def test_without_matplotlib_says_so_once_and_does_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(plot_report, '_matplotlib_available', lambda: False)
    monkeypatch.setattr(plot_report, '_noted', set())
    x = chainlite.Variable(np.random.rand(2, 3))
    ext = extensions.VariableStatisticsPlot(x, trigger=(1, 'iteration'), filename='s.png')
    assert not ext.available()
    assert 'VariableStatisticsPlot: matplotlib is not installed' in capsys.readouterr().err
    _trainer(tmp_path, ext).run()   # no second note, and no warning (warnings are errors)
    assert 'matplotlib' not in capsys.readouterr().err
    assert ext._samples.counter == 0 and not os.listdir(tmp_path)


def test_collects_statistics_and_draws(tmp_path, monkeypatch):
    pytest.importorskip('matplotlib')
    link = L.Linear(4, 3)
    link.cleargrads()
    link.W.grad = np.full((3, 4), 0.5, np.float32)
    ext = extensions.VariableStatisticsPlot(link, trigger=(2, 'iteration'),
                                            filename='stats.png', marker='o')
    _trainer(tmp_path, ext).run()
    idxs, data = ext._samples.get_data()
    assert idxs.tolist() == [1, 2, 3]
    values = np.concatenate([link.W.array.ravel(), link.b.array.ravel()])
    np.testing.assert_allclose(data[-1, 0, 0], values.mean(), rtol=1e-5)
    np.testing.assert_allclose(data[-1, 1, 0], 0.5)   # only W has a gradient
    assert os.path.getsize(os.path.join(tmp_path, 'stats.png')) > 0
    assert os.listdir(tmp_path) == ['stats.png']      # no temporary file left
    # One row of plots, a single percentile.
    ext = extensions.VariableStatisticsPlot(link, plot_mean=False, plot_std=False,
                                            percentile_sigmas=50, report_grad=False,
                                            trigger=(1, 'iteration'), filename='p.png')
    _trainer(tmp_path, ext).run()
    assert os.path.exists(os.path.join(tmp_path, 'p.png'))
