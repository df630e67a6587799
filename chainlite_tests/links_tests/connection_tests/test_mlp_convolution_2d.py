"""L.MLPConvolution2D: children, forward against its convolutions, Chainer's argument forms."""
import numpy
import pytest

import chainlite.functions as F
import chainlite.links as L


def test_children_and_forward():
    mlp = L.MLPConvolution2D(3, (4, 5, 2), 3, stride=1, pad=1, activation=F.tanh)
    assert [c.W.shape for c in mlp] == [(4, 3, 3, 3), (5, 4, 1, 1), (2, 5, 1, 1)]
    x = numpy.random.RandomState(0).randn(2, 3, 4, 4).astype(numpy.float32)
    h = F.tanh(mlp[0](x))
    h = F.tanh(mlp[1](h))
    numpy.testing.assert_allclose(mlp(x).array, mlp[2](h).array, rtol=1e-6)


def test_short_form_and_lazy_in_channels():
    mlp = L.MLPConvolution2D((4, 2), 1)
    assert mlp[0].W.array is None
    assert mlp(numpy.ones((1, 6, 3, 3), numpy.float32)).shape == (1, 2, 3, 3)
    assert mlp[0].W.shape == (4, 6, 1, 1)


def test_initializers():
    mlp = L.MLPConvolution2D(2, (3, 3), 1, conv_init=0.5, bias_init=0.25)
    for conv in mlp:
        numpy.testing.assert_array_equal(conv.W.array, 0.5)
        numpy.testing.assert_array_equal(conv.b.array, 0.25)


def test_bad_arguments():
    with pytest.raises(ValueError, match='out_channels'):
        L.MLPConvolution2D(3, (), 1)
    with pytest.raises(ValueError, match='wscale'):
        L.MLPConvolution2D(3, (4,), 1, wscale=1)
    with pytest.raises(TypeError, match='wscale'):
        L.MLPConvolution2D(3, (4,), 1, 1, 0, F.relu, 1)
