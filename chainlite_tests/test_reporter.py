import threading

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import reporter as reporter_module
from chainlite.reporter import DictSummary
from chainlite.reporter import Reporter
from chainlite.reporter import Summary
from chainlite.reporter import get_current_reporter
from chainlite.reporter import report
from chainlite.reporter import report_scope


class _Saver:
    # The serializer protocol: __call__(key, value) stores and returns value; [key] nests.
    def __init__(self, target, prefix=''):
        self.target, self.prefix = target, prefix

    def __getitem__(self, key):
        return _Saver(self.target, self.prefix + key + '/')

    def __call__(self, key, value):
        self.target[self.prefix + key] = value
        return value


class _Loader:
    # The deserializer protocol: __call__(key, value) returns the stored value (KeyError if
    # missing), as Chainer's deserializers do for Python scalars and strings.
    def __init__(self, source, prefix=''):
        self.source, self.prefix = source, prefix

    def __getitem__(self, key):
        return _Loader(self.source, self.prefix + key + '/')

    def __call__(self, key, value):
        return self.source[self.prefix + key]


# -- Reporter ----------------------------------------------------------------------------------

def test_report_with_observer_prefixes_its_name():
    r = Reporter()
    a, b = object(), object()
    r.add_observer('main', a)
    r.add_observers('main/', [('l1', b)])
    observation = {}
    with r.scope(observation):
        r.report({'x': 1, 'y': 2}, a)
        r.report({'z': 3}, b)
        r.report({'w': 4})
    assert observation == {'main/x': 1, 'main/y': 2, 'main/l1/z': 3, 'w': 4}


def test_observers_are_told_apart_by_identity_not_equality():
    r = Reporter()
    a, b = [1], [1]
    r.add_observer('a', a)
    r.add_observer('b', b)
    with r.scope({}) as _:
        r.report({'v': 0}, b)
        assert r.observation == {'b/v': 0}


def test_unregistered_observer_raises_key_error_naming_the_method():
    r = Reporter()
    with pytest.raises(KeyError, match='Reporter.report: the observer list is not registered'):
        r.report({'x': 1}, [])


def test_scope_restores_observation_and_current_reporter():
    r = Reporter()
    outer = r.observation
    inner = {}
    with r.scope(inner):
        assert get_current_reporter() is r
        assert r.observation is inner
    assert r.observation is outer
    with pytest.raises(IndexError, match='no reporter is current'):
        get_current_reporter()


def test_scope_restores_state_when_the_block_raises():
    r = Reporter()
    outer = r.observation
    with pytest.raises(RuntimeError):
        with r.scope({}):
            raise RuntimeError('boom')
    assert r.observation is outer
    assert reporter_module._reporters() == []


def test_with_reporter_nests_and_returns_itself():
    r1, r2 = Reporter(), Reporter()
    with r1 as got:
        assert got is r1
        with r2:
            assert get_current_reporter() is r2
            report({'x': 1})
        assert get_current_reporter() is r1
    assert r2.observation == {'x': 1}
    assert r1.observation == {}


def test_report_outside_any_reporter_does_nothing():
    report({'x': 1})
    report({'x': 1}, object())


def test_module_report_uses_current_reporters_observer_names():
    r = Reporter()
    model = chainlite.Chain()
    r.add_observer('main', model)
    observation = {}
    with r.scope(observation):
        report({'loss': 2.0}, model)
    assert observation == {'main/loss': 2.0}


def test_report_scope_redirects_and_restores():
    r = Reporter()
    first, second = {}, {}
    with r:
        with report_scope(first):
            report({'a': 1})
            with report_scope(second):
                report({'b': 2})
            report({'c': 3})
        assert r.observation == {}
    assert first == {'a': 1, 'c': 3}
    assert second == {'b': 2}


def test_report_scope_restores_on_exception_and_needs_a_reporter():
    r = Reporter()
    with r:
        with pytest.raises(ValueError):
            with report_scope({}):
                raise ValueError
        assert r.observation == {}
    with pytest.raises(IndexError, match='get_current_reporter'):
        with report_scope({}):
            pass


def test_reported_variable_is_detached_from_the_graph():
    x = chainlite.Variable(np.array([1.0, 2.0], np.float32))
    y = F.sum(x * x)
    y.name = 'y'
    observation = {}
    with Reporter().scope(observation):
        report({'y': y})
    v = observation['y']
    assert isinstance(v, chainlite.Variable) and v is not y
    assert v.creator is None and y.creator is not None
    assert v.array is y.array
    assert v.name == 'y'
    assert v.requires_grad


def test_reported_variable_shares_the_gradient():
    x = chainlite.Variable(np.array([1.0, 2.0], np.float32))
    F.sum(x * x).backward()
    observation = {}
    with Reporter().scope(observation):
        report({'x': x})
    assert observation['x'].grad is x.grad
    np.testing.assert_array_equal(observation['x'].grad, [2.0, 4.0])


def test_reported_parameter_stays_a_parameter():
    p = chainlite.Parameter(np.ones(2, np.float32))
    observation = {}
    with Reporter().scope(observation):
        report({'p': p})
    assert type(observation['p']) is chainlite.Parameter
    assert observation['p'] is not p and observation['p'].array is p.array


def test_keep_graph_on_report_keeps_the_variable_itself():
    x = chainlite.Variable(np.array([1.0], np.float32))
    y = x * 2
    observation = {}
    with chainlite.using_config('keep_graph_on_report', True):
        with Reporter().scope(observation):
            report({'y': y})
    assert observation['y'] is y
    assert observation['y'].creator is not None


def test_non_variable_values_are_stored_as_is():
    a = np.ones(3)
    observation = {}
    with Reporter().scope(observation):
        report({'a': a, 's': 'text'})
    assert observation['a'] is a and observation['s'] == 'text'


def test_current_reporter_is_per_thread():
    seen = []
    r = Reporter()

    def other():
        seen.append(len(reporter_module._reporters()))
        report({'from_thread': 1})

    with r:
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == [0]
    assert r.observation == {}


# -- Summary -----------------------------------------------------------------------------------

def test_summary_mean_and_std_of_python_numbers():
    s = Summary()
    s.add(1)
    s.add(2)
    assert s.compute_mean() == 1.5
    mean, std = s.make_statistics()
    assert mean == 1.5
    assert std == pytest.approx(0.5)


def test_summary_weights_and_numpy_values():
    # Chainer 7.8.1 gives mean 1.75 and std 0.4330127018922193 here.
    s = Summary()
    s.add(np.float32(1))
    s.add(np.array(2, np.float32), weight=3)
    assert s.compute_mean() == pytest.approx(1.75)
    mean, std = s.make_statistics()
    assert mean == pytest.approx(1.75)
    assert std == pytest.approx(0.4330127018922193, rel=1e-6)


def test_summary_accepts_a_variable():
    s = Summary()
    s.add(chainlite.Variable(np.array(4.0)))
    s.add(chainlite.Variable(np.array(2.0)), weight=chainlite.Variable(np.array(1.0)))
    assert s.compute_mean() == 3.0


def test_summary_std_of_constant_values_is_zero_not_nan():
    s = Summary()
    for _ in range(3):
        s.add(0.1)
    mean, std = s.make_statistics()
    assert mean == pytest.approx(0.1)
    assert std == 0.0


def test_empty_summary_raises_zero_division():
    s = Summary()
    with pytest.raises(ZeroDivisionError, match='Summary.compute_mean'):
        s.compute_mean()
    with pytest.raises(ZeroDivisionError, match='Summary.make_statistics'):
        s.make_statistics()


def test_summary_serialize_round_trip():
    s = Summary()
    s.add(1.0)
    s.add(3.0)
    saved = {}
    s.serialize(_Saver(saved))
    assert saved == {'_x': 4.0, '_x2': 10.0, '_n': 2}
    t = Summary()
    t.serialize(_Loader(saved))
    assert t.make_statistics() == s.make_statistics()


def test_summary_deserialize_missing_keys_warns():
    s = Summary()
    s.add(2.0)
    with pytest.warns(UserWarning, match='previous statistics are not saved'):
        s.serialize(_Loader({}))
    assert s.compute_mean() == 2.0


# -- DictSummary -------------------------------------------------------------------------------

def test_dict_summary_statistics_match_chainer():
    # The same sequence in Chainer 7.8.1 gives these statistics.
    d = DictSummary()
    d.add({'a': 1, 'b': np.float32(2), 'c': chainlite.Variable(np.array(3.0, np.float32)),
           'd': (2.0, 3)})
    d.add({'a': 3, 'b': np.array(4, np.float32), 'd': (np.array(4.0), np.array(1))})
    mean = d.compute_mean()
    assert set(mean) == {'a', 'b', 'c', 'd'}
    expected = {'a': 2.0, 'a.std': 1.0, 'b': 3.0, 'b.std': 1.0, 'c': 3.0, 'c.std': 0.0,
                'd': 2.5, 'd.std': 0.8660254037844386}
    stats = d.make_statistics()
    assert list(stats) == list(expected)
    for key, value in expected.items():
        assert stats[key] == pytest.approx(value)


@pytest.mark.parametrize('value', [None, [1, 2], np.ones(2), 'text', b'bytes', object(),
                                   chainlite.Variable(np.ones(2)), np.array('s')])
def test_dict_summary_ignores_non_scalars(value):
    d = DictSummary()
    d.add({'x': value, 'y': 1.0})
    assert d.compute_mean() == {'y': 1.0}


def test_dict_summary_counts_bools_as_numbers():
    d = DictSummary()
    d.add({'ok': True})
    d.add({'ok': np.bool_(False)})
    assert d.compute_mean() == {'ok': 0.5}


@pytest.mark.parametrize('weight', [np.ones(2), 'w', None])
def test_dict_summary_rejects_non_scalar_weights(weight):
    d = DictSummary()
    with pytest.raises(ValueError, match='DictSummary.add: the weight given to e'):
        d.add({'e': (1.0, weight)})


def test_dict_summary_variable_weight():
    d = DictSummary()
    d.add({'x': (2.0, chainlite.Variable(np.array(3.0)))})
    d.add({'x': 6.0})
    assert d.compute_mean() == {'x': 3.0}


def test_empty_dict_summary():
    d = DictSummary()
    assert d.compute_mean() == {}
    assert d.make_statistics() == {}


def test_dict_summary_serialize_round_trip_replaces_entries():
    d = DictSummary()
    d.add({'loss': 1.0, 'acc': 0.5})
    d.add({'loss': 3.0, 'acc': 1.0})
    saved = {}
    d.serialize(_Saver(saved))
    assert saved['_names'] == '["loss", "acc"]'
    assert saved['_summaries/0/_x'] == 4.0
    assert saved['_summaries/1/_n'] == 2
    e = DictSummary()
    e.add({'other': 7.0})
    e.serialize(_Loader(saved))
    assert e.make_statistics() == d.make_statistics()
    e.add({'loss': 5.0})
    assert e.compute_mean()['loss'] == 3.0


def test_dict_summary_deserialize_without_names_warns_and_clears():
    d = DictSummary()
    d.add({'x': 1.0})
    with pytest.warns(UserWarning, match='names of statistics are not saved'):
        d.serialize(_Loader({}))
    assert d.compute_mean() == {}
