"""L.Swish: beta's shape (given or inferred), forward, beta's gradient, serialization."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L


def test_given_shape_and_init():
    s = L.Swish((3,), beta_init=0.5)
    assert s.beta.shape == (3,)
    numpy.testing.assert_array_equal(s.beta.array, 0.5)
    x = numpy.random.RandomState(0).randn(2, 3, 4).astype(numpy.float32)
    numpy.testing.assert_allclose(s(x).array, F.swish(x, s.beta.array).array)


def test_lazy_shape():
    s = L.Swish(None)
    assert s.beta.array is None
    y = s(numpy.ones((2, 4, 5), numpy.float32))
    assert s.beta.shape == (4, 5) and y.shape == (2, 4, 5)
    numpy.testing.assert_array_equal(s.beta.array, 1.0)


def test_beta_is_learned():
    s = L.Swish(())
    s.cleargrads()   # a Parameter made with a shape starts with a NaN gradient, as in Chainer
    x = numpy.array([[1.0, -2.0]], numpy.float32)
    F.sum(s(x)).backward()
    sig = 1 / (1 + numpy.exp(-x))
    numpy.testing.assert_allclose(s.beta.grad, (x * x * sig * (1 - sig)).sum(), rtol=1e-6)


def test_serialization_roundtrip():
    a, b = L.Swish((2,), beta_init=0.3), L.Swish((2,))
    chainlite.serializers.NpzDeserializer({'beta': a.beta.array}).load(b)
    numpy.testing.assert_array_equal(b.beta.array, a.beta.array)


def test_wrong_input_shape():
    with pytest.raises(chainlite.utils.type_check.InvalidType):
        L.Swish((3,))(numpy.zeros((2, 4), numpy.float32))
