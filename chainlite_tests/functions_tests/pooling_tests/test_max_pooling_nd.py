"""max_pooling_nd: 1-d, 2-d and 3-d windows, indexes, gradients, dtypes, errors."""
import itertools
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlite.functions.pooling.max_pooling_nd import max_pooling_nd
from chainlite.utils import type_check

# (input shape, ksize, stride, pad, cover_all)
CASES = [
    ((2, 3, 7), 2, None, 0, True),
    ((2, 3, 7), 3, 2, 1, False),
    ((2, 2, 6), 6, None, 0, True),                       # one window over the whole axis
    ((1, 2, 4, 5), (2, 3), (2, 1), (0, 1), True),
    ((1, 2, 4, 4, 4), 2, None, 0, True),
    ((1, 2, 5, 4, 3), (3, 2, 2), (2, 1, 2), (1, 0, 0), True),
    ((1, 1, 4, 4, 4), 3, 1, 1, False),                   # 27 offsets: the large-window path
    ((1, 1, 6, 6, 6), 3, None, 0, False),                # large tiling windows
]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _tuple(v, n):
    return tuple(v) if isinstance(v, tuple) else (v,) * n


def _distinct(shape, dtype=numpy.float64, seed=0):
    # Distinct values 1/8 apart, exact in float16: no ties, so the argmax (a kink of max) does
    # not move under the finite differences of the gradient checks.
    size = int(numpy.prod(shape))
    values = numpy.random.RandomState(seed).permutation(size) - size // 2
    return (values / 8.0).reshape(shape).astype(dtype)


def _uniform(shape, seed=1):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _reference(x, ksize, stride, pad, cover_all):
    # One window at a time, with -inf padding.
    nd = x.ndim - 2
    k, p = _tuple(ksize, nd), _tuple(pad, nd)
    s = k if stride is None else _tuple(stride, nd)
    out = tuple((d + 2 * pi + (si - 1 if cover_all else 0) - ki) // si + 1
                for d, ki, si, pi in zip(x.shape[2:], k, s, p))
    padded = numpy.full(x.shape[:2] + tuple(d + 2 * pi + si for d, pi, si in
                                            zip(x.shape[2:], p, s)), -numpy.inf)
    padded[(Ellipsis,) + tuple(slice(pi, pi + d) for pi, d in zip(p, x.shape[2:]))] = x
    y = numpy.empty(x.shape[:2] + out)
    index = numpy.empty(x.shape[:2] + out, numpy.intp)
    for o in itertools.product(*[range(n) for n in out]):
        win = padded[(Ellipsis,) + tuple(slice(oi * si, oi * si + ki)
                                         for oi, si, ki in zip(o, s, k))]
        win = win.reshape(x.shape[:2] + (-1,))
        y[(Ellipsis,) + o] = win.max(axis=-1)
        index[(Ellipsis,) + o] = win.argmax(axis=-1)
    return y, index


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', CASES)
def test_forward(shape, ksize, stride, pad, cover_all, dtype):
    x = _distinct(shape, dtype)
    y, indexes = max_pooling_nd(chainlite.Variable(x), ksize, stride, pad, cover_all,
                                return_indices=True)
    expected, expected_index = _reference(x.astype(numpy.float64), ksize, stride, pad,
                                          cover_all)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, expected.astype(dtype))
    numpy.testing.assert_array_equal(indexes, expected_index)


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', CASES)
def test_backward(shape, ksize, stride, pad, cover_all):
    x = _distinct(shape)
    gy = _uniform(_reference(x, ksize, stride, pad, cover_all)[0].shape)
    gradient_check.check_backward(
        lambda x: max_pooling_nd(x, ksize, stride, pad, cover_all), (x,), (gy,))


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', CASES)
def test_double_backward(shape, ksize, stride, pad, cover_all):
    x = _distinct(shape)
    gy = _uniform(_reference(x, ksize, stride, pad, cover_all)[0].shape)
    ggx = _uniform(shape, seed=2)
    # Positive inputs, where squaring creates no ties.
    gradient_check.check_double_backward(
        lambda x: max_pooling_nd(x * x, ksize, stride, pad, cover_all), (x - x.min() + 1,),
        (gy,), (ggx,))


def test_2d_agrees_with_max_pooling_2d():
    x = _distinct((2, 3, 7, 6))
    a, ia = max_pooling_nd(x, 3, 2, 1, return_indices=True)
    b, ib = max_pooling_2d(x, 3, 2, 1, return_indices=True)
    numpy.testing.assert_array_equal(a.array, b.array)
    numpy.testing.assert_array_equal(ia, ib)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept_in_forward_and_backward(dtype):
    x = chainlite.Variable(_distinct((2, 2, 4, 4, 4), dtype))
    y = max_pooling_nd(x, 2)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype


def test_array_input():
    x = _distinct((2, 3, 6))
    y = max_pooling_nd(x, 3)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x.reshape(2, 3, 2, 3).max(axis=-1))


_MSG = re.escape('Invalid operation is performed in: MaxPoolingND (Forward)')


@pytest.mark.parametrize('shape', [(4,), (2, 4)])
def test_no_spatial_axis_is_invalid(shape):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        max_pooling_nd(numpy.ones(shape), 2)


def test_non_float_input_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        max_pooling_nd(numpy.ones((1, 1, 4, 4, 4), numpy.int32), 2)


def test_window_larger_than_input_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        max_pooling_nd(numpy.ones((1, 1, 3)), 4, cover_all=False)


def test_ksize_of_the_wrong_length_is_a_value_error():
    with pytest.raises(ValueError, match='MaxPoolingND'):
        max_pooling_nd(numpy.ones((1, 1, 4, 4, 4)), (2, 2))
