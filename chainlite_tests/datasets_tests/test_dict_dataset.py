import numpy
import pytest

from chainlite.datasets import DictDataset


def test_int_slice_and_negative_index():
    ds = DictDataset(a=numpy.arange(10), b=numpy.arange(10) * 10)
    assert len(ds) == 10
    assert ds[3] == {'a': 3, 'b': 30}
    assert ds[-1] == {'a': 9, 'b': 90}
    assert ds[1:3] == [{'a': 1, 'b': 10}, {'a': 2, 'b': 20}]
    assert ds[3:3] == []


def test_index_array_goes_to_each_dataset():
    out = DictDataset(a=numpy.arange(10), b=numpy.arange(10) * 10)[[0, 1]]
    numpy.testing.assert_array_equal(out['a'], [0, 1])
    numpy.testing.assert_array_equal(out['b'], [0, 10])


def test_keys_keep_their_order():
    assert list(DictDataset(z=[1], a=[2])[0]) == ['z', 'a']


def test_errors():
    with pytest.raises(ValueError, match='no datasets'):
        DictDataset()
    with pytest.raises(ValueError, match="dataset 'b' has length 1"):
        DictDataset(a=[1, 2], b=[1])
