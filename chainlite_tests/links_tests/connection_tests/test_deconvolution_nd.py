"""L.DeconvolutionND, L.Deconvolution1D, L.Deconvolution3D: shapes, lazy forms, forward."""
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
    (lambda: L.DeconvolutionND(2, 3, 4, 3), (3, 4, 3, 3)),
    (lambda: L.DeconvolutionND(3, 4, 6, (1, 2, 3), groups=2), (4, 3, 1, 2, 3)),
    (lambda: L.Deconvolution1D(3, 4, 3), (3, 4, 3)),
    (lambda: L.Deconvolution3D(3, 4, 3), (3, 4, 3, 3, 3)),
])
def test_shapes_and_defaults(make, W_shape):
    deconv = make()
    assert deconv.W.shape == W_shape and deconv.b.shape == (deconv.out_channels,)
    assert deconv.W.dtype == np.float32 and deconv.b.dtype == np.float32
    assert isinstance(deconv.W.initializer, initializers.LeCunNormal)
    np.testing.assert_array_equal(deconv.b.array, 0)
    assert [n for n, _ in deconv.namedparams()] == ['/W', '/b']
    assert str(deconv) == type(deconv).__name__ + '()'


@pytest.mark.parametrize('make', [lambda: L.DeconvolutionND(1, None, 4, 3),
                                  lambda: L.DeconvolutionND(1, 4, 3),
                                  lambda: L.Deconvolution1D(None, 4, 3)])
def test_lazy_initialization_and_shorthand(make):
    deconv = make()
    assert deconv.W.array is None
    y = deconv(np.zeros((2, 5, 6), np.float32))
    assert deconv.W.shape == (5, 4, 3) and y.shape == (2, 4, 8)


@pytest.mark.parametrize('ndim, kwargs', [(1, {'stride': 2, 'pad': 1}),
                                          (1, {'stride': 2, 'outsize': (9,)}),
                                          (2, {'dilate': 2}), (3, {'groups': 2})])
def test_forward_equals_function(ndim, kwargs):
    groups = kwargs.get('groups', 1)
    W = _uniform(4, 4 // groups, *(2,) * ndim, seed=1)
    b = _uniform(4, seed=2)
    deconv = L.DeconvolutionND(ndim, 4, 4, 2, initialW=W, initial_bias=b, **kwargs)
    x = _uniform(2, 4, *(4,) * ndim)
    expected = F.deconvolution_nd(x, W, b, **kwargs)
    y = deconv(x)
    if 'outsize' in kwargs:
        assert y.shape[2:] == kwargs['outsize']
    np.testing.assert_array_equal(y.array, expected.array)


def test_backward_gives_parameter_grads():
    deconv = L.Deconvolution1D(2, 3, 2, stride=2, initialW=_uniform(2, 3, 2))
    deconv.cleargrads()
    x = _uniform(2, 2, 3)
    F.sum(deconv(x)).backward()
    expected = np.broadcast_to(x.sum(axis=(0, 2))[:, None, None], (2, 3, 2))
    np.testing.assert_allclose(deconv.W.grad, expected, rtol=1e-5)
    np.testing.assert_array_equal(deconv.b.grad, np.full(3, 12, np.float32))


def test_nobias_and_dtypes():
    deconv = L.Deconvolution3D(1, 2, 1, nobias=True, initialW=3.0)
    assert deconv.b is None
    np.testing.assert_array_equal(deconv(np.ones((1, 1, 1, 1, 1), np.float32)).array, 3)
    with chainlite.using_config('dtype', np.float64):
        assert L.DeconvolutionND(2, 1, 2, 1).b.dtype == np.float64


def test_errors():
    with pytest.raises(ValueError, match='DeconvolutionND: ksize must be an int or 2 ints'):
        L.DeconvolutionND(2, 3, 4, (3, 3, 3))
    with pytest.raises(ValueError, match='Deconvolution1D: out_channels=3 is not divisible'):
        L.Deconvolution1D(4, 3, 3, groups=2)
    with pytest.raises(type_check.InvalidType):
        L.Deconvolution1D(3, 4, 3)(np.zeros((1, 5, 8), np.float32))
