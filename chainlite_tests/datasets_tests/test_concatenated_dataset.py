import numpy
import pytest

from chainlite.datasets import ConcatenatedDataset


def test_examples_in_order():
    ds = ConcatenatedDataset([1, 2], numpy.array([3, 4, 5]), [], [6])
    assert len(ds) == 6
    assert [ds[i] for i in range(6)] == [1, 2, 3, 4, 5, 6]
    assert ds[1:4] == [2, 3, 4]
    assert ds[[5, 0]] == [6, 1]


def test_negative_index():
    # Chainer raises IndexError here; the DatasetMixin index rules count from the end.
    ds = ConcatenatedDataset([1, 2], [3, 4, 5])
    assert ds[-1] == 5
    assert ds[-5] == 1


@pytest.mark.parametrize('index', [5, -6])
def test_out_of_range(index):
    with pytest.raises(IndexError):
        ConcatenatedDataset([1, 2], [3, 4, 5])[index]


def test_no_datasets():
    ds = ConcatenatedDataset()
    assert len(ds) == 0
    assert ds[:] == []
    with pytest.raises(IndexError):
        ds[0]


def test_growing_dataset_stays_visible():
    first = [1]
    ds = ConcatenatedDataset(first, [2])
    first.append(1.5)
    assert len(ds) == 3
    assert ds[:] == [1, 1.5, 2]


def test_get_example_rejects_negative():
    with pytest.raises(IndexError):
        ConcatenatedDataset([1]).get_example(-1)
