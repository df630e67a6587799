import numpy
import pytest

from chainlite.dataset import DatasetMixin


class Values(DatasetMixin):
    """Records the indices get_example receives."""

    def __init__(self, values):
        self.values = values
        self.calls = []

    def __len__(self):
        return len(self.values)

    def get_example(self, i):
        self.calls.append(i)
        return self.values[i]


def test_int_index():
    ds = Values([10, 11, 12, 13])
    assert ds[0] == 10
    assert ds[3] == 13
    assert ds[numpy.int64(2)] == 12
    assert ds.calls == [0, 3, 2]
    assert all(type(i) is int for i in ds.calls)


def test_negative_index_is_normalized_before_get_example():
    ds = Values([10, 11, 12, 13])
    assert ds[-1] == 13
    assert ds[-4] == 10
    assert ds.calls == [3, 0]


@pytest.mark.parametrize('index', [4, 100, -5])
def test_int_out_of_range(index):
    ds = Values([10, 11, 12, 13])
    with pytest.raises(IndexError, match='Values index'):
        ds[index]
    assert ds.calls == []


@pytest.mark.parametrize('index', [slice(1, 3), slice(None), slice(None, None, -1),
                                   slice(-3, None), slice(0, 10, 2), slice(5, 10),
                                   slice(3, 1)])
def test_slice_like_a_list(index):
    values = [10, 11, 12, 13]
    assert Values(values)[index] == values[index]


def test_list_and_array_of_indices():
    ds = Values([10, 11, 12, 13])
    assert ds[[3, 0, 0]] == [13, 10, 10]
    assert ds[numpy.array([1, 2])] == [11, 12]
    assert ds[[-1, -2]] == [13, 12]
    assert ds[[]] == []
    assert ds[numpy.array([], dtype=numpy.int64)] == []


def test_index_array_out_of_range():
    with pytest.raises(IndexError):
        Values([10, 11])[[0, 2]]


def test_boolean_mask():
    ds = Values([10, 11, 12])
    assert ds[numpy.array([True, False, True])] == [10, 12]
    assert ds[[False, True, False]] == [11]
    with pytest.raises(IndexError, match='boolean mask'):
        ds[numpy.array([True, False])]


def test_zero_dimensional_array_is_an_int():
    assert Values([10, 11, 12])[numpy.array(2)] == 12


def test_two_dimensional_index_array_raises():
    with pytest.raises(IndexError, match='one-dimensional'):
        Values([10, 11, 12])[numpy.zeros((2, 2), dtype=int)]


def test_float_index_in_a_list_raises():
    with pytest.raises(TypeError):
        Values([10, 11, 12])[[0.5]]


def test_other_index_goes_to_get_example_unchanged():
    ds = Values({'a': 1, 'b': 2})
    assert ds['b'] == 2
    assert ds.calls == ['b']


def test_iteration_stops_at_the_end():
    class Endless(DatasetMixin):
        def __len__(self):
            return 3

        def get_example(self, i):
            return i * 2  # never raises IndexError itself

    assert list(Endless()) == [0, 2, 4]


def test_missing_len_and_get_example_name_the_class():
    class Empty(DatasetMixin):
        pass

    ds = Empty()
    with pytest.raises(NotImplementedError, match='Empty must implement __len__'):
        len(ds)
    with pytest.raises(NotImplementedError, match='Empty must implement get_example'):
        ds.get_example(0)
