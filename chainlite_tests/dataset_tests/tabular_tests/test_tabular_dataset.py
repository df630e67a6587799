"""Tests of TabularDataset's own methods, on a small table that records its reads."""
import numpy
import pytest

from chainlite.dataset import DatasetMixin, TabularDataset, tabular


def test_is_a_dataset_mixin_and_exported():
    assert issubclass(TabularDataset, DatasetMixin)
    assert tabular.TabularDataset is TabularDataset


@pytest.mark.parametrize('mode, expected', [
    (tuple, (20, 21, 22)),
    (dict, {'p': 20, 'q': 21, 'r': 22}),
])
def test_get_example_follows_mode(mode, expected, table_cls):
    t = table_cls(mode=mode)
    assert t[2] == expected
    assert t.get_example(2) == expected
    assert t.calls[-1] == ([2], None)


def test_single_column_mode_none_gives_bare_values(table_cls):
    t = table_cls(keys=('p',), mode=None)
    assert t[3] == 30
    assert t.fetch() == [0, 10, 20, 30, 40, 50]


def test_negative_and_list_indexing_and_iteration(table_cls):
    t = table_cls()
    assert t[-1] == (50, 51, 52)
    assert t[[4, 0]] == [(40, 41, 42), (0, 1, 2)]
    assert t[1:6:2] == [(10, 11, 12), (30, 31, 32), (50, 51, 52)]
    assert list(t) == [(10 * i, 10 * i + 1, 10 * i + 2) for i in range(6)]
    with pytest.raises(IndexError):
        t[6]


def test_fetch_is_column_major_and_reads_everything_once(table_cls):
    t = table_cls(mode=dict)
    out = t.fetch()
    assert out == {'p': [0, 10, 20, 30, 40, 50], 'q': [1, 11, 21, 31, 41, 51],
                   'r': [2, 12, 22, 32, 42, 52]}
    assert t.calls == [(None, None)]


def test_convert_makes_arrays_and_keeps_arrays(table_cls):
    t = table_cls()
    out = t.convert(t.fetch())
    assert isinstance(out, tuple) and len(out) == 3
    assert all(isinstance(c, numpy.ndarray) for c in out)
    numpy.testing.assert_array_equal(out[1], [1, 11, 21, 31, 41, 51])
    arr = numpy.arange(3.0)
    assert t.convert(arr) is arr
    d = t.convert({'a': [1, 2]})
    numpy.testing.assert_array_equal(d['a'], [1, 2])


def test_astuple_asdict_views(table_cls):
    t = table_cls()
    d = t.asdict()
    assert d.mode is dict and d.keys == t.keys and len(d) == 6
    assert d[1] == {'p': 10, 'q': 11, 'r': 12}
    back = d.astuple()
    assert back.mode is tuple and back[1] == (10, 11, 12)


def test_with_converter_unpacks_by_mode(table_cls):
    t = table_cls()
    conv = t.with_converter(lambda p, q, r: p[0] + q[0] + r[0])
    assert conv.convert(conv.fetch()) == 0 + 1 + 2
    dconv = t.asdict().with_converter(lambda **cols: sorted(cols))
    assert dconv.convert(dconv.fetch()) == ['p', 'q', 'r']
    single = t.slice[:, 'q'].with_converter(lambda col: sum(col))
    assert single.convert(single.fetch()) == sum([1, 11, 21, 31, 41, 51])
    # views of a dataset keep its converter
    assert conv.slice[:2].convert(([1], [2], [3])) == 6


def test_abstract_methods_say_what_is_missing():
    class Bare(TabularDataset):
        pass

    with pytest.raises(TypeError, match='__len__'):
        len(Bare())
    with pytest.raises(TypeError, match='keys'):
        Bare().keys
    with pytest.raises(TypeError, match='get_examples'):
        Bare().get_examples(None, None)
