"""L.ConvolutionND, L.Convolution1D, L.Convolution3D: shapes, lazy forms, forward/backward."""
import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import initializers
from chainlite.utils import type_check


def _uniform(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


@pytest.mark.parametrize('make, W_shape', [
    (lambda: L.ConvolutionND(2, 3, 4, 3), (4, 3, 3, 3)),
    (lambda: L.ConvolutionND(3, 4, 6, (1, 2, 3), groups=2), (6, 2, 1, 2, 3)),
    (lambda: L.Convolution1D(3, 4, 3), (4, 3, 3)),
    (lambda: L.Convolution3D(3, 4, 3), (4, 3, 3, 3, 3)),
])
def test_shapes_and_defaults(make, W_shape):
    conv = make()
    assert conv.W.shape == W_shape and conv.b.shape == (W_shape[0],)
    assert conv.W.dtype == np.float32 and conv.b.dtype == np.float32
    assert isinstance(conv.W.initializer, initializers.LeCunNormal)
    np.testing.assert_array_equal(conv.b.array, 0)
    assert [n for n, _ in conv.namedparams()] == ['/W', '/b']


def test_attributes_and_str_as_chainer():
    conv = L.ConvolutionND(2, 3, 4, 3, stride=2)
    assert conv.ksize == (3, 3) and conv.stride == 2 and conv.dilate == (1, 1)
    assert str(conv) == 'ConvolutionND()'
    assert str(L.Convolution1D(3, 4, 3)) == 'Convolution1D()'


@pytest.mark.parametrize('make', [lambda: L.ConvolutionND(1, None, 4, 3),
                                  lambda: L.ConvolutionND(1, 4, 3),
                                  lambda: L.Convolution1D(None, 4, 3)])
def test_lazy_initialization_and_shorthand(make):
    conv = make()
    assert conv.W.array is None and conv.b.shape == (4,)
    y = conv(np.zeros((2, 5, 6), np.float32))
    assert conv.W.shape == (4, 5, 3) and y.shape == (2, 4, 4)


@pytest.mark.parametrize('ndim, kwargs', [(1, {'stride': 2, 'pad': 1, 'cover_all': True}),
                                          (2, {'dilate': 2}), (3, {'groups': 2})])
def test_forward_equals_function(ndim, kwargs):
    groups = kwargs.get('groups', 1)
    W = _uniform(4, 4 // groups, *(2,) * ndim, seed=1)
    b = _uniform(4, seed=2)
    conv = L.ConvolutionND(ndim, 4, 4, 2, initialW=W, initial_bias=b, **kwargs)
    x = _uniform(2, 4, *(5,) * ndim)
    expected = F.convolution_nd(x, W, b, **kwargs)
    np.testing.assert_array_equal(conv(x).array, expected.array)


def test_backward_gives_parameter_grads():
    conv = L.Convolution1D(1, 2, 2, initialW=_uniform(2, 1, 2))
    conv.cleargrads()
    x = _uniform(3, 1, 4)
    F.sum(conv(x)).backward()
    expected = [x[:, 0, 0:3].sum(), x[:, 0, 1:4].sum()]
    np.testing.assert_allclose(conv.W.grad, np.broadcast_to(np.reshape(expected, (1, 2)),
                                                            (2, 1, 2)), rtol=1e-5)
    np.testing.assert_array_equal(conv.b.grad, np.full(2, 9, np.float32))


def test_nobias_initializers_and_dtypes():
    conv = L.Convolution3D(1, 2, 1, nobias=True, initialW=2.0)
    assert conv.b is None and [n for n, _ in conv.namedparams()] == ['/W']
    np.testing.assert_array_equal(conv(np.ones((1, 1, 2, 2, 2), np.float32)).array, 2)
    conv = L.Convolution1D(1, 2, 1, initialW=initializers.Normal(dtype=np.float64))
    assert conv.W.dtype == np.float64
    with chainlite.using_config('dtype', np.float16):
        conv = L.ConvolutionND(2, 1, 2, 1)
    assert conv.W.dtype == np.float16 and conv.b.dtype == np.float16


@pytest.mark.parametrize('cls, ndim', [(L.ConvolutionND, 2), (L.Convolution1D, 1)])
def test_from_params(cls, ndim):
    W, b = _uniform(4, 1, *(2,) * ndim), _uniform(4)
    conv = cls.from_params(W, b, pad=1, groups=2)
    assert type(conv) is cls and conv.groups == 2 and conv.pad == 1
    np.testing.assert_array_equal(conv.W.array, W)
    np.testing.assert_array_equal(conv.b.array, b)
    with pytest.raises(ValueError, match='from_params'):
        cls.from_params(W, np.zeros(3))


def test_errors():
    with pytest.raises(ValueError, match='ConvolutionND: ksize must be an int or 2 ints'):
        L.ConvolutionND(2, 3, 4, (3, 3, 3))
    with pytest.raises(ValueError, match='Convolution1D: in_channels=3 is not divisible'):
        L.Convolution1D(3, 4, 3, groups=2)
    with pytest.raises(type_check.InvalidType):
        L.Convolution1D(3, 4, 3)(np.zeros((1, 5, 8), np.float32))
