"""L.DepthwiseConvolution2D: shapes, lazy bias, channel order, forward/backward, errors."""
import math

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import initializers
from chainlite.utils import type_check


def _uniform(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def test_shapes_and_defaults():
    conv = L.DepthwiseConvolution2D(3, 2, 3)
    assert conv.W.shape == (2, 3, 3, 3) and conv.b.shape == (6,)
    assert conv.W.dtype == np.float32 and conv.b.dtype == np.float32
    # Chainer's default: HeNormal with scale 1/sqrt(2).
    assert isinstance(conv.W.initializer, initializers.HeNormal)
    assert conv.W.initializer.scale == pytest.approx(1 / math.sqrt(2))
    np.testing.assert_array_equal(conv.b.array, 0)
    assert [n for n, _ in conv.namedparams()] == ['/W', '/b']
    assert str(conv) == 'DepthwiseConvolution2D()'


def test_lazy_initialization_creates_W_and_b():
    conv = L.DepthwiseConvolution2D(None, 3, 2)
    assert conv.W.array is None and conv.b.array is None
    y = conv(np.zeros((1, 2, 4, 4), np.float32))
    assert conv.W.shape == (3, 2, 2, 2) and conv.b.shape == (6,) and y.shape == (1, 6, 3, 3)


def test_forward_is_per_channel_convolution():
    m, c = 2, 3
    W, b = _uniform(m, c, 3, 3, seed=1), _uniform(c * m, seed=2)
    conv = L.DepthwiseConvolution2D(c, m, 3, stride=2, pad=1, initialW=W, initial_bias=b)
    x = _uniform(2, c, 7, 7)
    y = conv(x)
    assert y.shape == (2, c * m, 4, 4)
    for ci in range(c):
        for k in range(m):
            expected = F.convolution_2d(x[:, ci:ci + 1], W[k:k + 1, ci:ci + 1], stride=2, pad=1)
            np.testing.assert_allclose(y.array[:, ci * m + k], expected.array[:, 0]
                                       + b[ci * m + k], rtol=1e-5, atol=1e-6)


def test_backward_gives_parameter_grads():
    conv = L.DepthwiseConvolution2D(2, 2, 1, initialW=_uniform(2, 2, 1, 1))
    conv.cleargrads()
    x = _uniform(3, 2, 2, 2)
    F.sum(conv(x)).backward()
    np.testing.assert_allclose(conv.W.grad[:, :, 0, 0], np.tile(x.sum(axis=(0, 2, 3)), (2, 1)),
                               rtol=1e-5)
    np.testing.assert_array_equal(conv.b.grad, np.full(4, 12, np.float32))


def test_nobias_initializers_and_dtypes():
    conv = L.DepthwiseConvolution2D(None, 2, 1, nobias=True, initialW=2.0)
    assert conv.b is None and [n for n, _ in conv.namedparams()] == ['/W']
    np.testing.assert_array_equal(conv(np.ones((1, 1, 2, 2), np.float32)).array, 2)
    conv = L.DepthwiseConvolution2D(2, 2, 1, initial_bias=np.arange(4.0))
    assert conv.b.array.tolist() == [0, 1, 2, 3]
    with chainlite.using_config('dtype', np.float64):
        conv = L.DepthwiseConvolution2D(2, 2, 1)
    assert conv.W.dtype == np.float64 and conv.b.dtype == np.float64


def test_errors():
    with pytest.raises(ValueError, match=r'DepthwiseConvolution2D: initial_bias .*\(6,\)'):
        L.DepthwiseConvolution2D(3, 2, 1, initial_bias=np.zeros(3))
    with pytest.raises(type_check.InvalidType):
        L.DepthwiseConvolution2D(3, 2, 1)(np.zeros((1, 4, 2, 2), np.float32))
