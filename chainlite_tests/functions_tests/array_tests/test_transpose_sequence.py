"""transpose_sequence: element t of every sequence into output t, and back."""
import re

import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.functions.array.transpose_sequence import transpose_sequence
from chainlite.utils import type_check

# Sequence shapes, longest first.
CASES = [[(3,), (2,), (1,)],
         [(3,), (3,)],
         [(2, 3), (2, 3), (1, 3)],
         [(4, 2, 2), (1, 2, 2)],
         [(3, 2), (1, 2), (0, 2)],   # an empty sequence
         [(2,)]]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Transposition is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _inputs(shapes, dtype=numpy.float64, seed=0):
    return tuple(_uniform(s, dtype, seed + i) for i, s in enumerate(shapes))


def _expected(xs):
    return [numpy.stack([x[t] for x in xs if len(x) > t]) for t in range(len(xs[0]))]


def _grads(xs, seed=10):
    return tuple(_uniform(e.shape, seed=seed + i) for i, e in enumerate(_expected(xs)))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shapes', CASES)
def test_forward(shapes, dtype):
    xs = _inputs(shapes, dtype)
    ys = transpose_sequence([chainlite.Variable(x) for x in xs])
    expected = _expected(xs)
    assert isinstance(ys, tuple) and len(ys) == len(expected)
    for y, e in zip(ys, expected):
        assert y.dtype == dtype
        numpy.testing.assert_array_equal(y.array, e)


@pytest.mark.parametrize('shapes', CASES)
def test_twice_gives_the_sequences_back(shapes):
    xs = _inputs(shapes)
    back = transpose_sequence(transpose_sequence(xs))
    for x, b in zip(xs, back):
        numpy.testing.assert_array_equal(b.array, x)


@pytest.mark.parametrize('shapes', CASES)
def test_backward(shapes):
    xs = _inputs(shapes)
    gradient_check.check_backward(lambda *xs: transpose_sequence(xs), xs, _grads(xs))


@pytest.mark.parametrize('shapes', CASES)
def test_double_backward(shapes):
    xs, ggxs = _inputs(shapes), _inputs(shapes, seed=20)
    gys = _grads(xs)
    gradient_check.check_double_backward(lambda *xs: transpose_sequence(xs), xs, gys, ggxs)
    gradient_check.check_double_backward(
        lambda *xs: transpose_sequence([x * x for x in xs]), xs, gys, ggxs)


def test_unused_outputs_get_zero_gradients():
    xs = [chainlite.Variable(x) for x in _inputs([(3,), (2,)])]
    ys = transpose_sequence(xs)
    F.sum(ys[1]).backward()
    numpy.testing.assert_array_equal(xs[0].grad, [0.0, 1.0, 0.0])
    numpy.testing.assert_array_equal(xs[1].grad, [0.0, 1.0])
    xs = _inputs([(3, 2), (2, 2), (0, 2)])
    gys = (None, _uniform((2, 2)), None)
    gradient_check.check_backward(lambda *xs: transpose_sequence(xs), xs, gys)


@pytest.mark.parametrize('xs', [[], [numpy.zeros(0), numpy.zeros(0)]], ids=['none', 'empty'])
def test_no_elements_give_no_outputs(xs):
    assert transpose_sequence(xs) == ()


def test_float32_in_float32_out():
    xs = [chainlite.Variable(x) for x in _inputs([(3,), (1,)], numpy.float32)]
    ys = transpose_sequence(xs)
    assert all(y.dtype == numpy.float32 for y in ys)
    F.sum(ys[0]).backward()  # ys[1], ys[2] unused: their zeros must be float32 too
    assert all(x.grad.dtype == numpy.float32 for x in xs)


def test_arrays_variables_lists_and_tuples():
    a, b = _inputs([(2,), (1,)])
    for xs in ([a, b], (a, b), [chainlite.Variable(a), b]):
        ys = transpose_sequence(xs)
        assert all(isinstance(y, chainlite.Variable) for y in ys)
        numpy.testing.assert_array_equal(ys[0].array, [a[0], b[0]])


_MSG = re.escape('Invalid operation is performed in: TransposeSequence (Forward)')


@pytest.mark.parametrize('xs', [
    [numpy.zeros(1), numpy.zeros(2)],                     # not sorted by length
    [numpy.zeros((2, 3)), numpy.zeros((2, 2))],           # other axes differ
    [numpy.zeros(2), numpy.zeros(2, numpy.float32)],      # dtypes differ
    [numpy.zeros(())],                                     # 0-d: no length
], ids=['unsorted', 'shape', 'dtype', '0-d'])
def test_invalid_inputs(xs):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        transpose_sequence(xs)
