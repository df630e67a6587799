"""Tests of concat (rows) and join (columns)."""
import numpy
import pytest

from chainlite.dataset import tabular


def test_concat_rows_in_order_and_mode_of_first(table_cls):
    a, b = table_cls(n=4), table_cls(n=3, mode=dict)
    c = a.concat(b)
    assert len(c) == 7 and c.keys == ('p', 'q', 'r') and c.mode is tuple
    assert [r[0] for r in c] == [0, 10, 20, 30, 0, 10, 20]


def test_concat_list_reads_once_per_dataset_and_restores_order(table_cls):
    a, b = table_cls(n=4), table_cls(n=3)
    c = a.concat(b)
    out = c.get_examples([5, 1, 4, 3, 6], None)
    assert out[0] == [10, 10, 0, 30, 20]
    assert a.calls == [([1, 3], None)] and b.calls == [([1, 0, 2], None)]
    assert c.get_examples([], (0,)) == ([],)


@pytest.mark.parametrize('sl', [slice(None), slice(None, None, -1), slice(1, 6, 2),
                                slice(6, 0, -2), slice(5, 2, -1), slice(2, 3),
                                slice(4, 4), slice(-100, 100, 3), slice(100, -100, -4)])
def test_concat_slices_match_python(sl, table_cls):
    parts = [table_cls(n=4), table_cls(n=1), table_cls(n=3)]
    c = parts[0].concat(*parts[1:])
    flat = [10 * i for i in range(4)] + [0] + [10 * i for i in range(3)]
    assert list(c.get_examples(sl, (0,))[0]) == flat[sl]
    for p in parts:
        for indices, _ in p.calls:
            assert isinstance(indices, slice)


def test_concat_hands_slices_down(table_cls):
    a, b = table_cls(n=10), table_cls(n=5)
    a.concat(b).get_examples(slice(13, 6, -2), None)
    assert a.calls == [(slice(9, 6, -2), None)]
    assert b.calls == [(slice(3, None, -2), None)]


def test_concat_checks_keys(table_cls):
    with pytest.raises(ValueError, match='same keys'):
        table_cls().concat(table_cls(keys=('p', 'q', 'x')))


def test_join_columns_and_reads(table_cls):
    a = table_cls(n=4)
    b = tabular.from_data(('s', numpy.arange(4) * 100))
    j = a.join(b)
    assert j.keys == ('p', 'q', 'r', 's') and j.mode is tuple
    assert j[2] == (20, 21, 22, 200)
    out = j.get_examples([3, 0], (3, 1, 1))
    assert list(out[0]) == [300, 0] and out[1] == [31, 1] and out[2] == [31, 1]
    assert a.calls[-1] == ([3, 0], (1,))


def test_join_mode_first_not_none(table_cls):
    x = tabular.from_data([1, 2])
    y = table_cls(n=2, mode=dict)
    assert x.join(y).mode is dict
    assert x.join(tabular.from_data([3, 4])).mode is tuple


def test_join_checks_length_and_keys(table_cls):
    with pytest.raises(ValueError, match='same length'):
        table_cls(n=3).join(tabular.from_data(('s', [1, 2])))
    with pytest.raises(ValueError, match='unique'):
        table_cls().join(table_cls(keys=('q', 'z', 'w')))
