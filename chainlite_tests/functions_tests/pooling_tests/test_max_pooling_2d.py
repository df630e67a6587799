"""max_pooling_2d: windows, strides, padding, cover_all, indexes, gradients, dtypes, errors."""
import itertools
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.pooling.max_pooling_2d import max_pooling_2d
from chainlite.utils import type_check

# (input shape, ksize, stride, pad, cover_all)
CASES = [
    ((2, 3, 6, 8), 2, None, 0, True),             # non-overlapping, divisible
    ((2, 3, 7, 5), 2, None, 0, True),             # cover_all adds a partial last window
    ((2, 3, 7, 5), 2, None, 0, False),            # ... which is dropped without it
    ((1, 2, 7, 6), 3, 2, 1, True),                # overlapping windows with padding
    ((1, 2, 7, 6), 3, 2, 1, False),
    ((1, 2, 5, 6), (2, 3), (1, 2), (1, 0), True),  # rectangular everything
    ((2, 1, 4, 4), 3, 1, 1, False),               # stride 1, "same" size
    ((2, 2, 6, 6), 6, None, 0, False),            # global pooling: a large window
    ((1, 2, 8, 7), 6, 2, 1, True),                # large overlapping windows
    ((1, 1, 11, 10), 6, None, 1, False),          # large tiling windows with padding
    ((1, 1, 11, 11), 6, None, 0, True),           # ... running into the cover_all padding
]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 1e-3, 'rtol': 1e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _distinct(shape, dtype=numpy.float64, seed=0):
    # Distinct values 1/8 apart, exact in float16: no ties, so the argmax (a kink of max) does
    # not move under the finite differences of the gradient checks.
    size = int(numpy.prod(shape))
    values = numpy.random.RandomState(seed).permutation(size) - size // 2
    return (values / 8.0).reshape(shape).astype(dtype)


def _uniform(shape, seed=1):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def _reference(x, ksize, stride, pad, cover_all):
    # One window at a time: the plain definition, with -inf padding.
    (kh, kw), (ph, pw) = _pair(ksize), _pair(pad)
    sy, sx = (kh, kw) if stride is None else _pair(stride)
    n, c, h, w = x.shape
    extra_h, extra_w = (sy - 1, sx - 1) if cover_all else (0, 0)
    oh = (h + 2 * ph - kh + extra_h) // sy + 1
    ow = (w + 2 * pw - kw + extra_w) // sx + 1
    padded = numpy.full((n, c, h + 2 * ph + sy, w + 2 * pw + sx), -numpy.inf)
    padded[:, :, ph:ph + h, pw:pw + w] = x
    y = numpy.empty((n, c, oh, ow))
    index = numpy.empty((n, c, oh, ow), numpy.intp)
    for i, j in itertools.product(range(oh), range(ow)):
        win = padded[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw].reshape(n, c, -1)
        y[:, :, i, j] = win.max(axis=-1)
        index[:, :, i, j] = win.argmax(axis=-1)
    return y, index


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', CASES)
def test_forward(shape, ksize, stride, pad, cover_all, dtype):
    x = _distinct(shape, dtype)
    y, indexes = max_pooling_2d(chainlite.Variable(x), ksize, stride, pad, cover_all,
                                return_indices=True)
    expected, expected_index = _reference(x.astype(numpy.float64), ksize, stride, pad,
                                          cover_all)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])
    assert indexes.dtype == numpy.intp
    numpy.testing.assert_array_equal(indexes, expected_index)


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', CASES)
def test_backward(shape, ksize, stride, pad, cover_all):
    x = _distinct(shape)
    y_shape = _reference(x, ksize, stride, pad, cover_all)[0].shape
    gradient_check.check_backward(
        lambda x: max_pooling_2d(x, ksize, stride, pad, cover_all), (x,),
        (_uniform(y_shape),))


@pytest.mark.parametrize('shape, ksize, stride, pad, cover_all', CASES)
def test_double_backward(shape, ksize, stride, pad, cover_all):
    x = _distinct(shape)
    y_shape = _reference(x, ksize, stride, pad, cover_all)[0].shape
    gy, ggx = _uniform(y_shape), _uniform(shape, seed=2)
    gradient_check.check_double_backward(
        lambda x: max_pooling_2d(x, ksize, stride, pad, cover_all), (x,), (gy,), (ggx,))
    # Inside a nonlinear expression the second-order terms of x * x must flow through (on
    # positive inputs, where squaring creates no ties).
    gradient_check.check_double_backward(
        lambda x: max_pooling_2d(x * x, ksize, stride, pad, cover_all), (x - x.min() + 1,),
        (gy,), (ggx,))


def test_gradient_goes_to_the_maximum_only():
    x = chainlite.Variable(numpy.array([[[[1.0, 5.0, 2.0, 0.0],
                                          [3.0, 4.0, 8.0, 6.0]]]]))
    y = max_pooling_2d(x, 2)
    y.grad = numpy.array([[[[10.0, 20.0]]]])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[[[0.0, 10.0, 0.0, 0.0],
                                                 [0.0, 0.0, 20.0, 0.0]]]])


def test_overlapping_windows_add_up_their_gradients():
    # The 9 sits in all four 2x2 windows of a 3x3 input at stride 1.
    x = chainlite.Variable(numpy.array([[[[1.0, 2.0, 3.0],
                                          [4.0, 9.0, 5.0],
                                          [6.0, 7.0, 8.0]]]]))
    y = max_pooling_2d(x, 2, stride=1)
    y.grad = numpy.array([[[[1.0, 2.0], [4.0, 8.0]]]])
    y.backward()
    assert x.grad[0, 0, 1, 1] == 15.0
    assert numpy.count_nonzero(x.grad) == 1


def test_ties_go_to_the_first_maximum():
    x = chainlite.Variable(numpy.ones((1, 1, 2, 2), numpy.float32))
    y, indexes = max_pooling_2d(x, 2, return_indices=True)
    assert indexes.item() == 0
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [[[[1.0, 0.0], [0.0, 0.0]]]])


def test_padding_never_wins():
    x = -numpy.ones((1, 1, 2, 2))
    numpy.testing.assert_array_equal(max_pooling_2d(x, 2, stride=1, pad=1).array,
                                     -numpy.ones((1, 1, 3, 3)))


def test_stride_defaults_to_ksize():
    x = _distinct((1, 2, 6, 6))
    numpy.testing.assert_array_equal(max_pooling_2d(x, 3).array,
                                     max_pooling_2d(x, 3, stride=3).array)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32])
def test_dtype_is_kept_in_forward_and_backward(dtype):
    x = chainlite.Variable(_distinct((2, 3, 6, 6), dtype))
    y = max_pooling_2d(x, 3, stride=2, pad=1)
    assert y.dtype == dtype
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == dtype
    gx, = chainlite.grad([y], [x], enable_double_backprop=True)
    assert gx.dtype == dtype


def test_array_input_and_variable_input_agree():
    x = _distinct((2, 3, 4, 4))
    y = max_pooling_2d(x, 2)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, max_pooling_2d(chainlite.Variable(x), 2).array)


def test_keyword_arguments():
    x = _distinct((1, 1, 5, 5))
    y, indexes = max_pooling_2d(x, ksize=3, stride=2, pad=1, cover_all=False,
                                return_indices=True)
    assert y.shape == indexes.shape == (1, 1, 3, 3)


_MSG = re.escape('Invalid operation is performed in: MaxPooling2D (Forward)')


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        max_pooling_2d(numpy.ones((1, 1, 4, 4), dtype), 2)


@pytest.mark.parametrize('shape', [(4, 4), (1, 4, 4), (1, 1, 1, 4, 4)])
def test_wrong_ndim_is_invalid(shape):
    with pytest.raises(type_check.InvalidType, match=_MSG):
        max_pooling_2d(numpy.ones(shape), 2)


def test_window_larger_than_input_is_invalid():
    with pytest.raises(type_check.InvalidType, match=_MSG):
        max_pooling_2d(numpy.ones((1, 1, 3, 3)), 4, cover_all=False)


@pytest.mark.parametrize('kwargs', [{'ksize': 0}, {'ksize': 2, 'stride': 0},
                                    {'ksize': 2, 'pad': -1}, {'ksize': (2, 2, 2)}])
def test_bad_window_arguments_are_value_errors(kwargs):
    with pytest.raises(ValueError, match='MaxPooling2D'):
        max_pooling_2d(numpy.ones((1, 1, 4, 4)), **kwargs)
