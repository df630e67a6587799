"""zoneout: the flags pick h or x, gradients follow them, test mode passes x through."""
import numpy
import pytest

import chainlite
import chainlite.functions as F
from chainlite import gradient_check
from chainlite.utils import type_check


def _data(dtype=numpy.float64):
    rs = numpy.random.RandomState(0)
    return rs.uniform(-1, 1, (3, 4)).astype(dtype), rs.uniform(-1, 1, (3, 4)).astype(dtype)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize('ratio', [0.0, 0.25, 0.5, 1.0])
def test_forward(ratio, dtype):
    h, x = _data(dtype)
    y = F.zoneout(chainlite.Variable(h), x, ratio)
    assert y.dtype == dtype
    node = y.creator
    numpy.testing.assert_array_equal(node.flag_h, ~node.flag_x)
    numpy.testing.assert_array_equal(y.array, numpy.where(node.flag_x, x, h))
    if ratio == 0:
        numpy.testing.assert_array_equal(y.array, x)
    if ratio == 1:
        numpy.testing.assert_array_equal(y.array, h)


def test_seeded_flags():
    h, x = _data()
    numpy.random.seed(3)
    flags = numpy.random.rand(3, 4) >= 0.5
    numpy.random.seed(3)
    y = F.zoneout(chainlite.Variable(h), x)
    numpy.testing.assert_array_equal(y.creator.flag_x, flags)


def test_backward_and_double_backward():
    h, x = _data()
    rs = numpy.random.RandomState(1)
    flags = rs.rand(3, 4)

    def f(h, x):
        # The same draw in every forward pass of the numerical check.
        state = numpy.random.get_state()
        numpy.random.seed(5)
        try:
            return F.zoneout(h, x, 0.5)
        finally:
            numpy.random.set_state(state)
    gy = rs.uniform(-1, 1, (3, 4))
    gradient_check.check_backward(f, (h, x), gy)
    gradient_check.check_double_backward(f, (h, x), gy, (flags, flags))


def test_test_mode_returns_x():
    h, x = _data()
    with chainlite.using_config('train', False):
        y = F.zoneout(h, x)
    assert isinstance(y, chainlite.Variable)
    numpy.testing.assert_array_equal(y.array, x)


def test_errors():
    h, x = _data()
    with pytest.raises(ValueError, match='train argument is not supported'):
        F.zoneout(h, x, train=True)
    with pytest.raises(TypeError, match='unexpected keyword'):
        F.zoneout(h, x, rate=0.5)
    with pytest.raises(type_check.InvalidType, match='Zoneout'):
        F.zoneout(h, x[:2])
