"""average_pooling_nd: 1-d, 2-d and 3-d windows, pad_value, gradients, dtypes, errors."""
import itertools
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.pooling.average_pooling_nd import average_pooling_nd
from chainlite.utils import type_check

# (input shape, ksize, stride, pad)
CASES = [
    ((2, 3, 7), 2, None, 0),
    ((2, 3, 7), 3, 2, 1),
    ((2, 2, 6), 6, None, 0),                       # one window over the whole axis
    ((1, 2, 4, 5), (2, 3), (2, 1), (0, 1)),
    ((1, 2, 4, 4, 4), 2, None, 0),
    ((1, 2, 5, 4, 3), (3, 2, 2), (2, 1, 2), (1, 0, 1)),
    ((1, 1, 4, 4, 4), 3, 1, 1),                    # 27 offsets: the large-window path
    ((1, 1, 6, 6, 6), 3, None, 0),                 # large tiling windows
]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _tuple(v, n):
    return tuple(v) if isinstance(v, tuple) else (v,) * n


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Averaging is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _reference(x, ksize, stride, pad, pad_value):
    # One window at a time: the sum over the zero-padded window, divided by the window size
    # or by the number of input elements in it.
    nd = x.ndim - 2
    k, p = _tuple(ksize, nd), _tuple(pad, nd)
    s = k if stride is None else _tuple(stride, nd)
    out = tuple((d + 2 * pi - ki) // si + 1 for d, ki, si, pi in zip(x.shape[2:], k, s, p))
    inner = (Ellipsis,) + tuple(slice(pi, pi + d) for pi, d in zip(p, x.shape[2:]))
    padded = numpy.zeros(x.shape[:2] + tuple(d + 2 * pi for d, pi in zip(x.shape[2:], p)))
    padded[inner] = x
    ones = numpy.zeros(padded.shape[2:])
    ones[inner[1:]] = 1
    y = numpy.empty(x.shape[:2] + out)
    for o in itertools.product(*[range(n) for n in out]):
        win = tuple(slice(oi * si, oi * si + ki) for oi, si, ki in zip(o, s, k))
        total = padded[(Ellipsis,) + win].sum(axis=tuple(range(2, 2 + nd)))
        count = numpy.prod(k) if pad_value == 0 else ones[win].sum()
        y[(Ellipsis,) + o] = total / count
    return y


@pytest.mark.parametrize('pad_value', [0, None])
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, ksize, stride, pad', CASES)
def test_forward(shape, ksize, stride, pad, dtype, pad_value):
    x = _uniform(shape, dtype)
    y = average_pooling_nd(chainlite.Variable(x), ksize, stride, pad, pad_value)
    expected = _reference(x.astype(numpy.float64), ksize, stride, pad, pad_value)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('pad_value', [0, None])
@pytest.mark.parametrize('shape, ksize, stride, pad', CASES)
def test_backward(shape, ksize, stride, pad, pad_value):
    x = _uniform(shape)
    gy = _uniform(_reference(x, ksize, stride, pad, 0).shape, seed=1)
    gradient_check.check_backward(
        lambda x: average_pooling_nd(x, ksize, stride, pad, pad_value), (x,), (gy,))


@pytest.mark.parametrize('pad_value', [0, None])
@pytest.mark.parametrize('shape, ksize, stride, pad', CASES)
def test_double_backward(shape, ksize, stride, pad, pad_value):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(_reference(x, ksize, stride, pad, 0).shape, seed=1)
    gradient_check.check_double_backward(
        lambda x: average_pooling_nd(x * x, ksize, stride, pad, pad_value), (x,), (gy,),
        (ggx,))


@pytest.mark.parametrize('pad_value', [0, None])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept_in_forward_and_backward(dtype, pad_value):
    x = chainlite.Variable(_uniform((2, 2, 5, 5, 5), dtype))
    y = average_pooling_nd(x, 3, 2, 1, pad_value)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype
    gx, = chainlite.grad([y], [x], enable_double_backprop=True)
    assert gx.dtype == dtype


def test_array_input():
    x = _uniform((2, 3, 6))
    y = average_pooling_nd(x, 3)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, x.reshape(2, 3, 2, 3).mean(axis=-1))


_MSG = re.escape('Invalid operation is performed in: AveragePoolingND (Forward)')


@pytest.mark.parametrize('shape', [(4,), (2, 4)])
def test_no_spatial_axis_is_invalid(shape):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        average_pooling_nd(numpy.ones(shape), 2)


def test_non_float_input_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        average_pooling_nd(numpy.ones((1, 1, 4, 4), numpy.int32), 2)


def test_window_larger_than_input_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        average_pooling_nd(numpy.ones((1, 1, 3)), 4)


@pytest.mark.parametrize('kwargs', [{'ksize': (2, 2)}, {'ksize': 0}, {'ksize': 2, 'pad': -1},
                                    {'ksize': 2, 'pad_value': 1}])
def test_bad_arguments_are_value_errors(kwargs):
    with pytest.raises(ValueError, match='AveragePoolingND'):
        average_pooling_nd(numpy.ones((1, 1, 4, 4, 4)), **kwargs)
