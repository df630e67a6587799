import numpy
import pytest

from chainlite.datasets import TransformDataset
from chainlite.datasets import TupleDataset


def test_transform_applies_to_each_example():
    base = TupleDataset(numpy.arange(5, dtype=numpy.float32), numpy.arange(5) % 2)
    ds = TransformDataset(base, lambda example: (example[0] - 0.5, example[1]))
    assert len(ds) == 5
    assert ds[2] == (1.5, 0)
    assert ds[-1] == (3.5, 0)
    assert ds[1:3] == [(0.5, 1), (1.5, 0)]
    assert ds[[4, 0]] == [(3.5, 0), (-0.5, 0)]


def test_base_is_not_modified():
    base = [numpy.zeros(2)]
    ds = TransformDataset(base, lambda x: x + 1)
    numpy.testing.assert_array_equal(ds[0], [1, 1])
    numpy.testing.assert_array_equal(base[0], [0, 0])


def test_errors():
    with pytest.raises(IndexError):
        TransformDataset([1, 2], str)[2]
    with pytest.raises(TypeError, match='transform must be callable'):
        TransformDataset([1, 2], 3)
