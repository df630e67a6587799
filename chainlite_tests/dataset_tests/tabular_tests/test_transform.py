"""Tests of transform and transform_batch."""
import numpy
import pytest


def test_transform_tuple_in_tuple_out(table_cls):
    t = table_cls(n=3)
    v = t.transform(('sum', 'diff'), lambda p, q, r: (p + q + r, r - p))
    assert v.keys == ('sum', 'diff') and v.mode is tuple
    assert list(v) == [(3, 2), (33, 2), (63, 2)]
    assert v.get_examples([2], (1,)) == ([2],)


def test_transform_dict_in_and_dict_out(table_cls):
    t = table_cls(n=3, mode=dict)
    v = t.transform(('x', 'y'), lambda p, q, r: {'y': q, 'x': p})
    assert v.mode is dict and v[1] == {'x': 10, 'y': 11}


def test_transform_single_value_with_str_key(table_cls):
    v = table_cls(n=3).transform('m', lambda p, q, r: max(p, q, r))
    assert v.keys == ('m',) and v.mode is None and v.fetch() == [2, 12, 22]


def test_transform_mode_is_learnt_from_first_row_and_must_not_change(table_cls):
    calls = []

    def flaky(p, q, r):
        calls.append(p)
        return (p,) if p == 0 else p

    v = table_cls(n=3).transform('a', flaky)
    assert v.mode is tuple and calls == [0]
    with pytest.raises(ValueError, match='same type'):
        v.fetch()


def test_transform_batch_gets_columns(table_cls):
    t = table_cls(n=4, arrays=True)
    v = t.transform_batch(('s',), lambda p, q, r: p + q + r)
    assert v.mode is None
    numpy.testing.assert_array_equal(v.fetch(), [3, 33, 63, 93])
    numpy.testing.assert_array_equal(v.get_examples(slice(1, None, 2), None)[0], [33, 93])
    assert t.calls[-1] == (slice(1, None, 2), None)


def test_transform_batch_dict_and_length_check(table_cls):
    t = table_cls(n=4, mode=dict)
    v = t.transform_batch(('a', 'b'), lambda p, q, r: {'a': p, 'b': r})
    assert v.mode is dict and v[3] == {'a': 30, 'b': 32}
    bad = t.transform_batch('a', lambda p, q, r: p[:1])
    with pytest.raises(ValueError, match='number of rows'):
        bad.fetch()


def test_transforms_keep_converter(table_cls):
    t = table_cls(n=2).with_converter(lambda *cols: 'mine')
    assert t.transform('a', lambda p, q, r: p).convert([0]) == 'mine'
    assert t.transform_batch('a', lambda p, q, r: p).convert([0]) == 'mine'
