"""L.LocalConvolution2D and L.DeformableConvolution2D: parameter shapes, lazy init, forward."""
import numpy

import chainlite.functions as F
import chainlite.links as L


def test_local_convolution_shapes_and_forward():
    layer = L.LocalConvolution2D(2, 3, in_size=(6, 5), ksize=(3, 2), stride=(1, 2))
    assert layer.W.shape == (3, 4, 2, 2, 3, 2) and layer.b.shape == (3, 4, 2)
    numpy.testing.assert_array_equal(layer.b.array, 0)
    x = numpy.random.RandomState(0).randn(2, 2, 6, 5).astype(numpy.float32)
    numpy.testing.assert_allclose(
        layer(x).array, F.local_convolution_2d(x, layer.W, layer.b, (1, 2)).array)


def test_local_convolution_lazy_and_nobias():
    layer = L.LocalConvolution2D(None, 2, ksize=2, nobias=True)
    assert layer.W.array is None and layer.b is None
    assert layer(numpy.ones((1, 3, 4, 4), numpy.float32)).shape == (1, 2, 3, 3)
    assert layer.W.shape == (2, 3, 3, 3, 2, 2)


def test_deformable_convolution_links():
    layer = L.DeformableConvolution2D(2, 4, 3, stride=2, pad=1)
    assert [n for n, _ in layer.namedparams()] == [
        '/offset_conv/W', '/offset_conv/b', '/deform_conv/W', '/deform_conv/b']
    assert layer.offset_conv.W.shape == (18, 2, 3, 3)
    assert layer.deform_conv.W.shape == (4, 2, 3, 3)
    numpy.testing.assert_array_equal(layer.deform_conv.W.array, 0)   # Chainer's default
    layer.deform_conv.W.array[...] = numpy.random.RandomState(0).randn(4, 2, 3, 3)
    layer.offset_conv.W.array[...] = 0   # no offsets: a plain convolution
    x = numpy.random.RandomState(1).randn(1, 2, 5, 5).astype(numpy.float32)
    numpy.testing.assert_allclose(
        layer(x).array, F.convolution_2d(x, layer.deform_conv.W, layer.deform_conv.b, 2,
                                         1).array, rtol=1e-5, atol=1e-5)


def test_deformable_convolution_lazy():
    layer = L.DeformableConvolution2D(None, 3, 2, deform_nobias=True)
    assert layer.deform_conv.b is None
    assert layer(numpy.ones((1, 2, 4, 4), numpy.float32)).shape == (1, 3, 3, 3)
    assert layer.deform_conv.W.shape == (3, 2, 2, 2)
