"""convolution_2d against a per-tap loop: stride, pad, cover_all, dilate, groups, bias."""
import itertools
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.connection.convolution_2d import convolution_2d
from chainlite.functions.connection.deconvolution_2d import deconvolution_2d
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 2e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}
# (x.shape, W.shape, keyword arguments)
CASES = [
    ((2, 3, 4, 5), (4, 3, 2, 2), {}),
    ((1, 2, 5, 6), (3, 2, 3, 2), dict(stride=(2, 1), pad=(1, 2))),
    ((2, 1, 5, 4), (2, 1, 3, 3), dict(stride=2, cover_all=True)),
    ((1, 2, 6, 7), (2, 2, 2, 3), dict(dilate=(2, 1), pad=1)),
    ((2, 4, 4, 4), (6, 2, 3, 3), dict(groups=2, pad=1)),
    ((1, 4, 5, 5), (4, 1, 3, 3), dict(groups=4, stride=2, dilate=2, pad=2, cover_all=True)),
    ((2, 3, 3, 3), (5, 3, 1, 1), {}),
    ((1, 2, 3, 3), (2, 2, 3, 3), dict(stride=[2, 2], pad=[0, 0])),
]
IDS = ['plain', 'stride pad', 'cover_all', 'dilate', 'groups', 'depthwise all', '1x1',
       'whole image']


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
    y = convolution_2d(chainlite.Variable(x), chainlite.Variable(W), chainlite.Variable(b),
                       **kwargs)
    expected = _reference(x, W, b, **kwargs)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_forward_without_bias(x_shape, W_shape, kwargs):
    x, W, _ = _inputs(x_shape, W_shape)
    numpy.testing.assert_allclose(convolution_2d(x, W, **kwargs).array,
                                  _reference(x, W, **kwargs), atol=1e-12)


@pytest.mark.parametrize('with_bias', [True, False])
@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_backward(x_shape, W_shape, kwargs, with_bias):
    x, W, b = _inputs(x_shape, W_shape)
    inputs = (x, W, b) if with_bias else (x, W)
    gy = _uniform(_reference(x, W, **kwargs).shape, seed=3)
    gradient_check.check_backward(lambda *a: convolution_2d(*a, **kwargs), inputs, (gy,))


@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_double_backward(x_shape, W_shape, kwargs):
    x, W, b = _inputs(x_shape, W_shape)
    gy = _uniform(_reference(x, W, **kwargs).shape, seed=3)
    ggs = (_uniform(x.shape, seed=4), _uniform(W.shape, seed=5), _uniform(b.shape, seed=6))
    gradient_check.check_double_backward(
        lambda *a: convolution_2d(*a, **kwargs), (x, W, b), (gy,), ggs)


@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_input_gradient_is_the_deconvolution(x_shape, W_shape, kwargs):
    # <conv(x), gy> == <x, deconv(gy)>: the two are each other's transpose.
    x, W, _ = _inputs(x_shape, W_shape)
    y = convolution_2d(x, W, **kwargs)
    gy = _uniform(y.shape, seed=3)
    options = {k: v for k, v in kwargs.items() if k in ('stride', 'pad', 'dilate', 'groups')}
    gx = deconvolution_2d(gy, W, outsize=x.shape[2:], **options)
    numpy.testing.assert_allclose((y.array * gy).sum(), (x * gx.array).sum(), rtol=1e-12)


def test_empty_batch():
    x = chainlite.Variable(numpy.zeros((0, 2, 4, 4)))
    W, b = chainlite.Variable(_uniform((3, 2, 2, 2))), chainlite.Variable(_uniform(3))
    y = convolution_2d(x, W, b, pad=1)
    assert y.shape == (0, 3, 5, 5)
    y.grad = numpy.zeros(y.shape)
    y.backward()
    assert x.grad.shape == x.shape
    numpy.testing.assert_array_equal(W.grad, numpy.zeros(W.shape))


def test_strided_views_as_inputs():
    # A reversed, transposed x and a non-contiguous W, as other ops may hand them over.
    x_full, W_full = _uniform((5, 3, 2, 6)), _uniform((4, 3, 2, 4), seed=1)
    x, W = x_full.transpose(2, 1, 0, 3)[:, :, ::-1], W_full[:, :, :, ::2]
    numpy.testing.assert_allclose(convolution_2d(x, W, pad=1, stride=2).array,
                                  _reference(x, W, pad=1, stride=2), atol=1e-12)


def test_float32_in_float32_out():
    x, W, b = (chainlite.Variable(a) for a in _inputs((2, 4, 5, 5), (6, 2, 3, 3),
                                                       numpy.float32))
    y = convolution_2d(x, W, b, stride=2, pad=1, groups=2)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == W.grad.dtype == b.grad.dtype == numpy.float32
    assert x.grad.shape == x.shape and W.grad.shape == W.shape


def test_filter_gradient_again_after_backward():
    # backward drops the patches it kept from forward; a second gradient recomputes them.
    x, W, b = (chainlite.Variable(a) for a in _inputs((2, 3, 5, 5), (4, 3, 3, 3)))
    y = convolution_2d(x, W, b, pad=1)
    gy = _uniform(y.shape, seed=3)
    y.grad = gy
    y.backward()
    first = W.grad.copy()
    gW, = chainlite.grad([y], [W], [chainlite.Variable(gy)])
    numpy.testing.assert_allclose(gW.array, first, rtol=1e-12)


def test_gradients_of_a_2x2_example():
    x = chainlite.Variable(numpy.arange(9.0).reshape(1, 1, 3, 3))
    W = chainlite.Variable(numpy.ones((1, 1, 2, 2)))
    y = convolution_2d(x, W)
    y.grad = numpy.ones(y.shape)
    y.backward()
    numpy.testing.assert_array_equal(x.grad[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])
    numpy.testing.assert_array_equal(W.grad[0, 0], [[8, 12], [20, 24]])


def test_arrays_and_variables_accepted():
    x, W, b = _inputs((1, 2, 3, 3), (2, 2, 2, 2))
    expected = _reference(x, W, b)
    for args in ((x, W, b), (chainlite.Variable(x), W, b), (x, chainlite.Variable(W), b)):
        y = convolution_2d(*args)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, expected, atol=1e-12)


def test_dilate_and_groups_are_keyword_only():
    x, W, _ = _inputs((1, 2, 3, 3), (2, 2, 2, 2))
    with pytest.raises(TypeError):
        convolution_2d(x, W, None, 1, 0, False, 1)


@pytest.mark.parametrize('x, W, b, kwargs', [
    (numpy.ones((1, 2, 3)), numpy.ones((2, 2, 2, 2)), None, {}),
    (numpy.ones((1, 3, 3, 3)), numpy.ones((2, 2, 2, 2)), None, {}),
    (numpy.ones((1, 4, 3, 3)), numpy.ones((3, 2, 2, 2)), None, dict(groups=2)),
    (numpy.ones((1, 3, 3, 3)), numpy.ones((2, 1, 2, 2)), None, dict(groups=2)),
    (numpy.ones((1, 2, 3, 3)), numpy.ones((2, 2, 2, 2)), numpy.ones(3), {}),
    (numpy.ones((1, 2, 3, 3)), numpy.ones((2, 2, 2, 2)), numpy.ones((2, 1)), {}),
    (numpy.ones((1, 2, 3, 3), numpy.int32), numpy.ones((2, 2, 2, 2), numpy.int32), None, {}),
    (numpy.ones((1, 2, 3, 3), numpy.float32), numpy.ones((2, 2, 2, 2), numpy.int32), None, {}),
    (numpy.ones((1, 2, 3, 3)), numpy.ones((2, 2, 2, 2)), numpy.ones(2, numpy.int32), {}),
    (numpy.ones((1, 2, 2, 3)), numpy.ones((2, 2, 3, 3)), None, {}),
    (numpy.ones((1, 2, 5, 4)), numpy.ones((2, 2, 3, 3)), None, dict(dilate=2)),
], ids=['x 3-d', 'channels', 'out channels not in groups', 'in channels per group',
        'bias length', 'bias 2-d', 'int', 'W int', 'b int', 'filter taller than image',
        'dilated filter too wide'])
def test_invalid_inputs(x, W, b, kwargs):
    msg = re.escape('Invalid operation is performed in: Convolution2DFunction (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        convolution_2d(x, W, b, **kwargs)


@pytest.mark.parametrize('kwargs', [dict(stride=0), dict(pad=-1), dict(dilate=(1, 0)),
                                    dict(groups=0), dict(stride=(1, 2, 3))])
def test_bad_parameters_are_value_errors(kwargs):
    with pytest.raises(ValueError, match='convolution_2d'):
        convolution_2d(numpy.ones((1, 1, 4, 4)), numpy.ones((1, 1, 2, 2)), **kwargs)
