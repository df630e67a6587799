"""Tests of tabular.from_data and DelegateDataset."""
import numpy
import pytest

from chainlite.dataset import TabularDataset, tabular


def test_single_list_and_array():
    ds = tabular.from_data([5, 6, 7])
    assert isinstance(ds, TabularDataset)
    assert ds.mode is None and len(ds.keys) == 1 and ds[1] == 6 and len(ds) == 3
    arr = numpy.arange(4.0)
    a = tabular.from_data(arr)
    assert a.fetch() is arr
    assert isinstance(a.get_examples([1, 3], None)[0], numpy.ndarray)


def test_named_column_and_callable():
    ds = tabular.from_data(('x', [1, 2]))
    assert ds.keys == ('x',) and ds.mode is None and ds[0] == 1
    sq = tabular.from_data(('sq', lambda i: i * i), size=5)
    assert list(sq) == [0, 1, 4, 9, 16]


def test_callable_with_several_keys():
    ds = tabular.from_data((('a', 'b'), lambda i: (i, -i)), size=3)
    assert ds.keys == ('a', 'b') and ds.mode is tuple and ds[2] == (2, -2)


def test_tuple_of_columns_takes_size_from_lists():
    ds = tabular.from_data(([1, 2, 3], ('b', lambda i: 2 * i), (('c', 'd'), lambda i: {
        'c': i, 'd': 'd%d' % i})))
    assert ds.mode is tuple and len(ds) == 3
    assert ds.keys[1:] == ('b', 'c', 'd')
    assert ds[2] == (3, 4, 2, 'd2')


def test_dict_of_columns():
    ds = tabular.from_data({'a': numpy.array([1, 2]), 'b': lambda i: i + 10})
    assert ds.mode is dict and ds[1] == {'a': 2, 'b': 11}


def test_errors():
    with pytest.raises(ValueError, match='size'):
        tabular.from_data(('a', lambda i: i))
    with pytest.raises(ValueError, match='key'):
        tabular.from_data(([1, 2], lambda i: i))
    with pytest.raises(TypeError, match='column'):
        tabular.from_data(('a', 3))


def test_delegate_dataset_forwards_everything():
    inner = tabular.from_data((('a', [1, 2]), ('b', [3, 4]))).with_converter(lambda a, b: 'c')

    class Mine(tabular.DelegateDataset):
        pass

    ds = Mine(inner)
    assert ds.dataset is inner
    assert len(ds) == 2 and ds.keys == ('a', 'b') and ds.mode is tuple
    assert ds[1] == (2, 4)
    assert ds.get_examples([0], (1,)) == ([3],)
    assert ds.convert(ds.fetch()) == 'c'
