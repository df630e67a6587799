"""Tests of ``dataset.slice[rows, keys]`` views."""
import numpy
import pytest


def rows(view):
    return list(view)


def test_rows_as_slice_list_mask_and_negative(table_cls):
    t = table_cls()
    assert rows(t.slice[1:4]) == [(10, 11, 12), (20, 21, 22), (30, 31, 32)]
    assert rows(t.slice[[5, -6]]) == [(50, 51, 52), (0, 1, 2)]
    mask = [i % 2 == 0 for i in range(6)]
    assert len(t.slice[mask]) == 3 and t.slice[mask][2] == (40, 41, 42)
    assert rows(t.slice[numpy.array([2, 2])]) == [(20, 21, 22)] * 2
    assert len(t.slice[[]]) == 0
    assert len(t.slice[::-2]) == 3 and t.slice[::-2][0] == (50, 51, 52)


def test_mixed_bools_and_ints_are_ints(table_cls):
    t = table_cls()
    assert rows(t.slice[[True, 3, False]]) == [(10, 11, 12), (30, 31, 32), (0, 1, 2)]


def test_bad_rows(table_cls):
    t = table_cls()
    with pytest.raises(IndexError, match='out of range'):
        t.slice[[6]]
    with pytest.raises(ValueError, match='boolean mask'):
        t.slice[[True] * 5]
    with pytest.raises(TypeError, match='rows'):
        t.slice[3]


def test_keys_by_name_position_and_mode(table_cls):
    t = table_cls(mode=dict)
    v = t.slice[:, ('r', 0)]
    assert v.keys == ('r', 'p') and v.mode is dict
    assert v[1] == {'r': 12, 'p': 10}
    one = t.slice[:, -2]
    assert one.keys == ('q',) and one.mode is None and one[4] == 41
    assert table_cls(mode=None, keys=('p',)).slice[:, ('p',)].mode is tuple
    assert t.slice[:, ()].keys == ()
    with pytest.raises(KeyError, match='zz'):
        t.slice[:, 'zz']
    with pytest.raises(IndexError, match='column 3'):
        t.slice[:, (3,)]


def test_reads_are_pushed_down_as_slices_and_lists(table_cls):
    t = table_cls(n=10)
    v = t.slice[2:9:2, ('q', 'p')]
    t.calls.clear()
    out = v.get_examples(slice(1, None, 1), (1,))
    assert t.calls == [(slice(4, 10, 2), (0,))]
    assert out == ([40, 60, 80],)
    t.calls.clear()
    v.get_examples([3, 0], None)
    assert t.calls == [([8, 2], (1, 0))]
    w = t.slice[[7, 1, 4]]
    t.calls.clear()
    assert w.get_examples(slice(None, None, -1), None)[0] == [40, 10, 70]
    assert t.calls == [([4, 1, 7], None)]


def test_slice_of_slice_negative_steps(table_cls):
    t = table_cls(n=10)
    base = list(range(10))
    for outer in [slice(None, None, -1), slice(8, 1, -3), slice(1, 9, 2)]:
        for inner in [slice(None, None, -1), slice(1, None, 2), slice(5, 0, -1), slice(3, 3)]:
            view = t.slice[outer].slice[inner]
            got = [r[0] // 10 for r in view]
            assert got == base[outer][inner], (outer, inner)


def test_arrays_stay_arrays(table_cls):
    t = table_cls(arrays=True)
    out = t.slice[[0, 2], ('p',)].fetch()
    assert isinstance(out[0], numpy.ndarray)
    numpy.testing.assert_array_equal(out[0], [0, 20])
