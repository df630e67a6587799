"""binary_accuracy: sign of the logits against 0/1 labels, -1 ignored."""
import re

import numpy
import pytest

import chainlite
from chainlite.functions.evaluation.binary_accuracy import binary_accuracy
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [(), (5,), (3, 4), (2, 3, 2)]


def _inputs(shape, dtype=numpy.float64, seed=0):
    # Logits away from 0, where the prediction flips.
    rs = numpy.random.RandomState(seed)
    y = numpy.asarray(rs.uniform(0.1, 2, shape) * rs.choice([-1, 1], shape), dtype)
    t = numpy.asarray(rs.randint(-1, 2, shape), numpy.int32)
    return y, t


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    y, t = _inputs(shape, dtype)
    acc = binary_accuracy(chainlite.Variable(y), t)
    assert acc.dtype == dtype and acc.shape == ()
    valid = t != -1
    expected = ((y >= 0) == t)[valid].mean() if valid.any() else 0.0
    numpy.testing.assert_allclose(acc.array, expected, rtol=1e-3)


def test_all_ignored_is_zero():
    assert binary_accuracy(numpy.ones(2), numpy.array([-1, -1])).array == 0


def test_outside_the_graph():
    acc = binary_accuracy(chainlite.Variable(numpy.array([1.0, -1.0])), numpy.array([1, 1]))
    assert acc.creator is None and not acc.requires_grad
    assert acc.array == 0.5


@pytest.mark.parametrize('y, t', [(numpy.zeros(3), numpy.zeros(2, numpy.int32)),
                                  (numpy.zeros(3), numpy.zeros(3)),
                                  (numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.int32))])
def test_invalid_types(y, t):
    msg = re.escape('Invalid operation is performed in: BinaryAccuracy (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        binary_accuracy(y, t)
