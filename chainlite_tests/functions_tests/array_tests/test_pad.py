"""pad: numpy.pad in the modes that copy input elements; gradients fold the padding back."""
import re

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.pad import pad
from chainlite.utils import type_check

MODES = ['constant', 'edge', 'reflect', 'symmetric', 'wrap']
# (input shape, pad_width) in numpy.pad's forms; reflect and wrap pad past the input's
# length too (several copies of one element).
CASES = [((), 2),
         ((3,), 1),
         ((3,), (2, 5)),
         ((1,), (2, 1)),
         ((2, 3), ((0, 1), (4, 2))),
         ((2, 3), [[3, 0]]),
         ((2, 3), (1,)),
         ((2, 1, 3), ((1, 1), (0, 0), (2, 3))),
         ((2, 3), 0)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Padding is linear: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('shape, pad_width', CASES)
def test_forward(shape, pad_width, mode, dtype):
    x = _uniform(shape, dtype)
    y = pad(chainlite.Variable(x), pad_width, mode)
    assert y.dtype == dtype
    numpy.testing.assert_array_equal(y.array, numpy.pad(x, pad_width, mode=mode))


@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('shape, pad_width', CASES)
def test_backward(shape, pad_width, mode):
    x = _uniform(shape)
    gy = _uniform(numpy.pad(x, pad_width, mode=mode).shape, seed=1)
    gradient_check.check_backward(lambda x: pad(x, pad_width, mode), x, gy)


@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('shape, pad_width', CASES)
def test_double_backward(shape, pad_width, mode):
    x, ggx = _uniform(shape), _uniform(shape, seed=2)
    gy = _uniform(numpy.pad(x, pad_width, mode=mode).shape, seed=1)
    gradient_check.check_double_backward(lambda x: pad(x, pad_width, mode), x, gy, ggx)
    gradient_check.check_double_backward(lambda x: pad(x * x, pad_width, mode), x, gy, ggx)


@pytest.mark.parametrize('values', [7, (1, 2), ((1, 2), (3, 4))])
def test_constant_values(values):
    x = _uniform((2, 3), numpy.float32)
    y = pad(x, 1, 'constant', constant_values=values)
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, numpy.pad(x, 1, constant_values=values))
    gy = _uniform(y.shape, seed=1)
    gradient_check.check_backward(
        lambda x: pad(x, 1, 'constant', constant_values=values), x.astype(numpy.float64), gy)


def test_copied_elements_add_up_their_gradients():
    x = chainlite.Variable(numpy.zeros(2))
    y = pad(x, (3, 0), 'edge')  # [x0, x0, x0, x0, x1]
    y.grad = numpy.array([1.0, 10.0, 100.0, 1000.0, 5.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [1111.0, 5.0])


def test_constant_padding_gets_no_gradient():
    x = chainlite.Variable(numpy.zeros(2))
    y = pad(x, 1, 'constant', constant_values=3.0)
    y.grad = numpy.array([1.0, 2.0, 3.0, 4.0])
    y.backward()
    numpy.testing.assert_array_equal(x.grad, [2.0, 3.0])


def test_reflect_type_even_is_accepted():
    x = _uniform((4,))
    numpy.testing.assert_array_equal(pad(x, 2, 'reflect', reflect_type='even').array,
                                     numpy.pad(x, 2, mode='reflect'))


@pytest.mark.parametrize('mode', MODES)
def test_float32_in_float32_out(mode):
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = pad(x, 2, mode)
    assert y.dtype == numpy.float32
    y.grad = numpy.ones_like(y.array)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_array_input():
    y = pad(_uniform((2,)), 1, 'edge')
    assert isinstance(y, chainlite.Variable)


@pytest.mark.parametrize('dtype', [numpy.int32, numpy.bool_])
def test_non_float_input_is_invalid(dtype):
    msg = re.escape('Invalid operation is performed in: Pad (Forward)')
    with pytest.raises(type_check.InvalidType, match=msg):
        pad(numpy.ones(3, dtype), 1, 'constant')


@pytest.mark.parametrize('mode, keywords', [
    ('mean', {}), ('linear_ramp', {}), ('maximum', {}), ('empty', {}),
    ('reflect', {'reflect_type': 'odd'})])
def test_modes_that_do_not_copy_elements_are_refused(mode, keywords):
    with pytest.raises(ValueError, match='pad'):
        pad(numpy.ones(3), 1, mode, **keywords)


@pytest.mark.parametrize('pad_width, error', [
    (-1, ValueError), (((1, 2), (3, 4)), ValueError), (1.5, TypeError)])
def test_bad_pad_width(pad_width, error):
    with pytest.raises(error, match='pad'):
        pad(numpy.ones(3), pad_width, 'constant')
