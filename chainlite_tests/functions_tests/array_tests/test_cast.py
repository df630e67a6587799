"""cast: every float-to-float pair, ints, gradients cast back, no-backprop shortcut, errors."""
import itertools

import numpy
import pytest

import chainlite
from chainlite import gradient_check
from chainlite.functions.array.cast import cast

SHAPES = [(), (3,), (2, 3)]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
PAIRS = list(itertools.product(DTYPES, DTYPES))


def _uniform(shape, dtype=numpy.float64, seed=0):
    # Casting is linear up to rounding: any values will do.
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


@pytest.mark.parametrize('in_dtype, out_dtype', PAIRS)
@pytest.mark.parametrize('shape', SHAPES)
def test_forward(shape, in_dtype, out_dtype):
    x = _uniform(shape, in_dtype)
    y = cast(chainlite.Variable(x), out_dtype)
    assert y.shape == shape
    assert y.dtype == out_dtype
    numpy.testing.assert_array_equal(y.array, x.astype(out_dtype))


@pytest.mark.parametrize('in_dtype, out_dtype', PAIRS)
def test_gradient_is_cast_back(in_dtype, out_dtype):
    x = chainlite.Variable(_uniform((2, 3), in_dtype))
    y = cast(x, out_dtype)
    gy = _uniform((2, 3), out_dtype, seed=1)
    y.grad = gy
    y.backward()
    assert x.grad.dtype == in_dtype
    numpy.testing.assert_array_equal(x.grad, gy.astype(in_dtype))


@pytest.mark.parametrize('shape', SHAPES)
def test_backward(shape):
    # float64 -> float64 keeps the numerical check exact; float64 -> float32 rounds at 1e-7.
    gradient_check.check_backward(lambda x: cast(x, numpy.float64), (_uniform(shape),),
                                  (_uniform(shape, seed=1),))
    gradient_check.check_backward(lambda x: cast(x, numpy.float32), (_uniform(shape),),
                                  (_uniform(shape, numpy.float32, seed=1),), eps=1e-2,
                                  atol=1e-4, rtol=1e-3)


@pytest.mark.parametrize('shape', SHAPES)
def test_double_backward(shape):
    x, gy, ggx = _uniform(shape), _uniform(shape, seed=1), _uniform(shape, seed=2)
    gradient_check.check_double_backward(lambda x: cast(x, 'float64'), (x,), (gy,), (ggx,))
    gradient_check.check_double_backward(lambda x: cast(x * x, numpy.float64), (x,), (gy,),
                                         (ggx,))


def test_float32_in_float32_out():
    x = chainlite.Variable(_uniform((2, 3), numpy.float32))
    y = cast(x, numpy.float32)
    assert y is not x and y.dtype == numpy.float32
    y.grad = numpy.ones((2, 3), numpy.float32)
    y.backward()
    assert x.grad.dtype == numpy.float32


def test_integer_input_has_no_gradient():
    x = chainlite.Variable(numpy.arange(3))
    y = cast(x, numpy.float32)
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, [0.0, 1.0, 2.0])
    y.grad = numpy.ones(3, numpy.float32)
    y.backward()
    assert x.grad is None


def test_float_to_int_truncates():
    y = cast(numpy.array([1.7, -1.7]), 'i')
    assert y.dtype == numpy.int32
    numpy.testing.assert_array_equal(y.array, [1, -1])


def test_same_dtype_without_backprop_returns_the_input():
    x = chainlite.Variable(_uniform((3,)))
    with chainlite.no_backprop_mode():
        assert cast(x, numpy.float64) is x
        assert cast(x, numpy.float32).dtype == numpy.float32
    a = _uniform((3,))
    with chainlite.no_backprop_mode():
        assert cast(a, 'float64').array is a


def test_array_input_and_typecodes():
    x = _uniform((3,))
    for typ, dtype in (('f', numpy.float32), ('float16', numpy.float16),
                       (numpy.dtype('d'), numpy.float64)):
        y = cast(x, typ)
        assert isinstance(y, chainlite.Variable)
        assert y.dtype == dtype


@pytest.mark.parametrize('typ', ['no such type', object()])
def test_unknown_dtype_is_a_type_error(typ):
    with pytest.raises(TypeError):
        cast(numpy.zeros(3), typ)
