"""convolution_nd, convolution_1d and convolution_3d against a per-tap loop."""
import itertools
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.connection.convolution_2d import convolution_2d
from chainlite.functions.connection.convolution_nd import convolution_1d
from chainlite.functions.connection.convolution_nd import convolution_3d
from chainlite.functions.connection.convolution_nd import convolution_nd
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
# (x.shape, W.shape, keyword arguments)
CASES = [
    ((2, 3, 7), (4, 3, 3), {}),
    ((1, 2, 8), (2, 2, 2), dict(stride=3, pad=2, cover_all=True)),
    ((2, 4, 9), (6, 2, 3), dict(dilate=2, groups=2, stride=(2,))),
    ((1, 2, 3, 4, 5), (3, 2, 2, 2, 3), {}),
    ((2, 2, 4, 3, 5), (2, 1, 2, 3, 2), dict(stride=(2, 1, 3), pad=(1, 0, 1), dilate=(1, 1, 2),
                                             groups=2, cover_all=True)),
    ((1, 1, 2, 3, 2, 3), (2, 1, 2, 2, 1, 2), dict(pad=1)),
]
IDS = ['1d', '1d stride pad cover_all', '1d dilate groups', '3d', '3d all', '4d']


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Convolution is bilinear in (x, W): smooth everywhere, any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _reference(x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1, groups=1):
    # Sums x[n, group channel, pos * s + tap * d - p] * W[o, ci, tap] tap by tap, in float64.
    x, W = x.astype(numpy.float64), W.astype(numpy.float64)
    nd = x.ndim - 2
    s, p, d = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
    size, ksize = x.shape[2:], W.shape[2:]
    out = tuple((size[i] + 2 * p[i] - (ksize[i] - 1) * d[i] - 1
                 + (s[i] - 1 if cover_all else 0)) // s[i] + 1 for i in range(nd))
    cg, og = W.shape[1], W.shape[0] // groups
    y = numpy.zeros((x.shape[0], W.shape[0]) + out)
    for o in range(W.shape[0]):
        g = o // og
        for pos in itertools.product(*[range(n) for n in out]):
            for tap in itertools.product(*[range(k) for k in ksize]):
                idx = tuple(pos[i] * s[i] + tap[i] * d[i] - p[i] for i in range(nd))
                if all(0 <= idx[i] < size[i] for i in range(nd)):
                    patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + idx]
                    y[(slice(None), o) + pos] += patch @ W[(o, slice(None)) + tap]
    if b is not None:
        y += b.astype(numpy.float64).reshape((1, -1) + (1,) * nd)
    return y


def _inputs(x_shape, W_shape, dtype=numpy.float64):
    return (_uniform(x_shape, dtype), _uniform(W_shape, dtype, 1),
            _uniform(W_shape[0], dtype, 2))


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_forward(x_shape, W_shape, kwargs, dtype):
    x, W, b = _inputs(x_shape, W_shape, dtype)
    y = convolution_nd(chainlite.Variable(x), chainlite.Variable(W), chainlite.Variable(b),
                       **kwargs)
    expected = _reference(x, W, b, **kwargs)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])
    numpy.testing.assert_allclose(convolution_nd(x, W, **kwargs).array,
                                  _reference(x, W, **kwargs), **TOL[dtype])


@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_backward(x_shape, W_shape, kwargs):
    x, W, b = _inputs(x_shape, W_shape)
    gy = _uniform(_reference(x, W, **kwargs).shape, seed=3)
    gradient_check.check_backward(lambda *a: convolution_nd(*a, **kwargs), (x, W, b), (gy,))
    gradient_check.check_backward(lambda *a: convolution_nd(*a, **kwargs), (x, W), (gy,))


@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_double_backward(x_shape, W_shape, kwargs):
    x, W, b = _inputs(x_shape, W_shape)
    gy = _uniform(_reference(x, W, **kwargs).shape, seed=3)
    ggs = (_uniform(x.shape, seed=4), _uniform(W.shape, seed=5), _uniform(b.shape, seed=6))
    gradient_check.check_double_backward(
        lambda *a: convolution_nd(*a, **kwargs), (x, W, b), (gy,), ggs)


def test_two_spatial_axes_match_convolution_2d():
    x, W, b = _inputs((2, 4, 5, 6), (6, 2, 3, 2))
    kwargs = dict(stride=(2, 1), pad=1, cover_all=True, dilate=(1, 2), groups=2)
    numpy.testing.assert_allclose(convolution_nd(x, W, b, **kwargs).array,
                                  convolution_2d(x, W, b, **kwargs).array, rtol=1e-12)


@pytest.mark.parametrize('func, x_shape, W_shape', [
    (convolution_1d, (2, 3, 7), (4, 3, 3)),
    (convolution_3d, (1, 2, 3, 4, 5), (3, 2, 2, 2, 3)),
])
def test_1d_and_3d_are_convolution_nd(func, x_shape, W_shape):
    x, W, b = _inputs(x_shape, W_shape)
    # Positional arguments in Chainer's order: stride, pad, cover_all, dilate, groups.
    y = func(x, W, b, 2, 1, True, 1, 1)
    numpy.testing.assert_allclose(y.array, _reference(x, W, b, 2, 1, True), atol=1e-12)


@pytest.mark.parametrize('func, x', [(convolution_1d, numpy.ones((1, 1, 3, 3))),
                                     (convolution_3d, numpy.ones((1, 1, 3, 3)))])
def test_1d_and_3d_reject_other_dimensions(func, x):
    with pytest.raises(ValueError, match=func.__name__):
        func(x, numpy.ones((1, 1, 2, 2)))


def test_float32_in_float32_out():
    x, W, b = (chainlite.Variable(a) for a in _inputs((2, 2, 3, 4, 3), (4, 1, 2, 2, 2),
                                                       numpy.float32))
    y = convolution_nd(x, W, b, pad=1, groups=2)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == W.grad.dtype == b.grad.dtype == numpy.float32


def test_arrays_and_variables_accepted():
    x, W, b = _inputs((1, 2, 5), (2, 2, 2))
    expected = _reference(x, W, b)
    for args in ((x, W, b), (chainlite.Variable(x), W, b), (x, chainlite.Variable(W), b)):
        y = convolution_nd(*args)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, expected, atol=1e-12)


@pytest.mark.parametrize('x, W, b', [
    (numpy.ones((1, 2, 5)), numpy.ones((2, 2, 2, 2)), None),
    (numpy.ones((1, 3, 5)), numpy.ones((2, 2, 2)), None),
    (numpy.ones((1, 2, 5)), numpy.ones((2, 2, 2)), numpy.ones(3)),
    (numpy.ones((1, 2, 5), numpy.float32), numpy.ones((2, 2, 2), numpy.int32), None),
    (numpy.ones((1, 2, 2, 2, 2)), numpy.ones((2, 2, 1, 3, 1)), None),
    (numpy.ones((3,)), numpy.ones((2, 2, 2)), None),
], ids=['W ndim', 'channels', 'bias', 'dtype', 'filter too wide', 'x 1-d'])
def test_invalid_inputs(x, W, b):
    msg = re.escape('Invalid operation is performed in: ConvolutionND (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        convolution_nd(x, W, b)


@pytest.mark.parametrize('kwargs', [dict(stride=0), dict(pad=-1), dict(dilate=(1, 0, 1)),
                                    dict(groups=0), dict(stride=(1, 2))])
def test_bad_parameters_are_value_errors(kwargs):
    with pytest.raises(ValueError, match='convolution_nd'):
        convolution_nd(numpy.ones((1, 1, 4, 4, 4)), numpy.ones((1, 1, 2, 2, 2)), **kwargs)
