"""deconvolution_2d against a per-tap scatter loop: stride, pad, outsize, dilate, groups."""
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
    ((2, 3, 3, 4), (3, 2, 2, 2), {}),
    ((1, 2, 3, 2), (2, 3, 3, 2), dict(stride=(2, 1), pad=(1, 0))),
    ((2, 1, 3, 3), (1, 2, 3, 3), dict(stride=2, outsize=(6, 7))),    # h needs cover_all
    ((1, 2, 3, 3), (2, 2, 2, 3), dict(stride=3, pad=1, outsize=(7, 8))),
    ((1, 2, 3, 4), (2, 2, 2, 3), dict(dilate=(2, 1), pad=1)),
    ((2, 4, 3, 3), (4, 3, 3, 3), dict(groups=2, stride=2, pad=1)),
    ((1, 4, 2, 3), (4, 1, 3, 3), dict(groups=4, stride=2, dilate=2, outsize=(6, 9))),  # cover_all
    ((2, 3, 2, 2), (3, 5, 1, 1), {}),
]
IDS = ['plain', 'stride pad', 'outsize cover_all', 'outsize', 'dilate', 'groups',
       'depthwise outsize', '1x1']


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Deconvolution is bilinear in (x, W): smooth everywhere, any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def _tuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _reference(x, W, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1):
    # Adds x[n, ci, pos] * W[ci, co, tap] at output position pos * s + tap * d - p.
    x, W = x.astype(numpy.float64), W.astype(numpy.float64)
    nd = x.ndim - 2
    s, p, d = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
    size, ksize = x.shape[2:], W.shape[2:]
    if outsize is None:
        outsize = tuple(s[i] * (size[i] - 1) + (ksize[i] - 1) * d[i] + 1 - 2 * p[i]
                        for i in range(nd))
    cg, og = W.shape[0] // groups, W.shape[1]
    y = numpy.zeros((x.shape[0], og * groups) + tuple(outsize))
    for ci in range(W.shape[0]):
        g = ci // cg
        for pos in itertools.product(*[range(n) for n in size]):
            for tap in itertools.product(*[range(k) for k in ksize]):
                idx = tuple(pos[i] * s[i] + tap[i] * d[i] - p[i] for i in range(nd))
                if all(0 <= idx[i] < outsize[i] for i in range(nd)):
                    y[(slice(None), slice(g * og, (g + 1) * og)) + idx] += numpy.outer(
                        x[(slice(None), ci) + pos], W[(ci, slice(None)) + tap])
    if b is not None:
        y += b.astype(numpy.float64).reshape((1, -1) + (1,) * nd)
    return y


def _inputs(x_shape, W_shape, groups=1, dtype=numpy.float64):
    return (_uniform(x_shape, dtype), _uniform(W_shape, dtype, 1),
            _uniform(W_shape[1] * groups, dtype, 2))


def _groups(kwargs):
    return kwargs.get('groups', 1)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_forward(x_shape, W_shape, kwargs, dtype):
    x, W, b = _inputs(x_shape, W_shape, _groups(kwargs), dtype)
    y = deconvolution_2d(chainlite.Variable(x), chainlite.Variable(W), chainlite.Variable(b),
                         **kwargs)
    expected = _reference(x, W, b, **kwargs)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_forward_without_bias(x_shape, W_shape, kwargs):
    x, W, _ = _inputs(x_shape, W_shape, _groups(kwargs))
    numpy.testing.assert_allclose(deconvolution_2d(x, W, **kwargs).array,
                                  _reference(x, W, **kwargs), atol=1e-12)


@pytest.mark.parametrize('with_bias', [True, False])
@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_backward(x_shape, W_shape, kwargs, with_bias):
    x, W, b = _inputs(x_shape, W_shape, _groups(kwargs))
    inputs = (x, W, b) if with_bias else (x, W)
    gy = _uniform(_reference(x, W, **kwargs).shape, seed=3)
    gradient_check.check_backward(lambda *a: deconvolution_2d(*a, **kwargs), inputs, (gy,))


@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_double_backward(x_shape, W_shape, kwargs):
    x, W, b = _inputs(x_shape, W_shape, _groups(kwargs))
    gy = _uniform(_reference(x, W, **kwargs).shape, seed=3)
    ggs = (_uniform(x.shape, seed=4), _uniform(W.shape, seed=5), _uniform(b.shape, seed=6))
    gradient_check.check_double_backward(
        lambda *a: deconvolution_2d(*a, **kwargs), (x, W, b), (gy,), ggs)


@pytest.mark.parametrize('x_shape, W_shape, kwargs', CASES, ids=IDS)
def test_transpose_of_the_convolution(x_shape, W_shape, kwargs):
    # <deconv(x), z> == <x, conv(z)>, with cover_all where outsize asks for it.
    x, W, _ = _inputs(x_shape, W_shape, _groups(kwargs))
    y = deconvolution_2d(x, W, **kwargs)
    z = _uniform(y.shape, seed=3)
    options = {k: v for k, v in kwargs.items() if k in ('stride', 'pad', 'dilate', 'groups')}
    for cover_all in (False, True):
        gz = convolution_2d(z, W, cover_all=cover_all, **options)
        if gz.shape == x.shape:
            break
    assert gz.shape == x.shape
    numpy.testing.assert_allclose((y.array * z).sum(), (x * gz.array).sum(), rtol=1e-12)


def test_output_size_formula():
    # h_O = s (h_I - 1) + k - 2 p
    y = deconvolution_2d(numpy.ones((2, 3, 5, 10)), numpy.ones((3, 4, 10, 10)),
                         stride=5, pad=5)
    assert y.shape == (2, 4, 20, 45)


def test_empty_batch():
    x = chainlite.Variable(numpy.zeros((0, 2, 3, 3)))
    W, b = chainlite.Variable(_uniform((2, 3, 2, 2))), chainlite.Variable(_uniform(3))
    y = deconvolution_2d(x, W, b, stride=2)
    assert y.shape == (0, 3, 6, 6)
    y.grad = numpy.zeros(y.shape)
    y.backward()
    assert x.grad.shape == x.shape
    numpy.testing.assert_array_equal(W.grad, numpy.zeros(W.shape))


def test_strided_views_as_inputs():
    x_full, W_full = _uniform((3, 2, 2, 6)), _uniform((2, 3, 2, 4), seed=1)
    x, W = x_full.transpose(2, 1, 0, 3)[:, :, ::-1], W_full[:, :, :, ::2]
    numpy.testing.assert_allclose(deconvolution_2d(x, W, pad=1, stride=2).array,
                                  _reference(x, W, pad=1, stride=2), atol=1e-12)


def test_float32_in_float32_out():
    x, W, b = (chainlite.Variable(a) for a in _inputs((2, 4, 3, 3), (4, 3, 3, 3), 2,
                                                       numpy.float32))
    y = deconvolution_2d(x, W, b, stride=2, pad=1, groups=2)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == W.grad.dtype == b.grad.dtype == numpy.float32
    assert x.grad.shape == x.shape and W.grad.shape == W.shape and b.grad.shape == (6,)


def test_arrays_and_variables_accepted():
    x, W, b = _inputs((1, 2, 2, 2), (2, 3, 2, 2))
    expected = _reference(x, W, b)
    for args in ((x, W, b), (chainlite.Variable(x), W, b), (x, chainlite.Variable(W), b)):
        y = deconvolution_2d(*args)
        assert isinstance(y, chainlite.Variable)
        numpy.testing.assert_allclose(y.array, expected, atol=1e-12)


def test_dilate_and_groups_are_keyword_only():
    x, W, _ = _inputs((1, 2, 2, 2), (2, 3, 2, 2))
    with pytest.raises(TypeError):
        deconvolution_2d(x, W, None, 1, 0, None, 1)


@pytest.mark.parametrize('x, W, b, kwargs', [
    (numpy.ones((1, 2, 3)), numpy.ones((2, 2, 2, 2)), None, {}),
    (numpy.ones((1, 3, 3, 3)), numpy.ones((2, 2, 2, 2)), None, {}),
    (numpy.ones((1, 3, 3, 3)), numpy.ones((3, 2, 2, 2)), None, dict(groups=2)),
    (numpy.ones((1, 2, 3, 3)), numpy.ones((2, 2, 2, 2)), numpy.ones(3), {}),
    (numpy.ones((1, 4, 3, 3)), numpy.ones((4, 2, 2, 2)), numpy.ones(2), dict(groups=2)),
    (numpy.ones((1, 2, 3, 3), numpy.int32), numpy.ones((2, 2, 2, 2), numpy.int32), None, {}),
    (numpy.ones((1, 2, 3, 3), numpy.float32), numpy.ones((2, 2, 2, 2), numpy.int32), None, {}),
    (numpy.ones((1, 2, 3, 3)), numpy.ones((2, 2, 2, 2)), None, dict(outsize=(5, 4))),
    (numpy.ones((1, 2, 3, 3)), numpy.ones((2, 2, 2, 2)), None, dict(outsize=(4, 3))),
    (numpy.ones((1, 2, 1, 1)), numpy.ones((2, 2, 1, 1)), None, dict(pad=1)),
], ids=['x 3-d', 'channels', 'in channels not in groups', 'bias length',
        'bias length with groups', 'int', 'W dtype', 'outsize too large',
        'outsize too small', 'empty output'])
def test_invalid_inputs(x, W, b, kwargs):
    msg = re.escape('Invalid operation is performed in: Deconvolution2DFunction (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        deconvolution_2d(x, W, b, **kwargs)


@pytest.mark.parametrize('kwargs', [dict(stride=0), dict(pad=-1), dict(dilate=(1, 0)),
                                    dict(groups=0), dict(outsize=(4,)), dict(outsize=(0, 4))])
def test_bad_parameters_are_value_errors(kwargs):
    with pytest.raises(ValueError, match='deconvolution_2d'):
        deconvolution_2d(numpy.ones((1, 1, 3, 3)), numpy.ones((1, 1, 2, 2)), **kwargs)
