"""L.DilatedConvolution2D: shapes, lazy and short forms, forward/backward, errors."""
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
    conv = L.DilatedConvolution2D(3, 4, 3, dilate=2)
    assert conv.W.shape == (4, 3, 3, 3) and conv.b.shape == (4,)
    assert conv.W.dtype == np.float32
    assert isinstance(conv.W.initializer, initializers.LeCunNormal)
    np.testing.assert_array_equal(conv.b.array, 0)
    assert (conv.stride, conv.pad, conv.dilate) == ((1, 1), (0, 0), (2, 2))
    assert [n for n, _ in conv.namedparams()] == ['/W', '/b']
    assert str(conv) == 'DilatedConvolution2D()'


@pytest.mark.parametrize('make', [lambda: L.DilatedConvolution2D(None, 4, 3, dilate=2),
                                  lambda: L.DilatedConvolution2D(4, 3, dilate=2)])
def test_lazy_initialization_and_shorthand(make):
    conv = make()
    assert conv.W.array is None
    y = conv(np.zeros((1, 2, 7, 7), np.float32))
    assert conv.W.shape == (4, 2, 3, 3) and y.shape == (1, 4, 3, 3)


def test_positional_order_is_chainers():
    # (in_channels, out_channels, ksize, stride, pad, dilate, nobias, ...)
    conv = L.DilatedConvolution2D(1, 2, 3, 1, 2, 2, True)
    assert conv.pad == (2, 2) and conv.dilate == (2, 2) and conv.b is None


def test_forward_equals_dilated_convolution():
    W, b = _uniform(3, 2, 3, 3, seed=1), _uniform(3, seed=2)
    conv = L.DilatedConvolution2D(2, 3, 3, stride=(1, 2), pad=2, dilate=(2, 1),
                                  initialW=W, initial_bias=b)
    x = _uniform(2, 2, 8, 8)
    expected = F.convolution_2d(x, W, b, (1, 2), 2, dilate=(2, 1))
    np.testing.assert_array_equal(conv(x).array, expected.array)


def test_backward_gives_parameter_grads():
    conv = L.DilatedConvolution2D(1, 1, 2, dilate=2, initialW=_uniform(1, 1, 2, 2))
    conv.cleargrads()
    x = _uniform(1, 1, 4, 4)
    F.sum(conv(x)).backward()
    # Tap (i, j) sees x[2i:2i+2, 2j:2j+2].
    expected = [[x[0, 0, 2 * i:2 * i + 2, 2 * j:2 * j + 2].sum() for j in range(2)]
                for i in range(2)]
    np.testing.assert_allclose(conv.W.grad[0, 0], expected, rtol=1e-5)
    np.testing.assert_array_equal(conv.b.grad, [4])


def test_dtypes_and_errors():
    with chainlite.using_config('dtype', np.float16):
        conv = L.DilatedConvolution2D(1, 2, 2)
    assert conv.W.dtype == np.float16 and conv.b.dtype == np.float16
    with pytest.raises(ValueError, match='DilatedConvolution2D: initialW'):
        L.DilatedConvolution2D(1, 2, 2, initialW=np.ones((3, 3)))
    with pytest.raises(type_check.InvalidType):
        L.DilatedConvolution2D(3, 4, 3)(np.zeros((1, 2, 5, 5), np.float32))
