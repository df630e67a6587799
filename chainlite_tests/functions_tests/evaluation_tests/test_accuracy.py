"""accuracy: argmax over axis 1 against the labels, with and without ignore_label."""
import re

import numpy
import pytest

import chainlite
from chainlite.functions.evaluation.accuracy import accuracy
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
# (y shape, t shape): the class axis is 1; trailing length-1 axes of y are allowed.
SHAPES = [((5, 3), (5,)), ((4, 3, 2), (4, 2)), ((2, 4, 2, 3), (2, 2, 3)), ((5, 3, 1), (5,))]
MSG = re.escape('Invalid operation is performed in: Accuracy (Forward)')


def _inputs(y_shape, t_shape, dtype=numpy.float64, seed=0):
    # Distinct scores: no ties in the argmax.
    rs = numpy.random.RandomState(seed)
    y = rs.permutation(numpy.prod(y_shape)).reshape(y_shape).astype(dtype)
    t = rs.randint(0, y_shape[1], t_shape).astype(numpy.int32)
    return y, t


def _pred(y, t):
    return y.argmax(axis=1).reshape(t.shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('y_shape, t_shape', SHAPES)
def test_forward(y_shape, t_shape, dtype):
    y, t = _inputs(y_shape, t_shape, dtype)
    t.ravel()[::2] = _pred(y, t).ravel()[::2]  # some hits for sure
    acc = accuracy(chainlite.Variable(y), t)
    assert acc.dtype == dtype and acc.shape == ()
    numpy.testing.assert_allclose(acc.array, (_pred(y, t) == t).mean(), rtol=1e-3)


@pytest.mark.parametrize('y_shape, t_shape', SHAPES)
def test_ignore_label(y_shape, t_shape):
    y, t = _inputs(y_shape, t_shape)
    t.ravel()[::3] = -1
    valid = t != -1
    acc = accuracy(y, t, ignore_label=-1)
    numpy.testing.assert_allclose(acc.array, (_pred(y, t) == t)[valid].mean())


def test_all_ignored_is_zero():
    acc = accuracy(numpy.zeros((2, 3)), numpy.array([-1, -1]), ignore_label=-1)
    assert acc.array == 0


def test_outside_the_graph():
    y = chainlite.Variable(numpy.eye(3))
    acc = accuracy(y, numpy.array([0, 1, 1]))
    assert acc.creator is None and not acc.requires_grad
    numpy.testing.assert_allclose(acc.array, 2 / 3)


def test_float32_in_float32_out():
    y, t = _inputs((5, 3), (5,), numpy.float32)
    assert accuracy(y, t).dtype == numpy.float32


@pytest.mark.parametrize('y, t', [(numpy.zeros((3, 2)), numpy.zeros(2, numpy.int32)),
                                  (numpy.zeros((3, 2)), numpy.zeros(3)),
                                  (numpy.zeros((3, 2), numpy.int32), numpy.zeros(3, numpy.int32)),
                                  (numpy.zeros((3, 2, 2)), numpy.zeros((3, 3), numpy.int32)),
                                  (numpy.zeros((3, 2, 2)), numpy.zeros(3, numpy.int32))])
def test_invalid_types(y, t):
    with pytest.raises(type_check.InvalidType, match=MSG):
        accuracy(y, t)
