"""L.Deconvolution2D: parameter shapes, lazy and short forms, outsize, forward/backward."""
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
    deconv = L.Deconvolution2D(3, 4, 3)
    assert deconv.W.shape == (3, 4, 3, 3) and deconv.b.shape == (4,)
    assert deconv.W.dtype == np.float32
    assert isinstance(deconv.W.initializer, initializers.LeCunNormal)
    np.testing.assert_array_equal(deconv.b.array, np.zeros(4, np.float32))
    assert deconv.outsize == (None, None)
    assert L.Deconvolution2D(4, 6, 3, groups=2).W.shape == (4, 3, 3, 3)


def test_namedparams_and_str_match_chainer():
    assert [n for n, _ in L.Deconvolution2D(3, 4, 3).namedparams()] == ['/W', '/b']
    assert [n for n, _ in L.Deconvolution2D(3, 4, 3, nobias=True).namedparams()] == ['/W']
    assert str(L.Deconvolution2D(3, 4, 3)) == 'Deconvolution2D()'


@pytest.mark.parametrize('make', [lambda: L.Deconvolution2D(None, 4, 2),
                                  lambda: L.Deconvolution2D(4, 2)])
def test_lazy_initialization_and_shorthand(make):
    deconv = make()
    assert deconv.W.array is None and deconv.b.shape == (4,)
    y = deconv(np.zeros((2, 5, 3, 3), np.float32))
    assert deconv.W.shape == (5, 4, 2, 2) and y.shape == (2, 4, 4, 4)


@pytest.mark.parametrize('kwargs', [{}, {'stride': 2, 'pad': 1},
                                    {'stride': 2, 'pad': 1, 'outsize': (10, 9)},
                                    {'dilate': (1, 2)}, {'groups': 2}])
def test_forward_equals_function(kwargs):
    groups = kwargs.get('groups', 1)
    W, b = _uniform(4, 6 // groups, 3, 3, seed=1), _uniform(6, seed=2)
    deconv = L.Deconvolution2D(4, 6, 3, initialW=W, initial_bias=b, **kwargs)
    x = _uniform(2, 4, 5, 5)
    expected = F.deconvolution_2d(x, W, b, deconv.stride, deconv.pad,
                                  kwargs.get('outsize'), dilate=deconv.dilate, groups=groups)
    y = deconv(x)
    if 'outsize' in kwargs:
        assert y.shape[2:] == kwargs['outsize']
    np.testing.assert_array_equal(y.array, expected.array)


def test_backward_gives_parameter_grads():
    deconv = L.Deconvolution2D(2, 3, 2, stride=2, initialW=_uniform(2, 3, 2, 2))
    deconv.cleargrads()
    x = _uniform(2, 2, 3, 3)
    F.sum(deconv(x)).backward()
    # With stride = ksize every output pixel gets one tap: dW[c, o, i, j] = sum of x[:, c].
    expected = np.broadcast_to(x.sum(axis=(0, 2, 3))[:, None, None, None], (2, 3, 2, 2))
    np.testing.assert_allclose(deconv.W.grad, expected, rtol=1e-5)
    np.testing.assert_array_equal(deconv.b.grad, np.full(3, 2 * 6 * 6, np.float32))


def test_nobias_and_initializers():
    deconv = L.Deconvolution2D(1, 2, 2, nobias=True, initialW=1.0)
    assert deconv.b is None
    y = deconv(np.ones((1, 1, 1, 1), np.float32))
    np.testing.assert_array_equal(y.array, np.ones((1, 2, 2, 2), np.float32))
    with chainlite.using_config('dtype', np.float64):
        assert L.Deconvolution2D(1, 2, 2).W.dtype == np.float64


def test_errors():
    with pytest.raises(ValueError, match='Deconvolution2D: in_channels=3 is not divisible'):
        L.Deconvolution2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match=r'Deconvolution2D: initialW .*\(3, 4, 3, 3\)'):
        L.Deconvolution2D(3, 4, 3, initialW=np.ones((4, 3, 3, 3)))
    with pytest.raises(type_check.InvalidType):
        L.Deconvolution2D(3, 4, 3)(np.zeros((1, 5, 4, 4), np.float32))
