"""local_convolution_2d: against a loop over output positions, gradients to 2nd order."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite.testing import gradients


def _expected(x, W, b, stride):
    x, W = x.astype(numpy.float64), W.astype(numpy.float64)
    c_out, out_h, out_w, _, kh, kw = W.shape
    sy, sx = stride
    y = numpy.zeros((x.shape[0], c_out, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            patch = x[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw]
            y[:, :, i, j] = numpy.einsum('ncpq,ocpq->no', patch, W[:, i, j])
    return y if b is None else y + b[None]


def _inputs(x_shape, W_shape, dtype=numpy.float64, bias=True):
    rng = numpy.random.RandomState(0)
    x = rng.randn(*x_shape).astype(dtype)
    W = rng.randn(*W_shape).astype(dtype)
    b = rng.randn(*W_shape[:3]).astype(dtype) if bias else None
    return x, W, b


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('bias', [True, False])
@pytest.mark.parametrize('x_shape, W_shape, stride', [
    ((2, 3, 5, 5), (4, 3, 3, 3, 3, 3), 1), ((2, 2, 6, 5), (3, 3, 2, 2, 2, 2), 2),
    ((1, 2, 7, 6), (2, 3, 2, 2, 3, 2), (2, 2))])
def test_forward(x_shape, W_shape, stride, bias, dtype):
    x, W, b = _inputs(x_shape, W_shape, dtype, bias)
    y = F.local_convolution_2d(x, W, b, stride)
    s = stride if isinstance(stride, tuple) else (stride, stride)
    assert y.dtype == dtype and y.shape == (x_shape[0],) + W_shape[:3]
    tol = 3e-2 if dtype == numpy.float16 else 1e-5
    numpy.testing.assert_allclose(y.array, _expected(x, W, b, s), rtol=tol, atol=tol)


def test_fewer_positions_than_room_for():
    # As Chainer: W decides the output size; positions further down and right are skipped.
    x, W, b = _inputs((1, 1, 6, 6), (1, 2, 2, 1, 2, 2))
    numpy.testing.assert_allclose(F.local_convolution_2d(x, W, b).array,
                                  _expected(x, W, b, (1, 1)))


@pytest.mark.parametrize('bias', [True, False])
def test_gradients(bias):
    x, W, b = _inputs((2, 2, 5, 4), (2, 2, 2, 2, 2, 3), bias=bias)
    args = (x, W) if b is None else (x, W, b)
    gradients.check_grads(lambda *a: F.local_convolution_2d(*a, stride=(2, 1)), args)


def test_mixed_dtype_weight_keeps_its_gradient_dtype():
    x = chainlite.Variable(numpy.ones((1, 1, 3, 3), numpy.float16))
    W = chainlite.Variable(numpy.ones((1, 2, 2, 1, 2, 2), numpy.float32))
    y = F.local_convolution_2d(x, W)
    assert y.dtype == numpy.float16
    F.sum(y).backward()
    assert W.grad.dtype == numpy.float32 and x.grad.dtype == numpy.float16


def test_errors():
    x, W, b = _inputs((1, 2, 5, 5), (1, 3, 3, 2, 3, 3))
    with pytest.raises(chainlite.utils.type_check.InvalidType, match='LocalConvolution2D'):
        F.local_convolution_2d(x[:, :1], W, b)
    with pytest.raises(chainlite.utils.type_check.InvalidType, match='b.shape'):
        F.local_convolution_2d(x, W, b[:, :2])
    with pytest.raises(ValueError, match='room'):
        F.local_convolution_2d(x[:, :, :4], W, b)


def test_gradients_with_fewer_positions_than_room_for():
    x, W, b = _inputs((1, 2, 5, 5), (2, 2, 3, 2, 2, 2))
    gradients.check_grads(F.local_convolution_2d, (x, W, b))
