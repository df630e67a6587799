"""F.depthwise_convolution_2d: a per-channel convolution, gradients to second order."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check


def _loop_reference(x, W, b, stride, pad):
    # Direct definition: output channel c*m + k is input channel c convolved with W[k, c].
    m, c, kh, kw = W.shape
    xp = numpy.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (xp.shape[2] - kh) // stride + 1
    ow = (xp.shape[3] - kw) // stride + 1
    y = numpy.zeros((x.shape[0], c * m, oh, ow))
    for ci in range(c):
        for k in range(m):
            for i in range(oh):
                for j in range(ow):
                    patch = xp[:, ci, i * stride:i * stride + kh, j * stride:j * stride + kw]
                    y[:, ci * m + k, i, j] = (patch * W[k, ci]).sum(axis=(1, 2))
    if b is not None:
        y += b[None, :, None, None]
    return y


@pytest.mark.parametrize('stride,pad', [(1, 0), (2, 1)])
@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_forward_matches_the_definition(stride, pad, dtype):
    rs = numpy.random.RandomState(0)
    x = rs.randn(2, 3, 5, 5).astype(dtype)
    W = rs.randn(2, 3, 3, 3).astype(dtype)
    b = rs.randn(6).astype(dtype)
    y = F.depthwise_convolution_2d(x, W, b, stride, pad)
    assert y.dtype == dtype
    tol = 5e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(y.array, _loop_reference(x.astype(numpy.float64),
                                                           W.astype(numpy.float64),
                                                           b.astype(numpy.float64), stride, pad),
                                  atol=tol, rtol=tol)


def test_gradients_to_second_order():
    rs = numpy.random.RandomState(1)
    x, W, b = rs.randn(1, 2, 4, 4), rs.randn(2, 2, 2, 2), rs.randn(4)
    gy = rs.randn(1, 4, 3, 3)

    def f(x, W, b):
        return F.depthwise_convolution_2d(x, W, b)

    gradient_check.check_backward(f, (x, W, b), gy)
    gradient_check.check_double_backward(f, (x, W, b), gy, (rs.randn(*x.shape),
                                                            rs.randn(*W.shape),
                                                            rs.randn(*b.shape)))


def test_float32_gradients_stay_float32():
    x = chainlite.Variable(numpy.ones((1, 2, 3, 3), numpy.float32))
    W = chainlite.Variable(numpy.ones((1, 2, 2, 2), numpy.float32))
    F.sum(F.depthwise_convolution_2d(x, W)).backward()
    assert x.grad.dtype == numpy.float32 and W.grad.dtype == numpy.float32
