"""L.Convolution2D: parameter shapes, lazy and short forms, forward/backward, groups, errors."""
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
    conv = L.Convolution2D(3, 4, 3)
    assert conv.W.shape == (4, 3, 3, 3) and conv.b.shape == (4,)
    assert conv.W.dtype == np.float32 and conv.b.dtype == np.float32
    assert isinstance(conv.W.initializer, initializers.LeCunNormal)
    np.testing.assert_array_equal(conv.b.array, np.zeros(4, np.float32))
    assert (conv.stride, conv.pad, conv.dilate, conv.groups) == ((1, 1), (0, 0), (1, 1), 1)


def test_rectangular_kernel_and_groups():
    conv = L.Convolution2D(6, 4, (2, 3), groups=2)
    assert conv.W.shape == (4, 3, 2, 3)


def test_namedparams_and_str_match_chainer():
    conv = L.Convolution2D(3, 4, 3)
    assert [n for n, _ in conv.namedparams()] == ['/W', '/b']
    assert str(conv) == ('Convolution2D(in_channels=3, out_channels=4, ksize=3, stride=(1, 1), '
                         'pad=(0, 0), nobias=False, dilate=(1, 1), groups=1)')
    assert [n for n, _ in L.Convolution2D(3, 4, 3, nobias=True).namedparams()] == ['/W']


@pytest.mark.parametrize('make', [lambda: L.Convolution2D(None, 4, 3),
                                  lambda: L.Convolution2D(4, 3)])
def test_lazy_initialization_and_shorthand(make):
    conv = make()
    assert conv.in_channels is None and conv.out_channels == 4 and conv.ksize == 3
    assert conv.W.array is None and conv.b.shape == (4,)
    y = conv(np.zeros((2, 5, 6, 6), np.float32))
    assert conv.W.shape == (4, 5, 3, 3) and y.shape == (2, 4, 4, 4)


def test_shorthand_with_keyword_arguments():
    conv = L.Convolution2D(4, 3, stride=2, pad=1, nobias=True)
    y = conv(np.zeros((1, 2, 6, 6), np.float32))
    assert conv.b is None and y.shape == (1, 4, 3, 3)


@pytest.mark.parametrize('kwargs', [{}, {'stride': (1, 2), 'pad': 1},
                                    {'dilate': 2, 'pad': (2, 1)}, {'groups': 2}])
def test_forward_equals_function(kwargs):
    groups = kwargs.get('groups', 1)
    W, b = _uniform(4, 4 // groups, 3, 3, seed=1), _uniform(4, seed=2)
    conv = L.Convolution2D(4, 4, 3, initialW=W, initial_bias=b, **kwargs)
    x = _uniform(2, 4, 7, 7)
    expected = F.convolution_2d(x, W, b, conv.stride, conv.pad, dilate=conv.dilate,
                                groups=groups)
    np.testing.assert_array_equal(conv(x).array, expected.array)


def test_backward_gives_parameter_grads():
    conv = L.Convolution2D(2, 3, 2, initialW=_uniform(3, 2, 2, 2))
    conv.cleargrads()
    x = _uniform(2, 2, 4, 4)
    F.sum(conv(x)).backward()
    # Each filter tap sees, summed over the 3 x 3 positions and the batch, one shifted window.
    expected = np.stack([x[:, :, i:i + 3, j:j + 3].sum(axis=(0, 2, 3))
                         for i in range(2) for j in range(2)], axis=-1).reshape(2, 2, 2)
    np.testing.assert_allclose(conv.W.grad, np.broadcast_to(expected, (3, 2, 2, 2)),
                               rtol=1e-5)
    np.testing.assert_array_equal(conv.b.grad, np.full(3, 18, np.float32))


def test_initializers_and_dtypes():
    conv = L.Convolution2D(1, 2, 2, initialW=1.0, initial_bias=np.array([1.0, 2.0]))
    np.testing.assert_array_equal(conv.W.array, np.ones((2, 1, 2, 2), np.float32))
    assert conv.b.dtype == np.float32 and conv.b.array.tolist() == [1, 2]
    conv = L.Convolution2D(1, 2, 2, initialW=initializers.Normal(dtype=np.float64))
    assert conv.W.dtype == np.float64
    with chainlite.using_config('dtype', np.float16):
        conv = L.Convolution2D(1, 2, 2)
    assert conv.W.dtype == np.float16 and conv.b.dtype == np.float16


def test_from_params():
    W, b = _uniform(6, 1, 2, 3), _uniform(6)
    conv = L.Convolution2D.from_params(W, b, stride=2, groups=3)
    assert (conv.in_channels, conv.out_channels, conv.ksize) == (3, 6, (2, 3))
    assert conv.stride == (2, 2) and conv.groups == 3
    np.testing.assert_array_equal(conv.W.array, W)
    np.testing.assert_array_equal(conv.b.array, b)
    with pytest.raises(ValueError, match='Convolution2D.from_params'):
        L.Convolution2D.from_params(W, np.zeros(3))


def test_errors():
    with pytest.raises(ValueError, match='Convolution2D: in_channels=3 is not divisible by '
                                         'groups=2'):
        L.Convolution2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match='Convolution2D: out_channels=3'):
        L.Convolution2D(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match='Convolution2D: stride must be an int or 2 ints'):
        L.Convolution2D(3, 4, 3, stride=(1, 1, 1))
    with pytest.raises(ValueError, match=r'Convolution2D: initialW .*\(4, 3, 3, 3\)'):
        L.Convolution2D(3, 4, 3, initialW=np.ones((4, 3, 2, 2)))
    with pytest.raises(ValueError, match='Convolution2D: the input must have'):
        L.Convolution2D(4, 3)(np.zeros(3, np.float32))
    with pytest.raises(TypeError):
        L.Convolution2D(3, 4, 3, 1, 0, False, None, None, 2)   # dilate is keyword-only


def test_wrong_input_channels_is_a_type_error():
    with pytest.raises(type_check.InvalidType, match='x.shape'):
        L.Convolution2D(3, 4, 3)(np.zeros((1, 5, 4, 4), np.float32))


def test_npz_round_trip_initializes_a_lazy_layer(tmp_path):
    from chainlite import serializers
    source = L.Convolution2D(3, 4, 2)
    serializers.save_npz(str(tmp_path / 'conv.npz'), source)
    target = L.Convolution2D(4, 2)
    serializers.load_npz(str(tmp_path / 'conv.npz'), target)
    np.testing.assert_array_equal(target.W.array, source.W.array)
    x = np.ones((1, 3, 3, 3), np.float32)
    np.testing.assert_array_equal(target(x).array, source(x).array)


def test_str_shows_inferred_in_channels_after_the_first_call():
    conv = L.Convolution2D(None, 4, 3, groups=2)
    assert 'in_channels=None' in str(conv)
    conv(np.ones((1, 6, 5, 5), np.float32))
    assert str(conv).startswith('Convolution2D(in_channels=6, out_channels=4, ksize=3')
