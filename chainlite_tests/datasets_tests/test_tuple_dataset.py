import numpy
import pytest

from chainlite.datasets import TupleDataset


def test_int_and_negative_index():
    ds = TupleDataset([8, 0, 5, 1], [3, 1, 7, 4])
    assert len(ds) == 4
    assert ds[0] == (8, 3)
    assert ds[-1] == (1, 4)
    assert type(ds[0]) is tuple


def test_slice_gives_a_list_of_tuples():
    ds = TupleDataset(numpy.arange(10), numpy.arange(10) * 10)
    assert ds[::3] == [(0, 0), (3, 30), (6, 60), (9, 90)]
    assert ds[8:] == [(8, 80), (9, 90)]
    assert ds[5:5] == []


def test_index_array_goes_to_each_dataset():
    # As in Chainer: NumPy datasets select with the index array, giving a tuple of arrays.
    x, y = numpy.arange(10), numpy.arange(10) * 10
    xs, ys = TupleDataset(x, y)[[0, 2]]
    numpy.testing.assert_array_equal(xs, [0, 2])
    numpy.testing.assert_array_equal(ys, [0, 20])


def test_one_dataset():
    ds = TupleDataset([1, 2])
    assert ds[1] == (2,)
    assert ds[:] == [(1,), (2,)]


def test_out_of_range():
    with pytest.raises(IndexError):
        TupleDataset([1, 2], [3, 4])[2]


def test_errors():
    with pytest.raises(ValueError, match='no datasets'):
        TupleDataset()
    with pytest.raises(ValueError, match='dataset 1 has length 2'):
        TupleDataset([1, 2, 3], [1, 2])
