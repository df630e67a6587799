"""shift: channel groups moved over a grid of offsets; gradients, dtypes, errors."""
import numpy
import pytest

import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
# (shape, ksize, dilate)
CASES = [
    ((2, 9, 4, 5), 3, 1),
    ((1, 11, 4, 4), 3, 1),            # two channels left over: they stay in place
    ((1, 15, 5, 6), (3, 5), (2, 1)),
    ((1, 9, 3, 3), 3, -1),            # negative dilation shifts the other way
    ((1, 9, 3, 4), 3, 3),             # shifts past the image: zeros
    ((1, 3, 3, 3), 1, 1),             # a 1x1 grid is the identity
]


def _pair(v):
    return tuple(v) if isinstance(v, tuple) else (v, v)


def _reference(x, ksize, dilate):
    # Per channel: its group, the grid cell of that group (centre and last cell swapped),
    # then an explicit loop over the output pixels.
    kh, kw = _pair(ksize)
    dy, dx = _pair(dilate)
    n, c, h, w = x.shape
    groups = kh * kw
    size = c // groups
    y = numpy.zeros_like(x)
    for ch in range(c):
        g = min(ch // size, groups - 1)
        if g == (groups - 1) // 2:
            g = groups - 1
        elif g == groups - 1:
            g = (groups - 1) // 2
        ky, kx = g // kw - kh // 2, g % kw - kw // 2
        for r in range(h):
            for q in range(w):
                rr, qq = r - ky * dy, q - kx * dx
                if 0 <= rr < h and 0 <= qq < w:
                    y[:, ch, r, q] = x[:, ch, rr, qq]
    return y


def _uniform(shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape, ksize, dilate', CASES)
def test_forward(shape, ksize, dilate, dtype):
    x = _uniform(shape).astype(dtype)
    y = F.shift(x, ksize, dilate)
    assert y.dtype == dtype and y.shape == shape
    numpy.testing.assert_array_equal(y.array, _reference(x, ksize, dilate))


def test_centre_group_is_last():
    x = numpy.arange(9.0).reshape(1, 9, 1, 1) + 1
    # On a 1x1 image only the unshifted group survives: the last one.
    numpy.testing.assert_array_equal(F.shift(x).array.ravel(), [0] * 8 + [9])


@pytest.mark.parametrize('shape, ksize, dilate', CASES)
def test_gradients(shape, ksize, dilate):
    x, gy, ggx = _uniform(shape), _uniform(shape, 1), _uniform(shape, 2)
    gradient_check.check_backward(lambda x: F.shift(x, ksize, dilate), (x,), (gy,))
    gradient_check.check_double_backward(
        lambda x: F.shift(x * x, ksize, dilate), (x,), (gy,), (ggx,))


@pytest.mark.parametrize('ksize', [2, (3, 4), 0])
def test_even_ksize_rejected(ksize):
    with pytest.raises(ValueError, match='shift: ksize'):
        F.shift(numpy.zeros((1, 16, 3, 3)), ksize)


def test_zero_dilate_rejected():
    with pytest.raises(ValueError, match='shift: dilate'):
        F.shift(numpy.zeros((1, 9, 3, 3)), 3, 0)


@pytest.mark.parametrize('x', [numpy.zeros((1, 8, 3, 3)), numpy.zeros((1, 9, 3)),
                               numpy.zeros((1, 9, 3, 3), numpy.int32)])
def test_bad_input_rejected(x):
    with pytest.raises(type_check.InvalidType):
        F.shift(x, 3)
