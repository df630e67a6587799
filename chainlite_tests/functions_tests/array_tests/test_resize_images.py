"""F.resize_images: bilinear (both corner conventions) and nearest, against a per-pixel loop."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.resize_images import resize_images
from chainlite.utils import type_check

# (input shape, output shape): up, down, mixed, to one pixel, from one pixel, same size.
SHAPES = [((2, 3, 3, 4), (5, 7)), ((1, 2, 6, 5), (3, 2)), ((1, 1, 4, 3), (2, 6)),
          ((2, 1, 3, 3), (1, 1)), ((1, 2, 1, 1), (3, 2)), ((1, 1, 3, 4), (3, 4)),
          ((0, 2, 3, 3), (2, 4))]
OPTIONS = [('bilinear', True), ('bilinear', False), ('nearest', True)]
OPTION_IDS = ['bilinear-align', 'bilinear-opencv', 'nearest']
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 5e-3, 'rtol': 5e-3},
       numpy.float32: {'atol': 1e-6, 'rtol': 1e-6},
       numpy.float64: {'atol': 1e-14, 'rtol': 1e-14}}


def _source(i, in_size, out_size, mode, align_corners):
    # Chainer's sampling position of output pixel i along one axis.
    if mode == 'nearest':
        return float(min(numpy.floor(i * (in_size / out_size)), in_size - 1))
    if align_corners:
        return 0.0 if out_size == 1 else i * (in_size - 1) / (out_size - 1)
    return max((i + 0.5) * in_size / out_size - 0.5, 0.0)


def _reference(x, out_shape, mode, align_corners):
    n, c, h, w = x.shape
    out_h, out_w = out_shape
    y = numpy.zeros((n, c, out_h, out_w))
    for i in range(out_h):
        v = _source(i, h, out_h, mode, align_corners)
        v0 = int(numpy.floor(v))
        v1, wv = min(v0 + 1, h - 1), v - v0
        for j in range(out_w):
            u = _source(j, w, out_w, mode, align_corners)
            u0 = int(numpy.floor(u))
            u1, wu = min(u0 + 1, w - 1), u - u0
            y[:, :, i, j] = ((1 - wv) * ((1 - wu) * x[:, :, v0, u0] + wu * x[:, :, v0, u1])
                             + wv * ((1 - wu) * x[:, :, v1, u0] + wu * x[:, :, v1, u1]))
    return y


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Interpolation is linear in x: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('mode, align_corners', OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize('in_shape, out_shape', SHAPES)
def test_forward(in_shape, out_shape, mode, align_corners, dtype):
    x = _uniform(in_shape, dtype)
    y = resize_images(chainlite.Variable(x), out_shape, mode=mode, align_corners=align_corners)
    expected = _reference(x.astype(numpy.float64), out_shape, mode, align_corners)
    assert y.shape == expected.shape
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y.array, expected, **TOL[dtype])


@pytest.mark.parametrize('mode, align_corners', OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize('in_shape, out_shape', SHAPES)
def test_backward(in_shape, out_shape, mode, align_corners):
    x = _uniform(in_shape)
    gy = _uniform(in_shape[:2] + out_shape, seed=1)
    gradient_check.check_backward(
        lambda x: resize_images(x, out_shape, mode, align_corners), (x,), (gy,))


@pytest.mark.parametrize('mode, align_corners', OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize('in_shape, out_shape', SHAPES)
def test_double_backward(in_shape, out_shape, mode, align_corners):
    x, ggx = _uniform(in_shape), _uniform(in_shape, seed=2)
    gy = _uniform(in_shape[:2] + out_shape, seed=1)
    for f in (lambda x: resize_images(x, out_shape, mode, align_corners),
              lambda x: resize_images(x * x, out_shape, mode, align_corners)):
        gradient_check.check_double_backward(f, (x,), (gy,), (ggx,))


def test_known_values():
    x = numpy.array([[[[0.0, 2.0], [4.0, 6.0]]]])
    numpy.testing.assert_allclose(resize_images(x, (3, 3)).array[0, 0],
                                  [[0, 1, 2], [2, 3, 4], [4, 5, 6]])
    # OpenCV's convention: doubling the size puts samples at -0.25 (clamped), 0.25, 0.75, ...
    numpy.testing.assert_allclose(resize_images(x, (2, 4), align_corners=False).array[0, 0],
                                  [[0.0, 0.5, 1.5, 2.0], [4.0, 4.5, 5.5, 6.0]])
    numpy.testing.assert_array_equal(resize_images(x, (2, 4), mode='nearest').array[0, 0],
                                     [[0, 0, 2, 2], [4, 4, 6, 6]])


def test_gradient_of_repeated_pixels_adds_up():
    # Nearest upsampling by 2 reads every pixel four times.
    x = chainlite.Variable(numpy.zeros((1, 1, 2, 3)))
    y = resize_images(x, (4, 6), mode='nearest')
    y.grad = numpy.ones(y.shape)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.full((1, 1, 2, 3), 4.0))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((1, 2, 3, 3), numpy.float32))
    y = resize_images(x, (5, 4))
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input_and_keyword_arguments():
    x = _uniform((1, 1, 3, 3))
    y = resize_images(x, output_shape=[2, 5], mode='bilinear', align_corners=False)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_allclose(y.array, _reference(x, (2, 5), 'bilinear', False))


@pytest.mark.parametrize('x', [numpy.zeros((1, 3, 3)), numpy.zeros((1, 1, 3, 3), numpy.int32),
                               numpy.zeros((1, 1, 0, 3))], ids=['3-d', 'int', 'empty image'])
def test_invalid_input_is_invalid_type(x):
    msg = re.escape('Invalid operation is performed in: ResizeImages (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        resize_images(x, (2, 2))


@pytest.mark.parametrize('kwargs', [dict(output_shape=(0, 2)), dict(output_shape=(2,)),
                                    dict(output_shape=(2, 2.5)),
                                    dict(output_shape=(2, 2), mode='bicubic')])
def test_bad_options_are_value_errors(kwargs):
    with pytest.raises(ValueError, match='resize_images'):
        resize_images(numpy.zeros((1, 1, 3, 3)), **kwargs)
