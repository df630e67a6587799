"""vstack: as numpy.vstack, for 0-d to 3-d inputs; each gradient is its slice of gy."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.vstack import vstack
from chainlite.utils import type_check

# Lists of input shapes, of each ndim numpy.vstack treats apart.
CASES = [[(), ()], [(), (), ()], [(3,), (3,)], [(2,)], [(2, 3), (1, 3)], [(2, 1, 2), (3, 1, 2)],
         [()], [(2, 3)], [(2, 3, 4), (1, 3, 4), (2, 3, 4)]]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Concatenation is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _inputs(shapes, dtype=numpy.float64, seed=0):
    return tuple(_uniform(s, dtype, seed + i) for i, s in enumerate(shapes))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', CASES)
def test_forward(shapes, dtype):
    xs = _inputs(shapes, dtype)
    y = vstack([chainlite.Variable(x) for x in xs])
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.vstack(xs))


@pytest.mark.parametrize('shapes', CASES)
def test_backward(shapes):
    xs = _inputs(shapes)
    gy = _uniform(numpy.vstack(xs).shape, seed=10)
    gradient_check.check_backward(lambda *xs: vstack(xs), xs, gy)


@pytest.mark.parametrize('shapes', CASES)
def test_double_backward(shapes):
    xs, ggxs = _inputs(shapes), _inputs(shapes, seed=20)
    gy = _uniform(numpy.vstack(xs).shape, seed=10)
    gradient_check.check_double_backward(lambda *xs: vstack(xs), xs, gy, ggxs)
    gradient_check.check_double_backward(lambda *xs: vstack([x * x for x in xs]), xs, gy, ggxs)


def test_float32_in_float32_out():
    xs = [chainlite.Variable(x) for x in _inputs([(2, 2), (2, 2)], numpy.float32)]
    y = vstack(xs)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(x.grad.dtype == numpy.float32 for x in xs)


def test_arrays_variables_lists_and_tuples():
    a, b = _inputs([(2, 2), (2, 2)])
    for xs in ([a, b], (a, b), [chainlite.Variable(a), b]):
        y = vstack(xs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_array_equal(y.array, numpy.vstack((a, b)))


BAD = [[(2,), (2, 1)], [(3,), (2,)], [(2, 3), (2, 2)], [(2, 1, 2), (2, 1, 3)]]
BAD_IDS = ['ndim', '1-d', '2-d', '3-d']


_MSG = re.escape('Invalid operation is performed in: Vstack (Forward)')


@pytest.mark.parametrize('shapes', BAD, ids=BAD_IDS)
def test_invalid_shapes(shapes):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        vstack([numpy.zeros(s) for s in shapes])


def test_invalid_dtypes():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        vstack([numpy.zeros((2, 2)), numpy.zeros((2, 2), numpy.float32)])


def test_empty_list_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        vstack([])
