"""F.dilated_convolution_2d: Chainer's name for a convolution with spread filter taps."""
import numpy

import chainlite.functions as F
from chainlite import gradient_check


def test_equals_a_convolution_with_a_zero_stuffed_filter():
    rs = numpy.random.RandomState(0)
    x = rs.randn(2, 3, 7, 7).astype(numpy.float32)
    W = rs.randn(4, 3, 2, 2).astype(numpy.float32)
    stuffed = numpy.zeros((4, 3, 3, 3), numpy.float32)   # taps 2 apart = a 3x3 with holes
    stuffed[:, :, ::2, ::2] = W
    y = F.dilated_convolution_2d(x, W, dilate=2, pad=1)
    numpy.testing.assert_allclose(y.array, F.convolution_2d(x, stuffed, pad=1).array,
                                  rtol=1e-5, atol=1e-5)
    assert y.dtype == numpy.float32


def test_gradients_to_second_order():
    rs = numpy.random.RandomState(1)
    x, W, b = rs.randn(1, 2, 5, 5), rs.randn(2, 2, 2, 2), rs.randn(2)

    def f(x, W, b):
        return F.dilated_convolution_2d(x, W, b, dilate=2)

    gy = rs.randn(1, 2, 3, 3)
    gradient_check.check_backward(f, (x, W, b), gy)
    gradient_check.check_double_backward(f, (x, W, b), gy, (rs.randn(*x.shape),
                                                            rs.randn(*W.shape),
                                                            rs.randn(*b.shape)))
