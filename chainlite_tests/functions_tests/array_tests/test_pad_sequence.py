"""pad_sequence: sequences of different lengths padded into one array."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.pad_sequence import pad_sequence
from chainlite.utils import type_check

# (sequence shapes, length)
CASES = [([(3,), (1,), (2,)], None),
         ([(3,), (1,), (2,)], 5),
         ([(2, 3), (4, 3)], None),
         ([(2, 3, 2), (0, 3, 2)], 3),   # an empty sequence
         ([(2,)], None),
         ([(2,), (2,)], 2)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Padding is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _inputs(shapes, dtype=numpy.float64, seed=0):
    return tuple(_uniform(s, dtype, seed + i) for i, s in enumerate(shapes))


def _expected(xs, length, padding):
    length = max(len(x) for x in xs) if length is None else length
    y = numpy.full((len(xs), length) + xs[0].shape[1:], padding, xs[0].dtype)
    for i, x in enumerate(xs):
        y[i, :len(x)] = x
    return y


@pytest.mark.parametrize('padding', [0, -1.5])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes, length', CASES)
def test_forward(shapes, length, dtype, padding):
    xs = _inputs(shapes, dtype)
    y = pad_sequence([chainlite.Variable(x) for x in xs], length, padding)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, _expected(xs, length, padding))


@pytest.mark.parametrize('shapes, length', CASES)
def test_backward(shapes, length):
    xs = _inputs(shapes)
    gy = _uniform(_expected(xs, length, 0).shape, seed=10)
    gradient_check.check_backward(lambda *xs: pad_sequence(xs, length, 2.0), xs, gy)


@pytest.mark.parametrize('shapes, length', CASES)
def test_double_backward(shapes, length):
    xs, ggxs = _inputs(shapes), _inputs(shapes, seed=20)
    gy = _uniform(_expected(xs, length, 0).shape, seed=10)
    gradient_check.check_double_backward(lambda *xs: pad_sequence(xs, length), xs, gy, ggxs)
    gradient_check.check_double_backward(
        lambda *xs: pad_sequence([x * x for x in xs], length), xs, gy, ggxs)


def test_padding_gets_no_gradient():
    a, b = chainlite.Variable(numpy.zeros(2)), chainlite.Variable(numpy.zeros(1))
    y = pad_sequence([a, b], 3)
    y.grad = numpy.arange(6.0).reshape(2, 3)
    y.backward()
    numpy.testing.assert_array_equal(a.grad, [0.0, 1.0])
    numpy.testing.assert_array_equal(b.grad, [3.0])


def test_float32_in_float32_out():
    xs = [chainlite.Variable(x) for x in _inputs([(2,), (3,)], numpy.float32)]
    y = pad_sequence(xs, padding=0.5)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert all(x.grad.dtype == numpy.float32 for x in xs)


def test_arrays_variables_lists_and_tuples():
    a, b = _inputs([(2,), (3,)])
    for xs in ([a, b], (a, b), [chainlite.Variable(a), b]):
        y = pad_sequence(xs)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_array_equal(y.array, _expected((a, b), None, 0))


_MSG = re.escape('Invalid operation is performed in: PadSequence (Forward)')


@pytest.mark.parametrize('xs, length', [
    ([numpy.zeros((2, 3)), numpy.zeros((2, 2))], None),           # other axes differ
    ([numpy.zeros(2), numpy.zeros(2, numpy.float32)], None),       # dtypes differ
    ([numpy.zeros(()), numpy.zeros(())], None),                    # 0-d: no length
    ([numpy.zeros(3), numpy.zeros(1)], 2),                         # longer than length
    ([], None),
], ids=['shape', 'dtype', '0-d', 'length', 'empty'])
def test_invalid_inputs(xs, length):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        pad_sequence(xs, length)


@pytest.mark.parametrize('dtype, expected', [(numpy.uint8, 255), (numpy.uint16, 65535),
                                             (numpy.uint32, 2 ** 32 - 1), (numpy.int8, -1)])
def test_out_of_range_padding_wraps_around_as_numpy_1_did(dtype, expected):
    y = pad_sequence([numpy.array([1, 2], dtype), numpy.array([3], dtype)], padding=-1)
    assert y.dtype == dtype
    assert int(y.array[1, 1]) == expected
