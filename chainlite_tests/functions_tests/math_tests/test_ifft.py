"""ifft: the inverse discrete Fourier transform of (real, imag) pairs along the last axis."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.math.ifft import ifft
from chainlite.utils import type_check

SHAPES = [(1,), (4,), (5,), (2, 3), (2, 3, 4)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: {'atol': 2e-2, 'rtol': 1e-2},
       numpy.float32: {'atol': 1e-5, 'rtol': 1e-5},
       numpy.float64: {'atol': 1e-12, 'rtol': 1e-12}}


def _pair(shape, dtype=numpy.float64, seed=0):
    # A linear op is smooth everywhere: any values will do.
    rs = numpy.random.RandomState(seed)
    return rs.uniform(-1, 1, shape).astype(dtype), rs.uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, dtype):
    r, i = _pair(shape, dtype)
    yr, yi = ifft((chainlite.Variable(r), chainlite.Variable(i)))
    expected = numpy.fft.ifft(r.astype(numpy.float64) + 1j * i.astype(numpy.float64))
    for y, e in ((yr, expected.real), (yi, expected.imag)):
        assert y.shape == shape and y.dtype == dtype
        numpy.testing.assert_allclose(y.array, e, **TOL[dtype])


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    gradient_check.check_backward(lambda r, i: ifft((r, i)), _pair(shape), _pair(shape, seed=1))


@pytest.mark.parametrize('shape', SHAPES)
def test_backward_one_output_used(shape):
    # The unused output's gradient is None inside backward.
    gr, _ = _pair(shape, seed=1)
    gradient_check.check_backward(lambda r, i: ifft((r, i))[0], _pair(shape), (gr,))
    gradient_check.check_backward(lambda r, i: ifft((r, i))[1], _pair(shape), (gr,))


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    gradient_check.check_double_backward(lambda r, i: ifft((r, i)), _pair(shape),
                                         _pair(shape, seed=1), _pair(shape, seed=2))


def test_float32_in_float32_out():
    r, i = (chainlite.Variable(a) for a in _pair((2, 4), numpy.float32))
    yr, yi = ifft((r, i))
    assert yr.dtype == yi.dtype == numpy.float32
    yr.grad = numpy.ones_like(yr.array)
    yr.backward()
    assert r.grad.dtype == numpy.float32 and i.grad.dtype == numpy.float32


def test_arrays_and_variables_accepted():
    r, i = _pair((4,))
    for pair in ((r, i), (chainlite.Variable(r), i), [r, chainlite.Variable(i)]):
        yr, yi = ifft(pair)
        assert isinstance(yr, chainlite.Variable) and isinstance(yi, chainlite.Variable)
        numpy.testing.assert_allclose(yr.array + 1j * yi.array, numpy.fft.ifft(r + 1j * i),
                                      rtol=1e-12)


@pytest.mark.parametrize('r, i', [
    (numpy.ones(()), numpy.ones(())),                       # 0-d
    (numpy.ones(3), numpy.ones(4)),                         # shapes differ
    (numpy.ones(3), numpy.ones(3, numpy.float32)),          # dtypes differ
    (numpy.ones(3, numpy.int32), numpy.ones(3, numpy.int32)),
])
def test_invalid(r, i):
    msg = re.escape('Invalid operation is performed in: IFFT (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        ifft((r, i))
